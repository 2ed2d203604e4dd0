"""Multiplayer Elo against values derived by hand from Cunningham's (2021) formulas.

Sources: Cunningham 2021: Danny Cunningham, "Developing a Generalized Elo Rating System for Multiplayer Games", Towards
Data Science, 2021 (equation numbers are the article's).
"""

from __future__ import annotations

import numpy as np
import pytest

from ratings import ParameterError, create
from ratings.base import GameView
from ratings.systems.multielo import actual_scores, expected_scores, score_function


def play(ratings: list[float], ranks: list[int], dnf: list[bool] | None = None, **params: float) -> np.ndarray:
    system = create("multielo", **params)
    state = {"rating": np.array(ratings, dtype=float)}
    n = len(ratings)
    view = GameView(0, np.arange(n), np.array(ranks), np.array(dnf or [False] * n), None)
    system._play(state, view)
    return state["rating"]


def test_two_player_game_is_classic_elo() -> None:
    # Cunningham 2021, worked example: 1200 beats 1000 with K=32, D=400 -> 1207.7 (E_A = 0.76).
    # Hand derivation: E_A = 1 / (1 + 10^(-200/400)) = 0.759747..., 32 * (1 - E_A) = 7.688098.
    after = play([1200, 1000], [0, 1])
    assert after == pytest.approx([1207.688098, 992.311902], abs=1e-6)


def test_three_equal_players_linear() -> None:
    # E = 1/3 each; S = (2/3, 1/3, 0); change = K (N-1) (S - E) = 64 * (1/3, 0, -1/3).
    after = play([1000, 1000, 1000], [0, 1, 2])
    assert after == pytest.approx([1000 + 64 / 3, 1000, 1000 - 64 / 3], rel=1e-12)


def test_three_equal_players_exponential_base_two() -> None:
    # alpha^(N-p) - 1 = 3, 1, 0 (sum 4) -> S = (3/4, 1/4, 0); change = 64 * (S - 1/3).
    after = play([1000, 1000, 1000], [0, 1, 2], base=2.0)
    assert after == pytest.approx([1000 + 64 * (3 / 4 - 1 / 3), 1000 + 64 * (1 / 4 - 1 / 3), 1000 - 64 / 3])


def test_ties_share_the_mean_score() -> None:
    # Linear N=3 scores (2/3, 1/3, 0); players tied for first share (2/3 + 1/3) / 2 = 1/2.
    assert actual_scores(np.array([0, 0, 1]), 1.0) == pytest.approx([0.5, 0.5, 0.0])
    # DNFs (sharing the rank after the finishers) share the scores of the bottom positions.
    assert actual_scores(np.array([0, 1, 1]), 1.0) == pytest.approx([2 / 3, 1 / 6, 1 / 6])


@pytest.mark.parametrize("n", [2, 3, 5, 12, 40])
@pytest.mark.parametrize("base", [1.0, 1.5, 3.0, 50.0])
def test_score_function_rules(n: int, base: float) -> None:
    # Cunningham's (2021) three rules: decreasing, last place scores 0, scores sum to 1.
    s = score_function(n, base)
    assert np.all(np.diff(s) < 0)
    assert s[-1] == pytest.approx(0.0, abs=1e-15)
    assert s.sum() == pytest.approx(1.0)


def test_exponential_score_tends_to_linear_as_base_tends_to_one() -> None:
    assert score_function(6, 1.0 + 1e-7) == pytest.approx(score_function(6, 1.0), abs=1e-6)


def test_expected_scores_sum_to_one() -> None:
    rng = np.random.default_rng(1)
    for n in range(2, 12):
        assert expected_scores(rng.normal(1000, 200, n), 400.0).sum() == pytest.approx(1.0)


def test_large_field_does_not_overflow() -> None:
    after = play(list(np.linspace(800, 1200, 500)), list(range(500)), base=3.0)
    assert np.all(np.isfinite(after))


@pytest.mark.parametrize(("name", "value"), [("k", -1.0), ("d", 0.0), ("base", 0.5)])
def test_invalid_parameters_are_refused(name: str, value: float) -> None:
    with pytest.raises(ParameterError, match=name):
        create("multielo", **{name: value})


def test_place_probabilities_two_players_match_elo_expectation() -> None:
    system = create("multielo")
    p = system.place_probabilities({"rating": np.array([1200.0, 1000.0])}, [0, 1])
    assert p[0, 0] == pytest.approx(1 / (1 + 10 ** (-0.5)))
    assert p.sum(axis=1) == pytest.approx([1, 1])
