"""The app's real processes for tests: gunicorn as the Procfile runs it, and the Celery worker of the Procfile.

Each is a context manager that starts the process on loopback, waits until it answers, and stops it (its log kept
in a file the test can read on failure).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

__all__ = ["ROOT", "celery_worker", "free_port", "gunicorn", "stop_group"]

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def procfile(process: str, count: int) -> list[str]:
    """The Procfile's command for ``process`` (``web``, ``worker``), its ``${..._CONCURRENCY:-N}`` set to ``count``:
    the tests start the app exactly as the host does (later options given by a test override the Procfile's)."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == process:
            return shlex.split(re.sub(r"\$\{[A-Z_]+_CONCURRENCY:-\d+\}", str(count), command))
    raise LookupError(f"the Procfile has no '{process}' process")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop_group(proc: subprocess.Popen[bytes], grace: float = 3.0) -> None:
    """Stop a process started with ``start_new_session=True`` and every process it forked (gunicorn's and Celery's
    workers): SIGTERM to its process group, ``grace`` seconds to exit, then SIGKILL to the group.

    A graceful gunicorn or Celery shutdown waits for open connections and jobs (up to 30 s each); a test's server
    holds nothing worth waiting for, and killing the whole group leaves no orphaned worker behind.
    """
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # the leader's children too, even when the leader has exited
    proc.wait(timeout=10)


#: The log directories of the gunicorn servers running now; a failed browser test reports their error logs' tails.
RUNNING_LOGS: list[Path] = []


@contextlib.contextmanager
def gunicorn(env: dict[str, str], logs: Path, *, workers: int = 2, start_timeout: float = 120.0) -> Iterator[str]:
    """``gunicorn app:server`` with ``workers`` sync workers; yields its base URL.  The access log names the worker
    (``pid=<N>``) of each request; both logs go to ``logs``."""
    binary = BIN / "gunicorn"
    if not binary.exists():
        pytest.skip(f"gunicorn is not installed next to {sys.executable}")
    port = free_port()
    # start-up prewarm (serving.prewarm) only where a test asks for it (the production-like ones): 4-10 s per start
    defaults = {"SECRET_KEY": "test-secret-shared-by-workers", "PYTHONUNBUFFERED": "1", "RATINGS_PREWARM_SECONDS": "0"}
    environ = {**os.environ, **defaults, **env}
    environ.pop("PORT", None)
    command = [str(binary), *procfile("web", workers)[1:], "--bind", f"127.0.0.1:{port}"]
    command += ["--access-logfile", str(logs / "access.log"), "--access-logformat", 'pid=%(p)s "%(r)s" %(s)s']
    command += ["--error-logfile", str(logs / "error.log")]
    # the app's own log (callback failures with their tracebacks) goes to the processes' stderr
    with (logs / "stderr.log").open("wb") as stderr:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + start_timeout
    RUNNING_LOGS.append(logs)
    try:
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(url + "/_dash-layout", timeout=5).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                error = (logs / "error.log").read_text() if (logs / "error.log").exists() else ""
                pytest.fail(f"gunicorn did not start:\n{error[-3000:]}")
            time.sleep(0.25)
        yield url
    finally:
        RUNNING_LOGS.remove(logs)
        stop_group(proc)


@contextlib.contextmanager
def celery_worker(
    env: dict[str, str], logs: Path, *, start_timeout: float = 120.0
) -> Iterator[subprocess.Popen[bytes]]:
    """The Procfile's Celery worker (``celery -A app.celery_app worker``), ready to take jobs."""
    binary = BIN / "celery"
    if not binary.exists():
        pytest.skip(f"celery is not installed next to {sys.executable}")
    environ = {**os.environ, "SECRET_KEY": "test-secret-shared-by-workers", "PYTHONUNBUFFERED": "1", **env}
    log = logs / "celery.log"
    command = [str(binary), *procfile("worker", 1)[1:]]
    command += ["--logfile", str(log), "--without-gossip", "--without-mingle", "--without-heartbeat"]
    proc = subprocess.Popen(
        command, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + start_timeout
    try:
        while "ready." not in (log.read_text() if log.exists() else ""):
            if proc.poll() is not None or time.monotonic() > deadline:
                text = log.read_text() if log.exists() else ""
                pytest.fail(f"the Celery worker did not start:\n{text[-3000:]}")
            time.sleep(0.25)
        yield proc
    finally:
        stop_group(proc)
