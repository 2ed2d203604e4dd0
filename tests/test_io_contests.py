"""Contest files in the Elo-MMR data sets' layout (:mod:`ratings.io.contests`), as a folder of files and as one file.

The fixture (tests/fixtures/contests) is hand-written: three rounds whose files are named out of time order
(``2.json`` holds the last round, ``10.json`` the second), with a tie for places 2-3 (``[bob, 1, 2]``,
``[cid, 1, 2]``: both 2nd, the next player 4th) and a tie for first in round 3.  The expected history below is written
by hand from that layout's definition (Ebtekar and Liu's ``standings``: 0-based ``lo..hi`` range of shared places).
"""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import numpy as np
import pytest

from ratings.cli import main
from ratings.history import Entry, Game, GameHistory, HistoryError
from ratings.io import read_file

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "contests"

EXPECTED = GameHistory(
    [
        Game("Round 1", (Entry("ann", 1), Entry("bob", 2), Entry("cid", 2), Entry("dee", 4)), dt.date(2010, 1, 1)),
        Game("Round 2", (Entry("cid", 1), Entry("ann", 2), Entry("eve", 3)), dt.date(2010, 1, 2)),
        Game("Round 3", (Entry("eve", 1), Entry("bob", 1)), dt.date(2010, 1, 3)),
    ]
)


def _same(history: GameHistory) -> None:
    assert history.players == EXPECTED.players
    assert history.games == EXPECTED.games
    for name in ("offsets", "flat_player", "flat_rank", "flat_dnf", "flat_place", "flat_position", "flat_team"):
        assert np.array_equal(getattr(history, name), getattr(EXPECTED, name)), name


@pytest.mark.parametrize("where", ["folder", "season.json"])
def test_contests_read_as_a_folder_or_one_file(where: str) -> None:
    result = read_file(FIXTURES / where)
    assert result.shape == "contests"
    _same(result.history)


def test_contest_bytes_named_json_are_read_within_the_hosted_limits() -> None:
    data = (FIXTURES / "season.json").read_bytes()
    _same(read_file(data, filename="season.json").history)
    _same(read_file(io.BytesIO(data), filename="season.json").history)


def test_the_command_line_rates_a_folder_of_contests() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["rate", str(FIXTURES / "folder")], out=out, err=err) == 0, err.getvalue()
    rows = out.getvalue().splitlines()
    assert rows[0].startswith("player,rating,games") and len(rows) == 1 + 5
    assert {r.split(",")[0] for r in rows[1:]} == {"ann", "bob", "cid", "dee", "eve"}


@pytest.mark.parametrize(
    ("contest", "says"),
    [
        ({"name": "R", "standings": [["ann", 0, 0], ["bob", 2, 1]]}, "contest 'R', standing 2: places 2..1"),
        ({"name": "R", "standings": [["ann", 0, 0], ["ann", 1, 1]]}, "contest 'R': player 'ann' appears twice"),
        ({"name": "R", "standings": [["ann", 0, 0], ["", 1, 1]]}, "contest 'R', standing 2: the player has no name"),
        ({"name": "R", "standings": [["ann", "0", 0]]}, "standing 1: ['ann', '0', 0] is not [player, lo, hi]"),
        ({"name": "R"}, "is not a contest"),
    ],
)
def test_a_wrong_standing_is_reported_with_its_file_contest_and_place(contest: dict[str, object], says: str) -> None:
    with pytest.raises(HistoryError) as error:
        read_file(json.dumps(contest).encode(), filename="bad.json")
    assert says in str(error.value) and "bad.json" in str(error.value)
