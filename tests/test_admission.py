"""The overload gate (sources.admission) on its own: the queue stamp, the estimate and what it learns.

Expected values are worked out by hand from the rule in the module docstring: refuse when
``queued + backlog + waiting + own > budget``.
"""

from __future__ import annotations

import threading
import time

import pytest

from sources.admission import FIRST_GUESS, LIGHT_SECONDS, PAGE_WAVES, Gate, process_gate, queued_seconds


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


class _Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_request_that_waited_too_long_is_refused() -> None:
    gate = Gate(budget=1.0)
    # nothing running (an idle worker judges only the wait): 0.9 <= 1 admitted; 0.96 + 0.05 = 1.01 > 1 refused
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
    for wrong in ("soon", "-1", "nan"):  # read as sources.settings.VARIABLES declares it: a number of at least 0
        with pytest.raises(SystemExit, match="RATINGS_BUSY_SECONDS must be a number of at least 0"):
            Gate.from_environ({"RATINGS_BUSY_SECONDS": wrong})


def test_heavy_requests_admitted_on_arrival_count_until_they_begin() -> None:
    gate = Gate(budget=1.0, clock=_Clock())  # a clock standing still: nothing learnt fades
    gate.learn("replay", 0.4)  # learnt before
    # 0 + 0 + 0 + 0.4 admitted; then 0.4 waiting + 0.4 = 0.8 admitted; then 0.8 + 0.4 = 1.2 > 1 refused
    first = gate.arrive("replay")
    second = gate.arrive("replay")
    assert first is not None and second is not None
    assert gate.waiting() == pytest.approx(0.8)
    assert gate.arrive("replay") is None
    assert gate.refused == 1
    # A request that waited already is judged with its wait: 0.7 queued + 0.8 waiting + 0.05 > 1.
    assert gate.arrive("unknown", queued=0.7) is None
    # Beginning moves it from waiting to running (never refused then); discarding a begun one changes nothing.
    ticket = gate.begin(first)
    assert gate.waiting() == pytest.approx(0.4)
    assert gate.backlog() == pytest.approx(0.4, abs=0.05)
    gate.discard(first)
    assert gate.waiting() == pytest.approx(0.4)
    gate.discard(second)  # it ended without beginning (the app answered 400, say)
    assert gate.waiting() == 0.0
    gate.leave(ticket)
    assert gate.backlog() == 0.0


def test_light_kinds_are_those_expected_below_the_light_threshold_and_are_not_refused_for_the_load() -> None:
    gate = Gate(budget=0.01, clock=_Clock())
    assert not gate.is_light("never seen")  # it may be a replay
    gate.learn("leaderboard", LIGHT_SECONDS / 2)
    gate.learn("replay", LIGHT_SECONDS * 2)
    assert gate.is_light("leaderboard") and not gate.is_light("replay")
    light = gate.enter("leaderboard", may_refuse=False)
    assert light is not None and gate.idle(), "a light request in flight leaves the worker idle"
    held = gate.enter("replay")  # the worker is idle: admitted whatever its cost
    assert held is not None and not gate.idle()
    assert gate.enter("replay") is None  # now over the budget of 0.01 s
    ticket = gate.enter("replay", may_refuse=False)
    assert ticket is not None and ticket.expected == pytest.approx(LIGHT_SECONDS * 2)
    for done in (light, held, ticket):
        gate.leave(done)


def test_a_light_request_that_already_waited_the_whole_budget_is_refused() -> None:
    # Issue 30 (200 users, long waits, no refusals): the light lane's queue was never refused.  Whatever the load, a
    # light request is admitted while it has waited less than the budget, and refused once it has waited longer.
    gate = Gate(budget=2.0, clock=_Clock())
    gate.learn("leaderboard", LIGHT_SECONDS / 2)
    gate.learn("replay", 30.0)
    heavy = gate.enter("replay")  # idle: admitted; now 30 s of work are in flight
    early = gate.enter("leaderboard", 1.9, may_refuse=False)
    assert early is not None, "a light request is not refused for the work in flight"
    refused = gate.refused
    assert gate.enter("leaderboard", 2.1, may_refuse=False) is None
    assert gate.refused == refused + 1
    for done in (heavy, early):
        gate.leave(done)
    assert gate.enter("leaderboard", 2.1, may_refuse=False) is None, "idle or not: its answer would come too late"


def test_a_page_whose_first_request_waited_an_eighth_of_the_budget_is_refused_whole() -> None:
    # Issue 30 (200 users, long waits, no refusals): a page load is ~8 waves of requests, each waiting about as long
    # as its first; by hand, with a 4 s budget and 8 waves, a first wait of 0.5 s predicts 4 s: the edge.
    assert PAGE_WAVES == 8
    gate = Gate(budget=4.0, clock=_Clock())
    assert gate.page_refused(0.0) is False
    assert gate.page_refused(0.49) is False
    refused = gate.refused
    assert gate.page_refused(0.51) is True
    assert gate.refused == refused + 1
    assert Gate(budget=float("inf")).page_refused(3600.0) is False, "refusals off (RATINGS_BUSY_SECONDS=0)"


def test_one_gate_per_process() -> None:
    assert process_gate() is process_gate()


