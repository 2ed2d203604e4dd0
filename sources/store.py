"""The store every gunicorn worker shares: content-addressed bytes with an expiry renewed on use.

Two backends behind one small interface (:class:`Store`):

- :class:`DiskStore` (default): ``diskcache`` on local disk (SQLite underneath, safe for several processes on one
  host, survives a restart).  Directory ``RATINGS_STORE_DIR`` (default: ``ratings-dashboard-store`` in the system's
  temporary directory).
- :class:`RedisStore`: when ``REDIS_URL`` is set, for several instances behind a load balancer.

Two kinds of entry, told apart by the key (:func:`is_derived`), so that one visitor's stream of computations cannot
push out anybody's data:

- **Derived results** (``run:`` replays, ``answer:`` memoised answers): computed again when missing.  On disk they
  live in a cache of their own (``derived/`` inside the directory), at most ``RATINGS_STORE_MB`` megabytes (default
  512; least recently used first).  In Redis they expire :data:`DERIVED_DAYS` after their last use.
- **User data** (everything else: uploaded and edited histories, aliases, pinned baselines, a sheet's shared copy,
  the rate-limit and quota counters, locks): never evicted by derived results.  On disk, in the directory itself, at
  most ``RATINGS_STORE_USER_MB`` megabytes (default 256; least recently used first, so only user data pushes out
  user data, and :meth:`Store.quota` bounds what one visitor adds).  In Redis they expire ``RATINGS_STORE_DAYS``
  after their last use.

Redis has one memory for every key, so the split is made by the eviction policy: with ``volatile-ttl`` Redis frees
the keys nearest their expiry first, which are the derived results (a day at most) long before any user data (30
days from its last use).  On its first use the store sets ``maxmemory`` (``RATINGS_REDIS_MB``, default 256) and
that policy when the server has no memory cap yet; a managed Redis that refuses ``CONFIG SET`` must be given them
by the host (``maxmemory`` and ``maxmemory-policy volatile-ttl``), which the log says once.

Entries expire ``RATINGS_STORE_DAYS`` days (default 30) after their last use.  Keys are chosen by the server (a
content hash it computed itself), never taken from a request as a place to write.

A store that cannot be used (Redis down, a directory read-only, full or damaged) raises :class:`StoreError`, whose
message is one plain line for the page; the cause goes to the log.  Nothing is opened before the first use, so
the app starts whatever state the store is in, and says what is wrong when it is needed.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from sources import settings
from sources.forksafe import ForkSafeLock

__all__ = [
    "store_directory",
    "DiskStore",
    "RedisStore",
    "Store",
    "StoreError",
    "is_derived",
    "open_store",
    "shared_store",
    "wait_for_lock",
]

log = logging.getLogger(__name__)

DAY = 24 * 3600
#: What a user is told when the store cannot be reached (the cause goes to the log, not to the page).
UNAVAILABLE = "the server's data store is unavailable; try again in a minute"
#: ... when the disk store's directory cannot be written.
READ_ONLY = (
    "the server's data store cannot be written (its directory is read-only): uploads and changes cannot be kept "
    "until the server's administrator fixes it"
)
#: ... when the disk is full.
FULL = "the server's data store is full: uploads and changes cannot be kept until space is freed"
#: Keys of derived results: computed again when missing, so evicted before any user data (see the module docstring).
DERIVED_PREFIXES = ("run:", "answer:")
#: Keys of signals between workers (a page's newest change number, :mod:`sources.generations`): read to decide whether
#: work is still wanted, never what an answer says, so reading or writing one does not stop an answer being memoised.
SIGNAL_PREFIXES = ("generation:",)
#: Days a derived result stays in Redis after its last use (user data: ``RATINGS_STORE_DAYS``).
DERIVED_DAYS = 1.0
#: Bytes one client may add to the store in :data:`QUOTA_WINDOW` seconds (:meth:`Store.quota`).
QUOTA_BYTES = 50 << 20
QUOTA_WINDOW = DAY


def is_derived(key: str) -> bool:
    """Whether ``key`` names a derived result (evictable) rather than user data."""
    return key.startswith(DERIVED_PREFIXES)


class StoreError(RuntimeError):
    """The shared store cannot be used (Redis down, a directory read-only or full); the message is one plain line
    for the user."""


def _noted(key: str, doing: str) -> None:
    """Note, for the memoised answer being computed (if any), that it wrote user data or found some missing: such an
    answer is not kept (:func:`sources.answers.volatile`).  A write must happen for every request that asks for it
    (sent from the memo, the next identical request would skip it), and missing data may be kept again under the
    same key (an upload sent again).  Derived results (:func:`is_derived`) are computed again when missing, so
    writing or missing one says nothing about the answer, nor does a signal (:data:`SIGNAL_PREFIXES`).  Every
    store's ``put`` and ``get`` note it here, so no service has to remember to."""
    if not is_derived(key) and not key.startswith(SIGNAL_PREFIXES):
        from sources import answers

        answers.volatile(f"{doing} {key.partition(':')[0] or key} in the store")


