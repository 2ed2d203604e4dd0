"""gunicorn's threaded worker with two lanes and overload judged on arrival.

The Procfile runs ``gunicorn app:server --worker-class web.serving.ThreadWorker --threads N``.  gunicorn's ``gthread``
worker accepts connections in its main loop and queues each for a pool of N threads; a request was only looked at
when a thread picked it up, so under load a queue of replays built inside the worker, unseen, and a page load
waited behind it.  This worker changes what happens between the main loop and the threads:

1. **Stamp.**  When the main loop hands a connection on, it records the time (``X-Request-Start: t=<seconds>``,
   replacing any value a client sent), so the app's gate (:mod:`sources.admission`) sees how long a request waited.
2. **Light lane.**  Threads of their own (``RATINGS_LIGHT_THREADS``, default 4) read each request's head once data
   has arrived (and the body of a small callback request, to learn which outputs it asks for; a connection with
   nothing sent yet waits on the poller, not on a thread) and serve right there the requests that do no replay:
   pages, scripts, assets, layout, dependencies, background-job polls, and callbacks whose kind the gate has seen
   to be light (they read memoised results: :meth:`sources.admission.Gate.is_light`), and any callback whose answer
   the shared memo of answers holds (:mod:`answer_memo`: the answer is found here and sent as stored).
3. **A page refused whole.**  A page's HTML request (:func:`is_page`) that waited on the light lane's queue so long
   that the page's ~8 waves of requests would pass the budget, with a round of the lane's work still queued behind
   it, is answered at once with a short busy page (503, ``Retry-After``) instead of letting the visitor's 40
   requests join the queue (:meth:`sources.admission.Gate.page_refused`).
4. **Heavy lane, judged on arrival.**  Any other callback is judged by the process's gate at once
   (:meth:`sources.admission.Gate.arrive`: the time it already waited, the work running, the heavy work admitted
   but not begun, and its own expected time).  When it could not finish within ``RATINGS_BUSY_SECONDS`` it is
   refused at once on the light lane with the busy answer the page understands (:func:`security.busy_answer`);
   otherwise it joins the N threads of the heavy lane, counted against later arrivals until it begins.  Of a kind
   the gate has not measured yet, it admits at most N different requests at once (one piece of work: the same
   answer-memo name, or the same body), so a flood right after a restart is refused early too.

The app learns the verdict through the WSGI environ (``ratings.arrival``, ``ratings.light``, ``ratings.refused``),
set by this worker only, never from a request's headers.  A light callback is not refused for its cost (it is cheap,
and a page load needs it), only when it has already waited longer than the budget on the light lane's queue
(:meth:`sources.admission.Gate.enter`); its CPU time is still learnt, so a kind that turns out heavy moves to the
heavy lane.  Under
any other server (``python app.py``, a sync worker) the app judges each callback when it begins, as before.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent import futures
from typing import Any

from gunicorn.workers import gthread

from sources import settings
from sources.admission import ARRIVAL, LIGHT, PAGE_REFUSED, REFUSED, Arrival, process_gate
from sources.answers import ENVIRON as ANSWER
from sources.answers import Found, Missed, encoding_for

__all__ = [
    "HEADER",
    "ThreadWorker",
    "callback_kind",
    "is_page",
    "light_threads",
    "make_ready",
    "memoised",
    "peek_callback",
    "prewarm",
]

#: The header carrying the stamp (``t=<seconds since the epoch>``, nginx's and Heroku's convention).
HEADER = "X-REQUEST-START"
#: The route of Dash's callback requests.
UPDATE = "/_dash-update-component"
#: A callback body up to this size is read on the light lane to learn its kind; a larger one (an upload) is heavy.
PEEK_BYTES = 256 * 1024
#: What the light lane returns for a request it handed to the heavy lane (that lane finishes the connection).
_HANDED_ON = object()

_local = threading.local()


def light_threads(environ: Mapping[str, str] | None = None) -> int:
    """``RATINGS_LIGHT_THREADS``: threads of the light lane per worker (default 4, at least 1)."""
    try:
        return int(settings.value(os.environ if environ is None else environ, "RATINGS_LIGHT_THREADS"))
    except settings.SettingError as exc:
        raise SystemExit(str(exc)) from None


def prewarm(server: Any, seconds: float, sample: str) -> None:
    """Under gunicorn (with ``--preload``: once, in the master, before the workers fork), fill what every first
    visitor would otherwise wait for, within ``seconds`` (``RATINGS_PREWARM_SECONDS``) in all: :func:`make_ready` for
    every bundled sample (``sample``, the one the page opens on, first).  Elsewhere (``python app.py``, tests
    importing the app) it does nothing."""
    if seconds <= 0 or not os.environ.get("SERVER_SOFTWARE", "").startswith("gunicorn"):
        return
    import logging

    from ratings.samples import SAMPLES

    log = logging.getLogger("gunicorn.error")  # gunicorn's own log, set up before it loads the app
    started = time.monotonic()
    names = [sample, *(name for name in SAMPLES if name != sample)]
    computed, total, compressed = make_ready(server, started + seconds, [n for n in names if n in SAMPLES])
    log.info(
        "start-up: %d of %d default runs computed, %d scripts compressed, in %.1f s (RATINGS_PREWARM_SECONDS=%g)",
        computed,
        total,
        compressed,
        time.monotonic() - started,
        seconds,
    )


def make_ready(server: Any, deadline: float, samples: list[str]) -> tuple[int, int, int]:
    """The runs of ``samples`` with every system at its default parameters in the shared memo and, at the same time,
    the page's scripts compressed (:func:`static_files.precompress`), until ``deadline`` (``time.monotonic()``):
    (runs computed, runs asked for, scripts compressed).  The browser tests' server is made ready by it too."""
    from ratings import SYSTEM_NAMES
    from sources import runs
    from web import static_files

    sources = [{"kind": "sample", "name": name} for name in samples]
    # Both at once: the compression (zstd and brotli release the GIL) on the second core while the runs are computed.
    with futures.ThreadPoolExecutor(1, thread_name_prefix="prewarm-static") as pool:
        compressing = pool.submit(static_files.precompress, server, deadline)
        computed = runs.prewarm(sources, SYSTEM_NAMES, deadline)
        compressed = compressing.result()
    return computed, len(sources) * len(SYSTEM_NAMES), compressed


