"""Game histories kept on the server by content: uploads, edits and recorded games share one rule.

:func:`keep` stores a history under a content id the server computes from the history itself (SHA-256 of its
canonical serialisation, 128 bits shown as 32 hex digits), so an id is unguessable without the content, two users
with the same content share one entry, and nothing a browser sends can put other content under an id.  The user's
own file name is not part of the content: it belongs to that user's source, not to the shared entry.

:func:`fetch` returns the history for an id, or raises :class:`MissingHistory` when the store no longer holds it
(expired, or an id that never existed).  A history is immutable, so each process may keep recently used ones in
memory by id.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import zlib
from collections import OrderedDict
from typing import Any

from ratings import Entry, Game, GameHistory
from ratings.io.writing import when
from sources.forksafe import ForkSafeLock
from sources.store import Store, shared_store

__all__ = [
    "CONTENT_ID",
    "MissingHistory",
    "content_id",
    "fetch",
    "fetch_json",
    "keep",
    "keep_json",
    "read_when",
    "serialise",
]

#: What a content id looks like (anything else is refused before the store is asked).
CONTENT_ID = re.compile(r"[0-9a-f]{32}")
#: Largest serialised history accepted back from the store (a 200,000-row history is about 8 MB).
MAX_SERIALISED = 64 << 20


class MissingHistory(LookupError):
    """The store holds no history under this id (expired, or never stored)."""


def serialise(history: GameHistory) -> bytes:
    """Canonical JSON of a history: ``[[game, date or null, [[player, place or null for DNF], ...]], ...]``; a date
    is written as the writers write it (:func:`ratings.io.writing.when`: ``2024-05-31``, with `` 18:30`` where the
    game has a time of day); an entry with a team or a partial weight is ``[player, place, team or null, weight]``
    (a game without a time and an entry without a team are written as before, so such histories keep their content
    ids)."""
    games = [
        [
            game.id,
            when(game) or None,
            [
                [e.player, e.place] if e.team is None and e.weight == 1.0 else [e.player, e.place, e.team, e.weight]
                for e in game.entries
            ],
        ]
        for game in history.games
    ]
    return json.dumps({"v": 1, "games": games}, ensure_ascii=False, separators=(",", ":")).encode()


def _deserialise(data: bytes) -> GameHistory:
    """The history :func:`serialise` wrote, rebuilt game by game as it was (order, ids and names untouched).

    Not through ``GameHistory.from_records``: that reader re-sorts dated games by date and cleans ids and names,
    so an edited or recorded history (a game added out of date order) would come back different from the one kept.
    Raises ValueError or TypeError when ``data`` is not a serialised history.
    """
    payload = json.loads(data)
    if not isinstance(payload, dict) or payload.get("v") != 1 or not isinstance(payload.get("games"), list):
        raise ValueError("not a serialised history")
    games = []
    for game_id, date, entries in payload["games"]:
        if not isinstance(game_id, str) or not isinstance(date, str | None) or not isinstance(entries, list):
            raise ValueError("not a serialised game")
        played = []
        for entry in entries:
            if not isinstance(entry, list) or len(entry) not in (2, 4):
                raise ValueError("not a serialised entry")
            player, place, team, weight = (*entry, None, 1.0) if len(entry) == 2 else entry
            if (
                not isinstance(player, str)
                or not (place is None or type(place) is int)
                or not (team is None or isinstance(team, str))
                or type(weight) not in (int, float)
                or not 0 < weight <= 1
            ):
                raise ValueError("not a serialised entry")
            played.append(Entry(player, place, team, float(weight)))
        day, time = (None, None) if date is None else read_when(date)
        games.append(Game(game_id, tuple(played), day, time))
    return GameHistory(games)


def read_when(text: str) -> tuple[dt.date, dt.time | None]:
    """A date as :func:`ratings.io.writing.when` writes it, back as the date and its time of day (``None`` when it
    has none); ValueError when ``text`` is not one.  For what this app wrote itself (the store, the change log);
    what people type is read by :mod:`ratings.io.dates`."""
    if len(text) == 10:
        return dt.date.fromisoformat(text), None
    moment = dt.datetime.fromisoformat(text)
    if moment.tzinfo is not None:
        raise ValueError(f"'{text}' is not a date written by the app")
    return moment.date(), moment.time()


def content_id(serialised: bytes) -> str:
    """The id of serialised content: the first 128 bits of its SHA-256, in hex."""
    return hashlib.sha256(serialised).hexdigest()[:32]


_recent: OrderedDict[str, GameHistory] = OrderedDict()
_recent_lock = ForkSafeLock()
_RECENT = 16


def _remember(cid: str, history: GameHistory) -> None:
    with _recent_lock:
        _recent[cid] = history
        _recent.move_to_end(cid)
        while len(_recent) > _RECENT:
            _recent.popitem(last=False)


def keep(history: GameHistory, store: Store | None = None) -> str:
    """Store ``history`` (compressed) and return its content id."""
    data = serialise(history)
    cid = content_id(data)
    (store or shared_store()).put(f"history:{cid}", zlib.compress(data, 6))
    _remember(cid, history)
    return cid


def fetch(cid: Any, store: Store | None = None) -> GameHistory:
    """The history stored under ``cid``; :class:`MissingHistory` when there is none."""
    if not isinstance(cid, str) or not CONTENT_ID.fullmatch(cid):
        raise MissingHistory(cid)
    with _recent_lock:
        if cid in _recent:
            _recent.move_to_end(cid)
            return _recent[cid]
    packed = (store or shared_store()).get(f"history:{cid}")
    if packed is None:
        raise MissingHistory(cid)
    try:
        data = zlib.decompressobj().decompress(packed, MAX_SERIALISED + 1)
    except zlib.error:
        raise MissingHistory(cid) from None  # damaged: never serve it
    if len(data) > MAX_SERIALISED or content_id(data) != cid:
        raise MissingHistory(cid)  # too large, cut short or not what the id names: never serve it
    try:
        history = _deserialise(data)
    except (ValueError, TypeError):
        raise MissingHistory(cid) from None  # named by its id, but not a history this module wrote
    _remember(cid, history)
    return history


def keep_json(kind: str, value: Any, store: Store | None = None) -> str:
    """Store a small JSON value (a pinned baseline, say) by content; its id (the same rule as histories)."""
    data = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    cid = content_id(data)
    (store or shared_store()).put(f"{kind}:{cid}", data)
    return cid


def fetch_json(kind: str, cid: Any, store: Store | None = None) -> Any:
    """The JSON value stored under ``cid`` by :func:`keep_json`; :class:`MissingHistory` when there is none."""
    if not isinstance(cid, str) or not CONTENT_ID.fullmatch(cid):
        raise MissingHistory(cid)
    data = (store or shared_store()).get(f"{kind}:{cid}")
    if data is None or len(data) > MAX_SERIALISED or content_id(data) != cid:
        raise MissingHistory(cid)
    return json.loads(data)
