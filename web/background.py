"""Where long work runs (fitting parameters, comparing systems): Dash background callbacks and their manager.

- Default: ``DiskcacheManager`` (one machine, nothing to install): each job runs in a process of its own and its
  progress and result go through a diskcache directory beside the shared store (``RATINGS_STORE_DIR``/jobs).
- With ``REDIS_URL``: ``CeleryManager`` over Celery with Redis as broker and result backend
  (:data:`sources.jobs.celery_app`), so several web workers or instances share one job queue.  The Procfile's
  ``worker`` line runs the Celery worker (``celery -A app.celery_app worker``); importing ``app`` registers the jobs.
  A job is sent only when a worker answers (``callbacks.fit``, :func:`sources.jobs.workers_ready`).

With diskcache, the manager (:class:`_JobManager`) also reaps the job processes of its web worker (a cancelled or
killed job leaves no zombie behind), and answers a poll of a job whose process died without a result with
:func:`sources.jobs.failed_result` at once, where Dash would leave the page waiting (issue 30).  Every background
callback of this app writes one store whose view reads ``{"kind": "failed", "message": ...}`` (``callbacks.fit``).

Nothing here runs at import time but building the manager object (no connection is opened until a job starts).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import tempfile
import threading
import time
from typing import Any

import psutil
from dash import DiskcacheManager

from sources.jobs import celery_app, failed_result

__all__ = ["celery_app", "manager", "reap_children"]

log = logging.getLogger(__name__)


def reap_children() -> int:
    """Collect this process's job processes that have ended (a killed or finished child stays a zombie until its
    parent waits for it); how many are still running."""
    import multiprocess

    return len(multiprocess.active_children())


_reaper_lock = threading.Lock()
_reaper: threading.Thread | None = None


def _reap_while_children() -> None:
    """Reap this web worker's ended job processes every second while it has any."""
    global _reaper
    while True:
        time.sleep(1.0)
        with _reaper_lock:
            if reap_children() == 0:
                _reaper = None
                return


def _start_reaper() -> None:
    global _reaper
    with _reaper_lock:
        if _reaper is None:
            _reaper = threading.Thread(target=_reap_while_children, name="job-reaper", daemon=True)
            _reaper.start()


class _JobManager(DiskcacheManager):
    """Dash's diskcache manager, which also reaps its job processes and reports a job that died as failed."""

    def call_job_fn(self, key: Any, job_fn: Any, args: Any, context: Any) -> Any:
        pid = super().call_job_fn(key, job_fn, args, context)
        _start_reaper()  # this worker is the job's parent: it alone can collect the process when it ends
        return pid

    def terminate_job(self, job: Any) -> None:
        if job is not None:
            # a cancelled job is not a failed one: its page stopped waiting, and a late poll gets nothing
            self.handle.set(f"cancelled:{int(job)}", True, expire=3600)
        # the job may end (and the reaper collect it) between Dash's "does it exist" and its look at the children:
        # then there is nothing left to stop, and a finished job's result must still reach the page
        with contextlib.suppress(psutil.NoSuchProcess):
            super().terminate_job(job)
        reap_children()

    def get_result(self, key: Any, job: Any) -> Any:
        result = super().get_result(key, job)
        if result is not self.UNDEFINED or job is None or self.job_running(job):
            return result
        # the process is gone (or a zombie) with no result: unless it finished a moment ago, it died
        late = super().get_result(key, job)
        if late is not self.UNDEFINED or self.handle.get(f"cancelled:{int(job)}"):
            return late
        log.warning("background job %s ended without a result", job)
        return failed_result()


def _jobs_directory() -> str:
    from sources.store import store_directory

    return os.path.join(store_directory(), "jobs")


def manager() -> Any:
    """The background callback manager for the app (Celery with Redis, else diskcache on local disk)."""
    from dash import CeleryManager

    if celery_app is not None:
        return CeleryManager(celery_app, expire=3600)
    import diskcache

    directory = _jobs_directory()
    try:
        cache = diskcache.Cache(directory)
    except (OSError, sqlite3.Error) as exc:
        # A store directory that cannot be written (read-only, full, a path under a file) must not stop the app
        # from starting (issue 30): the jobs go to a directory of their own, and the store says what is wrong when
        # it is used.
        fallback = tempfile.mkdtemp(prefix="ratings-jobs-")
        log.warning("jobs directory %s unusable (%s): background jobs use %s", directory, exc, fallback)
        cache = diskcache.Cache(fallback)
    return _JobManager(cache, expire=3600)
