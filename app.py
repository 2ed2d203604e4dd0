"""The Dash app: built here, served by ``python app.py`` (development) or ``gunicorn app:server``."""

from __future__ import annotations

import logging

from dash import Dash

import callbacks
import security
import settings
from layouts import page

config = settings.current()

app = Dash(
    __name__,
    title="Game-group ratings",
    compress=True,
    serve_locally=True,
    suppress_callback_exceptions=False,
    on_error=security.callback_error,
    meta_tags=[{"name": "viewport", "content": "width=device-width, initial-scale=1"}],
)
app.layout = page.layout
callbacks.register()

#: The WSGI application gunicorn serves (``gunicorn app:server``).
server = app.server
server.secret_key = config.secret_key
security.protect(app, debug=config.debug)

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    app.run(host=config.host, port=config.port, debug=config.debug)
