"""The column reader's byte-level path (:mod:`ratings.io.long_bytes`) against its pandas path and the general reader.

The references are independent readings of the same file: the C parser of pandas (the column reader's other path)
and the general reader (:func:`ratings.io.table.read_table`, row by row through Python's ``csv`` module).  Every
file here must give all three the same history, or the byte-level path must leave the file to the others; a bad
cell must be reported exactly as the general reader reports it (file, row, column).
"""

from __future__ import annotations

import datetime as dt
import tracemalloc
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import ratings.io.columns as columns
import ratings.io.files as files
import ratings.io.long_bytes as long_bytes
from ratings.history import HistoryError
from ratings.io import read_file
from ratings.io.columns import read_long_columns
from ratings.io.long_bytes import NotTaken, intern_columns
from tests.test_io_columns import _ARRAYS, _general, _same

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures").rglob("*.csv")) + sorted((ROOT / "ratings" / "samples").glob("*.csv"))


def _by_path(data: bytes | Path, name: str, path: str, monkeypatch: pytest.MonkeyPatch) -> files.ReadResult | None:
    """The column reader by one of its paths alone: "bytes" (the byte level; a file it does not take raises
    NotTaken) or "pandas"."""
    with monkeypatch.context() as patch:

        def refuse(*args: object) -> None:
            raise AssertionError("the other path was used")

        if path == "bytes":
            patch.setattr(columns, "_parse_pandas", refuse)
        else:

            def not_taken(*args: object) -> None:
                raise columns._NotTaken

            patch.setattr(columns, "_parse_bytes", not_taken)
        return read_long_columns(data, name, None)


def _takes(data: bytes) -> bool:
    """Whether the byte-level path reads the file's lines (after its header)."""
    start = data.find(b"\n") + 1
    if not start:
        return False  # one line, or lines ended by CR alone
    try:
        intern_columns(data, start, ",", 4, [0], data.count(b"\n") + 1)
    except NotTaken:
        return False
    return True


def _decomposed(text: str) -> str:
    return unicodedata.normalize("NFD", text)


#: Files of the plain long shape the byte-level path takes: awkward names, line ends, blank lines, short rows.
TAKEN = {
    "unicode names": (
        "game,player,place\ng1,Zo\u00eb,1\ng1,\u674e\u660e,2\ng1,\u0141ukasz,3\ng2,\u674e\u660e,1\ng2,Zo\u00eb,2\n"
    ),
    "one name composed and decomposed": (
        "game,player,place\ng1,Ren\u00e9e,1\ng1,Bob,2\ng2," + _decomposed("Ren\u00e9e") + ",1\ng2,Bob,2\n"
    ),
    "spaces in and around names": "game,player,place\ng1, Ann  Lee ,1\ng1,Bob\t,2\ng2,Ann Lee,2\ng2,  Bob,1\n",
    "CRLF line ends": "game,date,player,place\r\ng1,2024-01-02,Ann,1\r\ng1,2024-01-02,Bob,2\r\n",
    "no line end after the last row": "game,player,place\ng1,Ann,1\ng1,Bob,2",
    "blank lines": "game,player,place\n\ng1,Ann,1\n\r\n\ng1,Bob,2\n\n",
    "a byte-order mark and semicolons": "\ufeffgame;player;place\ng1;Ann;1\ng1;Bob;2\n",
    "tabs": "game\tplayer\tplace\ng1\tAnn\t1\ng1\tBob\tDNF\n",
    "rows shorter than the header": "game,player,place,notes\ng1,Ann,1,fast\ng1,Bob\ng1,Cid,2\n",
    "an ignored column with a comma-free note": "game,player,place,notes\ng1,Ann,1,x y\ng1,Bob,2,\n",
    "places as words and ordinals": "game,player,place\ng1,Ann,1st\ng1,Bob,2nd place\ng1,Cid, 3 \ng1,Dee,dnf\n",
    "day/month dates out of order": (
        "game,date,player,place\nr1,31/01/2024,Ann,1\nr1,31/01/2024,Bob,2\nr2,01/01/2024,Bob,1\nr2,01/01/2024,Ann,2\n"
    ),
    "a game id spelled two ways": "game,player,place\ng1,Ann,1\n g1 ,Bob,2\ng2,Ann,1\ng2,Bob,2\n",
    "long names alike in their first 16 bytes": (
        "game,player,place\ng1,Alexandra Konstantinopoulou,1\ng1,Alexandra Konstantinopoulos,2\n"
        "g1,Alexandra Konstantin,3\ng1,Alexandra Konstanti,4\ng1,Alexandra Konstant,5\n"
        "g2,Alexandra Konstantinopoulos,1\ng2,Alexandra Konstanti,2\ng2,Alexandra Konstantinopoulou,3\n"
    ),
    "a quote-like apostrophe inside a name": "game,player,place\ng1,O'Neil,1\ng1,'Bob,2\n",
}

