"""A real ``redis-server`` on a free loopback port, started and stopped by the tests (nothing saved to disk).

Usage::

    with RedisServer() as server:    # RedisMissing when the binary is not installed (`make redis` installs it)
        server.url                   # redis://127.0.0.1:<port>/0
        server.stop()                # Redis goes down while the app still points at it

tests/conftest.py keeps one for the whole session (fixture ``redis_url``); a test that needs a server to die
starts its own.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from types import TracebackType

__all__ = ["RedisMissing", "RedisServer", "closed_port", "in_ci"]


class RedisMissing(RuntimeError):
    """No ``redis-server`` binary on this machine."""


def in_ci() -> bool:
    """Whether the suite runs in CI (``CI=true``, as CI services set it), where nothing may be skipped."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def closed_port() -> socket.socket:
    """A loopback TCP socket bound but not listening: connecting to its port is refused while it is held open."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


class RedisServer:
    """``redis-server --port <free> --bind 127.0.0.1 --save "" --appendonly no`` as a child process."""

    def __init__(self, binary: str | None = None, start_timeout: float = 15.0) -> None:
        found = binary or shutil.which("redis-server")
        if found is None:
            raise RedisMissing("redis-server is not installed (`make redis` installs it)")
        self.binary = found
        self.start_timeout = start_timeout
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._log = ""
        self._directory: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start on a free port and return once it answers PING (another free port if that one was taken)."""
        self._directory = tempfile.TemporaryDirectory(prefix="redis-test-")
        self._log = os.path.join(self._directory.name, "redis.log")
        last = ""
        for _ in range(3):
            self.port = _free_port()
            command = [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._directory.name,
                "--daemonize",
                "no",
                "--logfile",
                self._log,
            ]
            self._process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
            )
            if self._wait_ready():
                return self
            last = self._output()
        raise RuntimeError(f"redis-server did not start: {last}")

    def _wait_ready(self) -> bool:
        import redis

        assert self._process is not None
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5)
        deadline = time.monotonic() + self.start_timeout
        try:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    return False  # it exited (for example the port was taken meanwhile)
                try:
                    if client.ping():
                        return True
                except redis.ConnectionError:
                    time.sleep(0.02)
            return False
        finally:
            client.close()

    def _output(self) -> str:
        assert self._process is not None
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait(timeout=10)
        try:
            with open(self._log, encoding="utf-8", errors="replace") as log:
                return log.read()[-2000:]
        except OSError:
            return f"exit status {self._process.returncode}, no log"

    def stop(self) -> None:
        """Stop the server (SIGTERM to its process group, SIGKILL after 3 s) and remove its directory."""
        from tests.servers import stop_group

        if self._process is not None:
            stop_group(self._process)
        self._process = None
        if self._directory is not None:
            self._directory.cleanup()
            self._directory = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()
