"""Tests for ratings.io: the table and file readers and the CSV writers.

Expected values are written by hand from the fixture files in tests/fixtures/io (each small enough to
read); the spreadsheet fixtures are written by tests/fixtures/io/make_fixtures.py.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import io
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings.history import Entry, Game, GameHistory, HistoryError, Problem
from ratings.io import (
    MAX_BYTES,
    MAX_ROWS,
    MAX_UNPACKED,
    ReadResult,
    read_file,
    read_table,
    to_long_rows,
    to_wide_rows,
    write_csv,
)
from ratings.io.limits import HOSTED
from ratings.io.names import clean_name
from ratings.samples import load_history

FIXTURES = Path(__file__).parent / "fixtures" / "io"
_spec = importlib.util.spec_from_file_location("make_io_fixtures", FIXTURES / "make_fixtures.py")
assert _spec is not None and _spec.loader is not None
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

D = dt.date


def games_of(result: ReadResult | GameHistory) -> list[tuple[str, dt.date | None, list[tuple[str, int | None]]]]:
    """A history as plain literals: (id, date, [(player, place), ...]) per game, in history order."""
    history = result.history if isinstance(result, ReadResult) else result
    return [(g.id, g.date, [(e.player, e.place) for e in g.entries]) for g in history.games]


def located(error: pytest.ExceptionInfo[HistoryError]) -> list[tuple[int | None, str | None]]:
    return [(p.row, p.column) for p in error.value.problems]


# ---------------------------------------------------------------------------------------------- shapes
def test_long_csv() -> None:
    result = read_file(FIXTURES / "long_basic.csv")
    assert result.shape == "long"
    assert result.columns == ("game", "date", "player", "place")
    assert games_of(result) == [
        ("g1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2), ("Cid", 3), ("Dee", None)]),
        ("g2", D(2024, 3, 8), [("Bob", 1), ("Ann", 1), ("Dee", 3)]),
    ]
    assert result.warnings == () and result.skipped == ()


def test_wide_csv_with_ties_and_dnf_column() -> None:
    result = read_file(FIXTURES / "wide_basic.csv")
    assert result.shape == "wide"
    assert games_of(result) == [
        ("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2), ("Cid", 3), ("Dee", None)]),
        ("game 2", D(2024, 3, 8), [("Ann", 1), ("Bob", 1), ("Dee", 3)]),
        ("game 3", D(2024, 3, 15), [("Cid", 1), ("Dee", 2), ("Eve", 2), ("Ann", 3), ("Bob", None), ("Fay", None)]),
    ]


def test_bom_and_semicolons() -> None:
    result = read_file(FIXTURES / "bom_semicolon.csv")
    assert result.columns == ("game", "date", "player", "place")  # no BOM glued to 'game'
    assert games_of(result) == [
        ("g1", D(2024, 3, 1), [("Ann", 1), ("Børge", 2)]),
        ("g2", D(2024, 3, 2), [("Børge", 1), ("Ann", 2)]),
    ]


def test_tabs_any_column_order_and_commas_in_names() -> None:
    result = read_file(FIXTURES / "tabs.txt")
    assert result.shape == "long"
    assert games_of(result) == [
        ("g1", D(2024, 3, 1), [("Ann", 1), ("Bob, Jr.", 2)]),
        ("g2", D(2024, 3, 2), [("Bob, Jr.", 1), ("Ann", None)]),
    ]
    assert games_of(read_file(FIXTURES / "tabs.tsv")) == [("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)])]


def test_ragged_rows_and_trailing_empty_rows_and_columns() -> None:
    result = read_file(FIXTURES / "ragged_trailing.csv")
    assert result.columns == ("date", "1st", "2nd", "3rd", "4th", "5th")
    assert games_of(result) == [
        ("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2), ("Cid", 3), ("Dee", 4), ("Eve", 5)]),
        ("game 2", D(2024, 3, 8), [("Bob", 1), ("Ann", 2)]),
        ("game 3", D(2024, 3, 15), [("Cid", 1), ("Ann", 2), ("Bob", 3)]),
    ]


@pytest.mark.parametrize("name", ["wide.xlsx", "wide.ods"])
def test_wide_spreadsheets(name: str) -> None:
    result = read_file(FIXTURES / name)
    assert result.shape == "wide"
    assert games_of(result) == [
        ("night 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2), ("Cid", 3), ("Dee", None)]),
        ("night 2", D(2024, 3, 8), [("Bob", 1), ("Cid", 1), ("Ann", 3)]),
        ("night 3", D(2024, 3, 15), [("Dee", 1), ("Ann", 2)]),
    ]


@pytest.mark.parametrize("name", ["long.xlsx", "long.ods"])
def test_long_spreadsheets_with_numeric_cells(name: str) -> None:
    result = read_file(FIXTURES / name)
    assert games_of(result) == [
        ("1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)]),
        ("2", D(2024, 3, 2), [("Bob", 1), ("Ann", None)]),
    ]


def test_only_the_first_sheet_is_read_and_that_is_said() -> None:
    import openpyxl

    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    first.title = "Games"
    first.append(["date", "1st", "2nd"])
    first.append(["2024-03-01", "Ann", "Bob"])
    book.create_sheet("Notes").append(["anything"])
    buffer = io.BytesIO()
    book.save(buffer)
    result = read_file(buffer.getvalue(), filename="two.xlsx")
    assert result.history.n_games == 1
    assert "only the first, 'Games', was read (not 'Notes')" in result.warnings[0]


def test_stray_far_cell_does_not_blow_up_the_sheet() -> None:
    # A 5 kB workbook whose used area is 100,000 rows by 16,000 columns: a reader that builds the whole
    # rectangle needs tens of gigabytes (python-calamine 0.9.1 aborts the process on it, which is why this
    # module streams with openpyxl).  Columns past MAX_COLUMNS are cut; the table itself reads.
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["date", "1st", "2nd"])
    sheet.append(["2024-03-01", "Ann", "Bob"])
    sheet.cell(row=300_000, column=16_000, value="x")
    buffer = io.BytesIO()
    book.save(buffer)
    assert len(buffer.getvalue()) < 10_000
    result = read_file(buffer.getvalue(), filename="stray.xlsx")
    assert games_of(result) == [("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)])]


def test_ods_cell_comments_and_repeats() -> None:
    # A comment (office:annotation) is not part of the cell's text; repeated rows and cells expand.
    from odf.office import Annotation
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    def cell(text: str, repeat: int = 1) -> TableCell:
        element = TableCell(valuetype="string", numbercolumnsrepeated=repeat)
        element.addElement(P(text=text))
        return element

    document = OpenDocumentSpreadsheet()
    table = Table(name="Games")
    header = TableRow()
    for text in ("date", "1st", "2nd"):
        header.addElement(cell(text))
    played = TableRow(numberrowsrepeated=2)  # the same night written twice: two games
    played.addElement(cell("2024-03-01"))
    winner = cell("Ann")
    note = Annotation()
    note.addElement(P(text="great game"))
    winner.addElement(note)
    played.addElement(winner)
    played.addElement(cell("Bob"))
    played.addElement(TableCell(numbercolumnsrepeated=1_000_000))
    blank = TableRow(numberrowsrepeated=900_000)
    blank.addElement(TableCell(numbercolumnsrepeated=1024))
    for row in (header, played, blank):
        table.addElement(row)
    document.spreadsheet.addElement(table)
    buffer = io.BytesIO()
    document.save(buffer)
    assert games_of(read_file(buffer.getvalue(), filename="c.ods")) == [
        ("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)]),
        ("game 2", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)]),
    ]


def test_utf16_and_windows_encoded_text() -> None:
    # Excel's "Unicode text" export: UTF-16 with a byte-order mark and tabs.
    text = "date\t1st\t2nd\r\n2024-03-01\tBørge\tZoë\r\n"
    result = read_file(text.encode("utf-16"), filename="export.txt")
    assert games_of(result) == [("game 1", D(2024, 3, 1), [("Børge", 1), ("Zoë", 2)])]
    # An older Excel CSV in the Windows code page.
    result = read_file(text.replace("\t", ",").encode("cp1252"), filename="old.csv")
    assert games_of(result) == [("game 1", D(2024, 3, 1), [("Børge", 1), ("Zoë", 2)])]


def test_format_sniffed_without_a_file_name() -> None:
    for name in ("wide.xlsx", "wide.ods", "long_basic.csv"):
        data = (FIXTURES / name).read_bytes()
        assert read_file(io.BytesIO(data)).history.n_games == read_file(FIXTURES / name).history.n_games


def test_text_is_never_type_guessed() -> None:
    rows = [["game", "player", "place"], ["007", "1/2", "1"], ["007", "0042", "2"], ["1/2", "3e5", "1"]]
    rows.append(["1/2", "TRUE", "2"])
    text = "\n".join(",".join(r) for r in rows)
    result = read_file(text.encode(), filename="t.csv")
    assert games_of(result) == [("007", None, [("1/2", 1), ("0042", 2)]), ("1/2", None, [("3e5", 1), ("TRUE", 2)])]
    xlsx = make_fixtures.xlsx_bytes(rows)
    assert games_of(read_file(xlsx, filename="t.xlsx")) == games_of(result)
    ods = make_fixtures.ods_bytes(rows)
    assert games_of(read_file(ods, filename="t.ods")) == games_of(result)


def test_spreadsheet_row_numbers_count_blank_rows_above_the_header() -> None:
    rows: list[list[Any]] = [[None], [None, None], ["date", "1st", "2nd"], [dt.date(2024, 3, 1), "Ann", "Bob"], [None]]
    rows.append([dt.date(2024, 3, 2), "Ann", "ann"])
    for data, name in ((make_fixtures.xlsx_bytes(rows), "b.xlsx"), (make_fixtures.ods_bytes(rows), "b.ods")):
        with pytest.raises(HistoryError) as error:
            read_file(data, filename=name)
        assert located(error) == [(6, "2nd")], name


@pytest.mark.parametrize(
    ("header", "shape"),
    [
        (["Game", "DATE", " Player ", "Rank"], "long"),
        (["match", "date", "name", "Position"], "long"),
        (["game_id", "Played on", "player", "PLACE"], "long"),
        (["Date", "Winner", "Second", "third"], "wide"),
        (["date", "1", "2", "3"], "wide"),
        (["date", "1st place", "2nd Place", "3rd place"], "wide"),
        (["date", "First", "2ND", "Position 3"], "wide"),
    ],
)
def test_header_words(header: list[str], shape: str) -> None:
    if shape == "long":
        rows = [header, ["g1", "2024-03-01", "Ann", "1"], ["g1", "2024-03-01", "Bob", "2"]]
        expected = [("g1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)])]
    else:
        rows = [header, ["2024-03-01", "Ann", "Bob", "Cid"]]
        expected = [("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2), ("Cid", 3)])]
    result = read_table(rows)
    assert result.shape == shape
    assert games_of(result) == expected


def test_game_column_in_wide_shape_and_ignored_columns_warned() -> None:
    rows = [["Game", "Date", "1st", "2nd", "Notes"], ["final", "2024-03-01", "Ann", "Bob", "great night"]]
    result = read_table(rows)
    assert games_of(result) == [("final", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)])]
    assert any("'Notes'" in w for w in result.warnings)


def test_wide_games_sorted_by_date_keep_table_order_ids() -> None:
    # Newest first, as some groups keep their sheet: play order comes from the dates.
    rows = [["date", "1st", "2nd"], ["2024-03-08", "Bob", "Ann"], ["2024-03-01", "Ann", "Bob"]]
    assert games_of(read_table(rows)) == [
        ("game 2", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)]),
        ("game 1", D(2024, 3, 8), [("Bob", 1), ("Ann", 2)]),
    ]


def test_ambiguous_shape_asks_to_choose_and_shape_can_be_forced() -> None:
    with pytest.raises(HistoryError) as error:
        read_file(FIXTURES / "ambiguous_shape.csv")
    assert located(error) == [(1, None)]
    assert "choose the shape" in error.value.problems[0].message
    forced = read_file(FIXTURES / "ambiguous_shape.csv", shape="long")
    assert games_of(forced) == [("g1", None, [("Ann", 1)])]
    forced_wide = read_table([["game", "player", "place", "1st"], ["g1", "x", "y", "Ann"]], shape="wide")
    assert games_of(forced_wide) == [("g1", None, [("Ann", 1)])]


def test_unknown_header_is_explained() -> None:
    with pytest.raises(HistoryError) as error:
        read_table([["who won", "when"], ["Ann", "today"]])
    assert located(error) == [(1, None)]
    assert "'1st'" in error.value.problems[0].message and "'player'" in error.value.problems[0].message


def test_forced_long_shape_names_missing_columns() -> None:
    with pytest.raises(HistoryError) as error:
        read_table([["date", "1st"], ["2024-03-01", "Ann"]], shape="long")
    assert [p.message.split(" column")[0] for p in error.value.problems] == [
        "the long shape needs a 'game'",
        "the long shape needs a 'player'",
        "the long shape needs a 'place'",
    ]


def test_long_shape_without_game_column_groups_by_date() -> None:
    rows = [
        ["Date", "Player", "Place"],
        ["2024-03-02", "Ann", "2"],
        ["2024-03-02", "Bob", "1"],
        ["2024-03-01", "Ann", 1],
    ]
    rows.append(["2024-03-01", "Bob", "2"])
    result = read_table(rows)
    assert games_of(result) == [
        ("2024-03-01", D(2024, 3, 1), [("Ann", 1), ("Bob", 2)]),
        ("2024-03-02", D(2024, 3, 2), [("Ann", 2), ("Bob", 1)]),
    ]
    assert any("no game column" in w for w in result.warnings)
    with pytest.raises(HistoryError) as error:
        read_table([["player", "place"], ["Ann", "1"]])
    assert located(error) == [(1, None)] and "'game'" in error.value.problems[0].message
    with pytest.raises(HistoryError) as error:  # ambiguous dates cannot say which game a row is
        read_table([["date", "player", "place"], ["01/02/2024", "Ann", "1"], ["01/02/2024", "Bob", "2"]])
    assert located(error) == [(2, "date")]


def test_header_below_blank_rows_keeps_spreadsheet_row_numbers() -> None:
    rows = [[], ["", ""], ["game", "player", "place"], ["g1", "Ann", "first"]]
    with pytest.raises(HistoryError) as error:
        read_table(rows)
    assert located(error) == [(4, "place")]


@pytest.mark.parametrize("mask", range(64))
def test_every_combination_of_known_columns(mask: int) -> None:
    # Exhaustive over which of six columns are present: a result or a HistoryError, never a crash.
    words = ["game", "date", "player", "place", "1st", "DNF"]
    header = [w for k, w in enumerate(words) if mask >> k & 1]
    values = {"game": "g1", "date": "2024-03-01", "player": "Ann", "place": "1", "1st": "Bob", "DNF": "Cid"}
    for shape in ("auto", "long", "wide"):
        for body in ([[values[w] for w in header]], [[""] * len(header)], [["x"] * len(header)]):
            _outcome(lambda: read_table([header, *body], shape=shape))  # noqa: B023


def test_two_columns_with_one_meaning() -> None:
    with pytest.raises(HistoryError) as error:
        read_table([["game", "player", "place", "rank"], ["g1", "Ann", "1", "1"]])
    assert located(error) == [(1, "rank")]


# ----------------------------------------------------------------------------------------------- dates
def test_day_first_dates() -> None:
    result = read_file(FIXTURES / "dates_day_first.csv")
    assert [g.date for g in result.history] == [D(2024, 3, 1), D(2024, 3, 5), D(2024, 3, 13)]
    assert any("day/month" in w for w in result.warnings)


def test_month_first_dates() -> None:
    result = read_file(FIXTURES / "dates_month_first.csv")
    assert [g.date for g in result.history] == [D(2024, 3, 1), D(2024, 3, 5), D(2024, 3, 13)]
    assert any("month/day" in w for w in result.warnings)


def test_ambiguous_dates_are_reported_not_guessed() -> None:
    with pytest.raises(HistoryError) as error:
        read_file(FIXTURES / "dates_ambiguous.csv")
    assert located(error) == [(2, "date")]
    message = error.value.problems[0].message
    assert "'01/03/2024' could be 1 March 2024 or 3 January 2024" in message
    assert "YYYY-MM-DD" in message and "rows 2, 3" in message  # 04/04/2024 reads the same either way
    with pytest.raises(HistoryError):  # a column-wide problem: skipping rows cannot fix it
        read_file(FIXTURES / "dates_ambiguous.csv", skip_bad_rows=True)


def test_dates_in_conflicting_orders_point_at_the_odd_row() -> None:
    rows = [["date", "1st", "2nd"], ["13/03/2024", "A", "B"], ["25/03/2024", "A", "B"], ["03/26/2024", "A", "B"]]
    with pytest.raises(HistoryError) as error:
        read_table(rows)
    assert located(error) == [(4, "date")]
    assert "day/month" in error.value.problems[0].message


def test_other_date_spellings() -> None:
    rows = [["date", "1st", "2nd"], ["2024/03/01", "A", "B"], ["5 March 2024", "A", "B"], ["Mar 9, 2024", "A", "B"]]
    rows.append(["2024-03-10 19:30:00", "A", "B"])
    assert [g.date for g in read_table(rows).history] == [D(2024, 3, 1), D(2024, 3, 5), D(2024, 3, 9), D(2024, 3, 10)]


def test_spreadsheet_day_numbers_in_the_date_column() -> None:
    # Hand derivation: Excel's serial for 2024-01-01 is 45292; add 31 days of January and 29 of February
    # (2024 is a leap year) to get 45352 for 2024-03-01.
    rows = [["date", "1st", "2nd"], ["45352", "A", "B"], [45353.0, "B", "A"]]
    result = read_table(rows)
    assert [g.date for g in result.history] == [D(2024, 3, 1), D(2024, 3, 2)]
    assert any("day numbers" in w for w in result.warnings)


def test_bad_dates_are_located() -> None:
    rows = [["date", "1st", "2nd"], ["2024-02-30", "A", "B"], ["someday", "A", "B"], ["2024-03-01", "A", "B"]]
    with pytest.raises(HistoryError) as error:
        read_table(rows)
    assert located(error) == [(2, "date"), (3, "date")]


# ----------------------------------------------------------------------------------------------- names
def test_names_differing_in_case_or_spaces_are_merged_with_a_warning() -> None:
    result = read_file(FIXTURES / "case_duplicates.csv")
    assert games_of(result) == [
        ("g1", None, [("Ann", 1), ("Bob", 2)]),
        ("g2", None, [("Ann", 1), ("Bob", 2)]),
        ("g3", None, [("Bob", 1), ("Ann", 2)]),
    ]
    # 'Bob' is written twice and 'bob' once: the most frequent spelling wins, not the first.
    assert "'bob', 'Bob' -> 'Bob'" in " ".join(result.warnings)
    # The spellings are shown trimmed (clean_name), as the history would keep them.
    assert "'Ann', 'ANN', 'ann' -> 'Ann'" in " ".join(result.warnings)


def test_merged_names_in_one_game_are_a_duplicate() -> None:
    with pytest.raises(HistoryError) as error:
        read_table([["date", "1st", "2nd"], ["2024-03-01", "Ann", "ANN"]])
    assert located(error) == [(2, "2nd")]


# ------------------------------------------------------------------------------------------- problems
def test_half_filled_long_rows_all_reported_with_row_and_column() -> None:
    with pytest.raises(HistoryError) as error:
        read_file(FIXTURES / "half_filled_long.csv")
    assert located(error) == [(3, "player"), (4, "place"), (5, "game")]
    assert all(p.source == "half_filled_long.csv" for p in error.value.problems)
    assert "'second'" in error.value.problems[1].message
    assert "row 3, column 'player'" in str(error.value)


def test_half_filled_wide_rows_all_reported() -> None:
    with pytest.raises(HistoryError) as error:
        read_file(FIXTURES / "half_filled_wide.csv")
    assert located(error) == [(3, "1st"), (4, "3rd")]
    assert "no players" in error.value.problems[0].message
    assert "'Bob' appears twice" in error.value.problems[1].message


def test_skip_bad_rows_keeps_the_valid_part() -> None:
    result = read_file(FIXTURES / "half_filled_wide.csv", skip_bad_rows=True)
    assert games_of(result) == [
        ("game 1", D(2024, 3, 1), [("Ann", 1), ("Bob", 2), ("Cid", 3)]),
        ("game 4", D(2024, 3, 22), [("Cid", 1), ("Ann", 2)]),
    ]
    assert [(p.row, p.column) for p in result.skipped] == [(3, "1st"), (4, "3rd")]
    long = read_file(FIXTURES / "half_filled_long.csv", skip_bad_rows=True)
    # g1 has two bad rows, so the whole game is left out rather than rated with players missing.
    assert games_of(long) == [("g2", D(2024, 3, 2), [("Ann", 1), ("Bob", 2)])]
    assert len(long.skipped) == 3
    assert any("1 game(s)" in w for w in long.warnings)


def test_values_beyond_the_header_are_reported() -> None:
    with pytest.raises(HistoryError) as error:
        read_table([["date", "1st", "2nd"], ["2024-03-01", "Ann", "Bob", "Cid"]])
    assert located(error) == [(2, "column D")]


def test_conflicting_dates_inside_a_long_game() -> None:
    rows = [["game", "date", "player", "place"], ["g1", "2024-03-01", "A", "1"], ["g1", "2024-03-02", "B", "2"]]
    with pytest.raises(HistoryError) as error:
        read_table(rows)
    assert located(error) == [(3, "date")]


def test_bad_places_are_located() -> None:
    rows = [["game", "player", "place"], ["g", "A", "0"], ["g", "B", "1.5"], ["g", "C", "-1"], ["g", "D", "2nd"]]
    with pytest.raises(HistoryError) as error:
        read_table(rows, source="club.csv")
    assert located(error) == [(2, "place"), (3, "place"), (4, "place")]
    assert str(error.value.problems[0]).startswith("club.csv, row 2, column 'place':")


def test_empty_inputs() -> None:
    for rows in ([], [[]], [["", " "], []]):
        with pytest.raises(HistoryError):
            read_table(rows)
    with pytest.raises(HistoryError):
        read_file(b"", filename="empty.csv")
    header_only = read_table([["date", "1st", "2nd"]])
    assert header_only.history.n_games == 0


# ------------------------------------------------------------------------------------------- refusals
def test_too_big_bytes_refused_before_parsing() -> None:
    data = b"x" * (MAX_BYTES + 1)
    with pytest.raises(HistoryError) as error:
        read_file(data, filename="big.csv")
    assert len(error.value.problems) == 1 and "10 MB" in error.value.problems[0].message


def test_too_big_file_refused_by_size(tmp_path: Path) -> None:
    path = tmp_path / "huge.xlsx"
    with open(path, "wb") as handle:  # a sparse file: the size check must come before any reading
        handle.truncate(MAX_BYTES * 5)
    with pytest.raises(HistoryError) as error:
        read_file(path, limits=HOSTED)
    assert "52.4 MB" in error.value.problems[0].message
    # a path alone is a trusted local file: no size cap (this one is then refused for what it holds)
    with pytest.raises(HistoryError) as error:
        read_file(path)
    assert "not a valid spreadsheet" in error.value.problems[0].message


def test_too_big_file_object_refused() -> None:
    with pytest.raises(HistoryError):
        read_file(io.BytesIO(b"a,b\n" * (MAX_BYTES // 4 + 1)))


def test_too_many_rows_refused() -> None:
    text = "game,player,place\n" + "g,A,1\n" * MAX_ROWS
    assert len(text.encode()) < MAX_BYTES
    with pytest.raises(HistoryError) as error:
        read_file(text.encode(), filename="long.csv")
    assert "200,000 rows" in error.value.problems[0].message
    with pytest.raises(HistoryError):
        read_table([["game", "player", "place"]] + [["g", "A", "1"]] * MAX_ROWS)


def test_spreadsheet_that_unpacks_too_big_is_refused() -> None:
    # A zip bomb: a few hundred kilobytes that unpack to more than MAX_UNPACKED bytes of XML.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
        with archive.open("xl/worksheets/sheet1.xml", "w") as member:
            chunk = b" " * (1024 * 1024)
            for _ in range(MAX_UNPACKED // len(chunk) + 1):
                member.write(chunk)
    data = buffer.getvalue()
    assert len(data) < MAX_BYTES
    with pytest.raises(HistoryError) as error:
        read_file(data, filename="bomb.xlsx")
    assert "unpacks to" in error.value.problems[0].message


def test_wrong_or_damaged_files_refused(tmp_path: Path) -> None:
    cases = {
        "photo.png": b"\x89PNG\r\n\x1a\n",
        "games.xlsx": b"this is not a workbook",
        "games.ods": b"PK\x03\x04broken",
        "binary.csv": b"\x00\x01\x02game,player,place",
        "archive.zip": (FIXTURES / "wide.xlsx").read_bytes(),
    }
    for name, data in cases.items():
        with pytest.raises(HistoryError) as error:
            read_file(data, filename=name)
        assert len(error.value.problems) == 1, name
    with pytest.raises(HistoryError) as error:
        read_file(tmp_path / "missing.csv")
    assert "no readable file" in error.value.problems[0].message
    with pytest.raises(HistoryError):
        read_file(tmp_path)


# -------------------------------------------------------------------------------------------- loading
def test_load_history_from_path_sample_and_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    assert games_of(load_history(str(FIXTURES / "long_basic.csv")))[0][0] == "g1"
    assert load_history("sample:chess").n_players == 30
    stdin = io.TextIOWrapper(io.BytesIO((FIXTURES / "wide_basic.csv").read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert load_history("-").n_games == 3
    with pytest.raises(HistoryError) as error:
        load_history("sample:nothing")
    assert "poker" in str(error.value)


# ------------------------------------------------------------------------------------------- writing
SMALL = GameHistory(
    [
        Game("g1", (Entry("Ann", 1), Entry("Bob", 2), Entry("Cid", None)), D(2024, 3, 1)),
        Game("g2", (Entry("Bob", 1), Entry("Cid", 1), Entry("Ann", 3)), D(2024, 3, 8)),
    ]
)


def test_long_and_wide_rows() -> None:
    assert to_long_rows(SMALL) == [
        ["game", "date", "player", "place"],
        ["g1", "2024-03-01", "Ann", "1"],
        ["g1", "2024-03-01", "Bob", "2"],
        ["g1", "2024-03-01", "Cid", "DNF"],
        ["g2", "2024-03-08", "Bob", "1"],
        ["g2", "2024-03-08", "Cid", "1"],
        ["g2", "2024-03-08", "Ann", "3"],
    ]
    assert to_wide_rows(SMALL) == [
        ["game", "date", "1st", "2nd", "3rd", "DNF"],
        ["g1", "2024-03-01", "Ann", "Bob", "", "Cid"],
        ["g2", "2024-03-08", "Bob / Cid", "", "Ann"],
    ]
    assert write_csv(SMALL, "wide").splitlines()[2] == "g2,2024-03-08,Bob / Cid,,Ann"


def test_formula_injection_is_neutralised() -> None:
    evil = ['=HYPERLINK("x")', "+1 Bob", "-Bob", "@SUM(A1)", "\tTabby", "\rCarriage"]
    history = GameHistory([Game("-3", tuple(Entry(name, k + 1) for k, name in enumerate(evil)), None)])
    rows = to_long_rows(history)
    assert [r[2] for r in rows[1:]] == ["'" + name for name in evil]
    # A game id or a name is text even when it looks like a number: quoted like any other text (OWASP's rule).
    assert rows[1][0] == "'-3"
    wide = to_wide_rows(history)
    assert wide[1][2:] == ["'" + name for name in evil]
    for cell in (c for row in list(csv.reader(io.StringIO(write_csv(history), newline=""))) for c in row):
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    # Reading our own output back gives the original names (less surrounding whitespace, which reading strips).
    again = read_file(write_csv(history).encode(), filename="out.csv").history
    assert again.players == tuple(n.strip() for n in evil)


def test_names_with_a_slash_cannot_be_written_wide() -> None:
    history = GameHistory([Game("g", (Entry("A/B", 1), Entry("C", 2)), None)])
    with pytest.raises(HistoryError):
        to_wide_rows(history)
    assert to_long_rows(history)[1][2] == "A/B"


def assert_same_games(a: GameHistory, b: GameHistory) -> None:
    """Same games (ids, dates) with the same players, places and DNFs; entry order inside a game is free."""
    assert [(g.id, g.date, sorted(g.entries, key=lambda e: e.player)) for g in a.games] == [
        (g.id, g.date, sorted(g.entries, key=lambda e: e.player)) for g in b.games
    ]


def test_round_trip_wide_long_wide_on_fixture() -> None:
    original = read_file(FIXTURES / "wide_basic.csv").history
    long = read_file(write_csv(original, "long").encode(), filename="x.csv")
    assert long.shape == "long"
    wide = read_file(write_csv(long.history, "wide").encode(), filename="x.csv")
    assert wide.shape == "wide"
    assert_same_games(original, wide.history)
    assert_same_games(original, long.history)


# ------------------------------------------------------------------------------------------ properties
NAMES = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=8).filter(
    # Names as a history keeps them (ratings.io.names.clean_name: no byte-order mark, spacing folded, Unicode
    # composed, so a CJK compatibility ideograph such as U+F9xx is already its unified form); no tie separator and
    # no team separator (a wide-shape cell reads "A & B" as a team; the writer refuses such names, as it does "/").
    lambda s: "/" not in s and "&" not in s and clean_name(s) == s
)


@st.composite
def histories(draw: Any) -> GameHistory:
    pool = draw(st.lists(NAMES, min_size=2, max_size=8, unique_by=lambda s: s.casefold()))
    games = []
    start = D(2020, 1, 1)
    dated = draw(st.booleans())
    for k in range(draw(st.integers(1, 6))):
        players = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
        places = [draw(st.one_of(st.none(), st.integers(1, 6))) for _ in players]
        date = start + dt.timedelta(days=draw(st.integers(0, 3)) + 4 * k) if dated else None
        games.append(Game(f"g{k}", tuple(Entry(p, pl) for p, pl in zip(players, places, strict=True)), date))
    return GameHistory(games)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_round_trip_wide_long_wide_property(history: GameHistory) -> None:
    long = read_file(write_csv(history, "long").encode(), filename="l.csv", shape="long").history
    wide = read_file(write_csv(long, "wide").encode(), filename="w.csv", shape="wide").history
    assert_same_games(history, wide)


def _outcome(call: Any) -> ReadResult | None:
    try:
        result = call()
    except HistoryError as exc:
        assert exc.problems and all(isinstance(p, Problem) for p in exc.problems)
        return None
    assert isinstance(result, ReadResult)
    assert result.shape in ("long", "wide")
    return result


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600), st.sampled_from([None, "x.csv", "x.xlsx", "x.ods", "x.tsv"]))
def test_random_bytes_give_a_result_or_a_history_error(data: bytes, filename: str | None) -> None:
    _outcome(lambda: read_file(data, filename=filename))


HEADER_WORDS = ["game", "date", "player", "place", "1st", "2nd", "3rd", "DNF", "Rank", "", "notes", "1", "winner"]
CELLS = st.one_of(
    st.sampled_from(["", "Ann", "bob", "BOB ", "1", "2", "DNF", "A / B", "2024-03-01", "01/02/2024", "13/02/2024"]),
    st.text(max_size=6),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(HEADER_WORDS), min_size=1, max_size=6),
    st.lists(st.lists(CELLS, max_size=7), max_size=8),
    st.sampled_from([",", ";", "\t"]),
    st.sampled_from(["auto", "long", "wide"]),
    st.booleans(),
)
def test_random_csv_gives_a_result_or_a_history_error(
    header: list[str], rows: list[list[str]], delimiter: str, shape: str, skip: bool
) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows([header, *rows])
    _outcome(lambda: read_file(buffer.getvalue().encode(), filename="r.csv", shape=shape, skip_bad_rows=skip))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_random_text_gives_a_result_or_a_history_error(text: str) -> None:
    _outcome(lambda: read_file(text.encode("utf-8", "surrogatepass"), filename="t.txt"))


SHEET_CELLS = st.one_of(
    st.none(),
    CELLS,
    st.integers(-5, 40),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.dates(min_value=D(1990, 1, 1), max_value=D(2040, 1, 1)),
    st.booleans(),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(HEADER_WORDS), min_size=1, max_size=5),
    st.lists(st.lists(SHEET_CELLS, max_size=6), max_size=6),
    st.sampled_from(["xlsx", "ods"]),
)
def test_random_spreadsheets_give_a_result_or_a_history_error(
    header: list[str], rows: list[list[Any]], kind: str
) -> None:
    table: list[list[Any]] = [list(header), *rows]
    if kind == "xlsx":
        # openpyxl refuses control characters in cells; a spreadsheet program never writes them either.
        table = [[c for c in row if not (isinstance(c, str) and any(ord(ch) < 32 for ch in c))] for row in table]
        data = make_fixtures.xlsx_bytes(table)
    else:
        data = make_fixtures.ods_bytes(table)
    _outcome(lambda: read_file(data, filename=f"s.{kind}"))


def test_fixture_script_writes_what_is_committed(tmp_path: Path) -> None:
    # The committed spreadsheets read the same as freshly written ones (the bytes differ by timestamps).
    fresh = tmp_path / "wide.ods"
    fresh.write_bytes(make_fixtures.ods_bytes(make_fixtures.WIDE_ROWS))
    assert games_of(read_file(fresh)) == games_of(read_file(FIXTURES / "wide.ods"))
    assert os.path.getsize(FIXTURES / "wide.xlsx") < 20_000
