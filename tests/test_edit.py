"""History editing and recording as pure functions: grid rows, Apply, Undo, Revert, the new-game form."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from callbacks import record
from callbacks.runs import history_for, load_source, run_for
from ratings import GameHistory
from sources import edits, record_form
from sources.access import Rights
from sources.record import new_game
from sources.sheets import SheetError, SheetSettings

# Two games, written by hand; the expected grid below is the same table typed again.
RECORDS = [
    {"game": "g1", "date": "2024-03-01", "player": "Ann", "place": 1},
    {"game": "g1", "date": "2024-03-01", "player": "Bo", "place": 2},
    {"game": "g2", "date": "2024-03-08", "player": "Bo", "place": 1},
    {"game": "g2", "date": "2024-03-08", "player": "Cy", "place": "DNF"},
]


def upload_source(records: list[dict[str, Any]]) -> dict[str, Any]:
    """An upload-kind source as the core builds one (``callbacks.runs``)."""
    from sources.model import Upload, keep_history

    return Upload(keep_history(GameHistory.from_records(records)), "club.csv").to_json()


@pytest.fixture
def base() -> dict[str, Any]:
    return upload_source(RECORDS)


def test_grid_rows_are_the_long_table_with_places_as_text() -> None:
    rows = edits.grid_rows(GameHistory.from_records(RECORDS))
    assert [(r["game"], r["date"], r["player"], r["place"], r["exclude"]) for r in rows] == [
        ("g1", "2024-03-01", "Ann", "1", False),
        ("g1", "2024-03-01", "Bo", "2", False),
        ("g2", "2024-03-08", "Bo", "1", False),
        ("g2", "2024-03-08", "Cy", "DNF", False),
    ]
    assert [r["_id"] for r in rows] == ["0", "1", "2", "3"]


def test_problems_name_the_game_and_the_player_never_a_row_number() -> None:
    rows = edits.grid_rows(GameHistory.from_records(RECORDS))
    rows[1]["place"] = "second"
    rows[2]["player"] = ""
    rows[2]["place"] = "1"
    rows[3]["player"] = "Bo"  # twice in g2
    rows[3]["place"] = "2"
    checked = edits.check_rows(rows)
    assert checked.history is None
    assert len(checked.problems) == 2
    first, second = checked.problems
    assert first.startswith("game 'g1', player 'Bo', place: ") and "'second'" in first
    assert second.startswith("game 'g2', player: ") and "has no player name" in second
    assert not any("row" in p for p in checked.problems)
    rows[2]["player"] = "Bo"
    duplicate = edits.check_rows(rows).problems[-1]
    assert duplicate.startswith("game 'g2', player 'Bo', player: ") and "twice" in duplicate and "row" not in duplicate


@pytest.mark.parametrize("typed", ["2024-03-29", "29/03/2024", "29 March 2024", "2024/3/29", "Mar 29, 2024"])
def test_typed_dates_are_read_by_the_readers_parser_and_move_the_whole_game(typed: str) -> None:
    rows = edits.grid_rows(GameHistory.from_records(RECORDS))
    rows[3]["date"] = typed  # one row of g2
    checked = edits.check_rows(rows, {"g1": "2024-03-01", "g2": "2024-03-08"})
    assert checked.problems == []
    assert checked.history is not None
    assert [(g.id, g.date.isoformat() if g.date else None) for g in checked.history.games] == [
        ("g1", "2024-03-01"),
        ("g2", "2024-03-29"),
    ]


def test_a_time_of_day_stays_through_the_grid_and_moves_with_its_game() -> None:
    """Two games on one day, played in the order of their times though listed the other way: the grid shows each
    game's time after its date, an Apply keeps both (so the evening game stays after the morning one), and a time
    typed on one row moves its whole game, as a date does."""
    records = [
        {"game": "evening", "date": "2024-03-01 19:30", "player": "Ann", "place": 1},
        {"game": "evening", "date": "2024-03-01 19:30", "player": "Bo", "place": 2},
        {"game": "morning", "date": "2024-03-01 09:05", "player": "Bo", "place": 1},
        {"game": "morning", "date": "2024-03-01 09:05", "player": "Ann", "place": 2},
    ]
    history = GameHistory.from_records(records)
    assert [g.id for g in history.games] == ["morning", "evening"]  # by time of day (the readers' rule)
    rows = edits.grid_rows(history)
    assert [r["date"] for r in rows] == ["2024-03-01 09:05"] * 2 + ["2024-03-01 19:30"] * 2
    previous = {"morning": "2024-03-01 09:05", "evening": "2024-03-01 19:30"}
    checked = edits.check_rows(rows, previous)
    assert checked.history is not None and checked.problems == []
    kept = [(g.id, g.date, g.time) for g in checked.history.games]
    assert kept == [(g.id, g.date, g.time) for g in history.games]
    assert kept[1][2] == dt.time(19, 30)
    rows[0]["date"] = "2024-03-01 21:00"  # one row of the morning game, now after the evening one
    checked = edits.check_rows(rows, previous)
    assert checked.history is not None
    assert [(g.id, g.time) for g in checked.history.games] == [("evening", dt.time(19, 30)), ("morning", dt.time(21))]
    assert checked.dates == {"morning": "2024-03-01 21:00", "evening": "2024-03-01 19:30"}


def test_a_date_that_is_no_date_and_a_game_with_two_new_dates_are_named() -> None:
    rows = edits.grid_rows(GameHistory.from_records(RECORDS))
    rows[0]["date"] = "next friday"
    rows[2]["date"] = "2024-04-01"
    rows[3]["date"] = "2024-04-02"
    problems = edits.check_rows(rows, {"g1": "2024-03-01", "g2": "2024-03-08"}).problems
    assert len(problems) == 2
    assert problems[0].startswith("game 'g1', player 'Ann', date: 'next friday' is not a date")
    assert problems[1] == (
        "game 'g2' has two dates, 2024-04-01 (game 'g2', player 'Bo') and 2024-04-02 (game 'g2', player 'Cy'): "
        "give each game one date"
    )


def test_apply_writes_the_one_date_into_every_row_of_the_moved_game(base: dict[str, Any]) -> None:
    state = edits.fresh_state(base)
    rows = edits.grid_rows(history_for(base))
    rows[2]["date"] = "7 January 2025"
    outcome = edits.apply_rows(rows, state)
    assert outcome.ok, outcome.message
    assert outcome.rows is not None
    assert [r["date"] for r in outcome.rows] == ["2024-03-01", "2024-03-01", "2025-01-07", "2025-01-07"]
    assert history_for(outcome.source).games[1].date.isoformat() == "2025-01-07"


def test_new_game_row_gets_a_fresh_readable_id_and_add_player_joins_the_last_game() -> None:
    rows = edits.grid_rows(GameHistory.from_records(RECORDS))
    assert edits.add_row(rows)[-1] == {
        "_id": "4",
        "game": "game 3",
        "date": "",
        "player": "",
        "place": "",
        "exclude": False,
        "team": "",
        "weight": "",
    }
    assert edits.add_player(rows)[-1] == {
        "_id": "4",
        "game": "g2",
        "date": "2024-03-08",
        "player": "",
        "place": "",
        "exclude": False,
        "team": "",
        "weight": "",
    }
    numbered = [{**r, "game": str(n)} for r, n in zip(rows, [7, 7, 12, 12], strict=True)]
    assert edits.add_row(numbered)[-1]["game"] == "13"
    assert edits.add_row([])[-1]["game"] == "game 1"


def test_empty_added_rows_are_left_out_and_excluded_games_dropped() -> None:
    rows = edits.add_player(edits.grid_rows(GameHistory.from_records(RECORDS)))
    assert rows[-1] == {
        "_id": "4",
        "game": "g2",
        "date": "2024-03-08",
        "player": "",
        "place": "",
        "exclude": False,
        "team": "",
        "weight": "",
    }
    rows[0]["exclude"] = True  # one ticked row excludes the whole game g1
    checked = edits.check_rows(rows)
    assert checked.problems == []
    assert checked.ignored == 1 and checked.excluded == ["g1"]
    assert checked.history is not None and [g.id for g in checked.history.games] == ["g2"]
    for row in rows[:4]:
        row["exclude"] = True
    assert edits.check_rows(rows).problems == ["every game is excluded; keep at least one game"]


def test_invalid_apply_changes_nothing(base: dict[str, Any]) -> None:
    state = edits.fresh_state(base)
    rows = edits.grid_rows(history_for(base))
    rows[0]["place"] = "x"
    outcome = edits.apply_rows(rows, state)
    assert not outcome.ok
    assert outcome.source is None and outcome.state is None and outcome.rows is None
    assert outcome.message.startswith("Not applied") and "previous history stays in use" in outcome.message


def test_applied_edit_is_what_the_ratings_use(base: dict[str, Any]) -> None:
    # Swap g1 so that Bo beats Ann.  Multiplayer Elo defaults (K=32, D=400, everyone starts at 1000): a
    # two-player game between equals moves the winner by K * (N - 1) * (S - E) = 32 * 1 * (1 - 0.5) = +16
    # (Cunningham 2021, eq. 7; hand derivation).  Game g2 then has Bo (1016) beat Cy (1000, DNF).
    rows = edits.grid_rows(history_for(base))
    rows[0]["place"], rows[1]["place"] = "2", "1"
    outcome = edits.apply_rows(rows, edits.fresh_state(base))
    assert outcome.ok and outcome.source is not None and outcome.source["kind"] == "edited"
    run = run_for(outcome.source, "multielo", {})
    after_g1 = dict(zip(run.players, run.after[:2], strict=False))
    assert after_g1["Bo"] == pytest.approx(1016.0)
    assert after_g1["Ann"] == pytest.approx(984.0)
    assert load_source(outcome.source).label == "what-if edit of upload club.csv"


def test_undo_steps_back_then_to_the_source_and_the_stack_is_capped(base: dict[str, Any]) -> None:
    state = edits.fresh_state(base)
    names = []
    for k in range(edits.UNDO_STEPS + 2):
        rows = edits.grid_rows(history_for(base))
        rows[3]["player"] = f"Cy{k}"
        outcome = edits.apply_rows(rows, state)
        assert outcome.ok and outcome.state is not None
        state = outcome.state
        names.append(rows[3]["player"])
    assert len(state["undo"]) == edits.UNDO_STEPS
    back = edits.undo(state)
    assert back.rows is not None and back.rows[3]["player"] == names[-2]
    assert back.source is not None and "Cy5" in history_for(back.source).players
    # undoing to the unedited source hands back the source itself
    first = edits.apply_rows(edits.grid_rows(history_for(base)), edits.fresh_state(base))
    assert first.state is not None
    undone = edits.undo(first.state)
    assert undone.source == base and undone.state == edits.fresh_state(base)
    assert not edits.undo(edits.fresh_state(base)).ok


def test_revert_returns_the_source_and_its_rows(base: dict[str, Any]) -> None:
    rows = edits.grid_rows(history_for(base))
    rows[3]["place"] = "2"
    outcome = edits.apply_rows(rows, edits.fresh_state(base))
    assert outcome.state is not None
    reverted = edits.revert(outcome.state)
    assert reverted.source == base
    assert reverted.rows is not None and reverted.rows[3]["place"] == "DNF"


def test_delete_rows_removes_the_selected_ids() -> None:
    rows = edits.grid_rows(GameHistory.from_records(RECORDS))
    kept = edits.delete_rows(rows, [{"_id": "1"}, {"_id": "3"}])
    assert [r["player"] for r in kept] == ["Ann", "Bo"]
    assert edits.delete_rows(rows, None) == rows


# ------------------------------------------------------------------------------------------ recording
class FakeSheet:
    """A writable worksheet in memory (the two calls ``sources.record.record_game`` makes)."""

    writable = True

    def __init__(self) -> None:
        self.rows: list[list[Any]] = [["game", "date", "player", "place"]]
        self.appends = 0

    def fetch_rows(self) -> list[list[str]]:
        return [[str(c) for c in r] for r in self.rows]

    def append_rows(self, rows: list[list[Any]]) -> None:
        self.appends += 1
        self.rows.extend(rows)


def test_form_problems_are_reported_in_words() -> None:
    step = record_form.plan(None, "2024-13-01", ["Ann", "ann"], ["1", "2"], "t", writable=False)
    assert any("'2024-13-01' is not a real date" in p for p in step.problems)
    assert any("entered twice" in p for p in step.problems)


def test_a_writable_sheet_asks_first_anything_else_goes_to_the_session() -> None:
    sheet = {"kind": "sheet", "url": "https://docs.google.com/spreadsheets/d/abc", "worksheet": None}
    asked = record_form.plan(sheet, "2024-05-01", ["Ann", "Bo", ""], ["1", "DNF", ""], "web-1", writable=True)
    assert asked.pending == {
        "date": "2024-05-01",
        "results": [["Ann", 1], ["Bo", None]],
        "token": "web-1",
        "source": sheet,
    }
    direct = record_form.plan(sheet, "2024-05-01", ["Ann", "Bo"], ["1", "2"], "web-1", writable=False)
    assert direct.pending is None and direct.game is not None


KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF"  # the group's sheet in these tests
OTHER = "1ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwVU"  # another sheet the same account might reach
GROUP = SheetSettings(sheet=KEY, worksheet="Games", service_account_json="{}")
ORGANISER = Rights(True, True, True, "signed in")
VISITOR = Rights(False, False, True, "only organisers")


def test_sheet_writable_only_for_the_configured_sheet_unedited_with_an_account() -> None:
    sheet = {"kind": "sheet", "url": f"https://docs.google.com/spreadsheets/d/{KEY}/edit", "worksheet": "Games"}
    assert record_form.sheet_writable(sheet, GROUP)
    assert record_form.sheet_writable({**sheet, "url": KEY}, GROUP)  # the bare key names the same sheet
    assert not record_form.sheet_writable({**sheet, "worksheet": "Other"}, GROUP)
    assert not record_form.sheet_writable({**sheet, "url": OTHER}, GROUP)
    edit_of_sheet = {"kind": "edited", "id": "0" * 32, "base": sheet}
    assert not record_form.sheet_writable(edit_of_sheet, GROUP)
    assert not record_form.sheet_writable({"kind": "sample", "name": "poker"}, GROUP)
    public_only = SheetSettings(sheet=KEY, worksheet="Games")  # no service account: the CSV export cannot write
    assert not record_form.sheet_writable(sheet, public_only)


def test_confirmed_game_is_appended_once_per_token_into_the_configured_sheet_only() -> None:
    fake = FakeSheet()
    opened: list[tuple[str, Any]] = []

    def opener(url: str, ws: Any) -> Any:
        opened.append((url, ws))
        return fake

    pending = {
        "date": "2024-05-01",
        "results": [["Ann", 1], ["Bo", None]],
        "token": "web-1",
        "source": {"kind": "sheet", "url": KEY, "worksheet": "Games"},
    }
    ok, message = record_form.write_to_sheet(pending, ORGANISER, opener, GROUP)
    assert ok and message.startswith("Recorded the game: 2 rows added")
    assert opened == [(KEY, "Games")]  # the configured address, not the request's
    # the long shape of sources.record: one row per player, the token as the game id, DNF as the word
    assert fake.rows[1:] == [["web-1", "2024-05-01", "Ann", 1], ["web-1", "2024-05-01", "Bo", "DNF"]]
    again, message = record_form.write_to_sheet(pending, ORGANISER, opener, GROUP)
    assert again and "already recorded" in message and fake.appends == 1

    forged = {**pending, "token": "web-2", "source": {"kind": "sheet", "url": OTHER, "worksheet": "Games"}}
    refused, message = record_form.write_to_sheet(forged, ORGANISER, opener, GROUP)
    assert not refused and "only into the group's own sheet" in message and fake.appends == 1
    assert len(opened) == 2  # the forged request opened nothing

    visitor, message = record_form.write_to_sheet({**pending, "token": "web-3"}, VISITOR, opener, GROUP)
    assert not visitor and message == "Not recorded: only organisers" and fake.appends == 1

    def refuse(url: str, ws: str | None) -> Any:
        raise SheetError("this sheet is shared read-only", "read-only")

    failed, message = record_form.write_to_sheet(pending, ORGANISER, refuse, GROUP)
    assert not failed and message == "Not recorded: this sheet is shared read-only"
    broken, message = record_form.write_to_sheet({"source": pending["source"]}, ORGANISER, opener, GROUP)
    assert not broken and "did not hold a game" in message


def test_a_game_added_to_the_session_is_an_undoable_edit(base: dict[str, Any]) -> None:
    state = edits.fresh_state(base)
    game = new_game("2024-03-15", [("Cy", 1), ("Ann", 2)])
    outcome = record_form.add_to_session(state, game, "web-9")
    assert outcome.ok and outcome.source is not None and outcome.state is not None
    history = history_for(outcome.source)
    assert [g.id for g in history.games] == ["g1", "g2", "web-9"]
    assert history.games[-1].players == ("Cy", "Ann")
    assert "not saved anywhere" in outcome.message
    repeat = record_form.add_to_session(outcome.state, game, "web-9")
    assert not repeat.ok and "already added" in repeat.message
    assert edits.undo(outcome.state).source == base


def test_game_text_lists_places_then_dnfs() -> None:
    game = new_game("2024-05-01", [("Bo", "DNF"), ("Ann", 2), ("Cy", 1)])
    assert record_form.game_text(game) == "2024-05-01: 1. Cy, 2. Ann, DNF Bo"


def test_record_step_adds_to_the_session_or_asks_before_writing(base: dict[str, Any]) -> None:
    from dash import no_update

    from layouts.ids import Record

    state = edits.fresh_state(base)
    players, places = ["Di", "Ann", ""], ["1", "2", ""]
    out = record.record_step(Record.SUBMIT, "2024-04-01", players, places, "web-5", None, base, state, VISITOR)
    is_open, _, pending, _, token, source, new_state, rows, _ = out
    assert is_open is False and pending is None
    assert token not in (no_update, "web-5")  # a fresh token for the next game
    assert "Di" in history_for(source).players and new_state["undo"] == [None]
    assert rows[-2:][0]["player"] == "Di"
    bad = record.record_step(Record.SUBMIT, "", ["Di"], ["1"], "web-6", None, base, state, VISITOR)
    assert bad[4] is no_update and bad[5] is no_update  # nothing recorded
    cancelled = record.record_step(
        Record.CANCEL, "", players, places, "web-7", {"token": "web-7"}, base, state, VISITOR
    )
    assert cancelled[0] is False and cancelled[2] is None and cancelled[5] is no_update


def test_an_apply_past_the_row_bound_is_refused_before_reading_a_row(base: dict[str, Any]) -> None:
    """issue 30: an Apply of 300,000 rows took 28.7 s of CPU and 692 MB; an edit holds at most what a file may."""
    import time

    from ratings.io.limits import MAX_ROWS

    state = edits.fresh_state(base)
    row = {"game": "g1", "date": "", "player": "Ann", "place": "1", "exclude": False}
    started = time.process_time()
    outcome = edits.apply_rows([row] * (MAX_ROWS + 1), state)
    assert not outcome.ok and f"at most {MAX_ROWS:,}" in outcome.message and outcome.source is None
    assert time.process_time() - started < 5  # a hang detector: no row was read
