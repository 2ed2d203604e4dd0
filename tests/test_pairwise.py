"""Pairwise Elo against the closed forms of Kerby 2025, sections 3.1.1, 3.1.2 and 3.2.1.

Sources: Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ratings import ParameterError, create
from ratings.base import GameView


def play(ratings: list[float], ranks: list[int], dnf: list[bool] | None = None, **params: object) -> np.ndarray:
    system = create("pairwise-elo", **params)
    state = {"rating": np.array(ratings, dtype=float)}
    n = len(ratings)
    system._play(state, GameView(0, np.arange(n), np.array(ranks), np.array(dnf or [False] * n), None))
    return state["rating"]


def logistic_win(r_winner: float, r_loser: float) -> float:
    """Kerby 2025, section 3.1.1: the winner gains eta / (1 + e^{r_w - r_l}) (per unit eta)."""
    return 1.0 / (1.0 + math.exp(r_winner - r_loser))


def gaussian_win(r_winner: float, r_loser: float) -> float:
    """Kerby 2025, section 3.1.2: with d = r_w - r_l, the winner gains phi(d/sqrt2) / (sqrt2 Phi(d/sqrt2))."""
    d = (r_winner - r_loser) / math.sqrt(2.0)
    return float(stats.norm.pdf(d) / (math.sqrt(2.0) * stats.norm.cdf(d)))


@pytest.mark.parametrize("variant", ["sum", "average"])
@pytest.mark.parametrize(("r1", "r2"), [(0.0, 0.0), (0.7, -0.4), (-2.0, 1.5)])
def test_two_players_logistic_is_section_3_1_1(variant: str, r1: float, r2: float) -> None:
    after = play([r1, r2], [1, 0], eta=0.5, variant=variant)  # player 2 wins
    step = 0.5 / (1.0 + math.exp(r2 - r1))
    assert after == pytest.approx([r1 - step, r2 + step], abs=1e-13)


@pytest.mark.parametrize("variant", ["sum", "average"])
@pytest.mark.parametrize(("r1", "r2"), [(0.0, 0.0), (0.7, -0.4), (-2.0, 1.5), (6.0, -6.0)])
def test_two_players_gaussian_is_section_3_1_2(variant: str, r1: float, r2: float) -> None:
    after = play([r1, r2], [0, 1], eta=0.3, model="gaussian", variant=variant)  # player 1 wins
    step = 0.3 * gaussian_win(r1, r2)
    assert after == pytest.approx([r1 + step, r2 - step], rel=1e-9)


def test_equal_two_player_logistic_update_is_half_eta() -> None:
    # Section 3.1.1: equally rated players exchange eta / 2.
    assert play([0.0, 0.0], [0, 1], eta=0.2) == pytest.approx([0.1, -0.1], abs=1e-15)


def test_draw_is_score_one_half() -> None:
    # A drawn pair averages the two results' updates: in the logistic model that is 1/2 - P(win),
    # Elo's draw (section 3.1.1 in score form).
    r1, r2 = 0.8, -0.3
    p1 = 1.0 / (1.0 + math.exp(r2 - r1))
    assert play([r1, r2], [0, 0], eta=1.0) == pytest.approx([r1 + 0.5 - p1, r2 - (0.5 - p1)], abs=1e-13)
    g = 0.5 * (gaussian_win(r1, r2) - gaussian_win(r2, r1))
    assert play([r1, r2], [0, 0], eta=1.0, model="gaussian") == pytest.approx([r1 + g, r2 - g], abs=1e-12)


def test_three_players_sum_the_pairs() -> None:
    # Section 3.2.1: A beats B and C, B beats C; sum of the three pair updates (hand expansion).
    a, b, c = 0.4, 0.1, -0.2
    after = play([a, b, c], [0, 1, 2], eta=1.0)
    expected = [
        a + logistic_win(a, b) + logistic_win(a, c),
        b - logistic_win(a, b) + logistic_win(b, c),
        c - logistic_win(a, c) - logistic_win(b, c),
    ]
    assert after == pytest.approx(expected, abs=1e-13)
    averaged = play([a, b, c], [0, 1, 2], eta=1.0, variant="average")
    assert averaged - np.array([a, b, c]) == pytest.approx((np.array(expected) - [a, b, c]) / 2, abs=1e-13)


def test_two_dnfs_do_not_compare() -> None:
    # Section 4: the order of two DNFs is unobserved, so their pair updates nothing; each loses
    # only to the finisher.
    a, b, c = 0.0, 0.5, -0.5
    after = play([a, b, c], [0, 1, 1], [False, True, True], eta=1.0)
    expected = [a + logistic_win(a, b) + logistic_win(a, c), b - logistic_win(a, b), c - logistic_win(a, c)]
    assert after == pytest.approx(expected, abs=1e-13)


def test_two_player_pairwise_matches_plackett_luce() -> None:
    # With two players the pairwise logistic model and Plackett-Luce are both section 3.1.1.
    ratings = np.array([0.3, -1.1])
    pairwise = create("pairwise-elo", eta=0.4)
    pl = create("plackett-luce", eta=0.4)
    for ranks in ([0, 1], [1, 0], [0, 0]):
        view = GameView(0, np.arange(2), np.array(ranks), np.zeros(2, bool), None)
        s1, s2 = {"rating": ratings.copy()}, {"rating": ratings.copy()}
        pairwise._play(s1, view)
        pl._play(s2, view)
        assert s1["rating"] == pytest.approx(s2["rating"], abs=1e-13)


def test_place_probabilities_two_player_marginals() -> None:
    state = {"rating": np.array([0.9, 0.1])}
    logistic = create("pairwise-elo").place_probabilities(state, [0, 1])
    assert logistic[0, 0] == pytest.approx(1 / (1 + math.exp(-0.8)), rel=1e-12)  # section 3.1.1
    gaussian = create("pairwise-elo", model="gaussian").place_probabilities(state, [0, 1])
    # Section 3.1.2: P = Phi(0.8 / sqrt2); Monte Carlo with 20,000 samples, 5 standard errors.
    assert gaussian[0, 0] == pytest.approx(stats.norm.cdf(0.8 / math.sqrt(2)), abs=5 * 0.5 / math.sqrt(20_000))


@pytest.mark.parametrize(("name", "value"), [("variant", "median"), ("model", "cauchy")])
def test_unknown_choices_are_refused(name: str, value: str) -> None:
    with pytest.raises(ParameterError, match=name):
        create("pairwise-elo", **{name: value})
