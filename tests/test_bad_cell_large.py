"""A large file's bad cells reported from a window of the file (issue 28): the message is the whole-file read's.

The column reader (:mod:`ratings.io.columns`) finds the rows of the cells the general reader reports on their own
rows (a place that is not one, a date that is not one, a blank name) and has the general reader read only those
rows' games (``_problems``).  The reference here is the general reader itself, by a path independent of that window:

- on the same file, read whole (the column reader switched off in :func:`ratings.io.read_file`), for files of
  40,000 rows (over the 1 MB from which the column reader is used);
- for a million rows, whose whole-file read costs gigabytes, on a copy of the file in which every line outside the
  bad cell's game is made blank: the general reader counts blank lines as rows (its CSV records), so every row keeps
  its number, and it reads a million blank lines in about a second.  One message is also checked against the text
  written out by hand from the general reader's message for a place (:func:`ratings.io.places.parse_place`).

The million-row reads run in a child process, which reports the rise of its peak resident memory (``ru_maxrss``)
over what it held before the read, with the whole-file path switched off there (so the message cannot come from it).
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import ratings.io.files as files
from ratings.history import HistoryError
from ratings.io import read_file
from tests.test_io_columns import _same

ROOT = Path(__file__).resolve().parent.parent
HEADER = "game,date,player,place\n"


def _rows(rows: int, seed: int, numeric_dates: bool) -> Iterator[tuple[int, list[str]]]:
    """About ``rows`` rows of contests of 2-60 entrants among 50,000 players, a contest a day, ties and DNFs: (game
    index, cells)."""
    rng = np.random.default_rng(seed)
    written, game = 0, 0
    while written < rows:
        size = int(rng.integers(2, 61))
        who = rng.choice(50_000, size=size, replace=False).tolist()
        day = dt.date(2001, 1, 1) + dt.timedelta(days=game)
        date = f"{day.day:02d}/{day.month:02d}/{day.year}" if numeric_dates else day.isoformat()
        for k, w in enumerate(who):
            place = "DNF" if k % 41 == 40 else str(k + 1 - (k % 17 == 1))
            yield game, [f"contest {game}", date, f"player {w}", place]
        written += size
        game += 1


def _write(
    path: Path,
    rows: int,
    bad: dict[int, tuple[int, str]],
    *,
    seed: int = 3,
    numeric_dates: bool = False,
    only_games: set[int] | None = None,
) -> dict[int, tuple[int, list[str]]]:
    """Write a long CSV whose data row ``r`` (0-based; the file's line ``r + 2``) has cell ``bad[r][0]`` replaced by
    ``bad[r][1]``; with ``only_games``, every line of another game is written blank.  Returns each bad row's game
    and cells as written."""
    out: dict[int, tuple[int, list[str]]] = {}
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(HEADER)
        lines = []
        for r, (game, cells) in enumerate(_rows(rows, seed, numeric_dates)):
            if r in bad:
                column, value = bad[r]
                cells[column] = value
                out[r] = (game, cells)
            lines.append("\n" if only_games is not None and game not in only_games else ",".join(cells) + "\n")
            if len(lines) == 65_536:
                handle.writelines(lines)
                lines.clear()
        handle.writelines(lines)
    return out


def _message(path: Path, monkeypatch: pytest.MonkeyPatch, *, whole: bool) -> str:
    """What reading the file raises: by :func:`read_file` as it runs, or with the column reader switched off (the
    general reader on the whole file)."""
    with monkeypatch.context() as patch:
        if whole:
            patch.setattr(files, "_columns", lambda *args: None)
        with pytest.raises(HistoryError) as raised:
            read_file(path)
    return str(raised.value)


def _no_whole_read(patch: pytest.MonkeyPatch) -> None:
    """Make a whole-file read by the general reader fail loudly."""

    def refuse(*args: object) -> None:
        raise AssertionError("the whole file was read")

    patch.setattr(files, "_read_limited", refuse)


MIDDLE = 20_000  # a data row in the middle of the 40,000-row files
PLACE, DATE, PLAYER, GAME = 3, 1, 2, 0

#: One bad cell (column, text) in the middle row: each the general reader reports on that row.
ONE_CELL = {
    "a place of 0": (PLACE, "0"),
    "a place of 2.5": (PLACE, "2.5"),
    "a non-numeric place (score)": (PLACE, "abc"),
    "a date that is not one": (DATE, "2001-02-30"),
    "a date in no known form": (DATE, "someday"),
    "a blank player": (PLAYER, ""),
    "a blank game": (GAME, "  "),
}


@pytest.mark.parametrize("name", list(ONE_CELL))
def test_one_bad_cell_is_reported_from_a_window_with_the_whole_reads_message(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "medium.csv"
    _write(path, 40_000, {MIDDLE: ONE_CELL[name]})
    assert path.stat().st_size > files.COLUMNS_FROM_BYTES  # the column reader's
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        windowed = _message(path, patch, whole=False)
    expected = _message(path, monkeypatch, whole=True)
    assert windowed == expected
    assert f"medium.csv, row {MIDDLE + 2}, column '" in windowed


def test_several_bad_cells_in_several_games_are_all_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five bad cells: two in one game (rows next to each other), three in other games, a date among them."""
    path = tmp_path / "several.csv"
    bad = {
        5_000: (PLACE, "first"),
        5_001: (PLACE, "-3"),
        17_000: (DATE, "2001-13-01"),
        30_000: (PLAYER, ""),
        39_000: (PLACE, "1.5"),
    }
    _write(path, 40_000, bad)
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        windowed = _message(path, patch, whole=False)
    expected = _message(path, monkeypatch, whole=True)
    assert windowed == expected
    assert windowed.startswith("5 problems in the game history:")


def test_a_bad_cell_in_a_game_with_another_problem_reports_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad place and, in the same game, a player entered twice: the window holds the whole game, so the general
    reader reports the second problem too (naming the row of the first entry)."""
    path = tmp_path / "both.csv"
    rows = list(_rows(40_000, 3, False))
    game = rows[MIDDLE][0]
    mates = [r for r, (g, _) in enumerate(rows) if g == game and r != MIDDLE]
    twice = mates[-1]
    _write(path, 40_000, {MIDDLE: (PLACE, "x"), twice: (PLAYER, rows[mates[0]][1][PLAYER])})
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        windowed = _message(path, patch, whole=False)
    assert windowed == _message(path, monkeypatch, whole=True)
    assert windowed.startswith("2 problems") and "appears twice" in windowed


#: Files the window cannot speak for: the whole file is read, and the message is still the whole read's.
WHOLE_READ = {
    # day/month dates: the column's order is decided by counting rows, which a window cannot do
    "a bad date among day/month dates": ({MIDDLE: (DATE, "31/02/2001")}, True, None),
    # a problem outside the window (a player twice in another game): found by the check of the rest
    "a bad place and a player twice elsewhere": ({MIDDLE: (PLACE, "x")}, False, 30_000),
}


@pytest.mark.parametrize("name", list(WHOLE_READ))
def test_what_a_window_cannot_tell_is_read_whole(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad, numeric, twice = WHOLE_READ[name]
    path = tmp_path / "whole.csv"
    if twice is not None:
        rows = list(_rows(40_000, 3, numeric))
        bad = {**bad, twice: (PLAYER, rows[twice - 1][1][PLAYER])}
        assert rows[twice - 1][0] == rows[twice][0]  # the row before is of the same game
    _write(path, 40_000, bad, numeric_dates=numeric)
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        with pytest.raises(AssertionError, match="the whole file was read"):
            read_file(path)
    message = _message(path, monkeypatch, whole=False)
    assert message == _message(path, monkeypatch, whole=True)
    assert f"row {MIDDLE + 2}" in message


def test_a_file_with_a_blank_line_keeps_its_row_numbers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blank lines (and CRLF line ends) are rows the general reader counts but does not keep: the window's row
    numbers are the file's lines."""
    path = tmp_path / "blank.csv"
    _write(path, 40_000, {MIDDLE: (PLACE, "none")})
    lines = path.read_bytes().split(b"\n")
    lines[100:100] = [b"", b"", b"\r"]
    path.write_bytes(b"\r\n".join(line.removesuffix(b"\r") for line in lines))
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        windowed = _message(path, patch, whole=False)
    assert windowed == _message(path, monkeypatch, whole=True)
    assert f"row {MIDDLE + 2 + 3}, column 'place'" in windowed


def _variant(data: bytes, name: str) -> bytes:
    """The generated file changed as ``name`` says."""
    if name == "semicolons and a byte-order mark":
        return b"\xef\xbb\xbf" + data.replace(b",", b";")
    if name == "the bad row last, no final line break":
        return data.removesuffix(b"\n")
    if name == "quoted cells":  # the byte-level path takes no quote: its pandas path declines, the whole is read
        return data.replace(b"contest 7,", b'"contest 7",')
    return data


VARIANTS = ("semicolons and a byte-order mark", "the bad row last, no final line break", "quoted cells", "an upload")


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_window_in_other_files_and_an_upload(variant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same message as the whole read for a file with another separator and a byte-order mark, a bad cell on
    its last line, quoted cells (read whole), and bytes read as an upload (the hosted limits)."""
    path = tmp_path / "variant.csv"
    rows = 40_000
    last = len(list(_rows(rows, 3, False))) - 1
    bad_row = last if variant == "the bad row last, no final line break" else MIDDLE
    _write(path, rows, {bad_row: (PLACE, "-2")})
    data = _variant(path.read_bytes(), variant)
    path.write_bytes(data)
    source: bytes | Path = data if variant == "an upload" else path

    def message(whole: bool, refuse_whole: bool) -> str:
        with monkeypatch.context() as patch:
            if whole:
                patch.setattr(files, "_columns", lambda *args: None)
            if refuse_whole:
                _no_whole_read(patch)
            with pytest.raises(HistoryError) as raised:
                read_file(source, filename="variant.csv")
        return str(raised.value)

    expected = message(whole=True, refuse_whole=False)
    assert f"variant.csv, row {bad_row + 2}, column 'place': place -2 is not positive" in expected
    if variant == "quoted cells":
        with pytest.raises(AssertionError, match="the whole file was read"):
            message(whole=False, refuse_whole=True)
        assert message(whole=False, refuse_whole=False) == expected
    else:
        assert message(whole=False, refuse_whole=True) == expected


def test_a_value_beyond_the_header_is_reported_from_a_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row with a value in a column with no header (the general reader's "is in a column with no header"), beside
    rows that end in blank extra cells (which it drops): reported from a window, with the whole read's message."""
    path = tmp_path / "wide.csv"
    _write(path, 40_000, {MIDDLE: (PLACE, "3,,late")})  # the place, then a blank cell and a value beyond the header
    lines = path.read_bytes().split(b"\n")
    lines[10] += b",, "  # blank extra cells: not a problem
    path.write_bytes(b"\n".join(lines))
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        windowed = _message(path, patch, whole=False)
    assert windowed == _message(path, monkeypatch, whole=True)
    assert windowed == (
        f"1 problem in the game history:\n- wide.csv, row {MIDDLE + 2}, column 'column F': 'late' is in a column "
        "with no header; give the column a name or move the value"
    )


def test_rows_ending_in_blank_cells_read_as_the_general_reader_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every row ends in two blank cells beyond the header: the byte level takes them (with no bad cell, read as a
    history) and gives the general reader's history."""
    path = tmp_path / "trailing.csv"
    _write(path, 40_000, {})
    path.write_bytes(path.read_bytes().replace(b"\n", b",,\n").replace(b"place,,\n", b"place\n", 1))
    with monkeypatch.context() as patch:
        _no_whole_read(patch)
        fast = read_file(path).history
    with monkeypatch.context() as patch:
        patch.setattr(files, "_columns", lambda *args: None)
        general = read_file(path).history
    _same(fast, general)


_CHILD = r"""
import json, resource, sys
from pathlib import Path
import ratings.io.columns as columns
import ratings.io.files as files
from ratings.history import HistoryError
from ratings.io import read_file
from tests.test_io_columns import _same

path, small = Path(sys.argv[1]), Path(sys.argv[2])
assert columns.read_long_columns(small.read_bytes(), "small.csv", None) is not None  # the compiled loop loaded

def refuse(*args):
    raise AssertionError("the whole file was read")

files._read_limited = refuse
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_file(path)
    message = None
except HistoryError as error:
    message = str(error)
rise = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
print(json.dumps({"message": message, "rise": rise}))
"""

#: One bad cell in the middle of a million rows: (column, text).
MILLION = {
    "a place of 0": (PLACE, "0"),
    "a non-numeric place (score)": (PLACE, "abc"),
    "a date that is not one": (DATE, "2001-02-29"),
}


@pytest.fixture(scope="module")
def million(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[bytes, np.ndarray]]:
    """The text of ``_write(path, 1_000_000, {})`` and where each of its lines ends, generated once for the module's
    cases (each case's two files are this text with its bad cell put in: the bytes ``_write`` writes for them, 1.8 s
    of generating a case)."""
    path = tmp_path_factory.mktemp("million") / "clean.csv"
    _write(path, 1_000_000, {})
    data = path.read_bytes()
    path.unlink()
    yield data, np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))


