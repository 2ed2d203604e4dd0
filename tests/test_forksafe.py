"""A job process forked while another thread holds one of the app's locks does not hang (:mod:`sources.forksafe`).

Dash's ``DiskcacheManager`` forks each fitting or comparing job from the threaded web worker.  Before, a lock held
by another thread at that moment (replaying, loading a source) stayed held in the child: a comparing job once
blocked at 0 CPU until its test timed out.  Each test forks for real; the child reports by its exit status and
is stopped by an alarm should it hang.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ratings import RatingSystem
from sources import runs
from sources.forksafe import ForkSafeLock

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is what Dash's diskcache jobs use (POSIX)")

HUNG = 3


def _in_child(work: Callable[[], bool], then: Callable[[], None] = lambda: None, alarm: int = 60) -> int:
    """Fork; the child runs ``work`` (exit 0 when it returns True, 1 when False, HUNG when the alarm rings) while the
    parent runs ``then``."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            signal.signal(signal.SIGALRM, lambda *_: os._exit(HUNG))
            signal.alarm(alarm)
            code = 0 if work() else 1
        finally:
            os._exit(code)
    then()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _held_by_another_thread(lock: Any) -> Callable[[], None]:
    """Make a thread hold ``lock`` until the returned function is called."""
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            taken.set()
            done.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(10)

    def let_go() -> None:
        done.set()
        thread.join()

    return let_go


def test_a_lock_held_by_another_thread_is_free_in_the_child() -> None:
    plain, safe = threading.Lock(), ForkSafeLock()
    let_go = [_held_by_another_thread(plain), _held_by_another_thread(safe)]
    try:
        assert safe.locked() and plain.locked()
        assert _in_child(lambda: plain.acquire(timeout=0.5)) == 1  # what happened before: held for ever
        assert _in_child(lambda: safe.acquire(timeout=5)) == 0
        assert safe.locked(), "the parent's lock is untouched"
    finally:
        for release in let_go:
            release()


def test_a_job_forked_during_a_replay_computes_the_same_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # A thread of the parent is in the middle of replaying (holding the process's replay lock and the run's own
    # key lock in the memo) when the job forks; the job asks for the very same run.  The parent's thread then
    # finishes (and shares the run through the store), but the child's copies of those locks stayed held before.
    original = RatingSystem.rate
    started, finish = threading.Event(), threading.Event()

    def slow_rate(self: RatingSystem, history: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "replaying":
            started.set()
            finish.wait(30)
        return original(self, history, **kwargs)

    monkeypatch.setattr(RatingSystem, "rate", slow_rate)
    source, params = {"kind": "sample", "name": "poker"}, {"k": 17.25}
    thread = threading.Thread(target=runs.run_for, args=(source, "multielo", params), name="replaying")
    thread.start()
    try:
        assert started.wait(30)
        expected = original(runs.create("multielo", k=17.25), runs.load(source).history).final

        def job() -> bool:
            started_at = time.monotonic()
            run = runs.run_for(source, "multielo", params)
            return bool((run.final == expected).all()) and time.monotonic() - started_at < 50

        assert _in_child(job, then=finish.set) == 0
    finally:
        finish.set()
        thread.join()