def test_a_kind_never_measured_has_few_different_requests_admitted_at_once() -> None:
    # After a restart nothing is measured: a flood of one kind would all be admitted at FIRST_GUESS each (here
    # 5 * 0.05 = 0.25 s, far below the budget), so the gate admits at most `unmeasured_at_once` (here 4: the
    # threaded worker sets its heavy lane's thread count) of it unfinished.
    gate = Gate(budget=5.0, unmeasured_at_once=4)
    admitted = [gate.arrive("replay") for _ in range(4)]
    assert all(arrival is not None for arrival in admitted)
    assert gate.arrive("replay") is None, "a fifth, before any of the kind finished, is refused"
    assert gate.refused == 1
    assert gate.arrive("other kind") is not None, "the cap is per kind"
    # Requests with one answer-memo name (or one body) are one piece of work: they count once.
    memo = Gate(budget=5.0, unmeasured_at_once=4)
    assert all(memo.arrive("replay", same="answer-1") is not None for _ in range(6))
    assert all(memo.arrive("replay", same=f"answer-{i}") is not None for i in (2, 3, 4))
    assert memo.arrive("replay", same="answer-5") is None, "a fifth different answer of an unmeasured kind"
    assert memo.arrive("replay", same="answer-1") is not None, "the same as one in flight"
    # One of the first gate's begins and finishes: the kind is measured (its CPU time), and judged by the budget
    # from then on: 3 replays and 1 other waiting, ~0.1 * 3 + 0.05, plus ~0.1 each, within 5 s, no cap.
    first = admitted[0]
    assert first is not None
    ticket = gate.begin(first)
    _burn(0.1)
    gate.leave(ticket)
    assert gate.expected("replay") == pytest.approx(0.1, abs=0.05)
    assert all(gate.arrive("replay") is not None for _ in range(5))


def test_one_giant_request_does_not_shut_its_kind_out() -> None:
    # Issue 30: after one request of about 25 CPU-seconds, every later request of that callback was refused "busy"
    # on an idle worker, 46 minutes later still.  Its measured cost is simulated with learn().
    clock = _Clock()
    gate = Gate(budget=5.0, clock=clock)
    gate.learn("standings", 25.0)
    assert gate.expected("standings") == pytest.approx(25.0)
    # On an idle worker the next one is admitted at once (it delays nobody), and its own time is learnt.
    ticket = gate.enter("standings")
    assert ticket is not None, "an idle worker refused a request for what an earlier one cost"
    gate.leave(ticket)
    assert gate.refused == 0
    # Beside other heavy work, the giant's cost still counts, faded towards FIRST_GUESS with the half-life:
    # 0.05 + (m - 0.05) * 2^(-t/10) with m at most 25 is 3.17 s after 30 s; with a 0.5 s replay waiting, 3.7 <= 5.
    other = gate.arrive("replay")
    assert other is not None
    assert gate.enter("standings") is None, "right after the giant, beside other work: refused"
    for _ in range(50):  # refusals teach nothing: they do not keep the cost alive
        clock.now += 0.1
        assert gate.enter("standings") is None
    clock.now += 30.0 - 50 * 0.1
    assert gate.expected("standings") <= 0.05 + (25.0 - 0.05) / 8 + 1e-9
    beside = gate.enter("standings")
    assert beside is not None, "30 s after the giant, a request beside other work is admitted again"
    gate.leave(beside)
    gate.discard(other)


def test_a_fresh_measurement_outweighs_an_old_one() -> None:
    clock = _Clock()
    gate = Gate(budget=5.0, clock=clock)
    gate.learn("replay", 25.0)
    clock.now += 1.0  # a second later: the newest weighs WEIGHT = 0.2 (1 - 2^(-1/10) = 0.067 is less)
    gate.learn("replay", 0.1)
    assert gate.expected("replay") == pytest.approx(0.8 * 25.0 + 0.2 * 0.1)
    clock.now += 100.0  # ten half-lives later: the newest weighs 1 - 2^-10
    mean = 0.8 * 25.0 + 0.2 * 0.1
    gate.learn("replay", 0.1)
    assert gate.expected("replay") == pytest.approx(2.0**-10 * mean + (1 - 2.0**-10) * 0.1)


def test_a_kind_left_alone_for_a_half_life_is_capped_as_if_never_measured() -> None:
    # A real 2 s replay, quiet for 20 s, is expected at 0.05 + 1.95 / 4 = 0.54 s: without the cap a burst of
    # nine would all be admitted (9 * 0.54 = 4.9 <= 5).  Its knowledge is stale, so at most 4 at once.
    clock = _Clock()
    gate = Gate(budget=5.0, unmeasured_at_once=4, clock=clock)
    gate.learn("replay", 2.0)
    assert gate.measured("replay")
    clock.now += 20.0
    assert not gate.measured("replay")
    assert gate.expected("replay") == pytest.approx(0.05 + 1.95 / 4)
    admitted = [gate.arrive("replay") for _ in range(4)]
    assert all(arrival is not None for arrival in admitted)
    assert gate.arrive("replay") is None
    # The light lane's verdict reads the learnt mean, unfaded: a replay does not turn light by being left alone.
    clock.now += 1000.0
    assert not gate.is_light("replay")
