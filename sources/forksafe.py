"""Locks that a forked child process starts with released.

Dash's ``DiskcacheManager`` (:mod:`background`, the default without ``REDIS_URL``) starts each fitting or comparing
job by forking the web worker, and the worker is threaded (``web.serving.ThreadWorker``; werkzeug's threads in tests).
A fork copies every lock as it is at that moment, but only the forking thread: a lock another thread held (while
replaying a history, reading a source, opening the store) stays held in the child forever, and the job's first
attempt to take it hangs (seen once: a comparing job blocked at 0 CPU until the test timed out).

:class:`ForkSafeLock` is a ``threading.Lock`` that ``os.register_at_fork`` replaces by a fresh, released one in
every child, for every such lock alive at the fork.  The app's own locks are made with it; a child then computes
what it needs itself (a run another thread of the parent was computing is not in the child's copy of the memo).
"""

from __future__ import annotations

import os
import threading
import weakref
from types import TracebackType

__all__ = ["ForkSafeLock"]


class ForkSafeLock:
    """A ``threading.Lock`` (the same methods) that is released in a forked child."""

    __slots__ = ("__weakref__", "_lock")

    _alive: weakref.WeakSet[ForkSafeLock] = weakref.WeakSet()

    def __init__(self) -> None:
        self._lock = threading.Lock()
        ForkSafeLock._alive.add(self)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._lock.release()

    @classmethod
    def _renew_all(cls) -> None:
        """In a forked child: every lock fresh and released (the threads that held them do not exist here)."""
        for lock in list(cls._alive):
            lock._lock = threading.Lock()


os.register_at_fork(after_in_child=ForkSafeLock._renew_all)
