"""The page's scripts and style sheets compressed once per process, at the strongest zstd level.

Dash's ``compress=True`` (flask-compress) compresses every response as it leaves, at a quick level (zstd 3, brotli 4,
gzip 6): right for callback answers, which differ each time.  The scripts are the same bytes for every visitor, and
they are most of a first visit (plotly.js, AG Grid, React, Dash's renderer), so they are compressed once, at zstd
level 19 (brotli quality 9 for a browser without zstd) and kept in memory: plotly.js's cartesian bundle is 427 KB
instead of 500 KB, AG Grid's script 295 KB instead of 360 KB; the page's scripts together 1.02 MB instead of 1.20 MB.
That takes about 7 s of one core for all of them, so no visitor waits for it: the first request of a file after a
start is answered at once by flask-compress's quick level and starts the strong compression in a background
thread; once it is done, every later request gets the strong copy.  A browser that accepts neither zstd nor brotli
gets flask-compress's gzip.

Fingerprinted files are cached by browsers for a year without asking again (``Cache-Control: public,
max-age=31536000, immutable``): Dash's component scripts, whose URL carries the package version and the file's
modification time (``dash_core_components.v4_4_1m1700000000.min.js``), and the app's assets requested under the URL
Dash writes into the page (``/assets/app.css?m=<modification time>``).  A changed file gets a new URL, so a
returning visitor downloads nothing but what changed.  An asset requested without its fingerprint, or with one that
is no longer the file's, is revalidated as before (no long cache).

Besides the scripts the page names, the component packages load a few chunks of their own once the page runs
(:data:`LAZY_SCRIPTS`: dcc's upload, dropdown, slider and graph, AG Grid's community grid; 989 KB, 291 KB at
flask-compress's quick level, 249 KB at zstd 19).  Their URLs carry no fingerprint, so they are revalidated rather
than cached for a year, but they are the same bytes for every visitor: :func:`precompress` compresses them with the
page's scripts (0.27 s of CPU), so a worker's first visitors get the small copy too.  They are named, not found: the
packages ship about 8 MB of such chunks (AG Grid Enterprise's 3.5 MB, MathJax's 2.1 MB) that this page never loads;
a browser test checks that a first visit fetches exactly these.

The page's layout and its list of callbacks (``/_dash-layout``, ``/_dash-dependencies``) are the same bytes for every
visitor too (the page's state comes afterwards, from callbacks): :func:`page_once` builds and compresses each once per
process and encoding, where Dash built the layout's 420 components and serialised them for every visit (about 11 ms
of CPU).  The page itself (``/``) is not: Dash writes into it a signed token of its own for each page load (``end_id``,
which binds background-job handles to the page that started them), so it is built for every visitor.
"""

from __future__ import annotations

import html
import os
import re
import threading
import time
from typing import Any

from dash.fingerprint import check_fingerprint
from flask import Flask, Response, request
from werkzeug.security import safe_join

from sources.compression import ENCODINGS, encode, encoding_for, strongest
from sources.forksafe import ForkSafeLock

__all__ = [
    "ENCODINGS",
    "IMMUTABLE",
    "LAZY_SCRIPTS",
    "STATIC_PREFIXES",
    "compress_static",
    "encode",
    "encoding_for",
    "fingerprinted",
    "page_once",
    "precompress",
    "strongest",
    "with_body",
]

#: The routes of files that are the same for every visitor (Dash's component scripts, the app's assets).
STATIC_PREFIXES = ("/_dash-component-suites/", "/assets/")
_TYPES = {"application/javascript", "text/javascript", "text/css"}
#: The component packages' chunks that the page's scripts load by themselves on a first visit (no fingerprint).
LAZY_SCRIPTS = (
    "/_dash-component-suites/dash/dcc/async-dropdown.js",
    "/_dash-component-suites/dash/dcc/async-graph.js",
    "/_dash-component-suites/dash/dcc/async-slider.js",
    "/_dash-component-suites/dash/dcc/async-upload.js",
    "/_dash-component-suites/dash_ag_grid/async-community.js",
)
#: The caching of a file whose URL changes whenever the file does.
IMMUTABLE = "public, max-age=31536000, immutable"

_compressed: dict[tuple[str, str, str], bytes] = {}
_pending: set[tuple[str, str, str]] = set()
_lock = ForkSafeLock()
_one_at_a_time = ForkSafeLock()  # the background compressions take one core, never both


def with_body(response: Response, data: bytes, encoding: str) -> Response:
    """``response`` sending ``data``, a body already compressed with ``encoding`` (``""``: sent as it is); the one
    place an encoded body is put on a response (static files, the page's layout, memoised answers)."""
    response.direct_passthrough = False
    response.set_data(data)  # Content-Length too
    if encoding:
        response.headers["Content-Encoding"] = encoding
        response.vary.add("Accept-Encoding")
    return response


