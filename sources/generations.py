"""A newer change supersedes an older one: the latest change number of each open page, shared by every worker.

Each open page numbers its parameter changes (1, 2, 3, ... in a small store of the page, with a random page id).
A request announces its number when it starts; a request whose page has since announced a higher number is stale
(its answer would be thrown away by the page anyway), so it stops before computing, and again before building its
views.  The numbers live in the shared store (:mod:`sources.store`), so a stale request on one gunicorn worker sees
the newer one that started on another.  A request that cannot be told apart (no page id) is never stopped.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from sources import answers
from sources.store import Store, StoreError, shared_store

__all__ = ["Generation", "announce", "generation_of", "next_generation", "superseded"]

_PAGE = re.compile(r"[0-9a-f]{32}")
_LIMIT = 10**12


class Generation(tuple[str, int]):
    """A page's id and the number of its change."""

    __slots__ = ()

    @property
    def page(self) -> str:
        return self[0]

    @property
    def number(self) -> int:
        return self[1]


def generation_of(value: Any) -> Generation | None:
    """The ``{"page": hex id, "n": number}`` a page sends (untrusted), or ``None`` when it is not that."""
    if not isinstance(value, dict):
        return None
    page, number = value.get("page"), value.get("n")
    if not isinstance(page, str) or not _PAGE.fullmatch(page):
        return None
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < _LIMIT:
        return None
    return Generation((page, number))


def next_generation(known: Any) -> dict[str, Any]:
    """The page's next change number after ``known`` (its store's value, untrusted), with a new random page id
    when ``known`` holds none: what the page stores and sends with the change."""
    generation = generation_of(known)
    if generation is None:
        answers.volatile("drew a new page id")  # each page its own: never handed to another from the memo
        return {"page": secrets.token_hex(16), "n": 1}
    return {"page": generation.page, "n": min(generation.number + 1, _LIMIT - 1)}


def _latest(generation: Generation, store: Store) -> int:
    raw = store.get(f"generation:{generation.page}")
    try:
        return int(raw) if raw is not None else -1
    except ValueError:
        return -1


def announce(generation: Generation, store: Store | None = None) -> None:
    """Record ``generation`` as its page's latest change (unless a higher number is recorded already).  With the
    store down nothing is recorded: the change is computed all the same (a superseded one is only wasted work)."""
    try:
        store = store or shared_store()
        if _latest(generation, store) < generation.number:
            store.put(f"generation:{generation.page}", str(generation.number).encode())
    except StoreError:
        return


def superseded(generation: Generation | None, store: Store | None = None) -> bool:
    """Whether the page of ``generation`` has announced a newer change since (never, with the store down: the work
    goes on, and a bundled sample still computes)."""
    if generation is None:
        return False
    try:
        return _latest(generation, store or shared_store()) > generation.number
    except StoreError:
        return False
