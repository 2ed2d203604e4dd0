"""ratings.stats on the small table-shaped history of tests/conftest.py; every value derived by hand below.

small_history (places; DNF = did not finish):

    g1: Ann 1, Bob 2, Cid 3, Dee DNF
    g2: Bob 1, Ann 1, Dee 3          (Bob and Ann tie for first; Dee is 3rd, competition style)
    g3: Cid 1, Dee 2, Eve DNF, Ann DNF
    g4: Eve 1, Ann 2
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ratings import GameHistory, RatingRun
from ratings.stats import HeadToHead, Streak, filter_games, head_to_head, player_stats, rank_after_games, streak


def hand_run(history: GameHistory) -> RatingRun:
    """A run with ratings chosen by hand (flat order of small_history), so ranks can be read off directly.

    after: g1 Ann 10, Bob 5, Cid 3, Dee 1 | g2 Bob 12, Ann 11, Dee 0 | g3 Cid 20, Dee 2, Eve -1, Ann 4 | g4 Eve 6, Ann 5
    before: every first game 0, later ones the previous after.
    """
    after = np.array([10, 5, 3, 1, 12, 11, 0, 20, 2, -1, 4, 6, 5], dtype=float)
    before = np.array([0, 0, 0, 0, 5, 10, 1, 3, 0, 0, 11, -1, 4], dtype=float)
    final = np.array([5, 12, 20, 2, 6], dtype=float)
    return RatingRun("hand", None, history, before, after, final, 0.0, "rating")


def test_filter_games_by_player_newest_first(small_history):
    assert filter_games(small_history).tolist() == [3, 2, 1, 0]
    assert filter_games(small_history, player="Ann").tolist() == [3, 2, 1, 0]
    assert filter_games(small_history, player="Bob").tolist() == [1, 0]  # g1, g2
    assert filter_games(small_history, player="Eve").tolist() == [3, 2]  # g3, g4
    assert filter_games(small_history, player="Nobody").tolist() == []


def test_filter_games_by_date_range_is_closed_and_skips_undated():
    rows = [
        {"game": "a", "date": "2024-01-01", "player": "Ann", "place": 1},
        {"game": "a", "date": "2024-01-01", "player": "Bob", "place": 2},
        {"game": "b", "date": "2024-01-08", "player": "Bob", "place": 1},
        {"game": "b", "date": "2024-01-08", "player": "Cid", "place": 2},
        {"game": "c", "date": "2024-01-15", "player": "Ann", "place": 1},
        {"game": "c", "date": "2024-01-15", "player": "Cid", "place": 2},
    ]
    h = GameHistory.from_records(rows)
    d = dt.date
    assert filter_games(h, start=d(2024, 1, 8)).tolist() == [2, 1]
    assert filter_games(h, end=d(2024, 1, 8)).tolist() == [1, 0]  # both ends included
    assert filter_games(h, start=d(2024, 1, 2), end=d(2024, 1, 14)).tolist() == [1]
    assert filter_games(h, player="Ann", start=d(2024, 1, 2)).tolist() == [2]
    undated = GameHistory.from_records([{**r, "date": None} for r in rows])
    assert filter_games(undated, start=d(2000, 1, 1)).tolist() == []


@pytest.mark.parametrize(
    ("flags", "expected"),
    [([], Streak(0, 0)), ([1, 1, 0, 1], Streak(2, 1)), ([0, 1, 1, 1], Streak(3, 3)), ([1, 0, 0], Streak(1, 0))],
)
def test_streak(flags, expected):
    assert streak(np.array(flags, dtype=bool)) == expected


def test_player_stats_of_ann(small_history):
    stats = player_stats(hand_run(small_history), "Ann")
    assert stats is not None
    assert stats.games.tolist() == [0, 1, 2, 3]
    # positions: g1 1st, g2 tied 1st, g3 DNF behind the two finishers -> 3, g4 2nd
    assert stats.position.tolist() == [1, 1, 3, 2]
    assert stats.dnf.tolist() == [False, False, True, False]
    assert stats.size.tolist() == [4, 3, 4, 2]
    assert stats.wins == 2  # g1, and the shared first of g2
    assert stats.podiums == 3  # g1, g2, g4 (a DNF is no podium)
    assert stats.lasts == 2  # g3 (DNFs share the last rank), g4 (2nd of 2)
    assert stats.dnfs == 1
    assert stats.average_place == pytest.approx((1 + 1 + 3 + 2) / 4, rel=1e-12)
    assert (stats.best, stats.worst) == (1, 3)
    assert stats.win_streak == Streak(2, 0)  # won, won, lost, lost
    assert stats.podium_streak == Streak(2, 1)  # yes, yes, no, yes
    assert stats.last_streak == Streak(2, 2)  # no, no, yes, yes
    assert stats.recent.tolist() == [1, 1, 0, 2]  # 0 marks the DNF
    assert stats.after.tolist() == [10, 11, 4, 5]
    # ranks read from hand_run: after g1 Ann 10 leads; g2 Bob 12 > Ann 11; g3 Cid 20, Bob 12 > Ann 4;
    # g4 Cid 20, Bob 12, Eve 6 > Ann 5
    assert stats.rank.tolist() == [1, 2, 3, 4]
    assert player_stats(hand_run(small_history), "Nobody") is None


def test_rank_counts_only_players_who_have_played(small_history):
    run = hand_run(small_history)
    # Eve after g3 (-1): Cid 20, Bob 12, Ann 4, Dee 2 ahead -> 5th; after g4 (6): Cid, Bob ahead -> 3rd
    assert rank_after_games(run, np.array([2, 3]), "Eve").tolist() == [5, 3]
    # Bob after g1 (5): Ann 10 ahead, Cid 3 and Dee 1 behind, Eve has not played -> 2nd
    assert rank_after_games(run, np.array([0]), "Bob").tolist() == [2]


def test_head_to_head_of_ann(small_history):
    # Bob: g1 Ann ahead, g2 tie. Cid: g1 Ann ahead, g3 Cid ahead (Ann DNF). Dee: g1 ahead (Dee DNF), g2 ahead,
    # g3 behind (Ann DNF, Dee 2nd). Eve: g3 both DNF (order unknown: a tie), g4 Eve ahead.
    assert head_to_head(small_history, "Ann") == [
        HeadToHead("Dee", 3, 2, 1, 0),
        HeadToHead("Bob", 2, 1, 0, 1),
        HeadToHead("Cid", 2, 1, 1, 0),
        HeadToHead("Eve", 2, 0, 1, 1),
    ]
    assert head_to_head(small_history, "Nobody") == []
