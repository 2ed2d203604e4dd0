"""Where long work runs (fitting parameters, comparing systems): Dash background callbacks and their manager.

- Default: ``DiskcacheManager`` (one machine, nothing to install): each job runs in a process of its own and its
  progress and result go through a diskcache directory beside the shared store (``RATINGS_STORE_DIR``/jobs).
- With ``REDIS_URL``: ``CeleryManager`` over Celery with Redis as broker and result backend
  (:data:`sources.jobs.celery_app`), so several web workers or instances share one job queue.  The Procfile's
  ``worker`` line runs the Celery worker (``celery -A app.celery_app worker``); importing ``app`` registers the jobs.
  A job is sent only when a worker answers (``callbacks.fit``, :func:`sources.jobs.workers_ready`).

Nothing here runs at import time but building the manager object (no connection is opened until a job starts).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
from typing import Any

from sources.jobs import celery_app

__all__ = ["celery_app", "manager"]

log = logging.getLogger(__name__)


def _jobs_directory() -> str:
    from sources.store import store_directory

    return os.path.join(store_directory(), "jobs")


def manager() -> Any:
    """The background callback manager for the app (Celery with Redis, else diskcache on local disk)."""
    from dash import CeleryManager, DiskcacheManager

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
    return DiskcacheManager(cache, expire=3600)
