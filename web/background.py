"""Where long work runs (fitting parameters, comparing systems): Dash background callbacks and their manager.

- Default: ``DiskcacheManager`` (one machine, nothing to install): each job runs in a process of its own and its
  progress and result go through a diskcache directory beside the shared store (``RATINGS_STORE_DIR``/jobs).
- With ``REDIS_URL``: ``CeleryManager`` over Celery with Redis as broker and result backend, so several web
  workers or instances share one job queue.  The Procfile's ``worker`` line runs the Celery worker
  (``celery -A app.celery_app worker``); importing ``app`` registers the jobs.

Nothing here runs at import time but building the manager object (no connection is opened until a job starts).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["celery_app", "manager"]


def _redis_url() -> str | None:
    return (os.environ.get("REDIS_URL") or "").strip() or None


def _jobs_directory() -> str:
    from sources.store import store_directory

    return os.path.join(store_directory(), "jobs")


def _celery() -> Any:
    url = _redis_url()
    if url is None:
        return None
    from celery import Celery

    app = Celery("ratings-dashboard", broker=url, backend=url)
    # A job that is lost with its worker is reported as failed, never left pending forever.
    app.conf.update(
        task_acks_late=True, task_reject_on_worker_lost=True, result_expires=3600, worker_prefetch_multiplier=1
    )
    return app


#: The Celery application when ``REDIS_URL`` is set (``celery -A app.celery_app worker``), else None.
celery_app = _celery()


def manager() -> Any:
    """The background callback manager for the app (Celery with Redis, else diskcache on local disk)."""
    from dash import CeleryManager, DiskcacheManager

    if celery_app is not None:
        return CeleryManager(celery_app, expire=3600)
    import diskcache

    return DiskcacheManager(diskcache.Cache(_jobs_directory()), expire=3600)
