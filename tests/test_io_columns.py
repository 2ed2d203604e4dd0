"""The column reader of plain long CSVs (:mod:`ratings.io.columns`) and the limits of trusted and hosted reads.

The column reader must give exactly the history the general reader (:func:`ratings.io.table.read_table`, an
independent implementation of the same rules, row by row) gives, or decline so that the general reader reads the
file; a file of a million rows must read in bounded memory with no object per row; the hosted caps still refuse
an upload (issue 28 item 1).
"""

from __future__ import annotations

import datetime as dt
import io
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import ratings.io.files as files
from ratings.history import GameHistory, HistoryError
from ratings.io import read_file
from ratings.io.columns import read_long_columns
from ratings.io.limits import HOSTED, MAX_BYTES, MAX_ROWS, Limits

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "ratings" / "samples"

_ARRAYS = (
    "offsets",
    "flat_player",
    "flat_rank",
    "flat_dnf",
    "flat_place",
    "flat_position",
    "flat_game",
    "flat_team",
    "flat_weight",
    "team_game",
)


def _general(data: bytes, name: str) -> files.ReadResult:
    """The general reader alone (the column reader switched off)."""
    original = files._columns
    files._columns = lambda *args: None
    try:
        return read_file(data, filename=name, limits=None)
    finally:
        files._columns = original


def _same(a: GameHistory, b: GameHistory) -> None:
    assert a.players == b.players
    assert a.game_ids == b.game_ids
    assert a.dates == b.dates
    for name in _ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.games == b.games
    assert a.warnings == b.warnings


TABLES = {
    "ties, DNF words and blanks": (
        "game,player,place\ng1,Ann,1\ng1,Bob,1\ng1,Cid,dnf\ng1,Dee,\ng2,Bob,2nd\ng2,Ann,3\ng2,Eve,3\ng2,Cid,DNS\n"
    ),
    "games interleaved": "game,player,place\na,Ann,1\nb,Bob,1\na,Bob,2\nb,Cid,2\nc,Ann,2\na,Cid,3\nc,Cid,1\n",
    "dates out of order": (
        "game,date,player,place\nr1,2024-03-02,Ann,1\nr1,2024-03-02,Bob,2\nr2,2024-03-01,Bob,1\nr2,2024-03-01,Cid,2\n"
        "r3,2024-02-28,Cid,1\nr3,2024-02-28,Ann,2\n"
    ),
    "day/month dates": (
        "game,date,player,place\nx,31/01/2024,Ann,1\nx,31/01/2024,Bob,2\ny,01/02/2024,Bob,1\ny,01/02/2024,Ann,2\n"
    ),
    "byte-order mark, semicolons, an ignored column": (
        "\ufeffGame;Player;Place;Notes\nm1;Ann;1;fast\nm1;Bob;2;\nm2;Bob;1;x\nm2;Ann;2;\n"
    ),
    "spacing in names and a lone game": "game,player,place\ng1,  Ann   Lee ,1\ng1,Bob,2\ng2,Ann Lee,1\n",
    "quoted cells": 'game,player,place\n"g, 1","Lee, Ann",1\n"g, 1",Bob,2\n',
}


@pytest.mark.parametrize("name", list(TABLES))
def test_the_column_reader_gives_the_general_readers_history(name: str) -> None:
    data = TABLES[name].encode("utf-8")
    fast = read_long_columns(data, "t.csv", None)
    assert fast is not None  # these are for the column reader
    general = _general(data, "t.csv")
    _same(fast.history, general.history)
    assert fast.columns == general.columns and fast.encoding == general.encoding


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.csv")))
def test_the_bundled_samples_read_the_same_either_way(sample: str) -> None:
    data = (SAMPLES / sample).read_bytes()
    fast = read_long_columns(data, sample, HOSTED)
    general = _general(data, sample)
    if fast is not None:  # the doubles sample names teams: the general reader's
        _same(fast.history, general.history)


