"""The Dash app: built here, served by ``python app.py`` (development) or ``gunicorn app:server``."""

from __future__ import annotations

import logging
import time

from dash import Dash

import answer_memo
import background
import callbacks
import security
import serving
import settings
import static_files
from callbacks.record import LOCAL_WRITES
from layouts import page
from ratings.kernels import warm_up
from web import guard

config = settings.current()
log = logging.getLogger(__name__)

# Compile (or load from numba's on-disk cache) every replay kernel now, not on a visitor's first click.  With
# gunicorn --preload (the Procfile) the master does it once and the workers inherit the compiled code.
_started = time.perf_counter()
_compiled = warm_up()
log.info("replay kernels ready in %.2f s (%s)", time.perf_counter() - _started, ", ".join(sorted(_compiled)))

app = Dash(
    __name__,
    title="Game-group ratings",
    compress=True,
    serve_locally=True,
    # The lazy tabs' components mount when a tab first opens (layouts.page), so the first page does not hold every
    # component a callback names; tests/test_app_state.py checks each one against the whole page instead.  (Checking
    # in the browser would also put the whole page into every page's HTML, as Dash's validation layout.)
    suppress_callback_exceptions=True,
    on_error=security.callback_error,
    background_callback_manager=background.manager(),
    meta_tags=[{"name": "viewport", "content": "width=device-width, initial-scale=1"}],
)
app.layout = page.layout
callbacks.register()

#: The Celery application when REDIS_URL is set (``celery -A app.celery_app worker``), else None.
celery_app = background.celery_app

#: The WSGI application gunicorn serves (``gunicorn app:server``).
server = app.server
server.secret_key = config.secret_key
# first of the request hooks: the client's address behind the PaaS router, the session cookie's attributes, no
# cross-site requests, limits per client on writes, uploads and sign-in tries (nothing else answers a refused request)
guard.install(
    server, proxy_hops=config.proxy_hops, update_path=app.config.routes_pathname_prefix + "_dash-update-component"
)
# scripts and style sheets compressed once, hard (after Dash's own compression is installed, so this runs first;
# before protect(), which serves the page once and so ends the app's set-up)
static_files.compress_static(server)
# the layout and the callback list built and compressed once per process (the same for every visitor)
static_files.page_once(app)
# identical callback requests answered once from the shared store (before protect(): a memoised answer is never
# refused by the overload gate)
answer_memo.install(app, enabled=config.answer_memo)
security.protect(app, debug=config.debug)
# Under gunicorn --preload the master computes the samples' default runs and compresses the scripts (bounded by
# RATINGS_PREWARM_SECONDS) before the workers fork, so the first visitors wait for neither.
serving.prewarm(server, config.prewarm_seconds, config.sample)

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    # one person's own machine: recording into the configured sheet needs no organisers' secret (sources.access)
    server.config[LOCAL_WRITES] = config.host in ("127.0.0.1", "localhost", "::1")
    app.run(host=config.host, port=config.port, debug=config.debug)
