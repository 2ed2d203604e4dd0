"""The game-history model: parsing, validation with row/column locations, the flat layout."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from ratings import GameHistory, HistoryError
from ratings.io.places import parse_place
from tests.test_io_columns import _ARRAYS


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


def _same_history(a: GameHistory, b: GameHistory, where: object) -> None:
    """Every array (values and types), the players' numbering, the games, ids, dates and warnings of ``a`` are
    those of ``b``."""
    for name in _ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.tolist() == y.tolist() and x.dtype == y.dtype, (where, name)
    assert a.players == b.players and dict(a.player_index) == dict(b.player_index), where
    assert a.game_ids == b.game_ids and a.dates == b.dates and a.games == b.games, where
    assert a.warnings == b.warnings, where


def _as_columns(history: GameHistory) -> GameHistory:
    """The same free-for-all history built from its flat arrays (no game objects), as the group page reads one."""
    return GameHistory.from_columns(
        history.game_ids, history.dates, history.offsets, history.flat_player, history.flat_place, history.players
    )


def test_a_game_put_in_or_taken_out_anywhere_equals_the_history_built_anew() -> None:
    """GameHistory.inserted and .without splice the arrays; the result equals GameHistory built from the games with
    that one put in or taken out (the constructor is the reference: every array, the players numbered by first
    appearance, players of no game left out, the short-game warnings), for a history built from games and one read
    from columns, with games of each shape: free-for-all, ties and did-not-finish, a one-player game, teams with a
    partial weight, a time of day."""
    from ratings.history import Entry, Game

    day = dt.date(2024, 3, 1)
    base = [
        Game("a", (Entry("Ann", 1), Entry("Bob", 2), Entry("Cid", 3)), day),
        Game("b", (Entry("Dee", 1), Entry("Ann", 1), Entry("Bob", None)), day),  # a tie for first, a DNF
        Game("c", (Entry("Eve", 1),), day + dt.timedelta(days=1)),  # one player: a warning
        Game("d", (Entry("Bob", 2), Entry("Fay", 1), Entry("Cid", None), Entry("Dee", None)), day),
    ]
    shapes = {
        "free-for-all, a new player": Game("n", (Entry("New", 2), Entry("Cid", 1)), day),
        "ties and did-not-finish": Game("t", (Entry("Fay", 1), Entry("Eve", 1), Entry("Ann", None)), day),
        "alone": Game("s", (Entry("Solo", 1),), day),
        "teams": Game("p", (Entry("Ann", 1, "x"), Entry("Zed", 1, "x", 0.5), Entry("Bob", 2, "y")), day),
        "a time of day": Game("m", (Entry("Bob", 1), Entry("Gus", 2)), day, dt.time(18, 30)),
    }
    for built in ("games", "columns"):
        history = GameHistory(base) if built == "games" else _as_columns(GameHistory(base))
        for shape, game in shapes.items():
            for at in range(len(base) + 1):
                grown = history.inserted(at, game)
                _same_history(grown, GameHistory([*base[:at], game, *base[at:]]), (built, shape, at))
                for g in range(len(base) + 1):  # and taken out again, or another game taken out
                    games = [*base[:at], game, *base[at:]]
                    _same_history(grown.without(g), GameHistory(games[:g] + games[g + 1 :]), (built, shape, at, g))
        assert history.game_ids == ("a", "b", "c", "d"), "the history spliced is unchanged"
    with pytest.raises(HistoryError, match="appears twice"):
        GameHistory(base).inserted(1, Game("bad", (Entry("Ann", 1), Entry("Ann", 2)), None))
    with pytest.raises(IndexError):
        GameHistory(base).inserted(5, shapes["alone"])
    with pytest.raises(IndexError):
        GameHistory(base).without(4)


def test_a_history_read_from_columns_stays_without_game_objects_when_spliced() -> None:
    """A free-for-all game put into (or taken out of) a history read from columns makes no game object of the other
    games (the point of splicing: a long history's games are not built for one game); a team game makes them."""
    from ratings.history import Entry, Game
    from ratings.samples import load_sample

    racing = _as_columns(load_sample("racing"))
    grown = racing.inserted(3, Game("new", (Entry("Newcomer", 1), Entry(racing.players[0], 2)), None)).without(7)
    assert grown._games is None and racing._games is None
    teams = racing.inserted(0, Game("pair", (Entry("A", 1, "x"), Entry("B", 1, "x"), Entry("C", 2)), None))
    assert teams._games is not None and teams.games[0].entries[0].team == "x"