class _Replay:
    """The connection's parser, giving back the request the light lane already read (or its error) first."""

    def __init__(self, conn: Any, req: Any = None, error: BaseException | None = None) -> None:
        self._conn = conn
        self._parser = conn.parser
        self._req = req
        self._error = error

    def __iter__(self) -> _Replay:
        return self

    def __next__(self) -> Any:
        self._conn.parser = self._parser  # from now on the real parser
        if self._error is not None:
            raise self._error
        return self._req

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parser, name)


def _header(req: Any, name: str) -> str | None:
    return next((value for key, value in req.headers if key.upper() == name), None)


#: Paths of everything a page fetches after its HTML (Dash's routes, the assets, the favicon).
_NOT_PAGES = ("/_dash-", "/_reload", "/_favicon", "/assets/")


def is_page(req: Any) -> bool:
    """Whether ``req`` asks for a page's HTML: the first request of a page load (a GET of any other path than Dash's
    routes and the assets: Dash serves its page at every path, and a group's page at ``/g/<slug>``)."""
    return req.method == "GET" and not req.path.startswith(_NOT_PAGES)


def callback_kind(req: Any) -> str | None:
    """The outputs a callback request asks for (Dash's ``output``), ``""`` for a callback whose body is too large to
    read here or unreadable, None for any other request (a page, a script, a background-job poll)."""
    return peek_callback(req)[0]


def peek_callback(req: Any) -> tuple[str | None, Any, int]:
    """:func:`callback_kind`, the parsed body (None when not read) and its size in bytes; the body stays readable
    for the app."""
    if req.method != "POST" or req.path.rstrip("/") != UPDATE or "job=" in (req.query or ""):
        return None, None, 0
    try:
        length = int(_header(req, "CONTENT-LENGTH") or "-1")
    except ValueError:
        length = -1
    if not 0 <= length <= PEEK_BYTES:
        return "", None, 0
    data = req.body.read()
    req.body = io.BytesIO(data)
    try:
        body = json.loads(data)
        kind = body.get("output")
    except (ValueError, AttributeError):
        return "", None, len(data)
    return (kind[:300] if isinstance(kind, str) else ""), body, len(data)


def memoised(kind: str, body: Any, size: int, req: Any) -> Found | Missed | None:
    """The memoised answer to this callback request (:mod:`answer_memo`) if the app keeps one for it, else its memo
    name (the callback is memoised but the answer not there yet), else None (not memoised)."""
    from web import answer_memo

    memo = answer_memo.process_memo()
    name = memo.name(kind, body, size) if memo is not None else None
    if memo is None or name is None:
        return None
    return memo.find(name, encoding_for(_header(req, "ACCEPT-ENCODING"))) or Missed(name)


def _same_work(found: Missed | None, req: Any, body: Any) -> str | None:
    """What makes two callback requests one piece of work, for the gate's cap on unmeasured kinds: the answer memo's
    name where the callback is memoised, else a digest of the body read by :func:`peek_callback` (None if unread)."""
    if found is not None:
        return found.name
    if body is None or not isinstance(req.body, io.BytesIO):
        return None
    return hashlib.blake2b(req.body.getvalue(), digest_size=16).hexdigest()


