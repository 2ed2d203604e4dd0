"""What the hosted app does for every request: size limit, security headers, no development routes, no tracebacks.

- Requests are limited to :data:`MAX_REQUEST_BYTES` (Flask's ``MAX_CONTENT_LENGTH``: a larger body is refused with
  413 before it is parsed).  The largest legitimate request is an upload: 10 MB of file as base64 plus the form.
- Every response carries a Content-Security-Policy (scripts only from this server, plus the hashes of Dash's own
  inline scripts; no framing), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and
  ``Referrer-Policy: no-referrer`` (the address may name a group's sheet).
- Dash's hot-reload route answers 404 unless the app runs in debug mode.
- Overload: a callback request that could not finish within ``RATINGS_BUSY_SECONDS`` (queue included) is refused at
  once by the process's :class:`sources.admission.Gate` (under the Procfile's worker, :mod:`serving`, when it
  arrives): the answer (200, ``Retry-After``) updates none of the callback's outputs
  and shows :data:`sources.admission.BUSY_MESSAGE` in the page's error banner.  Background-job polls are never
  refused.
- Dash's first-request setup (which registers every script path) runs before the app is served: under a threaded
  worker, requests arriving during another thread's setup were answered 500 "not a registered library".
- The page's scripts and assets are compressed once per process (:mod:`static_files`, installed before the first
  request), not again for every visitor (about a second of CPU per first visit, most of it plotly.js).
- A callback request naming no callback the server runs (a clientside one, or a made-up output) gets 400, where Dash
  itself raised KeyError (a 500).
- :func:`callback_error` is the app's ``on_error``: an exception a callback did not expect is logged with its
  traceback on the server; the browser gets no update for that callback's outputs and one plain line in the page's
  error banner, never a 500 or a traceback.
"""

from __future__ import annotations

import logging

from dash import Dash, set_props
from dash.exceptions import DependencyException
from flask import Response, abort, g, request

from callbacks.runs import DataError
from layouts.ids import Page
from ratings import ComputationError, ParameterError, UnknownSystemError
from ratings.io import MAX_BYTES
from sources import answers
from sources.admission import (
    ARRIVAL,
    BUSY_MESSAGE,
    LIGHT,
    PAGE_REFUSED,
    REFUSED,
    Arrival,
    process_gate,
    queued_seconds,
)
from web.guard import banner_answer

__all__ = [
    "BUSY_PAGE",
    "MAX_REQUEST_BYTES",
    "busy_answer",
    "busy_page",
    "callback_error",
    "content_security_policy",
    "protect",
]

log = logging.getLogger(__name__)

#: Largest request body accepted: a 10 MB file is 13.4 MB of base64, plus the rest of the callback's JSON.
MAX_REQUEST_BYTES = MAX_BYTES * 4 // 3 + (2 << 20)

#: Routes that only make sense while developing.
DEVELOPMENT_ROUTES = ("_reload-hash",)


def content_security_policy(script_hashes: list[str]) -> str:
    """The policy: everything from this server; inline scripts only by hash; inline styles (plotly sets them)."""
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'", *script_hashes],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


