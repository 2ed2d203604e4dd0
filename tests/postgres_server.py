"""A real PostgreSQL cluster on a free loopback port, made and removed by the tests (``initdb`` into a temporary
directory, ``pg_ctl start``, trust authentication on 127.0.0.1 only).

Usage::

    with PostgresServer() as server:    # PostgresMissing when the binaries are not installed (`make postgres`)
        server.url                      # postgresql://tests@127.0.0.1:<port>/tests
        server.new_database()           # another empty database's URL

PostgreSQL refuses to run as root: run as root (as CI is), the cluster belongs to the ``postgres`` system user that
Debian's package creates, and the commands run through ``runuser``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from types import TracebackType

from tests.redis_server import _free_port

__all__ = ["PostgresMissing", "PostgresServer"]


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def _binaries() -> str:
    found = shutil.which("pg_ctl")
    if found is not None:
        return os.path.dirname(os.path.realpath(found))
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not versions:
        raise PostgresMissing("PostgreSQL is not installed (`make postgres` installs it)")
    return os.path.dirname(versions[-1])


class PostgresServer:
    """One throwaway cluster; :attr:`url` names its database ``tests`` owned by the role ``tests``."""

    def __init__(self, start_timeout: float = 60.0) -> None:
        self.bin = _binaries()
        self.start_timeout = start_timeout
        self.port = 0
        self._directory: tempfile.TemporaryDirectory[str] | None = None
        self._as_root = os.geteuid() == 0

    def _run(self, *command: str) -> str:
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_root else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=self.start_timeout, cwd="/")
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
        return done.stdout

    @property
    def url(self) -> str:
        return f"postgresql://tests@127.0.0.1:{self.port}/tests"

    def start(self) -> PostgresServer:
        self._directory = tempfile.TemporaryDirectory(prefix="postgres-test-")
        if self._as_root:
            shutil.chown(self._directory.name, "postgres", "postgres")
        data = os.path.join(self._directory.name, "data")
        self._run(
            os.path.join(self.bin, "initdb"), "-D", data, "-U", "tests", "--auth=trust", "--no-sync", "-E", "UTF8"
        )
        self.port = _free_port()
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self._directory.name} -c fsync=off"
        self._run(os.path.join(self.bin, "pg_ctl"), "-D", data, "-o", options, "-w", "-l", f"{data}.log", "start")
        self._run(os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "tests", "tests")
        return self

    def new_database(self) -> str:
        """The URL of a new empty database in this cluster."""
        name = "t" + uuid.uuid4().hex[:12]
        self._run(os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "tests", name)
        return f"postgresql://tests@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if self._directory is not None:
            data = os.path.join(self._directory.name, "data")
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self._run(os.path.join(self.bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
            self._directory.cleanup()
            self._directory = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
