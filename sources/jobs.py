"""Where long work runs when the app has several workers: a Celery application over Redis (``REDIS_URL``),
whether any Celery worker is there to take a job, and the job board that bounds how many run at once.

With ``REDIS_URL`` set, Fit and Compare jobs go to Celery (``web.background`` builds Dash's manager on
:data:`celery_app`; the Procfile's ``worker`` line runs ``celery -A app.celery_app worker``).  A job sent while no
worker runs would wait in the queue for ever, and the page with it: :func:`workers_ready` asks the workers to answer
a ping first (Celery's own remote control), so the page can say at once that nothing would run it.  Without
``REDIS_URL`` jobs run in a process beside the web worker, always ready.

The job board (:class:`JobBoard`) bounds the cost of Fit and Compare (issue 30): at most ``RATINGS_JOBS_RUNNING`` jobs
run at once on the board (the host's jobs with the disk store; every Celery worker's with Redis), each client has at
most ``RATINGS_JOBS_PER_CLIENT`` running or waiting, and at most ``RATINGS_JOBS_WAITING`` wait; a job asked beyond
those is refused at once with one plain line.  A waiting job knows how many are ahead of it (the page shows it).  A
job proves it is alive by a heartbeat: one whose process was killed or cancelled stops beating and leaves the board
within :data:`STALE_SECONDS`, so its slot is never lost.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sources import settings

__all__ = ["FAILED", "NO_WORKER", "JobBoard", "JobRefused", "board", "celery_app", "failed_result", "workers_ready"]

log = logging.getLogger(__name__)

#: What the page says when a job would wait for a worker that is not running.
NO_WORKER = (
    "No background worker is running, so the search cannot start (it would wait for ever). The host starts one "
    "with the Procfile's worker line: celery -A app.celery_app worker."
)
#: What the page says when a job's process ended without a result (killed, out of memory).
FAILED = (
    "The search stopped before it finished: its process ended (stopped by the server, or out of memory). Nothing "
    "was changed; press the button again to start it anew."
)


def failed_result(message: str = FAILED) -> dict[str, str]:
    """The result a failed job gives its page's store."""
    return {"kind": "failed", "message": message}


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


# ----------------------------------------------------------------------------------------------------- the job board
#: A job that has not beaten its heart for this long has died (killed, cancelled, out of memory): it leaves the board.
STALE_SECONDS = 5.0
#: How long a ticket may wait for its job to start (the page's round trip between asking and starting the job).
START_SECONDS = 60.0
#: How often a job beats its heart, and a waiting job looks at the board.
BEAT_SECONDS = 1.0


class JobRefused(Exception):
    """A job that may not run or wait now; the message says why in one plain line."""


#: What a waiting job is told: (jobs ahead of it in the queue, jobs running).
Waiting = Callable[[int, int], None]


#: What the page says when the job board's store cannot be used.
UNAVAILABLE = "The search was not started: the server cannot keep its queue of searches just now. Try again later."


class _DiskBoard:
    """The board's one value in a small diskcache of its own beside the store (one host's processes share it)."""

    def __init__(self, directory: str) -> None:
        self._directory = directory

    @contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        import sqlite3

        import diskcache

        try:
            with diskcache.Cache(self._directory) as cache, cache.transact(retry=True):
                board = cache.get("board") or {}
                yield board
                cache.set("board", board, retry=True)
        except (OSError, sqlite3.Error) as exc:  # a store directory that cannot be used: one plain line
            log.warning("job board unusable: %s", exc)
            raise JobRefused(UNAVAILABLE) from None


class _RedisBoard:
    """The board's one value in Redis under a lock (every Celery worker shares it)."""

    def __init__(self, url: str) -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    @contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        import redis

        try:
            with self._redis.lock("ratings:jobs:lock", timeout=10, blocking_timeout=10):
                raw = self._redis.get("ratings:jobs:board")
                board = json.loads(raw) if raw else {}
                yield board
                self._redis.set("ratings:jobs:board", json.dumps(board), ex=86400)
        except redis.RedisError as exc:
            log.warning("job board unusable: %s", exc)
            raise JobRefused(UNAVAILABLE) from None


