"""Fit and Compare jobs bounded (issue 30 item 4): at most N running, the rest queued with their place shown, a
visitor's share refused at once, a cancelled job's process reaped, a killed job reported as failed.

The board is tested on its own (a disk board in a temporary directory), then through the Procfile's gunicorn with
the page's own requests (tests/dash_requests.py): each visitor is an address in ``X-Forwarded-For`` (the app trusts
one proxy hop by default), so the per-visitor limits apply as they do behind a PaaS router.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from sources import jobs
from sources.jobs import JobBoard, JobRefused, _DiskBoard
from tests.dash_requests import HttpClient, post
from tests.servers import gunicorn

POKER = {"kind": "sample", "name": "poker"}
SETTINGS = {"system": "multielo", "params": {}}


def _board(tmp_path: Path, *, running: int = 1, per_client: int = 2, waiting: int = 3) -> JobBoard:
    return JobBoard(_DiskBoard(str(tmp_path / "board")), running=running, per_client=per_client, waiting=waiting)


# ------------------------------------------------------------------------------------------------ the board itself
def test_a_visitor_past_their_share_and_a_full_queue_are_refused_at_once(tmp_path: Path) -> None:
    board = _board(tmp_path, per_client=2, waiting=3)
    board.enter("198.51.100.1")
    board.enter("198.51.100.1")
    with pytest.raises(JobRefused, match="already have 2 searches running or waiting"):
        board.enter("198.51.100.1")
    board.enter("198.51.100.2")
    with pytest.raises(JobRefused, match="3 searches waiting already"):
        board.enter("198.51.100.3")  # three wait (none has started): the fourth is refused


def test_jobs_run_one_at_a_time_in_the_order_asked_and_say_how_many_are_ahead(tmp_path: Path) -> None:
    board = _board(tmp_path, running=1)
    first, second, third = (board.enter(f"198.51.100.{i}") for i in (1, 2, 3))
    told: list[tuple[int, int]] = []
    with board.slot(first):
        assert board.queue() == ([second, third], 1)
        assert board._turn(third) == (1, 1)  # one job ahead of it in the queue, one running
        assert board._turn(second) == (0, 1)  # next in line, the one slot taken
    # the first left: the second runs now (told nothing while it waited no more)
    with board.slot(second, lambda ahead, running: told.append((ahead, running))):
        assert board.queue() == ([third], 1)
    assert told == []
    assert board.queue() == ([third], 0)


def test_a_job_that_stops_beating_leaves_the_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    board = _board(tmp_path, running=1)
    dead, waiting = board.enter("198.51.100.1"), board.enter("198.51.100.2")
    assert board._turn(dead) is None  # started and running, then its process is killed: no more heartbeats
    now = time.time()
    monkeypatch.setattr(jobs.time, "time", lambda: now + jobs.STALE_SECONDS + 1)
    assert board._turn(waiting) is None  # its slot is free again
    with pytest.raises(JobRefused, match="waited too long to start or was cancelled"):
        board._turn(dead)


def test_a_store_that_cannot_be_used_refuses_in_one_plain_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    board = JobBoard(_DiskBoard(str(tmp_path / "file" / "board")), running=1, per_client=2, waiting=3)
    with pytest.raises(JobRefused, match="cannot keep its queue of searches"):
        board.enter("198.51.100.1")


def test_a_forged_ticket_runs_nothing(tmp_path: Path) -> None:
    board = _board(tmp_path)
    ran = []
    for forged in (None, "", 7, "0" * 32):
        with pytest.raises(JobRefused), board.slot(forged):
            ran.append(forged)
    assert ran == []


# ---------------------------------------------------------------------------------------- through the real server
@pytest.fixture(scope="module")
def served_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    store = tmp_path_factory.mktemp("jobs-board-store")
    return {"RATINGS_STORE_DIR": str(store), "RATINGS_JOBS_RUNNING": "1", "RATINGS_JOBS_WAITING": "16"}


@pytest.fixture(scope="module")
def served(served_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with gunicorn(served_env, tmp_path_factory.mktemp("jobs-board-logs"), workers=2) as url:
        yield url


def _stale_left(env: dict[str, str]) -> None:
    """Wait until the server's board (beside its store) holds no ticket, for at most ``STALE_SECONDS + 1`` (by then
    every cancelled job's ticket is stale: its heartbeat stopped with its process); the board is read as the
    server reads it, which drops the dead tickets, as the server's next look would."""
    board = jobs.board(env)
    deadline = time.monotonic() + jobs.STALE_SECONDS + 1
    while board.queue() != ([], 0) and time.monotonic() < deadline:
        time.sleep(0.2)


