"""Recording a new game: validation, the pure session path, and appends to the fake Sheets API over real HTTP.

Expected rows are written by hand from the sheet layouts described in ratings/io.py's docstring (wide: one row
per game, place k under the k-th place column, ties joined by " / ", DNF column; long: one row per player).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import gspread
import pytest

from ratings.history import Entry, Game, GameHistory, HistoryError
from ratings.io import read_table
from sources.cache import LastGoodCache
from sources.record import NewGame, RecordResult, add_game, new_game, new_submission_token, record_game, sheet_rows
from sources.sheets import GspreadBackend, PublicCsvBackend, RetryPolicy, SheetError, SheetRef, SheetSource
from tests.sheets_server import FakeSheets, routed_session

KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF"

WIDE = [
    ["date", "1st", "2nd", "3rd", "DNF"],
    ["2024-01-05", "Ann", "Bob / Cid", "", "Dee"],
    ["2024-01-12", "Cid", "Ann", "Bob"],
]
WIDE_WITH_ID = [
    ["game", "date", "1st", "2nd", "3rd", "DNF"],
    ["n1", "2024-01-05", "Ann", "Bob", "Cid"],
]
LONG = [
    ["game", "date", "player", "place"],
    ["g1", "2024-02-01", "Ann", "2"],
    ["g1", "2024-02-01", "Bob", "1"],
]


@pytest.fixture
def fake() -> Iterator[FakeSheets]:
    with FakeSheets() as server:
        server.add_spreadsheet(KEY, {"Wide": WIDE, "WithId": WIDE_WITH_ID, "Long": LONG, "Empty": []})
        yield server


def source(fake: FakeSheets, worksheet: str, timeout: float = 2.0) -> SheetSource:
    client = gspread.Client(auth=None, session=routed_session(fake.base_url))  # type: ignore[arg-type]
    return SheetSource(
        SheetRef(KEY, worksheet=worksheet),
        GspreadBackend(client, timeout=timeout),
        cache=LastGoodCache(),
        retry=RetryPolicy(3, 0.0),
    )


def appends(fake: FakeSheets) -> list[tuple[str, str, dict[str, list[str]]]]:
    return [r for r in fake.requests if r[0] == "POST"]


# Ann 1st, Bob and Cid tied for 2nd, Dee did not finish.
GAME = new_game("2024-03-01", [("Ann", 1), ("Bob", 2), ("Cid", 2), ("Dee", "DNF")])


# ------------------------------------------------------------------------------------------------ validation
def test_new_game_keeps_names_places_and_date() -> None:
    game = new_game(dt.date(2024, 3, 1), [(" Ann  Lee ", "1"), ("Bob", 2), ("Cid", None), ("", "")])
    assert game == NewGame(dt.date(2024, 3, 1), (Entry("Ann Lee", 1), Entry("Bob", 2), Entry("Cid", None)))
    assert new_game(None, [("Ann", 1), ("Bob", 1)]).date is None


def test_new_game_lists_every_problem() -> None:
    with pytest.raises(HistoryError) as info:
        new_game("31/02/2024", [("Ann", 0), ("ann", 1), ("Bob", "second"), ("", 3)])
    messages = [p.message for p in info.value.problems]
    assert any("'31/02/2024' is not a real date" in m for m in messages)
    assert any("place 0 is not positive" in m for m in messages)
    assert any("'ann' is entered twice (players 1 and 2)" in m for m in messages)
    assert any("'second'" in m for m in messages)
    assert any("player 4 has a place but no name" in m for m in messages)
    assert all(p.source == "new game" for p in info.value.problems)


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ([("Ann", 1)], "at least two players; 1 given"),
        ([], "at least two players; 0 given"),
        ([("Ann", "DNF"), ("Bob", None)], "nobody finished"),
        ([("Ann", -2), ("Bob", 1)], "not positive"),
        ([("Ann", 1.5), ("Bob", 1)], "not a whole number"),
    ],
)
def test_new_game_refuses(results: list[tuple[Any, Any]], expected: str) -> None:
    with pytest.raises(HistoryError, match=expected):
        new_game("2024-03-01", results)


def test_submission_tokens_are_readable_and_differ() -> None:
    when = dt.datetime(2026, 11, 23, 14, 5, 59, tzinfo=dt.UTC)
    tokens = {new_submission_token(when) for _ in range(20)}
    assert len(tokens) == 20  # 31**5 tails: a clash among 20 has odds of about 1 in 150,000
    for token in tokens:
        assert re.fullmatch(r"web 2026-11-23 14:05 [a-z2-9]{5}", token), token


# ------------------------------------------------------------------------------------------------ no sheet
def dated_history() -> GameHistory:
    return GameHistory(
        [
            Game("a", (Entry("Ann", 1), Entry("Bob", 2)), dt.date(2024, 1, 1)),
            Game("b", (Entry("Bob", 1), Entry("Ann", 2)), dt.date(2024, 4, 1)),
        ]
    )


def test_add_game_returns_a_new_history_in_date_order() -> None:
    history = dated_history()
    added = add_game(history, GAME, token="web-1")
    assert [g.id for g in history.games] == ["a", "b"]  # unchanged
    assert [g.id for g in added.games] == ["a", "web-1", "b"]  # 2024-03-01 falls between the two
    assert added.games[1].entries == GAME.entries and added.games[1].date == dt.date(2024, 3, 1)
    assert added.players == ("Ann", "Bob", "Cid", "Dee")


def test_add_game_twice_with_one_token_adds_once() -> None:
    once = add_game(dated_history(), GAME, token="web-1")
    assert add_game(once, GAME, token="web-1") is once


def test_add_game_without_token_or_dates_appends_with_the_next_id() -> None:
    history = GameHistory([Game("game 1", (Entry("Ann", 1), Entry("Bob", 2))), Game("game 3", (Entry("A", 1),))])
    added = add_game(history, new_game(None, [("Ann", 2), ("Bob", 1)]))
    assert [g.id for g in added.games] == ["game 1", "game 3", "game 4"]


# ------------------------------------------------------------------------------------------------ row shapes
def test_wide_row_puts_places_under_their_columns() -> None:
    assert sheet_rows(WIDE[0], GAME, game_id="web-1") == ("wide", [["2024-03-01", "Ann", "Bob / Cid", "", "Dee"]])
    assert sheet_rows(WIDE_WITH_ID[0], GAME, game_id="web-1") == (
        "wide",
        [["web-1", "2024-03-01", "Ann", "Bob / Cid", "", "Dee"]],
    )


def test_long_rows_one_per_player_in_the_sheets_column_order() -> None:
    header = ["player", "place", "notes", "date", "game"]
    assert sheet_rows(header, GAME, game_id="web-1") == (
        "long",
        [
            ["Ann", 1, "", "2024-03-01", "web-1"],
            ["Bob", 2, "", "2024-03-01", "web-1"],
            ["Cid", 2, "", "2024-03-01", "web-1"],
            ["Dee", "DNF", "", "2024-03-01", "web-1"],
        ],
    )


def test_names_that_look_like_formulas_are_neutralised_and_read_back() -> None:
    game = new_game("2024-03-01", [('=HYPERLINK("x")', 1), ("+Bob", 2), ("Cid", 3)])
    _, rows = sheet_rows(WIDE[0], game, game_id=None)
    assert rows == [["2024-03-01", '\'=HYPERLINK("x")', "'+Bob", "Cid"]]
    back = read_table([WIDE[0], *rows]).history  # the project's reader removes the apostrophe again
    assert back.players == ('=HYPERLINK("x")', "+Bob", "Cid")


@pytest.mark.parametrize(
    ("header", "results", "expected"),
    [
        (["date", "1st", "2nd"], [("Ann", 1), ("Bob", 3)], "add a column for place 3 \\(e.g. '3rd'\\)"),
        (["date", "1st", "2nd"], [("Ann", 1), ("Bob", None)], "no DNF column"),
        (["date", "1st", "2nd"], [("Ann/Bo", 1), ("Bob", 2)], "contains '/'"),
        (["who", "when"], [("Ann", 1), ("Bob", 2)], "neither shape"),
    ],
)
def test_sheet_that_cannot_hold_the_game_says_what_to_add(
    header: list[str], results: list[tuple[Any, Any]], expected: str
) -> None:
    with pytest.raises(HistoryError, match=expected):
        sheet_rows(header, new_game("2024-03-01", results), game_id=None)


# ------------------------------------------------------------------------------------------------ appending
def test_wide_append_writes_one_row_at_the_end_and_leaves_the_rest(fake: FakeSheets) -> None:
    result = record_game(source(fake, "Wide"), GAME, token="web-1")
    assert result.added and result.game_id is None  # no game column: the token cannot be stored
    assert fake.values(KEY, "Wide") == [*WIDE, ["2024-03-01", "Ann", "Bob / Cid", "", "Dee"]]
    (post,) = appends(fake)
    assert post[1] == f"/v4/spreadsheets/{KEY}/values/'Wide':append"
    assert post[2]["valueInputOption"] == ["RAW"]
    assert fake.bodies == [{"values": [["2024-03-01", "Ann", "Bob / Cid", "", "Dee"]]}]


def test_long_append_writes_one_block_in_one_call(fake: FakeSheets) -> None:
    result = record_game(source(fake, "Long"), GAME, token="web-7")
    assert result.added and result.game_id == "web-7"
    block = [
        ["web-7", "2024-03-01", "Ann", 1],
        ["web-7", "2024-03-01", "Bob", 2],
        ["web-7", "2024-03-01", "Cid", 2],
        ["web-7", "2024-03-01", "Dee", "DNF"],
    ]
    assert fake.values(KEY, "Long") == [*LONG, *block]
    assert len(appends(fake)) == 1 and fake.bodies == [{"values": block}]
    assert "4 rows" in result.message


@pytest.mark.parametrize("worksheet", ["Long", "WithId"])
def test_double_submit_with_one_token_adds_once(fake: FakeSheets, worksheet: str) -> None:
    first = record_game(source(fake, worksheet), GAME, token="web-2")
    # A second worker (a new source with its own cache) gets the same submit again.
    second = record_game(source(fake, worksheet), GAME, token="web-2")
    assert first.added and not second.added
    assert "already recorded" in second.message and "web-2" in second.message
    assert len(appends(fake)) == 1
    forced = record_game(source(fake, worksheet), GAME, token="web-2", allow_duplicate=True)
    assert not forced.added  # a stored token is never overridden
    third = record_game(source(fake, worksheet), GAME, token="web-3")  # a new submit of the same result
    assert third.added and len(appends(fake)) == 2


def test_concurrent_double_click_in_one_process_adds_once(fake: FakeSheets) -> None:
    results = []

    def submit() -> None:
        results.append(record_game(source(fake, "WithId"), GAME, token="web-9"))

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.added for r in results) == [False, False, False, True]
    assert len(fake.values(KEY, "WithId")) == len(WIDE_WITH_ID) + 1


def test_wide_sheet_without_ids_recognises_the_same_game(fake: FakeSheets) -> None:
    assert record_game(source(fake, "Wide"), GAME, token="web-1").added
    again = record_game(source(fake, "Wide"), GAME, token="web-1")
    assert not again.added and "identical game" in again.message
    assert len(fake.values(KEY, "Wide")) == len(WIDE) + 1
    anyway = record_game(source(fake, "Wide"), GAME, token="web-1", allow_duplicate=True)
    assert anyway.added and len(fake.values(KEY, "Wide")) == len(WIDE) + 2


def test_empty_worksheet_gets_a_header_and_the_game(fake: FakeSheets) -> None:
    assert record_game(source(fake, "Empty"), GAME, token="web-4").added
    stored = fake.values(KEY, "Empty")
    assert stored[0] == ["game", "date", "player", "place"] and len(stored) == 5
    assert read_table(stored).history.games[0].entries == GAME.entries


def test_recorded_game_shows_on_the_next_read(fake: FakeSheets) -> None:
    sheet = source(fake, "Long")
    assert len(sheet.read().history) == 1
    record_game(sheet, GAME, token="web-5")
    after = sheet.read()  # not forced: recording marked the cached copy due for refresh
    assert [g.id for g in after.history.games] == ["g1", "web-5"]


def test_public_link_cannot_record(fake: FakeSheets) -> None:
    public = SheetSource(SheetRef(KEY), PublicCsvBackend(routed_session(fake.base_url, token=None)))
    assert not public.writable
    with pytest.raises(SheetError) as info:
        record_game(public, GAME, token="web-6")
    assert info.value.reason == "read-only"
    assert "cannot write" in info.value.message and "service account" in info.value.message
    assert fake.requests == []


def test_sheet_refusing_the_write_is_reported(fake: FakeSheets) -> None:
    fake.plan(403, match=":append")
    with pytest.raises(SheetError) as info:
        record_game(source(fake, "Long"), GAME, token="web-8")
    assert info.value.reason == "not-shared"
    assert "may not write" in info.value.message and "as Editor" in info.value.message
    assert fake.values(KEY, "Long") == LONG


def test_rate_limited_append_is_retried_but_a_server_error_is_not(fake: FakeSheets) -> None:
    fake.plan(429, match=":append")
    assert record_game(source(fake, "Long"), GAME, token="web-10").added
    assert len(appends(fake)) == 2 and len(fake.values(KEY, "Long")) == len(LONG) + 4
    fake.plan(500, match=":append")
    with pytest.raises(SheetError, match="may or may not have been written") as info:
        # read back for 1 s (the app's 10 s is the confirmation tests' subject, not this one's)
        record_game(source(fake, "Long"), GAME, token="web-11", confirm_seconds=1.0)
    assert info.value.reason == "server-error"
    assert len(appends(fake)) == 3  # one try only: a 500 may hide a completed append


def test_sheet_without_a_date_column_says_the_date_was_left_out() -> None:
    with FakeSheets() as server:
        server.add_spreadsheet(KEY, {"Plain": [["1st", "2nd", "3rd", "DNF"], ["Ann", "Bob"]]})
        result = record_game(source(server, "Plain"), GAME, token="web-12")
        assert result.added and "no date column" in result.message
        assert server.values(KEY, "Plain")[-1] == ["Ann", "Bob / Cid", "", "Dee"]


# ------------------------------------------------------------------------------ a retry after a timeout (issue 30)
@pytest.mark.parametrize(
    ("worksheet", "added"),
    [
        ("Wide", [["2024-03-01", "Ann", "Bob / Cid", "", "Dee"]]),  # no game column: compared by its cells
        ("WithId", [["web-20", "2024-03-01", "Ann", "Bob / Cid", "", "Dee"]]),
        ("Long", [["web-20", "2024-03-01", p, pl] for p, pl in (("Ann", 1), ("Bob", 2), ("Cid", 2), ("Dee", "DNF"))]),
    ],
)
def test_a_retry_after_an_append_timed_out_writes_the_game_once(
    fake: FakeSheets, worksheet: str, added: list[list[Any]]
) -> None:
    # Issue 30: Google finished the append after the app had given up waiting; the user's retry read the sheet
    # before the first append landed, appended again, and the game was there twice (the long sheet then no longer
    # loaded).  The user submits, and on an error submits again with the same token, as the form does; requests
    # time out after 0.5 s here (the app's: 5 s).
    before = fake.values(KEY, worksheet)
    fake.plan("slow", seconds=1.5, match=":append")
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(
                record_game(source(fake, worksheet, timeout=0.5), GAME, token="web-20", confirm_seconds=4.0)
            )
        except SheetError as exc:
            outcomes.append(exc)
        if isinstance(outcomes[-1], RecordResult):
            break
    assert fake.settled(10.0)  # every append the fake was asked for has landed by now
    assert fake.values(KEY, worksheet) == [*before, *added], outcomes
    first = outcomes[0]
    assert isinstance(first, RecordResult) and first.added, "the first submit learnt by reading back that it landed"
    assert "reading the sheet back" in first.message
    assert len(appends(fake)) == 1


def test_an_append_that_never_lands_is_reported_after_reading_back(fake: FakeSheets) -> None:
    fake.plan(500, match=":append")  # Google refused it: nothing was written
    started = time.monotonic()
    with pytest.raises(SheetError, match="may or may not have been written"):
        record_game(source(fake, "Long", timeout=0.5), GAME, token="web-21", confirm_seconds=1.0)
    assert time.monotonic() - started >= 1.0, "it read the sheet back for its confirmation time first"
    assert fake.values(KEY, "Long") == LONG
    retry = record_game(source(fake, "Long", timeout=0.5), GAME, token="web-21")  # the retry then writes it, once
    assert retry.added and fake.values(KEY, "Long")[len(LONG) :] == [
        ["web-21", "2024-03-01", p, pl] for p, pl in (("Ann", 1), ("Bob", 2), ("Cid", 2), ("Dee", "DNF"))
    ]
