"""The game-history model: parsing, validation with row/column locations, the flat layout."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from ratings import GameHistory, HistoryError
from ratings.io.places import parse_place


def test_flat_layout_matches_games(small_history: GameHistory) -> None:
    h = small_history
    assert h.n_games == 4
    assert h.players == ("Ann", "Bob", "Cid", "Dee", "Eve")
    assert h.offsets.tolist() == [0, 4, 7, 11, 13]
    # g1: places 1, 2, 3, DNF -> dense ranks 0, 1, 2 and the DNF after the last finisher.
    assert h.flat_rank[h.game_slice(0)].tolist() == [0, 1, 2, 3]
    assert h.flat_dnf[h.game_slice(0)].tolist() == [False, False, False, True]
    # g2: a tie for first; places 1, 1, 3 rank the same as 1, 1, 2.
    assert h.flat_rank[h.game_slice(1)].tolist() == [0, 0, 1]
    # g3: two DNFs share the rank after the finishers.
    assert h.flat_rank[h.game_slice(2)].tolist() == [0, 1, 2, 2]


def test_only_the_order_of_places_matters() -> None:
    a = GameHistory.from_records([{"game": 1, "player": p, "place": x} for p, x in [("A", 1), ("B", 1), ("C", 2)]])
    b = GameHistory.from_records([{"game": 1, "player": p, "place": x} for p, x in [("A", 1), ("B", 1), ("C", 3)]])
    assert a.flat_rank.tolist() == b.flat_rank.tolist()


def test_flat_arrays_are_read_only(small_history: GameHistory) -> None:
    with pytest.raises(ValueError):
        small_history.flat_rank[0] = 5


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, 1),
        ("2", 2),
        (3.0, 3),
        (" 4 ", 4),
        ("DNF", None),
        ("dnf", None),
        ("", None),
        (None, None),
        (float("nan"), None),
    ],
)
def test_parse_place_accepts(value: object, expected: int | None) -> None:
    assert parse_place(value) == expected


@pytest.mark.parametrize("value", [0, -1, "2.5", 1.5, "first", True])
def test_parse_place_refuses(value: object) -> None:
    with pytest.raises(ValueError):
        parse_place(value)


def test_every_problem_is_reported_with_row_and_column() -> None:
    frame = pd.DataFrame(
        [
            # game player  place
            ["g1", "Ann", 1],  # row 2
            ["g1", "Ann", 2],  # row 3: Ann twice
            ["g1", "Bob", "x"],  # row 4: bad place
            ["g2", "  ", 1],  # row 5: empty name
            ["g2", "Cid", 0],  # row 6: place not positive
        ],
        columns=["game", "player", "place"],
    )
    with pytest.raises(HistoryError) as info:
        GameHistory.from_frame(frame)
    located = {(p.row, p.column) for p in info.value.problems}
    assert located == {(3, "player"), (4, "place"), (5, "player"), (6, "place")}
    assert "row 3" in str(info.value) and "Ann" in str(info.value)


def test_names_are_trimmed_and_dnf_spellings_understood() -> None:
    h = GameHistory.from_records(
        [
            {"game": "g", "player": " Ann ", "place": 1},
            {"game": "g", "player": "Bob", "place": "Dnf"},
            {"game": "g", "player": "Cid", "place": ""},
        ]
    )
    assert h.players == ("Ann", "Bob", "Cid")
    assert h.flat_dnf.tolist() == [False, True, True]


def test_dates_order_games_stably() -> None:
    rows = [
        ("late", "2024-03-01", "A", 1),
        ("late", "2024-03-01", "B", 2),
        ("early", "2024-01-01", "A", 2),
        ("early", "2024-01-01", "B", 1),
        ("same-day", "2024-03-01", "A", 1),
        ("same-day", "2024-03-01", "B", 2),
    ]
    h = GameHistory.from_records([{"game": g, "date": d, "player": p, "place": x} for g, d, p, x in rows])
    assert [g.id for g in h.games] == ["early", "late", "same-day"]
    assert h.games[0].date == dt.date(2024, 1, 1)


def test_single_player_game_is_a_warning_not_an_error() -> None:
    h = GameHistory.from_records(
        [
            {"game": "solo", "player": "A", "place": 1},
            {"game": "g", "player": "A", "place": 1},
            {"game": "g", "player": "B", "place": 2},
        ]
    )
    assert h.n_games == 2
    assert any("solo" in w for w in h.warnings)


def test_round_trip_through_frame(small_history: GameHistory) -> None:
    again = GameHistory.from_frame(small_history.to_frame())
    assert again.players == small_history.players
    assert np.array_equal(again.flat_rank, small_history.flat_rank)
    assert np.array_equal(again.flat_dnf, small_history.flat_dnf)


def test_missing_columns_are_named() -> None:
    with pytest.raises(HistoryError, match="no 'place' column"):
        GameHistory.from_frame(pd.DataFrame({"game": [1], "player": ["A"]}))


def test_byte_order_marks_are_not_part_of_a_name() -> None:
    # A BOM pasted from a file is invisible: "\ufeffAnn" is Ann, and a name of only a BOM is empty.
    h = GameHistory.from_records(
        [{"game": "g", "player": "\ufeffAnn", "place": 1}, {"game": "g", "player": "Bob", "place": 2}]
    )
    assert h.players == ("Ann", "Bob")
    with pytest.raises(HistoryError, match="has no player name"):
        GameHistory.from_records([{"game": "g", "player": "\ufeff", "place": 1}])


def test_a_game_appended_equals_the_history_built_with_it() -> None:
    """GameHistory.appended lays out only the new game; every array and name list equals a whole construction."""
    from ratings.history import Entry, Game
    from ratings.samples import load_sample

    doubles = load_sample("doubles")
    newcomer = Game("new", (Entry("Zed", 1, "A"), Entry(doubles.players[0], 1, "A"), Entry("Yan", None)), None)
    for history, game in [(GameHistory(doubles.games[:-1]), doubles.games[-1]), (doubles, newcomer)]:
        a, b = history.appended(game), GameHistory([*history.games, game])
        assert a.players == b.players and a.player_index == b.player_index and a.games == b.games
        assert a.warnings == b.warnings and a.dates == b.dates and a.game_ids == b.game_ids
        for name in ("offsets", "flat_player", "flat_rank", "flat_dnf", "flat_place", "flat_position", "flat_game"):
            assert (
                np.array_equal(getattr(a, name), getattr(b, name)) and getattr(a, name).dtype == getattr(b, name).dtype
            )
        for name in ("flat_team", "flat_weight", "team_game"):
            assert np.array_equal(getattr(a, name), getattr(b, name))
    with pytest.raises(HistoryError, match="appears twice"):
        doubles.appended(Game("bad", (Entry("Ann", 1), Entry("Ann", 2)), None))