def _unavailable(message: str = UNAVAILABLE) -> StoreError:
    """The error to raise when the store fails; an answer computed meanwhile is not memoised (it may pass)."""
    from sources import answers

    answers.volatile("the store failed")
    return StoreError(message)


def _disk_fault(exc: BaseException) -> str:
    """The plain message for a failing disk store: read-only, full, or unavailable."""
    text = str(exc).lower()
    number = getattr(exc, "errno", None)
    if number in (errno.EROFS, errno.EACCES, errno.EPERM) or "readonly" in text or "read-only" in text:
        return READ_ONLY
    if number in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text or "database or disk is full" in text:
        return FULL
    return UNAVAILABLE


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

    def quota(self, client: str, size: int, window: float = QUOTA_WINDOW, limit: int = QUOTA_BYTES) -> float | None:
        """Count ``size`` bytes that ``client`` (its address, as the web layer knows it) is about to add, if what it
        added in the last ``window`` seconds and ``size`` stay within ``limit`` bytes: ``None`` when counted (go
        ahead), else the seconds until enough of its earlier additions leave the window (refuse)."""
        ...


class DiskStore:
    """A :class:`Store` on local disk with ``diskcache`` (one directory shared by the host's workers): user data in
    the directory itself, derived results in ``derived/`` inside it, each with its own size cap.

    Nothing is opened before the first use; a directory that cannot be opened or written then (read-only, full, a
    path under a file, a damaged database) is a :class:`StoreError` with a plain message, each time it is used.
    """

    def __init__(
        self,
        directory: str,
        *,
        size_limit: int = 512 << 20,
        user_limit: int = 256 << 20,
        expire: float = 30 * DAY,
    ) -> None:
        self.directory = directory
        self._expire = expire
        self._limits = (user_limit, size_limit)
        self._opened: tuple[Any, Any] | None = None
        self._open_lock = ForkSafeLock()

    def _caches(self) -> tuple[Any, Any]:
        """The user-data cache and the derived-results cache, opened on first use."""
        with self._open_lock:
            if self._opened is None:
                import diskcache

                user_limit, derived_limit = self._limits
                try:
                    user = diskcache.Cache(self.directory, size_limit=user_limit, eviction_policy="least-recently-used")
                    derived = diskcache.Cache(
                        os.path.join(self.directory, "derived"),
                        size_limit=derived_limit,
                        eviction_policy="least-recently-used",
                    )
                except (sqlite3.Error, OSError) as exc:
                    log.warning("store directory %s unusable: %s", self.directory, exc)
                    raise _unavailable(_disk_fault(exc)) from None
                self._opened = (user, derived)
            return self._opened

    def _cache(self, key: str) -> Any:
        user, derived = self._caches()
        return derived if is_derived(key) else user

    def _fault(self, exc: BaseException, doing: str) -> StoreError:
        log.warning("store directory %s %s: %s", self.directory, doing, exc)
        return _unavailable(_disk_fault(exc))

    def get(self, key: str) -> bytes | None:
        try:
            cache = self._cache(key)
            value = cache.get(key, default=None, retry=True)
            if value is None:
                _noted(key, "found no")
                return None
            cache.touch(key, expire=self._expire, retry=True)
        except (sqlite3.Error, OSError) as exc:
            raise self._fault(exc, "unreadable") from None
        return bytes(value)

    def put(self, key: str, value: bytes) -> None:
        _noted(key, "wrote")
        try:
            self._cache(key).set(key, value, expire=self._expire, retry=True)
        except (sqlite3.Error, OSError) as exc:
            raise self._fault(exc, "unwritable") from None

    def acquire(self, key: str, ttl: float) -> bool:
        try:
            return bool(self._cache(key).add(key, b"1", expire=ttl, retry=True))
        except (sqlite3.Error, OSError) as exc:
            raise self._fault(exc, "unwritable") from None

    def release(self, key: str) -> None:
        try:
            self._cache(key).delete(key, retry=True)
        except (sqlite3.Error, OSError, StoreError) as exc:
            log.warning(
                "store directory %s unwritable while releasing a lock (it lapses by itself): %s", self.directory, exc
            )

    def _window(self, key: str, window: float, limit: int, amount: int) -> float | None:
        """The moving window of :meth:`spend` and :meth:`quota`: uses as (time, amount), ``amount`` added if the
        window's total stays within ``limit``."""
        try:
            cache = self._cache(key)
            with cache.transact(retry=True):
                now = time.time()
                uses = cache.get(key, default=(), retry=True)
                kept = [(t, n) for t, n in (u for u in uses if isinstance(u, tuple)) if t > now - window]
                total = sum(n for _, n in kept)
                if total + amount > limit:
                    # Room comes back as the oldest uses leave the window.
                    for t, n in kept:
                        total -= n
                        if total + amount <= limit:
                            return max(t + window - now, 0.0)
                    return window
                cache.set(key, (*kept, (now, amount)), expire=window, retry=True)
                return None
        except (sqlite3.Error, OSError) as exc:
            raise self._fault(exc, "unwritable") from None

    def spend(self, key: str, window: float, limit: int) -> float | None:
        return self._window(key, window, limit, 1)

    def quota(self, client: str, size: int, window: float = QUOTA_WINDOW, limit: int = QUOTA_BYTES) -> float | None:
        return self._window(f"quota:{client}", window, limit, max(int(size), 0))

    def clear(self) -> None:
        for cache in self._caches():
            cache.clear(retry=True)


