"""Bounds on reading a Google Sheet (issue 13 item 4): a byte cap on every answer and a deadline on a whole read.

Against the fake Sheets server over real HTTP on 127.0.0.1 (tests/sheets_server.py): an answer larger than the
cap (declared or not), blank lines under the cap, and an answer dripping one byte at a time.  Times are checked
only as generous hang detectors: the drip would take minutes to finish, the deadline is 2 s.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import gspread
import pytest

from sources.cache import LastGoodCache
from sources.sheets import (
    MAX_RESPONSE_BYTES,
    GspreadBackend,
    PublicCsvBackend,
    RetryPolicy,
    SheetError,
    SheetRef,
    SheetSource,
    load_settings,
)
from tests.sheets_server import Clock, FakeSheets, routed_session

KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF"
LONG = [
    ["game", "date", "player", "place"],
    ["g1", "2024-02-01", "Ann", "2"],
    ["g1", "2024-02-01", "Bob", "1"],
    ["g2", "2024-02-08", "Bob", "DNF"],
    ["g2", "2024-02-08", "Eve", "1"],
]
DEADLINE = 2.0  # for the drips
ROOMY = 60.0  # for the size tests: reading 10 MB on a busy machine must not run into the deadline
HANG = 10.0  # far above the deadline, far below the minute the drip needs to finish


@pytest.fixture
def fake() -> Iterator[FakeSheets]:
    with FakeSheets() as server:
        server.add_spreadsheet(KEY, {"Long": LONG})  # gid 0
        yield server


def csv_source(fake: FakeSheets, clock: Clock, *, timeout: float = 5.0, deadline: float = DEADLINE) -> SheetSource:
    backend = PublicCsvBackend(routed_session(fake.base_url, token=None), timeout=timeout)
    return SheetSource(
        SheetRef(KEY, gid=0), backend, cache=LastGoodCache(clock), retry=RetryPolicy(1, 0.0), deadline_seconds=deadline
    )


def api_source(fake: FakeSheets, clock: Clock, *, timeout: float = 5.0, deadline: float = DEADLINE) -> SheetSource:
    client = gspread.Client(auth=None, session=routed_session(fake.base_url))  # type: ignore[arg-type]
    return SheetSource(
        SheetRef(KEY, worksheet="Long"),
        GspreadBackend(client, timeout=timeout),
        cache=LastGoodCache(clock),
        retry=RetryPolicy(1, 0.0),
        sleep=lambda seconds: None,
        deadline_seconds=deadline,
    )


def refused(source: SheetSource) -> tuple[SheetError, float]:
    started = time.monotonic()
    with pytest.raises(SheetError) as info:
        source.read()
    return info.value, time.monotonic() - started


# ------------------------------------------------------------------------------------------------ size
@pytest.mark.parametrize("declared", [False, True])
def test_an_answer_over_the_cap_is_refused_without_reading_it_all(fake: FakeSheets, declared: bool) -> None:
    fake.plan("huge", size=50 * 2**20, declared=declared, match="/export")
    error, elapsed = refused(csv_source(fake, Clock(), deadline=ROOMY))
    assert error.reason == "too-big"
    assert f"over {MAX_RESPONSE_BYTES // 2**20} MB" in error.message
    assert "No earlier copy of this sheet has been read" in error.message
    assert elapsed < ROOMY / 2


def test_an_api_answer_over_the_cap_is_refused(fake: FakeSheets) -> None:
    fake.plan("huge", size=30 * 2**20, match="/values/")
    error, elapsed = refused(api_source(fake, Clock(), deadline=ROOMY))
    assert error.reason == "too-big" and elapsed < ROOMY / 2


def test_blank_lines_under_the_cap_are_bounded_as_rows(fake: FakeSheets) -> None:
    # 9 MB of blank lines fits the byte cap but is 4.7 million rows.
    fake.plan("huge", size=9 * 2**20, match="/export")
    error, _ = refused(csv_source(fake, Clock(), deadline=ROOMY))
    assert error.reason == "too-big"
    assert "more than 1,048,576 rows, blank rows included" in error.message


def test_an_answer_just_under_the_cap_is_read(fake: FakeSheets) -> None:
    # The cap refuses only what passes it: a normal sheet still reads after a refused one.
    fake.plan("huge", size=50 * 2**20, match="/export")
    source = csv_source(fake, Clock(), deadline=ROOMY)
    with pytest.raises(SheetError):
        source.read()
    assert source.read(force=True).history.n_games == 2


# ------------------------------------------------------------------------------------------------ time
def test_a_slow_drip_is_cut_off_at_the_deadline_without_a_copy(fake: FakeSheets) -> None:
    # Each byte arrives well within the per-read timeout (5 s); only the deadline can stop it.
    fake.plan("drip", seconds=0.4, match="/export")
    error, elapsed = refused(csv_source(fake, Clock()))
    assert error.reason == "timeout"
    assert f"did not finish answering within {DEADLINE:g} seconds" in error.message
    assert "No earlier copy of this sheet has been read, so there is nothing to show" in error.message
    assert DEADLINE * 0.9 < elapsed < HANG


def test_a_slow_drip_keeps_the_last_good_copy(fake: FakeSheets) -> None:
    clock = Clock()
    source = api_source(fake, clock)
    first = source.read()
    fake.plan("drip", seconds=0.4, match="/values/")
    started = time.monotonic()
    again = source.read(force=True)
    assert time.monotonic() - started < HANG
    assert again.stale and again.history is first.history
    assert again.message is not None and "did not finish answering within 2 seconds" in again.message


def test_the_abandoned_reader_stops_by_itself_soon_after_the_deadline(fake: FakeSheets) -> None:
    fake.plan("drip", seconds=0.4, match="/export")
    refused(csv_source(fake, Clock()))
    # The helper thread notices the deadline at its next byte and closes the connection.
    give_up = time.monotonic() + HANG
    while any(t.name == "sheet-read" for t in threading.enumerate()) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not any(t.name == "sheet-read" for t in threading.enumerate())


def test_a_backend_used_alone_has_its_own_deadline(fake: FakeSheets) -> None:
    fake.plan("drip", seconds=0.3, match="/export")
    backend = PublicCsvBackend(routed_session(fake.base_url, token=None), timeout=5.0, deadline_seconds=1.0)
    started = time.monotonic()
    with pytest.raises(SheetError, match="did not finish answering within 1 seconds") as info:
        backend.fetch(SheetRef(KEY, gid=0))
    assert info.value.reason == "timeout" and time.monotonic() - started < HANG


def test_retries_do_not_wait_past_the_deadline(fake: FakeSheets) -> None:
    fake.plan(429, times=10)
    waits: list[float] = []
    client = gspread.Client(auth=None, session=routed_session(fake.base_url))  # type: ignore[arg-type]
    source = SheetSource(
        SheetRef(KEY, worksheet="Long"),
        GspreadBackend(client),
        cache=LastGoodCache(Clock()),
        retry=RetryPolicy(attempts=5, first_delay=DEADLINE * 2),  # the first wait alone passes the deadline
        sleep=waits.append,
        deadline_seconds=DEADLINE,
    )
    with pytest.raises(SheetError) as info:
        source.read()
    assert info.value.reason == "rate-limited" and waits == []
    assert fake.count() == 1


def test_deadline_setting() -> None:
    assert load_settings({}).deadline_seconds == 20.0
    assert load_settings({"RATINGS_SHEET_DEADLINE_SECONDS": "7.5"}).deadline_seconds == 7.5
    with pytest.raises(SheetError, match="RATINGS_SHEET_DEADLINE_SECONDS"):
        load_settings({"RATINGS_SHEET_DEADLINE_SECONDS": "0"})
