"""Uploads as dcc.Upload delivers them (base64 data URLs) and the CSV download.

Expected histories are read by hand from the literal tables below; the XLSX file is written with openpyxl
(an independent writer), and base64 payloads are made with the standard library.
"""

from __future__ import annotations

import base64
import io

import openpyxl
import pytest

from ratings.history import Entry, Game, GameHistory, HistoryError
from ratings.io import read_file, write_csv
from sources.uploads import decoded_size, read_upload

WIDE_CSV = "date,1st,2nd,3rd,DNF\n2024-01-05,Ann,Bob / Cid,,Dee\n2024-01-12,Cid,Ann,Bob\n"
# Game 1: Ann 1st, Bob and Cid tied 2nd, Dee DNF.  Game 2: Cid, Ann, Bob.
WIDE_GAMES = [
    {Entry("Ann", 1), Entry("Bob", 2), Entry("Cid", 2), Entry("Dee", None)},
    {Entry("Cid", 1), Entry("Ann", 2), Entry("Bob", 3)},
]


def data_url(data: bytes, mime: str = "text/csv") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def test_csv_upload() -> None:
    result = read_upload(data_url(WIDE_CSV.encode()), "games.csv")
    assert result.shape == "wide"
    assert [set(g.entries) for g in result.history.games] == WIDE_GAMES


def test_long_csv_upload_with_excel_mime_and_bom() -> None:
    text = "\ufeffgame;player;place\ng1;Ann;2\ng1;Bob;1\n"
    result = read_upload(data_url(text.encode("utf-8"), "application/vnd.ms-excel"), "games.csv")
    assert result.shape == "long"
    assert result.history.games[0].entries == (Entry("Ann", 2), Entry("Bob", 1))


def test_xlsx_upload() -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for row in [
        ["game", "player", "place"],
        ["r1", "Ann", 1],
        ["r1", "Bob", "DNF"],
        ["r2", "Bob", 1],
        ["r2", "Ann", 1],
    ]:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    result = read_upload(data_url(buffer.getvalue(), mime), "club.xlsx")
    assert result.shape == "long"
    assert [g.entries for g in result.history.games] == [
        (Entry("Ann", 1), Entry("Bob", None)),
        (Entry("Bob", 1), Entry("Ann", 1)),
    ]


def test_bad_base64_names_the_file() -> None:
    with pytest.raises(HistoryError) as info:
        read_upload("data:text/csv;base64,bm90IGJhc2U2NA=!*", "games.csv")
    (problem,) = info.value.problems
    assert problem.source == "games.csv"
    assert "'games.csv' arrived damaged" in problem.message and "base64" in problem.message


@pytest.mark.parametrize("contents", ["", "just text", "data:text/csv,plain%20text", None, 42])
def test_not_a_base64_data_url(contents: object) -> None:
    with pytest.raises(HistoryError, match="games.csv"):
        read_upload(contents, "games.csv")


def test_several_files_at_once_are_refused() -> None:
    with pytest.raises(HistoryError, match="one file at a time"):
        read_upload([data_url(b"a"), data_url(b"b")], ["a.csv", "b.csv"])  # type: ignore[arg-type]


def test_too_big_is_refused_from_the_length_before_decoding() -> None:
    # 11 MB once decoded; the payload is not even valid base64, so only a size check made before decoding
    # can give the size message.
    payload = "!" * (11 * 1024 * 1024 * 4 // 3)
    with pytest.raises(HistoryError) as info:
        read_upload("data:text/csv;base64," + payload, "huge.csv")
    (problem,) = info.value.problems
    assert problem.source == "huge.csv"
    assert problem.message == "'huge.csv' is 11.0 MB; files up to 10 MB are accepted"


def test_size_limit_is_exact() -> None:
    data = WIDE_CSV.encode()
    assert read_upload(data_url(data), "g.csv", max_bytes=len(data)).history.n_games == 2
    with pytest.raises(HistoryError, match="files up to"):
        read_upload(data_url(data), "g.csv", max_bytes=len(data) - 1)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 100, 101, 102])
def test_decoded_size_matches_real_decoding(size: int) -> None:
    encoded = base64.b64encode(bytes(range(256)) * 1 + b"x" * size)
    assert decoded_size(encoded.decode()) == len(base64.b64decode(encoded))


def test_unknown_extension_names_the_file() -> None:
    with pytest.raises(HistoryError) as info:
        read_upload(data_url(b"%PDF-1.7"), "results.pdf")
    assert any(p.source == "results.pdf" and "'results.pdf'" in p.message for p in info.value.problems)


def test_path_in_the_file_name_is_dropped() -> None:
    with pytest.raises(HistoryError) as info:
        read_upload(data_url(b"x"), "C:\\Users\\ann\\secret\\results.pdf")
    assert all("secret" not in str(p) for p in info.value.problems)
    with pytest.raises(HistoryError) as info:
        read_upload(data_url(b"x"), "/home/ann/secret/results.pdf")
    assert all("secret" not in str(p) for p in info.value.problems)
    assert any(p.source == "results.pdf" for p in info.value.problems)


def test_table_problems_come_back_located() -> None:
    with pytest.raises(HistoryError) as info:
        read_upload(data_url(b"game,player,place\ng1,Ann,1\ng1,Bob,zero\n"), "games.csv")
    (problem,) = info.value.problems
    assert (problem.row, problem.column, problem.source) == (3, "place", "games.csv")


def test_download_round_trips_and_is_formula_safe() -> None:
    history = GameHistory(
        [Game("g1", (Entry("=SUM(A1)", 1), Entry("Bob", 2), Entry("Cid", None))), Game("g2", (Entry("Bob", 1),))]
    )
    text = write_csv(history)  # what the History CSV button sends (sources.reading.history_csv)
    assert "'=SUM(A1)" in text and "\n=SUM" not in text and ",=SUM" not in text
    back = read_file(text.encode(), filename="games.csv").history
    assert [g.entries for g in back.games] == [g.entries for g in history.games]
    assert write_csv(history, "wide").splitlines()[0] == "game,date,1st,2nd,DNF"
