"""gunicorn's threaded worker, stamping each request with the time it was accepted (``X-Request-Start``).

The Procfile runs ``gunicorn app:server --worker-class serving.ThreadWorker --threads N``.  A threaded worker
accepts connections at once and queues them for its threads; the stamp lets the app's admission control
(:mod:`sources.admission`) see how long a request waited in that queue and refuse it early when it could no longer
be answered in time.  A value a client sent in the header is replaced, so only the worker's own clock counts.
"""

from __future__ import annotations

import time
from typing import Any

from gunicorn.workers import gthread

__all__ = ["HEADER", "ThreadWorker"]

#: The header carrying the stamp (``t=<seconds since the epoch>``, nginx's and Heroku's convention).
HEADER = "X-REQUEST-START"


class ThreadWorker(gthread.ThreadWorker):  # type: ignore[misc]
    """gunicorn's ``gthread`` worker; each request carries ``X-Request-Start: t=<when it was queued>``."""

    def enqueue_req(self, conn: Any) -> None:
        conn.ratings_queued_at = time.time()
        super().enqueue_req(conn)

    def handle_request(self, req: Any, conn: Any) -> Any:
        stamp = getattr(conn, "ratings_queued_at", None)
        if stamp is not None:
            req.headers = [(name, value) for name, value in req.headers if name.upper() != HEADER]
            req.headers.append((HEADER, f"t={stamp:.6f}"))
        return super().handle_request(req, conn)
