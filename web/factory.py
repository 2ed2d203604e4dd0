"""The one place the hosted app is put together, in order: :func:`create_app`.

The order matters, and each step says why: Flask runs request hooks in the order they are installed, so the guard
(who is asking, from where, how often) comes first, the static files and the answer memo before the overload gate
(a compressed file or a memoised answer is never refused), and the gate last; the first request Dash serves ends
its set-up, so it is served only once everything is installed.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from dash import Dash

import callbacks
from layouts import page
from ratings.kernels import warm_up
from sources.settings import Settings
from web import answer_memo, background, commands, groups, guard, security, static_files

__all__ = ["create_app", "ready_kernels"]

log = logging.getLogger(__name__)

#: The app's style sheets and scripts (Bootstrap vendored, the app's own CSS and clientside JS).
ASSETS = Path(__file__).resolve().parent.parent / "assets"


def ready_kernels(to: logging.Logger = log) -> None:
    """Compile (or load from numba's on-disk cache) every replay kernel now, not on a visitor's first click.

    Called by whoever is about to serve: gunicorn's master once the port is bound and before the workers fork
    (``web.gunicorn_conf.when_ready``: they inherit the compiled code), and ``python app.py``.  Not by
    :func:`create_app`: a Celery worker builds the app too (and so does ``flask --app app ...``), and needs no kernel
    loaded at start (a job loads its system's when it runs).  Says how long it took on the logger ``to``.
    """
    started = time.perf_counter()
    compiled = warm_up()
    to.info("replay kernels ready in %.2f s (%s)", time.perf_counter() - started, ", ".join(sorted(compiled)))


def create_app(config: Settings) -> Dash:
    """The Dash app with every callback and the request hooks, configured by ``config`` (the kernels are loaded
    by :func:`ready_kernels` before serving)."""
    app = Dash(
        __name__,
        title="Game-group ratings",
        assets_folder=str(ASSETS),
        compress=True,
        serve_locally=True,
        # The lazy tabs' components mount when a tab first opens (layouts.page), so the first page does not hold
        # every component a callback names; tests/test_app_state.py checks each one against the whole page instead.
        # (Checking in the browser would also put the whole page into every page's HTML, as Dash's validation
        # layout.)
        suppress_callback_exceptions=True,
        on_error=security.callback_error,
        background_callback_manager=background.manager(),
        meta_tags=[{"name": "viewport", "content": "width=device-width, initial-scale=1"}],
    )
    app.layout = page.layout
    callbacks.register()

    server = app.server
    server.secret_key = config.secret_key
    commands.install(server)  # db upgrade / groups ... (web/commands.py; flask --app web.commands loads them alone)
    # 1. First of the request hooks: the client's address behind the PaaS router, the session cookie's attributes,
    #    no cross-site requests, limits per client on writes, uploads and sign-in tries (nothing else answers a
    #    refused request).
    guard.install(
        server, proxy_hops=config.proxy_hops, update_path=app.config.routes_pathname_prefix + "_dash-update-component"
    )
    # 1b. A group's address naming no group: one plain line, before the page is served (web/groups.py).
    groups.install(server)
    # 2. Scripts and style sheets compressed once, hard (after Dash's own compression is installed, so this runs
    #    first; before protect(), which serves the page once and so ends the app's set-up).
    static_files.compress_static(server)
    # 3. The layout and the callback list built and compressed once per process (the same for every visitor).
    static_files.page_once(app)
    # 4. Identical callback requests answered once from the shared store (before protect(): a memoised answer is
    #    never refused by the overload gate).
    answer_memo.install(app, enabled=config.answer_memo)
    # 5. Size limit, security headers, development routes off, the overload gate; serves the page once.
    security.protect(app, debug=config.debug)
    # 6. Under gunicorn the master then binds the port and computes the samples' default runs and compresses the
    #    scripts (web/gunicorn_conf.py, bounded by RATINGS_PREWARM_SECONDS) before the workers fork, so the first
    #    visitors wait for neither and the platform sees the port bound at once.
    return app
