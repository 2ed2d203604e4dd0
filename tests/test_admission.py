"""The overload gate (sources.admission) on its own: the queue stamp, the estimate and what it learns.

Expected values are worked out by hand from the rule in the module docstring: refuse when
``queued + backlog + own > budget``.
"""

from __future__ import annotations

import threading
import time

import pytest

from sources.admission import FIRST_GUESS, Gate, queued_seconds


@pytest.mark.parametrize(
    ("header", "now", "expected"),
    [
        ("t=1700000000.250", 1700000001.0, 0.75),  # nginx's t=${msec}: seconds
        ("1700000000250", 1700000001.0, 0.75),  # Heroku: milliseconds
        ("t=1700000000250000", 1700000001.0, 0.75),  # microseconds
        ("t=1700000002", 1700000001.0, 0.0),  # in the future: clocks differ, never negative
        ("t=abc", 1700000001.0, 0.0),
        ("t=nan", 1700000001.0, 0.0),
        ("", 1700000001.0, 0.0),
        (None, 1700000001.0, 0.0),
    ],
)
def test_queue_time_from_the_request_start_header(header: str | None, now: float, expected: float) -> None:
    assert queued_seconds(header, now) == pytest.approx(expected, abs=1e-6)


def test_a_request_that_waited_too_long_is_refused() -> None:
    gate = Gate(budget=1.0)
    # nothing running, an unknown kind: 0.9 + 0 + 0.05 = 0.95 <= 1 admitted; 0.96 + 0.05 = 1.01 > 1 refused
    ticket = gate.enter("leaderboard", queued=0.9)
    assert ticket is not None
    gate.leave(ticket)
    assert gate.enter("leaderboard", queued=0.96 + FIRST_GUESS) is None
    assert gate.refused == 1


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_the_gate_learns_a_kinds_cpu_time_and_counts_what_is_running() -> None:
    gate = Gate(budget=1.0)
    ticket = gate.enter("replay")
    assert ticket is not None and ticket.expected == FIRST_GUESS
    _burn(0.3)
    gate.leave(ticket)
    assert gate.expected("replay") == pytest.approx(0.3, abs=0.05)  # first observation taken as it is

    # A second observation of 0.1 s moves the mean by the weight 0.2: 0.8 * 0.3 + 0.2 * 0.1 = 0.26.
    learned = gate.expected("replay")
    ticket = gate.enter("replay")
    assert ticket is not None
    _burn(0.1)
    gate.leave(ticket)
    assert gate.expected("replay") == pytest.approx(0.8 * learned + 0.2 * 0.1, abs=0.03)

    # While a replay (expected ~0.26 s of CPU) runs on another thread and has used almost none, a new request
    # that already waited 0.8 s would finish at about 0.8 + 0.26 + 0.05 > 1 s: refused.  Once it is done: admitted.
    entered, release = threading.Event(), threading.Event()

    def running() -> None:
        held = gate.enter("replay")
        entered.set()
        release.wait(10)
        assert held is not None
        gate.leave(held)

    thread = threading.Thread(target=running)
    thread.start()
    assert entered.wait(10)
    assert gate.backlog() == pytest.approx(gate.expected("replay"), abs=0.02)
    assert gate.enter("settings", queued=0.8) is None
    release.set()
    thread.join(10)
    assert gate.backlog() == 0.0
    assert gate.enter("settings", queued=0.8) is not None


def test_the_budget_comes_from_the_environment() -> None:
    assert Gate.from_environ({"RATINGS_BUSY_SECONDS": "2.5"}).budget == 2.5
    assert Gate.from_environ({}).budget == 5.0
    assert Gate.from_environ({"RATINGS_BUSY_SECONDS": "0"}).budget == float("inf")  # 0 turns refusals off
    with pytest.raises(SystemExit, match="RATINGS_BUSY_SECONDS"):
        Gate.from_environ({"RATINGS_BUSY_SECONDS": "soon"})
