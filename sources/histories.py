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

import hashlib
import json
import re
import threading
import zlib
from collections import OrderedDict
from typing import Any

from ratings import GameHistory
from sources.store import Store, shared_store

__all__ = ["CONTENT_ID", "MissingHistory", "content_id", "fetch", "keep", "serialise"]

#: What a content id looks like (anything else is refused before the store is asked).
CONTENT_ID = re.compile(r"[0-9a-f]{32}")
#: Largest serialised history accepted back from the store (a 200,000-row history is about 8 MB).
MAX_SERIALISED = 64 << 20


class MissingHistory(LookupError):
    """The store holds no history under this id (expired, or never stored)."""


def serialise(history: GameHistory) -> bytes:
    """Canonical JSON of a history: ``[[game, date or null, [[player, place or null for DNF], ...]], ...]``."""
    games = [
        [
            game.id,
            game.date.isoformat() if game.date is not None else None,
            [[e.player, e.place] for e in game.entries],
        ]
        for game in history.games
    ]
    return json.dumps({"v": 1, "games": games}, ensure_ascii=False, separators=(",", ":")).encode()


def _deserialise(data: bytes) -> GameHistory:
    payload: dict[str, Any] = json.loads(data)
    records = [
        {"game": game, "date": date, "player": player, "place": "DNF" if place is None else place}
        for game, date, entries in payload["games"]
        for player, place in entries
    ]
    return GameHistory.from_records(records)


def content_id(serialised: bytes) -> str:
    """The id of serialised content: the first 128 bits of its SHA-256, in hex."""
    return hashlib.sha256(serialised).hexdigest()[:32]


_recent: OrderedDict[str, GameHistory] = OrderedDict()
_recent_lock = threading.Lock()
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
    inflater = zlib.decompressobj()
    data = inflater.decompress(packed, MAX_SERIALISED)
    if inflater.unconsumed_tail or content_id(data) != cid:
        raise MissingHistory(cid)  # damaged or not what the id names: never serve it
    history = _deserialise(data)
    _remember(cid, history)
    return history