class RedisStore:
    """A :class:`Store` in Redis (``REDIS_URL``), shared by every instance of the app.

    Derived results expire :data:`DERIVED_DAYS` after their last use, user data ``expire`` seconds after; on the
    first use the server is given a memory cap (``max_memory`` bytes) and the ``volatile-ttl`` policy if it has no
    cap yet (see the module docstring).
    """

    def __init__(
        self,
        url: str,
        *,
        expire: float = 30 * DAY,
        prefix: str = "ratings:",
        timeout: float = 2.0,
        max_memory: int = 256 << 20,
    ) -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        # Milliseconds (PX / PEXPIRE): whole seconds would turn an expiry under 1 s into 0, which Redis refuses.
        self._expire_ms = max(1, round(expire * 1000))
        self._derived_ms = min(self._expire_ms, round(DERIVED_DAYS * DAY * 1000))
        self._prefix = prefix
        self._max_memory = max_memory
        self._configured = False
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)

    def _ttl(self, key: str) -> int:
        return self._derived_ms if is_derived(key) else self._expire_ms

    def configure(self) -> str:
        """Give the server a memory cap and the eviction policy that spares user data, where it has no cap yet and
        accepts ``CONFIG SET``; what was done (for the log).  Once per handle; a :class:`StoreError` if Redis is
        down."""
        import redis

        self._configured = True
        try:
            found = self._redis.config_get("maxmemory*")
        except redis.ResponseError as exc:  # a managed Redis without CONFIG
            message = (
                f"Redis does not let the app read its memory settings ({exc}); the host must set maxmemory and "
                "maxmemory-policy volatile-ttl, or one visitor's computations can fill it"
            )
            log.warning(message)
            return message
        except self._errors as exc:
            self._configured = False
            log.warning("Redis unavailable while reading its settings: %s", exc)
            raise _unavailable() from None
        cap, policy = int(found.get("maxmemory", 0) or 0), str(found.get("maxmemory-policy", ""))
        if cap and policy in ("volatile-ttl", "volatile-lru", "volatile-lfu"):
            return f"Redis keeps at most {cap} bytes, policy {policy}: derived results go first"
        try:
            if not cap:
                self._redis.config_set("maxmemory", self._max_memory)
                cap = self._max_memory
            self._redis.config_set("maxmemory-policy", "volatile-ttl")
        except redis.ResponseError as exc:
            message = (
                f"Redis refused CONFIG SET ({exc}); the host must set maxmemory and maxmemory-policy volatile-ttl "
                f"(now: maxmemory {cap}, policy {policy or 'unknown'})"
            )
            log.warning(message)
            return message
        except self._errors as exc:
            self._configured = False
            log.warning("Redis unavailable while setting its memory cap: %s", exc)
            raise _unavailable() from None
        message = f"Redis set to keep at most {cap} bytes, policy volatile-ttl: derived results go first"
        log.info(message)
        return message

    def _ready(self) -> None:
        if not self._configured:
            self.configure()

    def get(self, key: str) -> bytes | None:
        self._ready()
        try:
            pipe = self._redis.pipeline()
            pipe.get(self._prefix + key)
            pipe.pexpire(self._prefix + key, self._ttl(key))
            value, _ = pipe.execute()
        except self._errors as exc:
            log.warning("Redis unavailable while reading: %s", exc)
            raise _unavailable() from None
        if value is None:
            _noted(key, "found no")
            return None
        return bytes(value)

    def put(self, key: str, value: bytes) -> None:
        _noted(key, "wrote")
        self._ready()
        try:
            self._redis.set(self._prefix + key, value, px=self._ttl(key))
        except self._errors as exc:
            log.warning("Redis unavailable while writing: %s", exc)
            raise _unavailable(FULL if "maxmemory" in str(exc) or "OOM" in str(exc) else UNAVAILABLE) from None

    def acquire(self, key: str, ttl: float) -> bool:
        self._ready()
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

    # One sorted set of uses per key (member "<amount>:<random>", score its time in milliseconds), trimmed to the
    # window and added to in one atomic step (a script runs alone in Redis).  Returns -1 when counted, else the
    # milliseconds until enough of the oldest uses leave the window.
    _WINDOW = """
    local now, window, limit, amount = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
    local uses = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
    local total = 0
    for i = 1, #uses, 2 do
        total = total + (tonumber(string.match(uses[i], '^(%d+):')) or 1)
    end
    if total + amount > limit then
        for i = 1, #uses, 2 do
            total = total - (tonumber(string.match(uses[i], '^(%d+):')) or 1)
            if total + amount <= limit then
                return math.max(0, tonumber(uses[i + 1]) + window - now)
            end
        end
        return window
    end
    redis.call('ZADD', KEYS[1], now, amount .. ':' .. ARGV[5])
    redis.call('PEXPIRE', KEYS[1], window)
    return -1
    """

    def _window(self, key: str, window: float, limit: int, amount: int) -> float | None:
        self._ready()
        now_ms = time.time() * 1000
        try:
            wait = self._redis.eval(
                self._WINDOW,
                1,
                self._prefix + key,
                f"{now_ms:.3f}",
                round(window * 1000),
                limit,
                amount,
                os.urandom(8).hex(),
            )
        except self._errors as exc:
            log.warning("Redis unavailable while counting a use: %s", exc)
            raise _unavailable() from None
        return None if int(wait) < 0 else int(wait) / 1000

    def spend(self, key: str, window: float, limit: int) -> float | None:
        return self._window(key, window, limit, 1)

    def quota(self, client: str, size: int, window: float = QUOTA_WINDOW, limit: int = QUOTA_BYTES) -> float | None:
        return self._window(f"quota:{client}", window, limit, max(int(size), 0))


def store_directory(environ: Mapping[str, str] | None = None) -> str:
    """The disk store's directory: ``RATINGS_STORE_DIR``, else ``ratings-dashboard-store`` in the temp directory."""
    chosen: str | None = settings.value(os.environ if environ is None else environ, "RATINGS_STORE_DIR")
    return chosen or os.path.join(tempfile.gettempdir(), "ratings-dashboard-store")


def open_store(environ: Mapping[str, str] | None = None) -> Store:
    """The store the environment configures (see the module docstring; each variable read as
    :data:`sources.settings.VARIABLES` declares it)."""
    env = os.environ if environ is None else environ

    def read(name: str) -> Any:
        return settings.value(env, name)

    expire = read("RATINGS_STORE_DAYS") * DAY
    url = read("REDIS_URL")
    if url:
        return RedisStore(url, expire=expire, max_memory=int(read("RATINGS_REDIS_MB") * (1 << 20)))
    return DiskStore(
        store_directory(env),
        size_limit=int(read("RATINGS_STORE_MB") * (1 << 20)),
        user_limit=int(read("RATINGS_STORE_USER_MB") * (1 << 20)),
        expire=expire,
    )


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
