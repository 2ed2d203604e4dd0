"""Plackett-Luce (Kerby's exponential model) against Kerby 2025, sections 3.1.1, 3.2.2 and 4.

Sources:

- Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
- Plackett, "The analysis of permutations", 1975; Luce, *Individual Choice Behavior*, 1959.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ratings import create
from ratings.base import GameView
from ratings.systems.plackett_luce import (
    EXACT_SUBSETS,
    _group_terms,
    censored_log_probability,
    group_integral,
    plackett_luce_gradient,
)


def order_probability(ratings: np.ndarray, worst_first: list[int]) -> float:
    """Section 3.2.2: P(X_1 < ... < X_n) = prod_i lambda_i / sum_{j >= i} lambda_j, lambda = e^{-r}."""
    lam = np.exp(-np.asarray(ratings, dtype=float)[worst_first])
    return float(np.prod([lam[i] / lam[i:].sum() for i in range(len(lam))]))


def censored_probability(ratings: np.ndarray, dnf: list[int], finishers_worst_first: list[int]) -> float:
    """Section 4 by brute force: the sum of the uncensored likelihoods over every order of the DNFs."""
    return sum(order_probability(ratings, list(p) + finishers_worst_first) for p in itertools.permutations(dnf))


def hand_gradient(ratings: np.ndarray, worst_first: list[int]) -> np.ndarray:
    """Section 3.2.2 formula, written out: g_k = -1 + sum_{i <= k} lambda_k / sum_{j >= i} lambda_j."""
    lam = np.exp(-ratings)
    g = np.zeros(len(ratings))
    for k, pk in enumerate(worst_first):
        g[pk] = -1 + sum(lam[pk] / lam[worst_first[i:]].sum() for i in range(k + 1))
    return g


def gradient(ratings: list[float], ranks: list[int], dnf: list[bool] | None = None) -> np.ndarray:
    n = len(ratings)
    return plackett_luce_gradient(np.array(ratings, float), np.array(ranks), np.array(dnf or [False] * n))


def test_three_equal_ratings() -> None:
    # Hand derivation from section 3.2.2 with equal lambdas: last -1 + 1/3 = -2/3; second
    # -1 + 1/3 + 1/2 = -1/6; winner -1 + 1/3 + 1/2 + 1 = 5/6.
    assert gradient([0.0, 0.0, 0.0], [0, 1, 2]) == pytest.approx([5 / 6, -1 / 6, -2 / 3], abs=1e-14)


@pytest.mark.parametrize(("r1", "r2"), [(0.0, 0.0), (1.3, -0.2), (-3.0, 2.0)])
def test_two_players_is_logistic_elo(r1: float, r2: float) -> None:
    # Section 3.1.1: player 2 wins, r1' = r1 - eta / (1 + e^{r2 - r1}).
    system = create("plackett-luce", eta=0.32)
    state = {"rating": np.array([r1, r2])}
    system._play(state, GameView(0, np.arange(2), np.array([1, 0]), np.zeros(2, bool), None))
    step = 0.32 / (1 + math.exp(r2 - r1))
    assert state["rating"] == pytest.approx([r1 - step, r2 + step], abs=1e-14)


def test_gradient_matches_formula_on_random_orders() -> None:
    rng = np.random.default_rng(3)
    for n in (3, 5, 9):
        r = rng.normal(0, 1.5, n)
        order = list(rng.permutation(n))  # worst first
        ranks = np.empty(n, int)
        ranks[order] = np.arange(n)[::-1]
        assert gradient(list(r), list(ranks)) == pytest.approx(hand_gradient(r, order), abs=1e-12)


def test_draw_is_elo_score_one_half() -> None:
    # Ties average the gradient over both orders: 1/2 - P(win) with P the logistic probability.
    r1, r2 = 0.6, -0.1
    p1 = 1 / (1 + math.exp(r2 - r1))
    assert gradient([r1, r2], [0, 0]) == pytest.approx([0.5 - p1, p1 - 0.5], abs=1e-14)


def test_tie_group_is_the_average_over_its_orderings() -> None:
    rng = np.random.default_rng(5)
    r = rng.normal(0, 1, 6)
    ranks = [0, 1, 1, 1, 2, 2]  # a three-way and a two-way tie
    expected = np.mean(
        [
            hand_gradient(r, [a, b, c, d, e, 0])
            for a, b in itertools.permutations([4, 5])
            for c, d, e in itertools.permutations([1, 2, 3])
        ],
        axis=0,
    )
    assert gradient(list(r), ranks) == pytest.approx(expected, abs=1e-12)


def test_seven_way_tie_is_exact() -> None:
    # 7! = 5040 orderings, averaged through the 127 subsets.
    rng = np.random.default_rng(11)
    r = rng.normal(0, 0.7, 8)
    ranks = [0] + [1] * 7
    exact = np.mean([hand_gradient(r, list(p) + [0]) for p in itertools.permutations(range(1, 8))], axis=0)
    assert gradient(list(r), ranks) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("m", [2, 3, 7, 14])
@pytest.mark.parametrize("above", [0.0, 0.5, 30.0])
def test_group_integral_equals_the_subset_sums(m: int, above: float) -> None:
    # Two methods for the same sums: the integral (used beyond EXACT_SUBSETS) against the enumeration of
    # the 2^m - 1 subsets (itself checked against every ordering by the tests above).
    rng = np.random.default_rng(m)
    lam = np.exp(rng.normal(0.0, 1.5, m))
    own, factor = _group_terms(lam, above)
    own_i, factor_i = group_integral(lam, above)
    assert own_i == pytest.approx(own, rel=1e-12)
    assert factor_i == pytest.approx(factor, rel=1e-12)


@pytest.mark.parametrize(("m", "above"), [(15, 0.0), (40, 2.0), (600, 7.0)])
def test_group_integral_of_equal_rates_is_the_harmonic_sum(m: int, above: float) -> None:
    # Hand derivation: with every rate lambda, a subset's weight depends on its size k only, there are C(m, k)
    # of them, and a member is in the fraction k/m of them: sum_S w(S) = sum_k 1 / (k lambda + above) and
    # lambda sum_{S ∋ b} w(S) = lambda sum_k (k/m) / (k lambda + above).
    lam = 0.8
    k = np.arange(1, m + 1)
    own, factor = group_integral(np.full(m, lam), above)
    assert factor == pytest.approx(np.sum(1.0 / (k * lam + above)), rel=1e-12)
    assert own == pytest.approx(np.full(m, lam * np.sum(k / m / (k * lam + above))), rel=1e-12)


def test_large_tie_group_is_exact_and_symmetric() -> None:
    # Beyond EXACT_SUBSETS tied players the average over orderings comes from group_integral.
    rng = np.random.default_rng(12)
    n = EXACT_SUBSETS + 3
    r = rng.normal(0, 0.7, n)
    r[3] = r[7]
    ranks = [0] + [1] * (n - 1)
    g = gradient(list(r), ranks)
    assert np.sum(g) == pytest.approx(0.0, abs=1e-12)
    assert g[3] == pytest.approx(g[7], abs=1e-14)  # equal ratings, equal updates
    # Against the exact average, estimated by brute force over 20,000 random orderings (seeded): a Monte Carlo
    # estimate, whose standard error here is below 0.005.
    rng = np.random.default_rng(99)
    tied = np.arange(1, n)
    brute = np.mean([hand_gradient(r, list(rng.permutation(tied)) + [0]) for _ in range(20_000)], axis=0)
    assert np.abs(g - brute).max() < 0.02


@pytest.mark.parametrize(
    ("ratings", "dnf", "finishers"),
    [
        ([0.0, 0.0, 0.0, 0.0], [0, 1], [2, 3]),  # 2 DNFs, equal ratings
        ([0.3, -0.5, 1.2, 0.1], [0, 1], [2, 3]),
        ([0.3, -0.5, 1.2, 0.1, 2.0], [0, 1, 4], [3, 2]),
        ([2.5, 2.0, -1.0], [0, 1], [2]),
    ],
)
def test_censored_likelihood_and_gradient_against_enumeration(
    ratings: list[float], dnf: list[int], finishers: list[int]
) -> None:
    r = np.array(ratings)
    brute = censored_probability(r, dnf, finishers)
    ours = censored_log_probability(r[dnf], r[finishers]) + math.log(order_probability(r, finishers))
    assert ours == pytest.approx(math.log(brute), abs=1e-12)
    # Gradient against central differences of the brute-force log-likelihood.
    n = len(r)
    ranks = np.full(n, len(finishers))
    ranks[finishers] = np.arange(len(finishers))[::-1]
    mask = np.zeros(n, bool)
    mask[dnf] = True
    eps = 1e-6
    numeric = [
        (math.log(censored_probability(r + e, dnf, finishers)) - math.log(censored_probability(r - e, dnf, finishers)))
        / (2 * eps)
        for e in np.eye(n) * eps
    ]
    assert plackett_luce_gradient(r, ranks, mask) == pytest.approx(numeric, abs=1e-8)


def test_censored_probability_matches_inclusion_exclusion() -> None:
    # C = sum over subsets S of the DNFs of (-1)^|S| Lambda / (Lambda + lambda(S)) (section 4, exact
    # for exponential performances; alternating, so only used here for a small group).
    r_dnf, r_fin = np.array([0.2, -0.7, 1.1, 0.0]), np.array([0.5, -0.3])
    lam, big = np.exp(-r_dnf), np.exp(-r_fin).sum()
    total = sum(
        (-1) ** len(s) * big / (big + lam[list(s)].sum()) for k in range(5) for s in itertools.combinations(range(4), k)
    )
    assert censored_log_probability(r_dnf, r_fin) == pytest.approx(math.log(total), abs=1e-12)


def test_censored_probability_monte_carlo() -> None:
    # Two equally rated DNFs below two finishers: sample exponential performances (seeded).
    rng = np.random.default_rng(2024)
    r = np.array([0.0, 0.0, 0.0, 0.0])
    x = rng.exponential(np.exp(r), size=(400_000, 4))
    hits = np.mean((np.maximum(x[:, 0], x[:, 1]) < x[:, 2]) & (x[:, 2] < x[:, 3]))
    # Exact: orders (0,1,2,3) and (1,0,2,3), each 1/4 * 1/3 * 1/2 = 1/24, so 1/12.
    assert censored_probability(r, [0, 1], [2, 3]) == pytest.approx(1 / 12, abs=1e-15)
    assert hits == pytest.approx(1 / 12, abs=5 * math.sqrt(1 / 12 * 11 / 12 / 400_000))
    ours = math.exp(censored_log_probability(r[[0, 1]], r[[2, 3]]) + math.log(order_probability(r, [2, 3])))
    assert ours == pytest.approx(1 / 12, abs=1e-12)


def test_many_dnfs_stay_finite_and_zero_sum() -> None:
    rng = np.random.default_rng(7)
    n = 40
    r = rng.normal(0, 2, n)
    ranks = np.array([0, 1, 2] + [3] * (n - 3))
    dnf = ranks == 3
    g = plackett_luce_gradient(r, ranks, dnf)
    assert np.all(np.isfinite(g))
    assert np.sum(g) == pytest.approx(0.0, abs=1e-10)
    assert np.all(g[dnf] < 0)  # a DNF never gains (Kerby 2025, section 6)


def test_place_probabilities_are_exact_plackett_luce() -> None:
    r = np.array([0.4, -0.2, 1.0])
    probs = create("plackett-luce").place_probabilities({"rating": r}, [0, 1, 2])
    # Brute force: place of each player under every worst-first order (section 3.2.2).
    expected = np.zeros((3, 3))
    for order in itertools.permutations(range(3)):
        p = order_probability(r, list(order))
        for position, player in enumerate(order):
            expected[player, 2 - position] += p
    assert probs == pytest.approx(expected, abs=1e-12)


def test_default_learning_rate_is_the_seed_tuned_value() -> None:
    assert create("plackett-luce").params.eta == 0.32  # Kerby 2025, section 5, first table
