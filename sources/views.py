"""The view of a source: the group's aliases and the season, applied to every history before it is rated.

A view travels beside the source, as the ``"view"`` member of the source's JSON form in the page's store
(``{"kind": "sample", "name": "poker", "view": {"aliases": <id>, "from": "2024-01-01", "to": ..., "last": 50}}``),
and in the address as ``aliases=<id>&from=...&to=...&last=...``.  The alias map itself is kept on the server by
content, as edits are (:func:`keep_aliases`): the page and the link carry only its id, a reload keeps it, and every
source (sample, upload, sheet, edit) is read through it.  The source classes know nothing of views:
:func:`apply` turns a source's :class:`~sources.model.Loaded` into the viewed one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any

from ratings.aliases import AliasError, apply_aliases, check_aliases
from ratings.seasons import Season, SeasonError, restrict
from sources.histories import CONTENT_ID, MissingHistory, fetch_json, keep_json
from sources.model import LRU, DataError, Loaded
from sources.store import StoreError

__all__ = ["View", "apply", "fetch_aliases", "keep_aliases", "view_of", "with_view"]

_KIND = "aliases"
_VIEWED: LRU[Loaded] = LRU(32)
_ALIASES: LRU[dict[str, str]] = LRU(64)


@dataclass(frozen=True)
class View:
    """The aliases' id (``None``: none declared) and the season."""

    aliases: str | None = None
    season: Season = Season()

    @property
    def whole(self) -> bool:
        return self.aliases is None and self.season.whole

    @property
    def key(self) -> str:
        """What this view adds to a history's cache key."""
        s = self.season
        return f"view:{self.aliases or ''}|{s.start or ''}|{s.end or ''}|{s.last or ''}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.aliases:
            out["aliases"] = self.aliases
        if self.season.start is not None:
            out["from"] = self.season.start.isoformat()
        if self.season.end is not None:
            out["to"] = self.season.end.isoformat()
        if self.season.last is not None:
            out["last"] = self.season.last
        return out

    def query(self) -> list[tuple[str, str]]:
        """The view in an address (``aliases``, ``from``, ``to``, ``last``)."""
        return [(k, str(v)) for k, v in self.to_json().items()]

    @classmethod
    def from_json(cls, value: Any) -> View:
        """A view from untrusted JSON (a store, an address); :class:`DataError` for anything malformed."""
        if value is None:
            return cls()
        if not isinstance(value, dict):
            raise DataError(["the page sent no readable view; reload the page"])
        aliases = value.get("aliases") or None
        if aliases is not None and (not isinstance(aliases, str) or not CONTENT_ID.fullmatch(aliases)):
            raise DataError(["the aliases' id in the page or link is not valid; declare the aliases again"])
        last = value.get("last")
        if isinstance(last, str) and last.strip().isdigit() and len(last.strip()) < 9:
            last = int(last.strip())
        if last is not None and (isinstance(last, bool) or not isinstance(last, int)):
            raise DataError(["the number of last games is not a whole number"])
        try:
            season = Season(_date(value.get("from"), "from"), _date(value.get("to"), "to"), last)
        except SeasonError as exc:
            raise DataError([str(exc)]) from None
        return cls(aliases, season)

    @classmethod
    def from_query(cls, pairs: dict[str, str]) -> dict[str, Any] | None:
        """The view's JSON form from an address's pairs, or None when it names none (checked when read)."""
        wanted = {k: pairs[k][:64] for k in ("aliases", "from", "to", "last") if pairs.get(k)}
        return wanted or None


def _date(value: Any, what: str) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise DataError([f"the season's '{what}' date {str(value)[:20]!r} is not a date (YYYY-MM-DD)"])


def view_of(source: Any) -> View:
    """The view a source's JSON form carries (the whole history, without aliases, when it carries none)."""
    return View.from_json(source.get("view")) if isinstance(source, dict) else View()


def with_view(source: dict[str, Any], view: View) -> dict[str, Any]:
    """``source`` (JSON form) carrying ``view`` (or no view when it is the whole history without aliases)."""
    out = {k: v for k, v in source.items() if k != "view"}
    if not view.whole:
        out["view"] = view.to_json()
    return out


def keep_aliases(aliases: dict[str, str]) -> str | None:
    """Keep an alias map on the server by content; its id (``None`` for no aliases).  Checked first
    (:class:`DataError` with the reason for a cycle or an empty name)."""
    try:
        resolved = check_aliases(aliases)
    except AliasError as exc:
        raise DataError([str(exc)]) from None
    if not resolved:
        return None
    try:
        return keep_json(_KIND, {"v": 1, "aliases": sorted([a, n] for a, n in aliases.items())})
    except StoreError as exc:
        raise DataError([str(exc)]) from None


def fetch_aliases(cid: str | None) -> dict[str, str]:
    """The alias map (as declared, alias -> name) kept under ``cid``; :class:`DataError` when it is gone."""
    if cid is None:
        return {}
    return dict(_ALIASES.get_or_make(cid, lambda: _fetch(cid)))


def _fetch(cid: str) -> dict[str, str]:
    try:
        payload = fetch_json(_KIND, cid)
    except MissingHistory:
        raise DataError(
            ["the aliases of this page or link are no longer on the server (kept 30 days after their last use)"]
        ) from None
    except StoreError as exc:
        raise DataError([str(exc)]) from None
    pairs = payload.get("aliases") if isinstance(payload, dict) else None
    if not isinstance(pairs, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(n, str) for n in p) for p in pairs
    ):
        raise DataError(["the aliases kept under this id are not readable; declare them again"])
    return {a: n for a, n in pairs}


def apply(loaded: Loaded, view: View) -> Loaded:
    """``loaded`` seen through ``view``: aliases merged, then the season cut; :class:`DataError` saying why
    when it cannot be (a game holding a player under both names, a season with no game)."""
    if view.whole:
        return loaded
    key = f"{loaded.key}|{view.key}"
    viewed = _VIEWED.get_or_make(key, lambda: _apply(loaded, view, key))
    label = f"{loaded.label} · {shown_text(view, viewed, loaded)}"
    return dataclasses.replace(viewed, label=label, warnings=loaded.warnings)


def shown_text(view: View, viewed: Loaded, loaded: Loaded) -> str:
    """What a view shows of a history: "games from 2024-01-01 to 2024-06-30: 57 of 150; 2 aliases merged"."""
    parts = []
    if not view.season.whole:
        parts.append(f"{view.season}: {viewed.history.n_games} of {loaded.history.n_games}")
    if view.aliases is not None:
        count = len(fetch_aliases(view.aliases))
        parts.append(f"{count} alias{'es' if count != 1 else ''} declared")
    return "; ".join(parts)


def _apply(loaded: Loaded, view: View, key: str) -> Loaded:
    history = loaded.history
    try:
        if view.aliases is not None:
            history = apply_aliases(history, check_aliases(fetch_aliases(view.aliases)))
        history = restrict(history, view.season)
    except (AliasError, SeasonError) as exc:
        raise DataError([str(exc)]) from None
    return Loaded(history, key, loaded.label, loaded.warnings)