class Visitor:
    """One browser page asking for a search, as the page's requests do."""

    def __init__(self, url: str, address: str | None, budget: int = 30) -> None:
        self.client = HttpClient(url, timeout=60)
        if address is not None:  # else straight from this machine, which the guard's rate limits leave alone
            self.client.session.headers["X-Forwarded-For"] = address
        self.budget = budget
        self.handle: dict[str, Any] = {}
        self.body: Any = None

    def ask(self) -> dict[str, Any]:
        """Press Fit: the job's request (with its ticket), or the refusal's answer."""
        answer = post(self.client, "fit-request", {"fit-run.n_clicks": 1}, changed=["fit-run.n_clicks"]).get_json()
        return answer["response"]

    def start(self) -> None:
        asked = self.ask()
        assert "fit-request" in asked, asked
        values = {
            "fit-request.data": asked["fit-request"]["data"],
            "data-source.data": POKER,
            "params-settings.data": SETTINGS,
            "fit-budget.value": self.budget,
            "fit-metric.value": "kendall-tau",
        }
        started = post(self.client, "fit-result", values, changed=["fit-request.data"])
        assert started.status_code == 200, started.status_code
        self.handle = started.get_json()
        self.body = json.loads(started.response.request.body)

    @property
    def pid(self) -> int:
        return int(str(self.handle["job"]).split("~")[0])  # Dash 4 signs the handle: "<pid>~<signature>"

    def poll(self, *, cancel: bool = False) -> tuple[int, dict[str, Any]]:
        """One poll of the job, as the page makes it every half second (``cancel``: as its Cancel button does)."""
        path = f"/_dash-update-component?cacheKey={self.handle['cacheKey']}&job={self.handle['job']}"
        if cancel:
            path += f"&oldJob={self.handle['job']}"
        answer = self.client.post(path, data=json.dumps(self.body), content_type="application/json")
        assert answer.status_code in (200, 204), answer.status_code
        return answer.status_code, answer.get_json() if answer.status_code == 200 else {}

    def label(self, timeout: float = 30) -> str:
        """The progress bar's words (the first poll that carries them)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, answer = self.poll()
            label = answer.get("progress", {}).get("fit-progress.label")
            if label:
                return str(label)
            time.sleep(0.3)
        raise AssertionError("no progress reported")


def _gone(pid: int, timeout: float = 15) -> bool:
    """Whether the process ``pid`` is gone, reaped by its parent (not a zombie), within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            psutil.Process(pid).status()
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_jobs_beyond_the_running_slot_wait_with_their_place_then_cancelled_ones_are_reaped(
    served: str, served_env: dict[str, str]
) -> None:
    running = Visitor(served, "198.51.100.10")
    running.start()
    assert "evaluations" in running.label()  # it runs
    waiting = [Visitor(served, f"198.51.100.{11 + i}") for i in range(3)]
    for visitor in waiting:
        visitor.start()
    # the slot is taken (RATINGS_JOBS_RUNNING=1): the last of three waiting jobs has two ahead of it
    assert waiting[0].label() == "Waiting: next in line (1 running)"
    assert waiting[2].label() == "Waiting: 2 jobs ahead of yours (1 running)"
    # a visitor's share: two searches running or waiting, the third refused at once with one plain line (a visitor
    # on this machine: from elsewhere the guard's rate limit, two searches started in 120 s, refuses it first)
    greedy = [Visitor(served, None), Visitor(served, None)]
    for visitor in greedy:
        visitor.start()
    refused = greedy[0].ask()
    assert "already have 2 searches running or waiting" in json.dumps(refused) and "fit-request" not in refused
    # Cancel, as the page's button does: every job's process is killed and collected by the worker that forked it
    everyone = [running, *waiting, *greedy]
    for visitor in everyone:
        visitor.poll(cancel=True)
    for visitor in everyone:
        assert _gone(visitor.pid), f"job {visitor.pid} left behind: {psutil.Process(visitor.pid).status()}"
    # their slots are free again: a new job runs at once (after the cancelled ones' heartbeats stop)
    _stale_left(served_env)
    late = Visitor(served, "198.51.100.20", budget=2)
    late.start()
    assert not late.label().startswith("Waiting")
    late.poll(cancel=True)
    assert _gone(late.pid)


@pytest.mark.slow
def test_a_killed_job_is_reported_as_failed_within_seconds(served: str, served_env: dict[str, str]) -> None:
    _stale_left(served_env)  # the other test's cancelled jobs have left the board
    visitor = Visitor(served, "198.51.100.30", budget=60)
    visitor.start()
    visitor.label()  # it runs
    psutil.Process(visitor.pid).kill()
    deadline = time.monotonic() + 20
    while True:
        status, answer = visitor.poll()
        result = answer.get("response", {}).get("fit-result", {}).get("data")
        if result is not None:
            break
        assert status == 200 and time.monotonic() < deadline, "the page would still be polling a dead job"
        time.sleep(0.5)
    assert result["kind"] == "failed" and "stopped before it finished" in result["message"]
    assert _gone(visitor.pid)
