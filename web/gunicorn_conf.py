"""gunicorn's settings for the Procfile (``gunicorn app:server -c python:web.gunicorn_conf ...``): the start-up work
runs after the port is bound.

With ``--preload`` the master imports the app before it binds; the kernels' loading (a second from a warm cache, a
compile of 35-45 s of CPU without one) and the prewarm (every bundled sample's default runs, the page's scripts
compressed: up to ``RATINGS_PREWARM_SECONDS``) would keep a PaaS from seeing a bound port for their whole length.
``when_ready`` runs them in the master once the port is bound and before the workers fork: connections made
meanwhile wait in the listen queue and are served as soon as the workers start, with the compiled kernels and the
prewarmed results inherited.
"""

from __future__ import annotations

import ctypes
from typing import Any

#: glibc's ``mallopt`` parameter for the number of malloc arenas (``M_ARENA_MAX`` in malloc.h).
M_ARENA_MAX = -8
#: Arenas a process may use.  glibc gives each new thread up to 8 per core of its own, each growing on its own and
#: seldom given back, so a worker's 12 threads (light and heavy lanes) each kept the peak of what they had served.
ARENAS = 2


def fewer_malloc_arenas() -> bool:
    """At most :data:`ARENAS` malloc arenas in this process and the workers it forks (glibc only; as setting
    ``MALLOC_ARENA_MAX`` would, read here because a Procfile line cannot be relied on to set the environment first).
    Whether it was set."""
    try:
        return bool(ctypes.CDLL(None).mallopt(M_ARENA_MAX, ARENAS))  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc: no such function, and nothing to set
        return False


# gunicorn reads this file in the master before it loads the app (with --preload) and before any thread starts.
fewer_malloc_arenas()


def when_ready(server: Any) -> None:
    """gunicorn's hook: the port is bound, the workers not yet forked."""
    import gc

    from sources import settings
    from web import serving
    from web.factory import ready_kernels

    config = settings.current()
    ready_kernels(server.log)  # gunicorn's own log (its error log), set up before it loads the app
    serving.prewarm(server.app.wsgi(), config.prewarm_seconds, config.sample)
    # Everything the master holds now (the app, the compiled kernels, the prewarmed runs) is shared with the workers
    # by copy-on-write; a worker's garbage collector visiting those objects writes to their headers and copies their
    # pages into the worker.  Frozen, the collector leaves them alone (gc.freeze: kept out of every collection).
    gc.collect()
    gc.freeze()