def protect(app: Dash, *, debug: bool = False) -> None:
    """Install the request limit, the headers and the route guard on ``app``'s server (after its callbacks)."""
    server = app.server
    server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    # Two requests Dash itself answered with 500 (issue 30): a script path it does not serve (a made-up file, a
    # '..' in the path) is a 404, and JSON nested deeper than the parser's recursion limit a 400.
    server.register_error_handler(
        DependencyException, lambda _exc: Response("no such file", status=404, mimetype="text/plain")
    )
    server.register_error_handler(
        RecursionError,
        lambda _exc: Response("the request's JSON is nested too deeply", status=400, mimetype="text/plain"),
    )
    policy = content_security_policy(list(app.csp_hashes()))
    prefix = app.config.routes_pathname_prefix or "/"
    blocked = {prefix + route for route in DEVELOPMENT_ROUTES}

    @server.before_request
    def _no_development_routes() -> None:
        if not debug and request.path in blocked:
            abort(404)

    gate = process_gate()
    server.extensions["ratings_gate"] = gate
    update = prefix + "_dash-update-component"

    @server.before_request
    def _admit() -> Response | None:
        if request.environ.get(PAGE_REFUSED) is True:  # judged by the threaded worker (serving.py)
            return busy_page()
        if request.method != "POST" or request.path != update or "job" in request.args:
            return None  # pages, scripts and background-job polls are never refused
        body = request.get_json(silent=True)
        kind = body.get("output") if isinstance(body, dict) else None
        known = app.callback_map.get(kind) if isinstance(kind, str) else None
        if not isinstance(known, dict) or "callback" not in known:
            # Not a callback this server runs (a clientside one, or made up): Dash itself would answer 500.
            return Response("no such callback on this server", status=400, mimetype="text/plain")
        environ = request.environ
        arrival = environ.get(ARRIVAL)
        if environ.get(REFUSED) is True:  # judged on arrival by the threaded worker (serving.py)
            ticket = None
        elif isinstance(arrival, Arrival):
            ticket = gate.begin(arrival)
        else:
            queued = queued_seconds(request.headers.get("X-Request-Start"))
            ticket = gate.enter(str(kind)[:300], queued, may_refuse=environ.get(LIGHT) is not True)
        if ticket is None:
            return busy_answer()
        g.ratings_ticket = ticket
        return None

    @server.teardown_request
    def _leave(_exc: BaseException | None) -> None:
        ticket = g.pop("ratings_ticket", None)
        if ticket is not None:
            gate.leave(ticket)

    @server.after_request
    def _headers(response: Response) -> Response:
        headers = response.headers
        headers.setdefault("Content-Security-Policy", policy)
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("X-Frame-Options", "DENY")
        headers.setdefault("Referrer-Policy", "no-referrer")
        headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        return response

    # Serve the page once now (with gunicorn --preload: in the master, before the workers fork), so that Dash's
    # first-request setup, which registers every script path, is done before any visitor's request: Dash marks the
    # setup done before doing it, so a thread of a threaded worker answering at the same time saw no script
    # registered and answered 500.
    server.test_client().get(prefix)


#: The page a visitor gets when the server refuses a whole page load (:func:`busy_page`).
BUSY_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Busy: game-group ratings</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><p>The server is busy: too many people are opening the page at once. Please <a href="">try again</a> in a few
seconds.</p></body></html>
"""


def busy_page() -> Response:
    """A page load refused whole: a short page saying so, 503 with ``Retry-After`` (nothing else of the page is
    fetched)."""
    return Response(BUSY_PAGE, status=503, mimetype="text/html", headers={"Retry-After": "10"})


def busy_answer() -> Response:
    """A callback answer that updates none of its outputs and says, in the page's error banner, that the server is
    busy."""
    return banner_answer(BUSY_MESSAGE, retry_after=5)


#: Errors whose message is written for the user.
_PLAIN = (ComputationError, ParameterError, UnknownSystemError)


def callback_error(exc: Exception) -> None:
    """Dash's ``on_error``: log the unexpected, show one plain line, update nothing else (and never memoise the
    answer: the error may pass)."""
    answers.volatile("an error")
    if isinstance(exc, DataError):
        message = f"Not updated: {'; '.join(exc.messages)}. Anything drawn before stays on screen."
    elif isinstance(exc, _PLAIN):
        message = f"Not updated: {exc}. Anything drawn before stays on screen."
    else:
        log.error("callback failed: %s", type(exc).__name__, exc_info=exc)
        message = (
            "Part of the page could not be updated from what the browser sent (the server logged the details). "
            "Anything drawn before stays on screen; reloading the page starts afresh."
        )
    try:
        set_props(Page.ERROR, {"children": message, "is_open": True})
    except Exception:
        log.debug("no page to show the error on")
    return None