DECLINED = {
    "two spellings of one name": ("game,player,place\ng,Ann,1\ng,bob,2\nh,Bob,1\nh,Ann,2\n", "merged"),
    "a place that is not one": ("game,player,place\ng,Ann,1\ng,Bob,second\n", "row 3, column 'place'"),
    "a player twice in a game": ("game,player,place\ng,Ann,1\ng,Ann,2\n", "row 3"),
    "a cell beyond the header": ("game,player,place\ng,Ann,1,x\ng,Bob,2\n", "row 2"),
    "a game with two dates": (
        "game,date,player,place\ng,2024-01-01,Ann,1\ng,2024-01-02,Bob,2\n",
        "row 3, column 'date'",
    ),
    "a blank player": ("game,player,place\ng,,1\ng,Bob,2\n", "row 2, column 'player'"),
    "a team column": ("game,player,place,team\ng,Ann,1,A\ng,Bob,1,A\ng,Cid,2,\n", None),
    "Windows-1252 text": ("game,player,place\ng,Zo\xeb,1\ng,Bob,2\n", None),
}


@pytest.mark.parametrize("name", list(DECLINED))
def test_what_the_general_reader_reports_or_merges_is_left_to_it(name: str) -> None:
    text, where = DECLINED[name]
    data = text.encode("cp1252")
    assert read_long_columns(data, "t.csv", None) is None
    if where is None:
        read_file(data, filename="t.csv")  # read by the general reader
        return
    try:
        result = read_file(data, filename="t.csv")
    except HistoryError as error:  # the problem located by row and column, as always
        assert where in str(error)
    else:
        assert any(where in w for w in result.warnings)


#: Players of many widths and scripts, who return across chunks (read two rows at a time below).
MANY_NAMES = (
    "game,player,place\ng1,Zo\u00eb,1\ng1,Bob,2\ng1,\u674e\u660e,3\ng2,Bob,1\ng2,\u0141ukasz Nowak,2\ng2,Zo\u00eb,3\n"
    "g3,\u674e\u660e,1\ng3,Al,2\ng3,\u0141ukasz Nowak,3\ng4,Al,1\ng4,Zo\u00eb,DNF\n"
)


def _pandas_path_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The column reader with its byte-level path switched off (every file goes to its pandas path)."""
    import ratings.io.columns as columns

    def not_taken(*args: object) -> None:
        raise columns._NotTaken

    monkeypatch.setattr(columns, "_parse_bytes", not_taken)


def test_players_across_chunks_of_other_widths_are_matched_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pandas path: the player column's texts are matched as fixed-width arrays hashed chunk by chunk
    (``_ManyDistinct``): names of other lengths and scripts, met again in later chunks, give the general reader's
    history."""
    import ratings.io.columns as columns

    monkeypatch.setattr(columns, "CHUNK_ROWS", 2)
    _pandas_path_only(monkeypatch)
    data = MANY_NAMES.encode("utf-8")
    fast = read_long_columns(data, "t.csv", None)
    assert fast is not None
    _same(fast.history, _general(data, "t.csv").history)