def _start(key: tuple[str, str, str], raw: bytes, encoding: str) -> None:
    """Compress ``raw`` in a background thread (once per key) and keep the result."""
    with _lock:
        if key in _pending or key in _compressed:
            return
        _pending.add(key)

    def work() -> None:
        try:
            with _one_at_a_time:
                data = encode(raw, encoding, hard=True)
            with _lock:
                _compressed[key] = data
        finally:
            with _lock:
                _pending.discard(key)

    threading.Thread(target=work, name="static-compression", daemon=True).start()


def fingerprinted(server: Flask) -> bool:
    """Whether the current request names a static file by a URL that changes with the file: a component script with
    Dash's fingerprint, or an asset whose ``m`` is the file's current modification time (as Dash writes it)."""
    if request.path.startswith(STATIC_PREFIXES[0]):
        return check_fingerprint(request.path)[1]
    stamp = request.args.get("m")
    blueprint = server.blueprints.get(request.blueprint or "")
    filename = (request.view_args or {}).get("filename")
    if not stamp or blueprint is None or not blueprint.static_folder or not isinstance(filename, str):
        return False
    path = safe_join(str(blueprint.static_folder), filename)
    try:
        return path is not None and stamp == str(os.path.getmtime(path))
    except OSError:
        return False


def _forget_pending() -> None:
    # A compression under way in a parent process never finishes in a forked child: let the child start its own.
    _pending.clear()


os.register_at_fork(after_in_child=_forget_pending)


def precompress(server: Flask, deadline: float, encoding: str = "zstd") -> int:
    """Compress the page's scripts and style sheets, and the chunks they load (:data:`LAZY_SCRIPTS`), now, for
    browsers accepting ``encoding``, waiting for them until ``deadline`` (``time.monotonic()``): with gunicorn
    --preload the master does it once, before the workers fork, and every worker starts with them.  How many are
    ready."""
    client = server.test_client()
    page = client.get("/").get_data(as_text=True)
    named = set(re.findall(r'(?:src|href)="(/(?:assets|_dash-component-suites)/[^"]+)"', page))
    urls = sorted(named) + list(LAZY_SCRIPTS)
    for url in urls:
        if time.monotonic() >= deadline:
            break
        client.get(html.unescape(url), headers={"Accept-Encoding": encoding})
    while time.monotonic() < deadline:
        with _lock:
            if not _pending:
                break
        time.sleep(0.05)
    with _lock:
        return sum(1 for key in _compressed if key[1] == encoding)


def compress_static(server: Flask) -> None:
    """Serve the static files of ``server`` compressed once (register after Dash made the app, so this runs before
    flask-compress, which leaves a response that already has a ``Content-Encoding`` alone), and fingerprinted ones
    cached for a year."""

    @server.after_request
    def _cached_for_a_year(response: Response) -> Response:
        if (
            request.method in ("GET", "HEAD")
            and response.status_code in (200, 304)
            and request.path.startswith(STATIC_PREFIXES)
            and fingerprinted(server)
        ):
            response.headers["Cache-Control"] = IMMUTABLE
        return response

    @server.after_request
    def _compressed_once(response: Response) -> Response:
        if (
            request.method != "GET"
            or response.status_code != 200
            or "Content-Encoding" in response.headers
            or response.mimetype not in _TYPES
            or not request.path.startswith(STATIC_PREFIXES)
        ):
            return response
        encoding = strongest(request.headers.get("Accept-Encoding", ""))
        if encoding is None:
            return response
        etag, weak = response.get_etag()
        key = (request.full_path, encoding, etag or "")
        data = _compressed.get(key)
        if data is None:
            response.direct_passthrough = False
            _start(key, response.get_data(), encoding)
            return response  # flask-compress's quick level this time
        with_body(response, data, encoding)
        if etag and not weak:
            response.set_etag(f"{etag}:{encoding}")
        return response


def page_once(app: Any) -> None:
    """Serve the layout and the callback list of ``app`` as built the first time (per encoding): they depend on no
    request (register after Dash made the app, so this runs before flask-compress).  Not the page: see the module
    docstring."""
    server = app.server
    prefix = app.config.routes_pathname_prefix or "/"
    paths = {prefix + "_dash-layout", prefix + "_dash-dependencies"}
    built: dict[tuple[str, str], tuple[bytes, str]] = {}
    lock = ForkSafeLock()

    @server.before_request
    def _built_before() -> Response | None:
        if request.method != "GET" or request.path not in paths:
            return None
        encoding = encoding_for(request.headers.get("Accept-Encoding"))
        with lock:
            found = built.get((request.path, encoding))
        if found is None:
            return None
        data, mimetype = found
        return with_body(Response(status=200, mimetype=mimetype), data, encoding)

    @server.after_request
    def _keep_built(response: Response) -> Response:
        if (
            request.method != "GET"
            or request.path not in paths
            or response.status_code != 200
            or "Content-Encoding" in response.headers
            or response.direct_passthrough
        ):
            return response
        encoding = encoding_for(request.headers.get("Accept-Encoding"))
        data = encode(response.get_data(), encoding)
        with lock:
            built.setdefault((request.path, encoding), (data, response.mimetype or "text/html"))
        return with_body(response, data, encoding) if encoding else response
