"""A progress bar on a terminal for the command line's long steps (reading a large file, a long replay).

Drawn on the given stream only when it is a terminal, and only once a step has run :data:`AFTER` seconds: short
commands, pipes, files and the app never see it.  A background thread redraws it a few times a second, so a step
that reports no progress still shows that it is working (its elapsed time), and one that does (``update(done,
total)``) shows how far it is.  The line is erased when the step ends.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import IO

__all__ = ["AFTER", "Progress"]

#: Seconds a step runs before its bar appears.
AFTER = 2.0
#: Seconds between redraws.
_EVERY = 0.2
_WIDTH = 30


class Progress:
    """``with Progress(sys.stderr, "reading games.csv") as bar: work(progress=bar.update)``."""

    def __init__(self, stream: IO[str], label: str, *, after: float | None = None) -> None:
        self.stream = stream
        self.label = label
        self.after = AFTER if after is None else after
        try:
            self.enabled = bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.enabled = False
        self.done = 0
        self.total = 0
        self.started = time.monotonic()
        self.drawn = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, done: int, total: int) -> None:
        """``done`` of ``total`` units of work are done (read by the drawing thread)."""
        self.done, self.total = done, total

    def __enter__(self) -> Progress:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def line(self) -> str:
        """The bar as drawn now."""
        elapsed = time.monotonic() - self.started
        if self.total > 0:
            share = min(1.0, self.done / self.total)
            filled = round(share * _WIDTH)
            return f"{self.label} [{'#' * filled}{'.' * (_WIDTH - filled)}] {share:4.0%} {elapsed:5.0f} s"
        return f"{self.label} ... {elapsed:5.0f} s"

    def _run(self) -> None:
        if self._stop.wait(self.after):
            return
        while True:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()
            self.drawn = True
            if self._stop.wait(_EVERY):
                return
