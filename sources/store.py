"""The store every gunicorn worker shares: content-addressed bytes with an expiry renewed on use.

Two backends behind one small interface (:class:`Store`):

- :class:`DiskStore` (default): ``diskcache`` on local disk (SQLite underneath, safe for several processes on one
  host, survives a restart).  Directory ``RATINGS_STORE_DIR`` (default: ``ratings-dashboard-store`` in the system's
  temporary directory), at most ``RATINGS_STORE_MB`` megabytes (default 512; least recently used entries go first).
- :class:`RedisStore`: when ``REDIS_URL`` is set, for several instances behind a load balancer.

Entries expire ``RATINGS_STORE_DAYS`` days (default 30) after their last use.  Keys are chosen by the server (a
content hash it computed itself), never taken from a request as a place to write.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from sources.forksafe import ForkSafeLock

__all__ = [
    "store_directory",
    "DiskStore",
    "RedisStore",
    "Store",
    "StoreError",
    "open_store",
    "shared_store",
    "wait_for_lock",
]

log = logging.getLogger(__name__)

DAY = 24 * 3600
#: What a user is told when the store cannot be reached (the cause goes to the log, not to the page).
UNAVAILABLE = "the server's data store is unavailable; try again in a minute"


class StoreError(RuntimeError):
    """The shared store cannot be reached (for example Redis is down); the message is for the user."""


def _unavailable() -> StoreError:
    """The error to raise when the store fails; an answer computed meanwhile is not memoised (it may pass)."""
    from sources import answers

    answers.volatile("the store failed")
    return StoreError(UNAVAILABLE)


class Store(Protocol):
    """Bytes by key, each entry expiring ``expire`` seconds after its last use."""

    def get(self, key: str) -> bytes | None:
        """The value (its expiry renewed), or None when absent or expired."""
        ...

    def put(self, key: str, value: bytes) -> None:
        """Store ``value`` under ``key`` (replacing any previous value)."""
        ...

    def acquire(self, key: str, ttl: float) -> bool:
        """Take the lock ``key`` if nobody holds it (it lapses after ``ttl`` seconds); whether it was taken."""
        ...

    def release(self, key: str) -> None:
        """Give back a lock taken with :meth:`acquire`."""
        ...

    def spend(self, key: str, window: float, limit: int) -> float | None:
        """Count one use of ``key`` if it was used fewer than ``limit`` times in the last ``window`` seconds (a
        moving window, shared by every worker): ``None`` when counted, else the seconds until a use is free again."""
        ...


class DiskStore:
    """A :class:`Store` on local disk with ``diskcache`` (one directory shared by the host's workers).

    A directory that cannot be opened or written (a full disk, a path under a file) is a :class:`StoreError`.
    """

    def __init__(self, directory: str, *, size_limit: int = 512 << 20, expire: float = 30 * DAY) -> None:
        import diskcache

        self.directory = directory
        self._expire = expire
        try:
            self._cache = diskcache.Cache(directory, size_limit=size_limit, eviction_policy="least-recently-used")
        except (sqlite3.Error, OSError) as exc:
            log.warning("store directory %s unusable: %s", directory, exc)
            raise _unavailable() from None

    def get(self, key: str) -> bytes | None:
        try:
            value = self._cache.get(key, default=None, retry=True)
            if value is None:
                return None
            self._cache.touch(key, expire=self._expire, retry=True)
        except (sqlite3.Error, OSError) as exc:
            log.warning("store directory %s unreadable: %s", self.directory, exc)
            raise _unavailable() from None
        return bytes(value)

    def put(self, key: str, value: bytes) -> None:
        try:
            self._cache.set(key, value, expire=self._expire, retry=True)
        except (sqlite3.Error, OSError) as exc:
            log.warning("store directory %s unwritable: %s", self.directory, exc)
            raise _unavailable() from None

    def acquire(self, key: str, ttl: float) -> bool:
        try:
            return bool(self._cache.add(key, b"1", expire=ttl, retry=True))
        except (sqlite3.Error, OSError) as exc:
            log.warning("store directory %s unwritable: %s", self.directory, exc)
            raise _unavailable() from None

    def release(self, key: str) -> None:
        try:
            self._cache.delete(key, retry=True)
        except (sqlite3.Error, OSError) as exc:
            log.warning(
                "store directory %s unwritable while releasing a lock (it lapses by itself): %s", self.directory, exc
            )

    def spend(self, key: str, window: float, limit: int) -> float | None:
        try:
            with self._cache.transact(retry=True):
                now = time.time()
                kept = [t for t in self._cache.get(key, default=(), retry=True) if t > now - window]
                if len(kept) >= limit:
                    return max(kept[0] + window - now, 0.0)
                self._cache.set(key, (*kept, now), expire=window, retry=True)
                return None
        except (sqlite3.Error, OSError) as exc:
            log.warning("store directory %s unwritable: %s", self.directory, exc)
            raise _unavailable() from None

    def clear(self) -> None:
        self._cache.clear(retry=True)


class RedisStore:
    """A :class:`Store` in Redis (``REDIS_URL``), shared by every instance of the app."""

    def __init__(self, url: str, *, expire: float = 30 * DAY, prefix: str = "ratings:", timeout: float = 2.0) -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        # Milliseconds (PX / PEXPIRE): whole seconds would turn an expiry under 1 s into 0, which Redis refuses.
        self._expire_ms = max(1, round(expire * 1000))
        self._prefix = prefix
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)

    def get(self, key: str) -> bytes | None:
        try:
            pipe = self._redis.pipeline()
            pipe.get(self._prefix + key)
            pipe.pexpire(self._prefix + key, self._expire_ms)
            value, _ = pipe.execute()
        except self._errors as exc:
            log.warning("Redis unavailable while reading: %s", exc)
            raise _unavailable() from None
        return None if value is None else bytes(value)

    def put(self, key: str, value: bytes) -> None:
        try:
            self._redis.set(self._prefix + key, value, px=self._expire_ms)
        except self._errors as exc:
            log.warning("Redis unavailable while writing: %s", exc)
            raise _unavailable() from None

    def acquire(self, key: str, ttl: float) -> bool:
        try:
            return bool(self._redis.set(self._prefix + key, b"1", nx=True, px=max(1, round(ttl * 1000))))
        except self._errors as exc:
            log.warning("Redis unavailable while taking a lock: %s", exc)
            raise _unavailable() from None

    def release(self, key: str) -> None:
        try:
            self._redis.delete(self._prefix + key)
        except self._errors:
            log.warning("Redis unavailable while releasing a lock; it lapses by itself")

    # One sorted set of use times per key, trimmed to the window and added to in one atomic step (a script runs
    # alone in Redis).  Returns -1 when counted, else the milliseconds until the oldest use leaves the window.
    _SPEND = """
    local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
    if redis.call('ZCARD', KEYS[1]) >= limit then
        local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
        return math.max(0, tonumber(oldest[2]) + window - now)
    end
    redis.call('ZADD', KEYS[1], now, ARGV[4])
    redis.call('PEXPIRE', KEYS[1], window)
    return -1
    """

    def spend(self, key: str, window: float, limit: int) -> float | None:
        now_ms = time.time() * 1000
        try:
            wait = self._redis.eval(
                self._SPEND, 1, self._prefix + key, f"{now_ms:.3f}", round(window * 1000), limit, os.urandom(8).hex()
            )
        except self._errors as exc:
            log.warning("Redis unavailable while counting a use: %s", exc)
            raise _unavailable() from None
        return None if int(wait) < 0 else int(wait) / 1000


def store_directory(environ: Mapping[str, str] | None = None) -> str:
    """The disk store's directory: ``RATINGS_STORE_DIR``, else ``ratings-dashboard-store`` in the temp directory."""
    env = os.environ if environ is None else environ
    return (env.get("RATINGS_STORE_DIR") or "").strip() or os.path.join(
        tempfile.gettempdir(), "ratings-dashboard-store"
    )


def open_store(environ: Mapping[str, str] | None = None) -> Store:
    """The store the environment configures (see the module docstring)."""
    env = os.environ if environ is None else environ
    days = float(env.get("RATINGS_STORE_DAYS") or 30)
    url = (env.get("REDIS_URL") or "").strip()
    if url:
        return RedisStore(url, expire=days * DAY)
    directory = store_directory(env)
    megabytes = float(env.get("RATINGS_STORE_MB") or 512)
    return DiskStore(directory, size_limit=int(megabytes * (1 << 20)), expire=days * DAY)


_lock = ForkSafeLock()
_shared: Store | None = None


def shared_store() -> Store:
    """The process's handle on the shared store (opened on first use; the data lives outside the process)."""
    global _shared
    with _lock:
        if _shared is None:
            _shared = open_store()
        return _shared


def use_store(store: Store | None) -> None:
    """Replace the process's store handle (tests, or a host that configures it in code)."""
    global _shared
    with _lock:
        _shared = store


T = TypeVar("T")


def wait_for_lock(
    store: Store, key: str, seconds: float, ready: Callable[[], T | None] = lambda: None
) -> tuple[bool, T | None]:
    """Take the lock ``key`` in ``store`` (held at most ``seconds``), waiting for it at most ``seconds``: ``(True,
    None)`` once taken; ``(False, value)`` as soon as ``ready()``, asked after each pause, gives a value (what the
    lock's holder was making, finished meanwhile); ``(False, None)`` when the wait ran out.  A :class:`StoreError`
    passes through.  The one wait for a lock in the store (runs, the answer memo)."""
    deadline = time.monotonic() + seconds
    pause = 0.002
    while True:
        if store.acquire(key, seconds):
            return True, None
        if time.monotonic() >= deadline:
            return False, None
        time.sleep(pause)
        pause = min(pause * 1.5, 0.05)
        value = ready()
        if value is not None:
            return False, value
