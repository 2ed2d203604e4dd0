"""The command line's progress bar (:mod:`ratings.progress`, issue 28 item 6): drawn on a terminal once a step runs
longer than its delay, never on a stream that is not a terminal."""

from __future__ import annotations

import io
import os
import pty
import time
from typing import IO

import pytest

import ratings.progress as progress
from ratings.cli import main
from ratings.progress import Progress


def _terminal() -> tuple[io.TextIOWrapper, int]:
    """A text stream on a pseudo-terminal's slave side (a terminal: isatty() is true) and the master's descriptor."""
    master, slave = pty.openpty()
    return io.TextIOWrapper(os.fdopen(slave, "wb", buffering=0), encoding="utf-8", write_through=True), master


def _drain(master: int) -> str:
    os.set_blocking(master, False)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_bar_is_drawn_on_a_terminal_and_erased_at_the_end() -> None:
    stream, master = _terminal()
    try:
        with Progress(stream, "reading big.csv", after=0.0) as bar:
            bar.update(250, 1000)
            time.sleep(0.5)
        shown = _drain(master)
    finally:
        stream.close()
        os.close(master)
    assert "reading big.csv [" in shown and "25%" in shown
    assert shown.endswith("\r\x1b[K")  # erased


def test_nothing_is_drawn_on_a_stream_that_is_not_a_terminal() -> None:
    stream = io.StringIO()
    with Progress(stream, "reading big.csv", after=0.0) as bar:
        bar.update(250, 1000)
        time.sleep(0.3)
    assert stream.getvalue() == ""


def test_a_short_step_draws_nothing_even_on_a_terminal() -> None:
    stream, master = _terminal()
    try:
        with Progress(stream, "rating", after=5.0) as bar:
            bar.update(1, 2)
        shown = _drain(master)
    finally:
        stream.close()
        os.close(master)
    assert shown == ""


@pytest.mark.parametrize("terminal", [True, False])
def test_the_command_line_shows_its_steps_only_on_a_terminal(terminal: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "AFTER", 0.0)  # every step "long"
    out = io.StringIO()
    plain = io.StringIO()
    err: IO[str] = plain
    master = -1
    if terminal:
        err, master = _terminal()
    try:
        status = main(["rate", "sample:racing", "--system", "multielo"], out=out, err=err)
        time.sleep(0.05)
        shown = _drain(master) if terminal else plain.getvalue()
    finally:
        if terminal:
            err.close()
            os.close(master)
    assert status == 0 and out.getvalue().startswith("player,rating")
    if terminal:
        assert "rating with multielo" in shown
    else:
        assert shown == ""
