"""Aliases of the data in use: likely duplicate names, and merging an alias into a player (or no longer) in the
source's view, which every feature then reads (the aliases are kept on the server by content, :mod:`sources.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ratings.aliases import Suspect, likely_duplicates
from ratings.io.names import clean_name
from sources.model import DataError
from sources.runs import load
from sources.views import View, fetch_aliases, keep_aliases, view_of, with_view

__all__ = ["Declared", "declare", "declared_and_players", "remove", "suspects_of"]


@dataclass
class Declared:
    """The outcome of declaring or removing an alias: the new source (``None``: unchanged) and what to say."""

    source: dict[str, Any] | None
    message: str
    ok: bool


def _aliased_only(source: dict[str, Any]) -> dict[str, Any]:
    """``source`` with its aliases but the whole history (likely duplicates are looked for in every game)."""
    return with_view(source, View(view_of(source).aliases))


def suspects_of(source: Any) -> list[Suspect]:
    """Likely duplicates in the source's history, its aliases applied (none when it cannot be read)."""
    if not isinstance(source, dict):
        return []
    try:
        history = load(_aliased_only(source)).history
    except DataError:
        return []
    return likely_duplicates(history)


def _with_aliases(source: dict[str, Any], aliases: dict[str, str], message: str) -> Declared:
    try:
        cid = keep_aliases(aliases)
        view = view_of(source)
        updated = with_view(source, View(cid, view.season))
        load(updated)  # a game with both names, or a season now empty, is said now, not on every chart
    except DataError as exc:
        return Declared(None, "Not merged: " + " ".join(exc.messages), False)
    return Declared(updated, message, True)


def declare(source: Any, alias: Any, name: Any) -> Declared:
    """Merge ``alias`` into ``name`` in the view of ``source`` (every source the page shows from now on)."""
    if not isinstance(source, dict):
        return Declared(None, "No data is in use yet.", False)
    alias_text = clean_name(alias if isinstance(alias, str) else "")
    name_text = clean_name(name if isinstance(name, str) else "")
    if not alias_text or not name_text:
        return Declared(None, "Enter the name to replace and the player's name.", False)
    try:
        aliases = fetch_aliases(view_of(source).aliases)
        players = load(_aliased_only(source)).history.player_index
    except DataError as exc:
        return Declared(None, " ".join(exc.messages), False)
    if alias_text not in players:
        return Declared(None, f"Not merged: no player is called '{alias_text}' in this data.", False)
    aliases[alias_text] = name_text
    return _with_aliases(source, aliases, f"'{alias_text}' is now merged into '{name_text}'.")


def remove(source: Any, index: int) -> Declared:
    """Stop merging the ``index``-th alias (as :func:`layouts.aliases.alias_list` lists them)."""
    if not isinstance(source, dict):
        return Declared(None, "No data is in use yet.", False)
    try:
        aliases = fetch_aliases(view_of(source).aliases)
    except DataError as exc:
        return Declared(None, " ".join(exc.messages), False)
    ordered = sorted(aliases)
    if not 0 <= index < len(ordered):
        return Declared(None, "That alias is no longer declared.", False)
    alias = ordered[index]
    name = aliases.pop(alias)
    return _with_aliases(source, aliases, f"'{alias}' is no longer merged into '{name}'.")


def declared_and_players(source: Any) -> tuple[dict[str, str], tuple[str, ...]]:
    """The aliases declared in the view of ``source`` and the players of its history with them applied (both empty
    when it cannot be read)."""
    if not isinstance(source, dict):
        return {}, ()
    try:
        return fetch_aliases(view_of(source).aliases), load(_aliased_only(source)).history.players
    except DataError:
        return {}, ()
