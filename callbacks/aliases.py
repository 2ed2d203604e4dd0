"""Aliases: warn about likely duplicate names; merge an alias into a player (kept by content, in the view)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import DataError, load_source
from layouts.aliases import alias_list, suspects_warning
from layouts.ids import Aliases, AliasType, Data
from layouts.summary import summary_text
from ratings.aliases import Suspect, likely_duplicates
from ratings.io.names import clean_name
from sources.views import View, fetch_aliases, keep_aliases, view_of, with_view

__all__ = ["Declared", "declare", "remove", "suspects_of"]


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
        history = load_source(_aliased_only(source)).history
    except DataError:
        return []
    return likely_duplicates(history)


def _with_aliases(source: dict[str, Any], aliases: dict[str, str], message: str) -> Declared:
    try:
        cid = keep_aliases(aliases)
        view = view_of(source)
        updated = with_view(source, View(cid, view.season))
        load_source(updated)  # a game with both names, or a season now empty, is said now, not on every chart
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
        players = load_source(_aliased_only(source)).history.player_index
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


# data source -> likely-duplicates warning, the pairs it offers, the declared aliases, the names offered
@callback(
    Output(Aliases.SUSPECTS, "children"),
    Output(Aliases.PAIRS, "data"),
    Output(Aliases.LIST, "children"),
    Output(Aliases.NAMES_DATA, "data"),
    Input(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_source(source: Any) -> tuple[Any, ...]:
    suspects = suspects_of(source)
    try:
        aliases = fetch_aliases(view_of(source).aliases) if isinstance(source, dict) else {}
        players = load_source(_aliased_only(source)).history.players if isinstance(source, dict) else ()
    except DataError:
        aliases, players = {}, ()
    names = sorted(players, key=str.casefold)
    pairs = [[s.rare, s.common] for s in suspects]
    return suspects_warning(suspects), pairs, alias_list(aliases), names


def _note(result: Declared) -> list[Any]:
    return [
        dbc.Alert(
            result.message,
            color="success" if result.ok else "danger",
            className="small py-1 mb-1",
            dismissable=True,
        )
    ]


# Merge button, a likely duplicate's merge button, an alias's remove button -> data source (with the new view),
# message, the summary line
@callback(
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Aliases.MESSAGE, "children"),
    Output(Aliases.ALIAS, "value"),
    Output(Aliases.NAME, "value"),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Input(Aliases.MERGE, "n_clicks"),
    Input({"type": AliasType.MERGE_SUSPECT, "index": ALL}, "n_clicks"),
    Input({"type": AliasType.REMOVE, "index": ALL}, "n_clicks"),
    State(Aliases.ALIAS, "value"),
    State(Aliases.NAME, "value"),
    State(Aliases.PAIRS, "data"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_merge(_merge, suspect_clicks, remove_clicks, alias, name, pairs, source) -> tuple[Any, ...]:  # type: ignore[no-untyped-def]
    trigger = ctx.triggered_id
    if not ctx.triggered or not ctx.triggered[0].get("value"):
        raise PreventUpdate  # a button list redrawn, nothing clicked
    if trigger == Aliases.MERGE:
        result = declare(source, alias, name)
    elif isinstance(trigger, dict) and trigger.get("type") == AliasType.MERGE_SUSPECT:
        index = trigger.get("index")
        if not isinstance(pairs, list) or not isinstance(index, int) or not 0 <= index < len(pairs):
            raise PreventUpdate
        result = declare(source, pairs[index][0], pairs[index][1])
    elif isinstance(trigger, dict) and trigger.get("type") == AliasType.REMOVE:
        index = trigger.get("index")
        result = remove(source, index if isinstance(index, int) else -1)
    else:
        raise PreventUpdate
    cleared = "" if result.ok and trigger == Aliases.MERGE else no_update
    if result.source is None:
        return no_update, _note(result), cleared, cleared, no_update
    return result.source, _note(result), cleared, cleared, summary_text(load_source(result.source))