class JobBoard:
    """Tickets for long jobs: who asked, since when, whether running, when last seen alive (see the module)."""

    def __init__(self, store: Any, *, running: int, per_client: int, waiting: int) -> None:
        self._store = store
        self.running, self.per_client, self.waiting = running, per_client, waiting

    @staticmethod
    def _alive(ticket: dict[str, Any], now: float) -> bool:
        return now - float(ticket["seen"]) <= (STALE_SECONDS if ticket["started"] else START_SECONDS)

    @contextmanager
    def _tickets(self) -> Iterator[dict[str, dict[str, Any]]]:
        """The live tickets, by id (dead ones dropped), to read and change under the board's lock."""
        now = time.time()
        with self._store.locked() as board:
            tickets = {k: t for k, t in board.get("tickets", {}).items() if self._alive(t, now)}
            yield tickets
            board["tickets"] = tickets

    def enter(self, client: str) -> str:
        """A ticket for a job of ``client`` (its address), or :class:`JobRefused` past the limits."""
        with self._tickets() as tickets:
            mine = sum(1 for t in tickets.values() if t["client"] == client)
            if mine >= self.per_client:
                raise JobRefused(
                    f"You already have {mine} searches running or waiting (at most {self.per_client} per visitor): "
                    "wait for one to finish or cancel it, then press the button again."
                )
            queued = sum(1 for t in tickets.values() if not t["running"])
            if queued >= self.waiting:
                raise JobRefused(
                    f"The server has {queued} searches waiting already; nothing was started. Try again in a few "
                    "minutes."
                )
            ticket = secrets.token_hex(16)
            now = time.time()
            tickets[ticket] = {"client": client, "since": now, "seen": now, "started": False, "running": False}
        return ticket

    def queue(self) -> tuple[list[str], int]:
        """The waiting tickets, first in line first, and how many jobs run."""
        with self._tickets() as tickets:
            return self._queue(tickets)

    @staticmethod
    def _queue(tickets: Mapping[str, dict[str, Any]]) -> tuple[list[str], int]:
        line = sorted((t["since"], k) for k, t in tickets.items() if not t["running"])
        return [k for _, k in line], sum(1 for t in tickets.values() if t["running"])

    def _turn(self, ticket: str) -> tuple[int, int] | None:
        """Start ``ticket``'s job when its turn has come (``None``), else (jobs ahead of it, jobs running)."""
        with self._tickets() as tickets:
            mine = tickets.get(ticket)
            if mine is None:
                raise JobRefused("This search waited too long to start or was cancelled; press the button again.")
            mine["seen"], mine["started"] = time.time(), True
            line, running = self._queue(tickets)
            if mine["running"]:
                return None
            ahead = line.index(ticket)
            if ahead == 0 and running < self.running:
                mine["running"] = True
                return None
            return ahead, running

    def _beat(self, ticket: str) -> None:
        with self._tickets() as tickets:
            if ticket in tickets:
                tickets[ticket]["seen"] = time.time()

    def leave(self, ticket: str) -> None:
        """Take ``ticket`` off the board (its job ended)."""
        with self._tickets() as tickets:
            tickets.pop(ticket, None)

    @contextmanager
    def slot(self, ticket: Any, waiting: Waiting | None = None) -> Iterator[None]:
        """Wait for ``ticket``'s turn (telling ``waiting`` where it stands), hold a running slot for the block, and
        leave the board after it; a heartbeat thread says the job is alive meanwhile (a killed process stops it)."""
        if not isinstance(ticket, str) or not ticket:
            raise JobRefused("The page sent no ticket for this search; reload the page and press the button again.")
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(BEAT_SECONDS):
                try:
                    self._beat(ticket)
                except Exception as exc:  # the store's faults: the job goes on; the board may drop it later
                    log.warning("job heartbeat failed: %s", exc)

        heart = threading.Thread(target=beat, name="job-heartbeat", daemon=True)
        try:
            while (where := self._turn(ticket)) is not None:
                if waiting is not None:
                    waiting(*where)
                if not heart.is_alive():
                    heart.start()
                time.sleep(BEAT_SECONDS)
            if not heart.is_alive():
                heart.start()
            yield
        finally:
            stop.set()
            try:
                self.leave(ticket)
            except Exception as exc:
                log.warning("could not take a job off the board: %s", exc)


def board(environ: Mapping[str, str] | None = None) -> JobBoard:
    """The app's job board: in Redis with ``REDIS_URL`` (Celery's workers share it), else beside the disk store."""
    env = os.environ if environ is None else environ
    url = settings.value(env, "REDIS_URL")
    if url is not None:
        store: Any = _RedisBoard(url)
    else:
        from sources.store import store_directory

        store = _DiskBoard(os.path.join(store_directory(env), "job-board"))
    return JobBoard(
        store,
        running=settings.value(env, "RATINGS_JOBS_RUNNING"),
        per_client=settings.value(env, "RATINGS_JOBS_PER_CLIENT"),
        waiting=settings.value(env, "RATINGS_JOBS_WAITING"),
    )