def _million_files(
    million: tuple[bytes, np.ndarray], row: int, column: int, value: str, path: Path, copy: Path
) -> tuple[int, list[str]]:
    """Write ``_write(path, 1_000_000, {row: (column, value)})`` and ``_write(copy, ..., only_games={its game})``
    from the module's text; the bad row's game and cells as written."""
    data, ends = million
    start, end = int(ends[row]) + 1, int(ends[row + 1])  # data row r is the line after the r-th line end (the header's)
    cells = data[start:end].decode().split(",")
    cells[column] = value
    line = ",".join(cells).encode()
    path.write_bytes(data[:start] + line + data[end:])
    game = cells[GAME] if column != GAME else data[start:end].decode().split(",")[GAME]
    prefix = (game + ",").encode()
    first, last = row, row  # the game's rows: next to each other, each line beginning with its name
    while first > 0 and data.startswith(prefix, int(ends[first - 1]) + 1):
        first -= 1
    while last + 2 < len(ends) and data.startswith(prefix, int(ends[last + 1]) + 1):
        last += 1
    rows = len(ends) - 1
    kept = data[int(ends[first]) + 1 : start] + line + data[end : int(ends[last + 1]) + 1]
    copy.write_bytes(HEADER.encode() + b"\n" * first + kept + b"\n" * (rows - last - 1))
    return int(game.removeprefix("contest ")), cells


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MILLION))
def test_a_million_rows_with_one_bad_cell_report_it_in_bounded_memory(
    name: str, million: tuple[bytes, np.ndarray], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The general reader would hold a Python object per row of the whole file (the brief's 541 MB for 300,000
    rows); the window read's peak resident memory rises by under 200 MB (the history checked for the rest of the
    file: about 40 MB of arrays)."""
    rows = 1_000_000
    middle = rows // 2
    path = tmp_path / "big.csv"
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / "big.csv"  # the same name, for the message
    game, cells = _million_files(million, middle, *MILLION[name], path, copy)
    small = tmp_path / "small.csv"
    _write(small, 2_000, {}, seed=5)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(small)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    expected = _message(copy, monkeypatch, whole=True)
    assert result["message"] == expected
    assert result["rise"] < 200e6, result["rise"]
    if name == "a non-numeric place (score)":  # written out by hand from the general reader's message for a place
        assert result["message"] == (
            "1 problem in the game history:\n"
            f"- big.csv, row {middle + 2}, column 'place': place 'abc' is not a whole number (1 is the best place) "
            f"or DNF (player '{cells[PLAYER]}')"
        )
