"""Time as recorded (issue 27 item 0, dates): a time of day is kept where a cell has one, games of one day are played
in the order of their times, and a file listed newest first is played oldest first, with a note.

Expected values are worked out by hand from the cells (a spreadsheet day number counts days from 1899-12-30, so
45352 is 2024-03-01 and its fraction .75 is 18:00; a Unix time counts seconds from 1970-01-01 00:00 UTC).
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ratings import create
from ratings.io import read_file
from ratings.io.dates import parse_date_cells, play_order
from ratings.io.writing import to_long_rows


@pytest.mark.parametrize(
    ("cell", "date", "time"),
    [
        ("2024-03-01 18:30", dt.date(2024, 3, 1), dt.time(18, 30)),
        ("2024-03-01T18:30:05", dt.date(2024, 3, 1), dt.time(18, 30, 5)),
        ("2024-03-01T18:30:05Z", dt.date(2024, 3, 1), dt.time(18, 30, 5)),
        ("45352.75", dt.date(2024, 3, 1), dt.time(18, 0)),
        (dt.datetime(2024, 3, 1, 7, 5), dt.date(2024, 3, 1), dt.time(7, 5)),
        ("2024-03-01", dt.date(2024, 3, 1), None),
        ("45352", dt.date(2024, 3, 1), None),
        # Unix times: 2024-01-01 00:00 UTC is 1704067200 (19723 days of 86400 s since 1970-01-01); 2024-03-01 is 60
        # days later (31 + 29), 1709251200, and 16:00 that day 57600 s more
        ("1704067200", dt.date(2024, 1, 1), dt.time(0, 0)),
        ("1709308800", dt.date(2024, 3, 1), dt.time(16, 0)),
        ("1709308800.25", dt.date(2024, 3, 1), dt.time(16, 0, 0, 250000)),
    ],
)
def test_a_time_of_day_is_kept_where_the_cell_has_one(cell: object, date: dt.date, time: dt.time | None) -> None:
    read = parse_date_cells({2: cell}, "date", None)  # type: ignore[dict-item]
    assert read.dates[2] == date
    assert read.times.get(2) == time


def test_a_day_month_date_keeps_its_time() -> None:
    read = parse_date_cells({2: "31/01/2024 07:05", 3: "01/02/2024 21:00"}, "date", None)
    assert read.dates == {2: dt.date(2024, 1, 31), 3: dt.date(2024, 2, 1)}
    assert read.times == {2: dt.time(7, 5), 3: dt.time(21, 0)}


def test_games_of_one_day_are_played_in_the_order_of_their_times() -> None:
    text = (
        "game,date,player,place\n"
        "evening,2024-03-01 20:15,Ann,1\nevening,2024-03-01 20:15,Bob,2\n"
        "morning,2024-03-01 09:00,Bob,1\nmorning,2024-03-01 09:00,Ann,2\n"
        "next day,2024-03-02,Ann,1\nnext day,2024-03-02,Bob,2\n"
    )
    history = read_file(text.encode(), filename="t.csv").history
    assert history.game_ids == ("morning", "evening", "next day")
    assert [g.time for g in history.games] == [dt.time(9, 0), dt.time(20, 15), None]
    # written back with its time, and read back the same
    rows = to_long_rows(history)
    assert rows[1][1] == "2024-03-01 09:00"
    again = read_file("\n".join(",".join(map(str, r)) for r in rows).encode(), filename="t.csv").history
    assert again.games == history.games


OLDEST_FIRST = [  # (game, date, player, place): two races on 2 March, no times
    ("r1", "2024-03-01", "Ann", 1),
    ("r1", "2024-03-01", "Bob", 2),
    ("r1", "2024-03-01", "Cid", 3),
    ("r2", "2024-03-02", "Cid", 1),
    ("r2", "2024-03-02", "Ann", 2),
    ("r3", "2024-03-02", "Bob", 1),
    ("r3", "2024-03-02", "Cid", 2),
    ("r3", "2024-03-02", "Ann", 3),
    ("r4", "2024-03-03", "Ann", 1),
    ("r4", "2024-03-03", "Cid", 2),
]


def _csv(rows: list[tuple[str, str, str, int]]) -> bytes:
    return ("game,date,player,place\n" + "".join(f"{g},{d},{p},{k}\n" for g, d, p, k in rows)).encode()


def test_a_file_listed_newest_first_rates_as_the_same_games_oldest_first() -> None:
    # an export listing the newest race first: the whole listing reversed (rows of a race keep their order)
    races: dict[str, list[tuple[str, str, str, int]]] = {}
    for row in OLDEST_FIRST:
        races.setdefault(row[0], []).append(row)
    newest_first = [row for game in reversed(list(races)) for row in races[game]]
    oldest = read_file(_csv(OLDEST_FIRST), filename="old.csv")
    newest = read_file(_csv(newest_first), filename="new.csv")
    assert oldest.history.game_ids == newest.history.game_ids == ("r1", "r2", "r3", "r4")
    assert any("listed newest first" in w for w in newest.warnings)
    assert not any("newest first" in w for w in oldest.warnings)
    for system in ("multielo", "trueskill"):
        a, b = create(system).rate(oldest.history), create(system).rate(newest.history)
        assert np.array_equal(a.before, b.before) and np.array_equal(a.after, b.after)


def test_play_order_by_hand() -> None:
    d1, d2 = dt.date(2024, 1, 1), dt.date(2024, 1, 2)
    # oldest first, one day shared without times: the file's order
    assert play_order([d1, d2, d2], [None, None, None]) == ([0, 1, 2], None)
    # newest first: reversed, then by date (the two games of 2 January in the reverse of the file's order)
    order, note = play_order([d2, d2, d1], [None, None, None])
    assert order == [2, 1, 0] and note is not None
    # times decide within a day
    assert play_order([d1, d1], [dt.time(20), dt.time(9)])[0] == [1, 0]
    # a game without a date: the file's order, as before
    assert play_order([d2, None, d1], [None, None, None]) == ([0, 1, 2], None)
