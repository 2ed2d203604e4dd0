"""The compiled Plackett-Luce gradient (:mod:`ratings.kernels.plackett_luce`) on both of its order-term paths:
direct sums while the finishers' ratings spread over at most ``DIRECT_SPREAD``, logarithms beyond it.

Sources: Kerby 2025 (Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note), section
3.2.2 for the gradient, written out by hand in :func:`tests.test_plackett_luce.hand_gradient`; with two players it
is logistic Elo on the natural scale (section 3.1.1), derived by hand below; and the per-game reference path
:func:`ratings.systems.plackett_luce.plackett_luce_gradient` (log space, numpy) for ties and DNFs.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from ratings.kernels import plackett_luce as kernel
from ratings.systems.plackett_luce import plackett_luce_gradient as reference
from tests.gradients import PLACKETT_LUCE, call_gradient
from tests.test_plackett_luce import hand_gradient

SPREADS = (1.0, 10.0, 300.0, kernel.DIRECT_SPREAD - 1.0, kernel.DIRECT_SPREAD + 1.0, 1000.0)


def tolerance(spread: float, gradient: np.ndarray) -> float:
    """Agreement of two ways to compute one gradient, absolute: the log-space path reads each term through
    ``exp(x)`` with ``|x|`` up to the spread, so it carries a relative error of about ``spread`` ulps, and a sum
    of two dozen terms of up to ``|g|`` carries a few dozen ulps of ``|g|``."""
    return 1e-15 * (50.0 + spread) * max(1.0, float(np.abs(gradient).max()))


def compiled_gradient(ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray | None = None) -> np.ndarray:
    dnf = np.zeros(len(ratings), dtype=bool) if dnf is None else dnf
    out = np.full(len(ratings), np.nan)
    assert call_gradient(PLACKETT_LUCE, ratings, ranks, dnf, np.zeros(1), out)
    return out


@pytest.mark.parametrize("spread", SPREADS)
def test_two_players_is_logistic_elo_on_either_path(spread: float) -> None:
    # By hand: worst first (B, A), lambda = e^-r; g_A = -1 + lambda_A (1 / (lambda_A + lambda_B) + 1 / lambda_A)
    # = lambda_A / (lambda_A + lambda_B) = expit(r_B - r_A), and g_B = -g_A.  Both an upset and the expected result.
    for winner, loser in ((0.0, spread), (spread, 0.0)):
        got = compiled_gradient(np.array([winner, loser]), np.array([0, 1]))
        expected = special.expit(loser - winner)
        assert got == pytest.approx([expected, -expected], rel=0, abs=2e-15)


@pytest.mark.parametrize("spread", SPREADS)
def test_orders_without_ties_equal_the_hand_formula(spread: float) -> None:
    # Fields on both sides of the insertion sort's bound (kernel.INSERTION_MAX), ratings spread over ``spread``.
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(2, 25))
        ratings = rng.uniform(-spread / 2, spread / 2, n)
        ratings[:2] = (-spread / 2, spread / 2)
        ranks = rng.permutation(n)
        got = compiled_gradient(ratings, ranks)
        worst_first = [int(i) for i in np.argsort(-ranks)]
        want = reference(ratings, ranks, np.zeros(n, dtype=bool))
        if spread <= 300.0:  # e^-r stays finite in the hand formula
            np.testing.assert_allclose(got, hand_gradient(ratings, worst_first), rtol=0, atol=tolerance(spread, want))
        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance(spread, want))


@pytest.mark.parametrize("spread", SPREADS[:-1])
def test_ties_and_dnfs_equal_the_reference_path(spread: float) -> None:
    # Not at 1000: a tie group's average works on lambda = e^(top - r) in both paths, which overflows there.
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(3, 22))
        ratings = rng.uniform(-spread / 2, spread / 2, n)
        ranks = np.sort(rng.integers(0, max(2, n // 2), n))  # tied groups of several sizes
        ranks = np.unique(ranks, return_inverse=True)[1]  # dense, as a replay gives them
        # DNFs only on moderate spreads: beyond them the censored integral needs more nodes than it allows (NaN)
        dnf = rng.random(n) < 0.2 if spread <= 10.0 else np.zeros(n, dtype=bool)
        got = compiled_gradient(ratings, ranks, dnf)
        want = reference(ratings, ranks, dnf)
        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance(spread, want))


@pytest.mark.parametrize("where", [0, 2, 5])
def test_a_nan_rating_gives_nan(where: int) -> None:
    # The replay reports a game whose gradient is not finite; a NaN rating must not vanish in the direct sums.
    ratings = np.linspace(-1.0, 1.0, 6)
    ratings[where] = np.nan
    assert np.isnan(compiled_gradient(ratings, np.arange(6))).any()