def test_two_names_of_one_hash_make_the_column_reader_decline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pandas path: with a hash base of 1 a text's hash is the sum of its code points, so 'Ab' and 'bA' collide:
    the check of every cell against the text its code stands for declines (the general reader then keeps them
    apart)."""
    import ratings.io.columns as columns

    _pandas_path_only(monkeypatch)
    data = b"game,player,place\ng,Ab,1\ng,bA,2\n"
    assert read_long_columns(data, "t.csv", None) is not None  # the real hash tells them apart
    monkeypatch.setattr(columns, "_HASH_BASE", np.uint64(1))
    assert read_long_columns(data, "t.csv", None) is None
    assert read_file(data, filename="t.csv").history.players == ("Ab", "bA")


def test_a_nul_byte_anywhere_makes_the_column_reader_decline(tmp_path: Path) -> None:
    """Fixed-width texts drop a trailing NUL, so a file holding one (beyond the header's prefix too) is left to the
    general reader."""
    rows = "".join(f"g{i},p{i % 7},{i % 5 + 1}\n" for i in range(20_000))
    path = tmp_path / "nul.csv"
    path.write_bytes(("game,player,place\n" + rows).encode() + b"g,Ann\x00,1\n")
    assert read_long_columns(path, "nul.csv", None) is None
    assert read_long_columns(("game,player,place\n" + rows).encode(), "ok.csv", None) is not None


def _long_csv(path: Path, rows: int) -> None:
    """About ``rows`` rows of games of 20 among 20,000 players, one dated game a day, the last of each a DNF."""
    rng = np.random.default_rng(7)
    players = rng.integers(0, 20_000, size=rows)
    with open(path, "w", encoding="utf-8") as out:
        out.write("game,date,player,place\n")
        for start in range(0, rows, 20):
            g = start // 20
            date = (dt.date(2000, 1, 1) + dt.timedelta(days=g)).isoformat()
            seen = dict.fromkeys(players[start : start + 19].tolist())  # distinct players of the game
            field = [*seen, 20_000 + g]
            out.writelines(f"game {g},{date},p{p},{'DNF' if k == len(seen) else k + 1}\n" for k, p in enumerate(field))


def test_a_million_rows_read_in_bounded_memory_with_no_object_per_row(tmp_path: Path) -> None:
    path = tmp_path / "million.csv"
    _long_csv(path, 1_000_000)
    read_file(SAMPLES / "racing.csv")  # modules imported and warm before measuring
    tracemalloc.start()
    try:
        history = read_file(path).history  # a local path: no caps (1,000,000 rows is five times the hosted cap)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rows = int(history.offsets[-1])
    assert rows > MAX_ROWS * 4
    assert history._games is None  # no Game or Entry object was made
    arrays = sum(getattr(history, name).nbytes for name in _ARRAYS)
    # Generous: the reader's own measure is about 17 bytes a row beyond the arrays (benchmarks/read_large.py;
    # tests/test_io_bytes.py holds the byte-level path alone to 30); the general reader holds several hundred (a
    # list of cells and a row object per row).
    assert peak - arrays < 80 * rows, (peak, arrays, rows)


def test_the_hosted_caps_still_refuse_an_upload() -> None:
    rows = "".join(f"g{i // 4},p{i % 7}x{i // 4},{i % 4 + 1}\n" for i in range(MAX_ROWS + 4))
    data = ("game,player,place\n" + rows).encode()
    assert len(data) < MAX_BYTES
    with pytest.raises(HistoryError, match="more than 200,000 rows"):
        read_file(data, filename="upload.csv")  # bytes: an upload, within the hosted limits
    with pytest.raises(HistoryError, match="more than 200,000 rows"):
        read_file(io.BytesIO(data), filename="upload.csv")
    with pytest.raises(HistoryError, match="accepts files up to 10 MB"):
        read_file(b"game,player,place\n" + b"g,a,1\n" * (MAX_BYTES // 6 + 1), filename="big.csv")
    # the same rows are read when lifted explicitly, and a smaller cap set explicitly refuses
    assert read_file(data, filename="upload.csv", limits=None).history.n_games == (MAX_ROWS + 4) // 4
    with pytest.raises(HistoryError, match="more than 100 rows"):
        read_file(data[:4000], filename="upload.csv", limits=Limits(max_rows=100))


def test_the_command_line_reads_a_file_without_caps_and_standard_input_within_them(tmp_path: Path) -> None:
    rows = "".join(f"g{i // 4},p{i % 9},{i % 4 + 1}\n" for i in range(MAX_ROWS + 4))
    path = tmp_path / "big.csv"
    path.write_text("game,player,place\n" + rows)
    command = [sys.executable, "-m", "ratings", "rate", "--system", "multielo"]
    done = subprocess.run([*command, str(path)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 + 9
    hosted = subprocess.run([*command, "--limits", "hosted", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert hosted.returncode == 2 and "more than 200,000 rows" in hosted.stderr
    piped = subprocess.run([*command, "-"], input=path.read_text(), capture_output=True, text=True, cwd=ROOT)
    assert piped.returncode == 2 and "more than 200,000 rows" in piped.stderr
