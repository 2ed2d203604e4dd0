"""A small process-local cache of the last good copy of each sheet.

Each gunicorn worker keeps its own copy; that is fine because reading a sheet is idempotent and the time to live
is short.  An entry is never evicted by age: when it is older than its time to live it is only *due* for a refresh,
and it stays available as the last good copy if the refresh fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from sources.forksafe import ForkSafeLock

__all__ = ["Cached", "LastGoodCache"]

T = TypeVar("T")


@dataclass(frozen=True)
class Cached(Generic[T]):
    """A cached value and the monotonic time it was stored."""

    value: T
    stored_at: float

    def age(self, now: float) -> float:
        return now - self.stored_at


class LastGoodCache(Generic[T]):
    """Thread-safe map from a key to the last good value, with its age.

    ``clock`` is injectable so tests can move time forward without sleeping.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, max_entries: int = 64) -> None:
        self._clock = clock
        self._max = max_entries
        self._lock = ForkSafeLock()
        self._items: dict[Hashable, Cached[T]] = {}

    def now(self) -> float:
        return self._clock()

    def get(self, key: Hashable) -> Cached[T] | None:
        """The stored entry (fresh or not), or None."""
        with self._lock:
            return self._items.get(key)

    def fresh(self, key: Hashable, ttl: float) -> T | None:
        """The stored value if it is younger than ``ttl`` seconds, else None."""
        entry = self.get(key)
        if entry is None or entry.age(self._clock()) >= ttl:
            return None
        return entry.value

    def put(self, key: Hashable, value: T) -> None:
        """Store ``value`` as the last good copy for ``key`` (the oldest entry goes when the cache is full)."""
        with self._lock:
            self._items.pop(key, None)
            self._items[key] = Cached(value, self._clock())
            while len(self._items) > self._max:
                self._items.pop(next(iter(self._items)))

    def expire(self, key: Hashable) -> None:
        """Make the entry due for refresh but keep it as the last good copy."""
        with self._lock:
            entry = self._items.get(key)
            if entry is not None:
                self._items[key] = Cached(entry.value, float("-inf"))

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
