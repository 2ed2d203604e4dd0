"""The front door: the Dash app built by :func:`web.factory.create_app` from the settings, served by ``python
app.py`` (on your own machine) or ``gunicorn app:server`` (the Procfile).

Where things live: ``ratings/`` the maths and the data model, ``sources/`` the service layer (data sources, the
shared store, Google Sheets, recording, the settings), ``layouts/`` and ``figures/`` what the page shows,
``callbacks/`` the adapters between the page and the services, ``web/`` what hosting adds (the request guard,
security headers, static files, the answer memo, the overload gate, the worker class, background jobs).
"""

from __future__ import annotations

import logging

from callbacks.record import LOCAL_WRITES
from sources import jobs, settings
from sources.access import is_loopback
from web.factory import create_app, ready_kernels

config = settings.current()
app = create_app(config)

#: The WSGI application gunicorn serves (``gunicorn app:server``).
server = app.server

#: The Celery application when REDIS_URL is set (``celery -A app.celery_app worker``), else None.
celery_app = jobs.celery_app

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    # one person's own machine: recording into the configured sheet needs no organisers' secret (sources.access)
    server.config[LOCAL_WRITES] = is_loopback(config.host)
    ready_kernels()
    app.run(host=config.host, port=config.port, debug=config.debug)
