"""Where long work runs when the app has several workers: a Celery application over Redis (``REDIS_URL``), and
whether any Celery worker is there to take a job.

With ``REDIS_URL`` set, Fit and Compare jobs go to Celery (``web.background`` builds Dash's manager on
:data:`celery_app`; the Procfile's ``worker`` line runs ``celery -A app.celery_app worker``).  A job sent while no
worker runs would wait in the queue for ever, and the page with it: :func:`workers_ready` asks the workers to answer
a ping first (Celery's own remote control), so the page can say at once that nothing would run it.  Without
``REDIS_URL`` jobs run in a process beside the web worker, always ready.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from sources import settings

__all__ = ["NO_WORKER", "celery_app", "workers_ready"]

log = logging.getLogger(__name__)

#: What the page says when a job would wait for a worker that is not running.
NO_WORKER = (
    "No background worker is running, so the search cannot start (it would wait for ever). The host starts one "
    "with the Procfile's worker line: celery -A app.celery_app worker."
)
#: How long a ping waits for the first worker's answer, in seconds.
PING_SECONDS = 1.0


def _redis_url() -> str | None:
    url: str | None = settings.value(os.environ, "REDIS_URL")
    return url


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


def workers_ready(app: Any = None, timeout: float = PING_SECONDS) -> bool:
    """Whether a job sent now would be taken: always without Celery; with it, whether a worker answers a ping within
    ``timeout`` (the first answer ends the wait).  A broker that cannot be reached counts as no worker."""
    app = celery_app if app is None else app
    if app is None:
        return True
    try:
        return bool(app.control.ping(timeout=timeout, limit=1))
    except Exception as exc:  # kombu's connection errors and OSError alike: the job could not be sent either
        log.warning("no answer from the Celery workers' broker: %s", exc)
        return False