#: Files the byte-level path leaves to the pandas path (which reads them).
NOT_TAKEN = {
    "commas in quoted names": 'game,player,place\ng1,"Lee, Ann",1\ng1,"Bob",2\n',
    "a quoted line break": 'game,player,place\ng1,"Ann\nLee",1\ng1,Bob,2\n',
    "old Mac line ends": "game,player,place\rg1,Ann,1\rg1,Bob,2\r",
    "a lone CR inside a row": "game,player,place\ng1,Ann\r,1\ng1,Bob,2\n",
    "a line of spaces": "game,player,place\ng1,Ann,1\n   \ng1,Bob,2\n",
}
#: Files whose header line the byte-level path does not take (their rows start before the first LF).
HEADER_NOT_TAKEN = {
    "a header ended by a CR alone": "game,player,place\rg1,Ann,1\ng1,Bob,2\n",
    "a header ended by a CR alone, the rows by CRLF": "game,player,place\rg1,Ann,1\r\ng1,Bob,2\r\n",
}


@pytest.mark.parametrize("name", list(TAKEN))
def test_the_byte_level_path_gives_the_pandas_path_and_the_general_readers_history(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = TAKEN[name].encode("utf-8")
    assert _takes(data)
    fast = _by_path(data, "t.csv", "bytes", monkeypatch)
    pandas = _by_path(data, "t.csv", "pandas", monkeypatch)
    assert fast is not None and pandas is not None
    general = _general(data, "t.csv")
    _same(fast.history, pandas.history)
    _same(fast.history, general.history)
    assert fast.columns == general.columns and fast.encoding == general.encoding


@pytest.mark.parametrize("name", list(NOT_TAKEN))
def test_what_the_byte_level_path_does_not_take_is_read_by_the_others(name: str) -> None:
    data = NOT_TAKEN[name].encode("utf-8")
    assert not _takes(data)
    fast = read_long_columns(data, "t.csv", None)  # the pandas path, or a decline
    try:
        general = _general(data, "t.csv")
    except HistoryError as error:  # a CR alone ends a row for the general reader: a row without a game here
        assert fast is None
        with pytest.raises(HistoryError) as raised:
            read_file(data, filename="t.csv", limits=None)
        assert str(raised.value) == str(error)
        return
    if fast is not None:
        _same(fast.history, general.history)
    _same(read_file(data, filename="t.csv", limits=None).history, general.history)


@pytest.mark.parametrize("name", list(HEADER_NOT_TAKEN))
def test_a_header_line_the_byte_level_path_does_not_take(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows would be lost if the byte level started after the first LF: the pandas path reads the file."""
    data = HEADER_NOT_TAKEN[name].encode()
    with pytest.raises(AssertionError, match="the other path"):
        _by_path(data, "t.csv", "bytes", monkeypatch)
    fast = read_long_columns(data, "t.csv", None)
    assert fast is not None and fast.history.n_games == 1 and len(fast.history.players) == 2
    _same(fast.history, _general(data, "t.csv").history)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_csv_fixture_reads_the_same_by_both_paths(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both paths read or decline the same files, and give the same histories (the general reader's too)."""
    data = path.read_bytes()
    try:
        fast = _by_path(data, path.name, "bytes", monkeypatch)
    except AssertionError:  # not taken at the byte level: pandas reads it
        fast = read_long_columns(data, path.name, None)
    pandas = _by_path(data, path.name, "pandas", monkeypatch)
    assert (fast is None) == (pandas is None)
    if fast is not None and pandas is not None:
        _same(fast.history, pandas.history)
        _same(fast.history, _general(data, path.name).history)


def _awkward_file(rows: int, seed: int) -> bytes:
    """A long CSV of games of 2-9 among many players with awkward names (scripts, inner and outer spaces, an
    apostrophe, names differing only by a combining accent), DNF words, ties and CRLF line ends in places."""
    rng = np.random.default_rng(seed)
    stems = ["Ann", "Zo\u00eb", "\u674e\u660e", "\u0141ukasz", "O'Neil", "J\u00fcrgen M\u00fcller", "ann-marie", "X"]
    lines = ["game,date,player,place,notes"]
    written, game = 0, 0
    while written < rows:
        size = int(rng.integers(2, 10))
        who = rng.choice(5_000, size=size, replace=False)
        date = (dt.date(2020, 1, 1) + dt.timedelta(days=game // 3)).isoformat()
        for k, w in enumerate(who.tolist()):
            name = f"{stems[w % len(stems)]} {w}"
            if (w + game) % 11 == 0:
                name = f"  {name} "  # outer spaces: the same player as without them
            if (w + game) % 7 == 0:
                name = _decomposed(name)  # accents as combining marks: the same player as composed
            place = "DNF" if k == size - 1 and w % 3 == 0 else str(k + 1 - (k > 0 and w % 5 == 0))
            end = "\r" if w % 13 == 0 else ""
            lines.append(f"game {game},{date},{name},{place},{'note' if w % 2 else ''}{end}")
        written += size
        game += 1
    return ("\n".join(lines) + "\n").encode("utf-8")


@pytest.mark.parametrize("chunk", [7, 64, 1 << 22])
def test_awkward_names_across_windows_of_bytes(chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines cut at every place by small windows (7 bytes: every line longer than one), a table grown many times
    (2,000 rows of up to 5,000 players), from bytes and from a path: the pandas path's and the general reader's
    history."""
    data = _awkward_file(2_000, seed=chunk)
    path = tmp_path / "awkward.csv"
    path.write_bytes(data)
    monkeypatch.setattr(long_bytes, "CHUNK_BYTES", chunk)
    general = _general(data, "awkward.csv")
    for source in (data, path):
        fast = _by_path(source, "awkward.csv", "bytes", monkeypatch)
        assert fast is not None
        _same(fast.history, general.history)
    pandas = _by_path(data, "awkward.csv", "pandas", monkeypatch)
    assert pandas is not None
    _same(pandas.history, general.history)


#: A bad cell after many good rows, and what the general reader says of it.
BAD = {
    "a place that is not one": ("g9999,2024-01-01,Bob,second", "row {row}, column 'place'"),
    "a blank player": ("g9999,2024-01-01,,2", "row {row}, column 'player'"),
    "a player twice in a game": ("g9999,2024-01-01,p1,3", "row {row}"),
    "a date that is not one": ("g9999,2024-13-45,Bob,2", "row {row}, column 'date'"),
    "a game with two dates": ("g9999,2024-01-02,Bob,2", "row {row}, column 'date'"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_cell_is_reported_as_the_general_reader_reports_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file large enough for the column reader (over a megabyte), with one bad cell near its end: the byte level
    reads it and declines by itself (the pandas path is not tried), and the error names the file, row and column,
    word for word as the general reader alone says it."""
    line, where = BAD[name]
    good = "".join(
        f"game {i // 4},{dt.date(2000, 1, 1) + dt.timedelta(days=i // 4)},player {i % 4},{i % 4 + 1}\n"
        for i in range(40_000)
    )
    text = "game,date,player,place\n" + good + "g9999,2024-01-01,p1,1\n" + line + "\n"
    path = tmp_path / "bad.csv"
    path.write_text(text)
    assert path.stat().st_size > files.COLUMNS_FROM_BYTES
    with monkeypatch.context() as patch:
        patch.setattr(columns, "_parse_pandas", None)  # called, it would raise TypeError
        with pytest.raises(HistoryError) as raised:
            read_file(path)
    row = text.count("\n")  # the bad line's number in the file (the header is row 1)
    message = str(raised.value)
    assert where.format(row=row) in message and "bad.csv" in message
    monkeypatch.setattr(files, "_columns", lambda *args: None)
    with pytest.raises(HistoryError) as general:
        read_file(path)
    assert str(general.value) == message


def test_a_byte_that_is_not_utf8_in_an_ignored_column_leaves_the_file_to_the_general_reader() -> None:
    """The general reader then decodes the whole file otherwise (Windows-1252 here): the names it reads are its."""
    text = "game,player,place,notes\ng1,Zo\u00eb,1,caf\u00e9\ng1,Bob,2,\n"
    data = text.encode("cp1252")
    assert not _takes(data)
    assert read_long_columns(data, "t.csv", None) is None
    assert read_file(data, filename="t.csv", limits=None).history.players == ("Zo\u00eb", "Bob")


def test_a_row_wider_than_the_header_and_a_nul_are_not_taken() -> None:
    for data in (b"game,player,place\ng,Ann,1,x\n", b"game,player,place\ng,Ann\x00,1\n"):
        with pytest.raises(NotTaken):
            intern_columns(data, data.index(b"\n") + 1, ",", 3, [0, 1, 2], 3)


def test_the_codes_and_distinct_texts_of_a_small_file() -> None:
    """Hand-read: codes number each column's texts by first appearance; texts keep their bytes (spaces too)."""
    data = b"h\na,x ,1\r\n\nb,y,2\na,x ,1\nb,x,3"
    interned = intern_columns(data, 2, ",", 3, [0, 1, 2], data.count(b"\n") + 1)
    assert interned.rows == 4
    assert [c.tolist() for c in interned.codes] == [[0, 1, 0, 1], [0, 1, 0, 2], [0, 1, 0, 2]]
    assert interned.texts == [["a", "b"], ["x ", "y", "x"], ["1", "2", "3"]]
    assert [f.tolist() for f in interned.first_row] == [[0, 1], [0, 1, 3], [0, 1, 3]]


def _long_csv(path: Path, rows: int) -> None:
    """About ``rows`` rows of contests of 2-200 among 100,000 players, one dated contest a day, ties and DNFs."""
    rng = np.random.default_rng(11)
    with open(path, "w", encoding="utf-8") as out:
        out.write("game,date,player,place\n")
        written, game = 0, 0
        while written < rows:
            size = int(rng.integers(2, 200))
            who = rng.choice(100_000, size=size, replace=False).tolist()
            date = (dt.date(2000, 1, 1) + dt.timedelta(days=game)).isoformat()
            out.writelines(
                f"contest {game},{date},player {w},{'DNF' if k % 97 == 96 else k + 1 - (k % 50 == 1)}\n"
                for k, w in enumerate(who)
            )
            written += size
            game += 1


def test_a_million_rows_read_at_the_byte_level_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generated file of a million rows (100,000 players) read by the byte-level path alone, no pandas: the peak
    of Python's allocations beyond the history's arrays stays under 30 bytes a row (the reader measures about 17 on
    benchmarks/read_large.py's 3-million-row file); the pandas path gives the same history."""
    path = tmp_path / "million.csv"
    _long_csv(path, 1_000_000)
    small = tmp_path / "small.csv"
    _long_csv(small, 1_000)
    assert read_long_columns(small.read_bytes(), "small.csv", None) is not None  # compiled loop loaded
    monkeypatch.setattr(columns, "_parse_pandas", None)  # the byte-level path alone
    tracemalloc.start()
    try:
        history = read_file(path).history
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    monkeypatch.undo()
    rows = int(history.offsets[-1])
    assert rows >= 1_000_000
    assert history._games is None  # no Game or Entry object was made
    arrays = sum(getattr(history, name).nbytes for name in _ARRAYS)
    assert peak - arrays < 30 * rows, ((peak - arrays) / rows, arrays, rows)
    pandas = _by_path(path, "million.csv", "pandas", monkeypatch)
    assert pandas is not None
    for name in _ARRAYS:
        assert np.array_equal(getattr(history, name), getattr(pandas.history, name)), name
    assert history.players == pandas.history.players and history.dates == pandas.history.dates


def _random_file(rng: np.random.Generator, odd: float) -> bytes:
    """A small long CSV whose cells are, with probability ``odd`` each, awkward (blank, spaced, cased, accented,
    unreadable as a place or date, a BOM, a formula-like text) and whose separators are sometimes a quote, a CR,
    a semicolon or a tab; rows a cell short or long, blank lines, CRLF, a missing final line end."""
    awkward = [
        *("g1", "g2", " g1", "Ann", "ann", "Bob", "Zo\u00eb", "Zoe\u0301", "", " ", "1", "2", "3", "2nd", "DNF"),
        *("x", "0", "-1", "2024-01-01", "01/02/2024", "2024-01-02", "\u674e", "O'Neil", "a  b", "a b"),
        *("\ufeffAnn", "'=x", "\t", "1.0"),
    ]
    header = ["game,player,place", "game,date,player,place", "game,player,place,notes", "player,game,place,date"][
        rng.integers(4)
    ]
    names = header.split(",")
    plain = {"game": "g1", "date": "2024-01-01", "notes": "n"}
    lines = [header]
    for r in range(int(rng.integers(1, 8))):
        width = len(names) + (int(rng.integers(-1, 2)) if rng.random() < 0.1 else 0)
        parts = []
        for k in range(width):
            role = names[min(k, len(names) - 1)]
            typical = {**plain, "player": f"P{r}", "place": str(r % 3 + 1)}[role]
            parts.append(awkward[rng.integers(len(awkward))] if rng.random() < odd else typical)
        line = parts[0]
        for part in parts[1:]:
            line += (',;\t"\r'[rng.integers(5)] if rng.random() < 0.05 else ",") + part
        lines.append(line)
        if rng.random() < 0.1:
            lines.append("")
    end = "\r\n" if rng.random() < 0.2 else "\n"
    return (end.join(lines) + (end if rng.random() < 0.7 else "")).encode("utf-8")


@pytest.mark.parametrize("seed", range(4))
def test_random_small_files_read_alike_by_every_path(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded random files (150 a seed, a third to a half of them readable): the column reader as it runs (byte level
    first) reads or declines exactly the files its pandas path does, with the same history, which is the general
    reader's."""
    rng = np.random.default_rng(seed)
    read = 0
    for _ in range(150):
        data = _random_file(rng, odd=0.05 + 0.05 * seed)
        fast = read_long_columns(data, "t.csv", None)
        pandas = _by_path(data, "t.csv", "pandas", monkeypatch)
        assert (fast is None) == (pandas is None), data
        if fast is not None and pandas is not None:
            read += 1
            _same(fast.history, pandas.history)
            _same(fast.history, _general(data, "t.csv").history)
    assert read > 30  # the test reads files, not only declines


def _fnv1a(texts: np.ndarray, column: int) -> np.ndarray:
    """64-bit FNV-1a (the published offset basis and prime) of fixed-width byte strings, from the basis mixed with
    the column as the reader mixes it: written here again, from the published definition, to make collisions."""
    h = np.full(len(texts), 0xCBF29CE484222325 ^ column, dtype=np.uint64)
    for k in range(texts.shape[1]):
        h = (h ^ texts[:, k].astype(np.uint64)) * np.uint64(0x100000001B3)
    return h


def test_names_made_to_collide_in_the_table_leave_the_file_to_the_pandas_path() -> None:
    """1,200 names whose hashes fall in the first 64 of the table's first 8,192 slots make one run of full slots
    longer than the 1,024 the reader probes (an upload crafted so would cost probes growing with the square of its
    rows); the file is read by the pandas path, as the general reader reads it.  The same number of other names is
    taken."""
    digits = np.arange(200_000)
    candidates = np.zeros((len(digits), 8), dtype=np.uint8)
    candidates[:, 0] = ord("p")
    for k in range(7):
        candidates[:, 7 - k] = ord("0") + digits // 10**k % 10
    low = _fnv1a(candidates, 1) & np.uint64(8191)  # the player column is the reader's second
    chosen = candidates[low < 64][:1_200]
    assert len(chosen) == 1_200
    names = [bytes(row).decode() for row in chosen]
    others = [bytes(row).decode() for row in candidates[low >= 64][:1_200]]
    for players, taken in ((names, False), (others, True)):
        data = "game,player,place\n" + "".join(f"g{i // 100},{p},{i % 100 + 1}\n" for i, p in enumerate(players))
        try:
            intern_columns(data.encode(), 18, ",", 3, [0, 1, 2], data.count("\n") + 1)
        except NotTaken:
            assert not taken
        else:
            assert taken
        fast = read_long_columns(data.encode(), "t.csv", None)
        assert fast is not None
        _same(fast.history, _general(data.encode(), "t.csv").history)