class ThreadWorker(gthread.ThreadWorker):
    """gunicorn's ``gthread`` worker with a light lane and arrival judgement (see the module docstring)."""

    def init_process(self) -> None:
        self.light_count = light_threads()
        self.light_pool = futures.ThreadPoolExecutor(self.light_count, thread_name_prefix="light")
        #: Connections handed to the light lane that no light thread has begun yet.
        self.light_queued = 0
        self._queued_lock = threading.Lock()
        self.gate = process_gate()
        self.gate.unmeasured_at_once = max(int(self.cfg.threads), 1)  # one round of the heavy lane
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app: Callable[..., Iterable[bytes]] = self.wsgi  # type: ignore[has-type]

        def with_verdict(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            environ.update(getattr(_local, "verdict", {}))
            return app(environ, start_response)

        self.wsgi = with_verdict

    def enqueue_req(self, conn: Any) -> None:
        conn.ratings_queued_at = time.time()
        with self._queued_lock:
            self.light_queued += 1
        fs = self.light_pool.submit(self._dispatch, conn)
        fs.add_done_callback(lambda fut: self._finish(conn, fut))

    def _finish(self, conn: Any, fut: futures.Future[Any]) -> None:
        if not fut.cancelled() and fut.exception() is None and fut.result() is _HANDED_ON:
            return  # the lane it went to finishes the connection
        self.method_queue.defer(self.finish_request, conn, fut)

    def _hand_on(self, pool: futures.ThreadPoolExecutor, conn: Any) -> Any:
        try:
            fs = pool.submit(self.handle, conn)
        except RuntimeError:  # the lane is shutting down: serve it here
            return self.handle(conn)
        fs.add_done_callback(lambda fut: self._finish(conn, fut))
        return _HANDED_ON

    def _dispatch(self, conn: Any) -> Any:
        """On a light thread: read the request's head, then serve it here, refuse it, or hand it to the heavy lane."""
        with self._queued_lock:
            self.light_queued -= 1
            behind = self.light_queued
        try:
            if not conn.initialized and not conn.data_ready and not conn.wait_for_data(0):
                # Nothing sent yet (a browser's spare connection): wait on the poller, not on a thread.
                return gthread._DEFER
            conn.sock.setblocking(True)
            conn.init()
            if conn.is_http2:
                return self.handle(conn)
            req = next(conn.parser)
            kind, body, size = peek_callback(req) if req else (None, None, 0)
            found = memoised(kind, body, size, req) if kind else None
        except Exception as exc:  # gthread's handle() deals with it as it would have
            conn.parser = _Replay(conn, error=exc)
            return self.handle(conn)
        conn.parser = _Replay(conn, req)
        if kind is None:
            # Only with the lane saturated (a round of its threads' work still queued behind this request): a wait
            # alone may be the machine's scheduler, not a queue that this page's other 40 requests would join.
            waited = max(time.time() - conn.ratings_queued_at, 0.0)
            saturated = behind >= self.light_count
            late = is_page(req) and saturated and self.gate.page_refused(waited)
            conn.ratings_verdict = {PAGE_REFUSED: True} if late else {}
            return self.handle(conn)
        if isinstance(found, Found):  # answered from the shared memo, at once
            conn.ratings_verdict = {ANSWER: found}
            return self.handle(conn)
        missed = {} if found is None else {ANSWER: found}  # the memo's name, for the app not to work it out again
        if kind and self.gate.is_light(kind):
            conn.ratings_verdict = {LIGHT: True, **missed}
            return self.handle(conn)
        # Which requests are one piece of work matters only for a kind not measured yet (its cap): no digest otherwise.
        same = None if self.gate.measured(kind) else _same_work(found, req, body)
        arrival = self.gate.arrive(kind, max(time.time() - conn.ratings_queued_at, 0.0), same)
        if arrival is None:
            conn.ratings_verdict = {REFUSED: True}
            return self.handle(conn)  # the busy answer, at once
        conn.ratings_verdict = {ARRIVAL: arrival, **missed}
        return self._hand_on(self.tpool, conn)

    def handle_request(self, req: Any, conn: Any) -> Any:
        stamp = getattr(conn, "ratings_queued_at", None)
        if stamp is not None:
            req.headers = [(name, value) for name, value in req.headers if name.upper() != HEADER]
            req.headers.append((HEADER, f"t={stamp:.6f}"))
        verdict = getattr(conn, "ratings_verdict", None) or {}
        conn.ratings_verdict = {}
        _local.verdict = verdict
        try:
            return super().handle_request(req, conn)
        finally:
            _local.verdict = {}
            arrival = verdict.get(ARRIVAL)
            if isinstance(arrival, Arrival):
                self.gate.discard(arrival)  # a no-op when the app began it

    def run(self) -> None:
        try:
            super().run()
        finally:
            self.light_pool.shutdown(wait=False)

    def handle_quit(self, sig: Any, frame: Any) -> None:
        self.light_pool.shutdown(wait=False)
        super().handle_quit(sig, frame)
