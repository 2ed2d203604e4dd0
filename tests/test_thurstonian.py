"""The Thurstonian (Gaussian) model against Kerby 2025, sections 3.1.2, 3.2.3 and 4.

Sources:

- Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
- Thurstone, "A law of comparative judgment", 1927.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import integrate, special, stats

from ratings import create
from ratings.base import GameView
from ratings.systems.thurstonian import (
    _event,
    _order,
    _order_log,
    grid_plan,
    order_log_likelihood,
    thurstonian_gradient,
)


def gradient(ratings: list[float], ranks: list[int], dnf: list[bool] | None = None) -> np.ndarray:
    n = len(ratings)
    return thurstonian_gradient(np.array(ratings, float), np.array(ranks), np.array(dnf or [False] * n))


def test_three_equal_ratings_order_probability_is_one_sixth() -> None:
    # By symmetry every one of the 3! orders of i.i.d. performances is equally likely.
    log_lik, grad = order_log_likelihood([0.4, 0.4, 0.4], [2, 0, 1])
    assert log_lik == pytest.approx(math.log(1 / 6), abs=1e-7)
    assert np.sum(grad) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(("r1", "r2"), [(0.0, 0.0), (0.8, -0.3), (-2.5, 1.0), (3.0, -3.0)])
def test_two_players_is_section_3_1_2(r1: float, r2: float) -> None:
    # Player 1 wins: P = Phi(d / sqrt2), d = r1 - r2; the winner's gradient is
    # phi(d/sqrt2) / (sqrt2 Phi(d/sqrt2)) and the loser's its negative.
    d = (r1 - r2) / math.sqrt(2)
    log_lik, grad = order_log_likelihood([r1, r2], [1, 0])
    assert log_lik == pytest.approx(stats.norm.logcdf(d), abs=1e-7)  # the grid; the game itself uses the closed form
    g = stats.norm.pdf(d) / (math.sqrt(2) * stats.norm.cdf(d))
    assert grad == pytest.approx([g, -g], abs=1e-7)
    system = create("thurstonian", eta=0.26)
    state = {"rating": np.array([r1, r2])}
    system._play(state, GameView(0, np.arange(2), np.array([0, 1]), np.zeros(2, bool), None))
    assert state["rating"] == pytest.approx([r1 + 0.26 * g, r2 - 0.26 * g], abs=1e-9)


def test_gradient_matches_central_differences_of_its_log_likelihood() -> None:
    rng = np.random.default_rng(17)
    for n, k in ((4, 0), (6, 2), (7, 3)):
        r = rng.normal(0, 1, n)
        perm = rng.permutation(n)
        finishers, dnf = perm[k:], perm[:k]
        _, grad = order_log_likelihood(r, finishers, dnf, step=0.025)
        eps = 1e-5
        numeric = [
            (
                order_log_likelihood(r + e, finishers, dnf, step=0.025)[0]
                - order_log_likelihood(r - e, finishers, dnf, step=0.025)[0]
            )
            / (2 * eps)
            for e in np.eye(n) * eps
        ]
        assert grad == pytest.approx(numeric, abs=1e-7)


def test_log_likelihood_against_monte_carlo() -> None:
    # 1,000,000 seeded samples of N(r, 1) performances; 5 standard errors of tolerance.
    rng = np.random.default_rng(31)
    r = np.array([0.5, -0.2, 0.9, 0.0])
    order = [1, 3, 0, 2]  # worst first
    samples = 1_000_000
    x = r + rng.standard_normal((samples, 4))
    hits = np.all(np.diff(x[:, order], axis=1) > 0, axis=1).mean()
    p = math.exp(order_log_likelihood(r, order)[0])
    assert p == pytest.approx(hits, abs=5 * math.sqrt(p * (1 - p) / samples))


def test_two_dnfs_equal_ratings_sum_over_their_orders() -> None:
    # Section 4: P(max(X1, X2) < X3 < X4) is the sum of the two uncensored order probabilities;
    # with equal ratings it is 2/24 = 1/12 by symmetry.
    r = [0.0, 0.0, 0.0, 0.0]
    censored = math.exp(order_log_likelihood(r, [2, 3], [0, 1])[0])
    brute = sum(math.exp(order_log_likelihood(r, [a, b, 2, 3])[0]) for a, b in itertools.permutations([0, 1]))
    assert censored == pytest.approx(brute, abs=1e-8)
    assert censored == pytest.approx(1 / 12, abs=1e-7)


def test_censored_likelihood_unequal_ratings_against_enumeration_and_monte_carlo() -> None:
    r = np.array([0.6, -0.4, 1.1, 0.2, -0.8])
    dnf, finishers = [0, 1, 4], [3, 2]
    censored = math.exp(order_log_likelihood(r, finishers, dnf)[0])
    brute = sum(math.exp(order_log_likelihood(r, list(p) + finishers)[0]) for p in itertools.permutations(dnf))
    assert censored == pytest.approx(brute, rel=1e-6)
    rng = np.random.default_rng(8)
    samples = 1_000_000
    x = r + rng.standard_normal((samples, 5))
    hits = ((x[:, dnf].max(axis=1) < x[:, 3]) & (x[:, 3] < x[:, 2])).mean()
    assert censored == pytest.approx(hits, abs=5 * math.sqrt(censored * (1 - censored) / samples))


def test_grid_accuracy_against_a_much_finer_grid() -> None:
    # The planned step against one five times finer (the same rule, whose error is O(h^12)),
    # from 3 to 30 players with up to n-1 DNFs.
    rng = np.random.default_rng(1)
    for n in (3, 5, 8, 12, 18, 24, 30):
        r = rng.normal(0, 1.5, n)
        perm = rng.permutation(n)
        k = int(rng.integers(0, n))
        ours = order_log_likelihood(r, perm[k:], perm[:k])
        step = grid_plan(r, *(_event(perm[k:], perm[:k])))[1]
        fine = order_log_likelihood(r, perm[k:], perm[:k], step=step / 5)
        assert ours[0] == pytest.approx(fine[0], abs=1e-7)
        assert ours[1] == pytest.approx(fine[1], abs=1e-7 * np.abs(fine[1]).max())


def test_scaled_and_logarithmic_computations_agree() -> None:
    # The same discretisation held as scaled values or as logarithms (used where the scaled one
    # would underflow): equal up to rounding.
    r = np.array([0.3, -1.0, 2.0, 0.5, 1.0, -0.2])
    for chain, bottom in (([2, 0, 5, 1], [3, 4]), ([0, 5, 1, 4], [2])):
        c, b = np.array(chain), np.array(bottom)
        lo, step, points, scaled = grid_plan(r, c, b)
        assert scaled
        a = _order(r, c, b, lo, step, points)
        g = _order_log(r, c, b, lo, step, points)
        assert a[2]  # the scaled messages kept their mass
        assert a[0] == pytest.approx(g[0], abs=1e-11)
        assert a[1] == pytest.approx(g[1], abs=1e-11)


def test_extreme_upset_stays_finite() -> None:
    # A very strong player beaten by 20 weak ones: probability far below double precision.
    r = np.array([20.0] + [-20.0] * 20)
    log_lik, grad = order_log_likelihood(r, list(range(21)))
    assert np.isfinite(log_lik) and log_lik < -745  # exp() of it underflows
    # Bounded by the pair probability log P(X_0 < X_1) = log Phi(-40 / sqrt2) (section 3.1.2).
    assert log_lik < stats.norm.logcdf(-40 / math.sqrt(2))
    assert np.all(np.isfinite(grad))
    assert grad[0] < 0


def test_draw_averages_both_results() -> None:
    # Two players sharing a place: the mean of the section 3.1.2 gradients of both orders.
    r1, r2 = 0.7, -0.2
    d = (r1 - r2) / math.sqrt(2)
    win = stats.norm.pdf(d) / (math.sqrt(2) * stats.norm.cdf(d))
    lose = stats.norm.pdf(-d) / (math.sqrt(2) * stats.norm.cdf(-d))
    expected = 0.5 * (win - lose)
    # (a tie goes through the grid, accurate to about 1e-8 here)
    assert gradient([r1, r2], [0, 0]) == pytest.approx([expected, -expected], abs=1e-7)


def test_tie_group_is_the_average_over_its_orderings() -> None:
    r = [0.2, -0.5, 0.9, 0.0, 0.4]
    ranks = [0, 1, 1, 1, 2]
    orders = [[4, *p, 0] for p in itertools.permutations([1, 2, 3])]
    expected = np.mean([order_log_likelihood(r, o)[1] for o in orders], axis=0)
    assert gradient(r, ranks) == pytest.approx(expected, abs=1e-9)


def test_large_tie_group_is_deterministic_symmetric_and_close() -> None:
    # Seven tied players: their 5,040 orderings fit the enumeration bound on this small grid, each through the
    # group's segment of the chain; against every ordering through the strict-order path: 9e-10 (the quadrature).
    rng = np.random.default_rng(4)
    r = list(rng.normal(0, 0.5, 8))
    r[2] = r[6]
    ranks = [0] + [1] * 7
    design = gradient(r, ranks)
    assert np.array_equal(design, gradient(r, ranks))
    assert design[2] == pytest.approx(design[6], abs=1e-12)
    assert np.sum(design) == pytest.approx(0.0, abs=1e-9)
    brute = np.mean(
        [order_log_likelihood(r, [*(1 + np.array(p)), 0])[1] for p in itertools.permutations(range(7))], axis=0
    )
    assert np.abs(design - brute).max() < 1e-8


def test_a_dnf_never_gains() -> None:
    # Kerby 2025, section 6: single-rating models never raise a DNF's rating.
    rng = np.random.default_rng(9)
    for _ in range(5):
        r = list(rng.normal(0, 1.5, 7))
        g = gradient(r, [0, 1, 2, 3, 3, 3, 3], [False, False, False, True, True, True, True])
        assert np.all(g[3:] < 0)


def test_place_probabilities_two_players() -> None:
    probs = create("thurstonian").place_probabilities({"rating": np.array([0.5, -0.5])}, [0, 1])
    # Section 3.1.2: P(first) = Phi(1 / sqrt2); 20,000 Monte Carlo samples, 5 standard errors.
    assert probs[0, 0] == pytest.approx(stats.norm.cdf(1 / math.sqrt(2)), abs=5 * 0.5 / math.sqrt(20_000))


def test_default_learning_rate_is_the_seed_tuned_value() -> None:
    assert create("thurstonian").params.eta == 0.26  # Kerby 2025, section 5, first table


def test_many_tied_pairs_are_close_to_every_joint_ordering() -> None:
    # Eight tied pairs have 2^8 = 256 joint orderings (more than MAX_ROWS): each pair is averaged over both of its
    # orders through its segment, with the other pairs' averaged messages (two sweeps), a deterministic
    # approximation that leaves out how one pair's order moves another's update: 5e-5 here (walking the pairs in
    # step, 0.009), every pair next to the others.
    rng = np.random.default_rng(21)
    r = rng.normal(0, 0.8, 16)
    r[5] = r[4]
    ranks = np.repeat(np.arange(8), 2)
    approx = thurstonian_gradient(r, ranks, np.zeros(16, bool))
    assert np.array_equal(approx, thurstonian_gradient(r, ranks, np.zeros(16, bool)))
    assert approx[4] == pytest.approx(approx[5], abs=1e-12)
    assert np.sum(approx) == pytest.approx(0.0, abs=1e-9)
    pairs = [(2 * k, 2 * k + 1) for k in range(7, -1, -1)]  # worst pair first
    exact = np.mean(
        [
            order_log_likelihood(
                r, [p for (a, b), s in zip(pairs, flips, strict=True) for p in ((b, a) if s else (a, b))]
            )[1]
            for flips in itertools.product([False, True], repeat=8)
        ],
        axis=0,
    )
    assert np.abs(approx - exact).max() < 2e-4


def test_large_game_with_a_large_tie_stays_bounded() -> None:
    # 30 players, ten tied for first: their orderings are sampled (blocks of rotations of shuffles), and the
    # update is still zero-sum, finite, deterministic and symmetric for equally rated tied players.
    rng = np.random.default_rng(6)
    r = rng.normal(0, 1, 30)
    r[3] = r[8]
    ranks = np.array([0] * 10 + list(range(1, 21)))
    g = thurstonian_gradient(r, ranks, np.zeros(30, bool))
    assert np.all(np.isfinite(g))
    assert np.sum(g) == pytest.approx(0.0, abs=1e-9)
    assert g[3] == pytest.approx(g[8], abs=1e-12)
    assert np.array_equal(g, thurstonian_gradient(r, ranks, np.zeros(30, bool)))


def expected_normal_order_statistic(k: int, n: int) -> float:
    """E of the k-th smallest of n standard normals, by adaptive quadrature of its density
    ``n! / ((k-1)! (n-k)!) Phi(x)^(k-1) (1 - Phi(x))^(n-k) phi(x)`` (David and Nagaraja,
    *Order Statistics*, 2003, eq. 2.1.6): independent of the model's grid and messages."""
    log_c = special.gammaln(n + 1) - special.gammaln(k) - special.gammaln(n - k + 1)

    def integrand(x: float) -> float:
        log_density = log_c + (k - 1) * special.log_ndtr(x) + (n - k) * special.log_ndtr(-x) - 0.5 * x * x
        return x * math.exp(log_density - 0.5 * math.log(2 * math.pi))

    # The density is a spike of width about 1 / sqrt(n) in a crowd: the quadrature is told where (Blom's
    # approximation of its location, Blom 1958), else it can miss it and return 0.
    near = stats.norm.ppf((k - 0.375) / (n + 0.25))
    points = (near - 0.5, near, near + 0.5)
    return integrate.quad(integrand, -12.0, 12.0, points=points, limit=400, epsabs=1e-13, epsrel=1e-12)[0]


@pytest.mark.parametrize(("n", "bound", "log_bound"), [(64, 1e-6, 1e-6), (256, 1e-6, 1e-6), (1000, 1e-5, 1e-4)])
def test_a_crowd_of_equal_ratings_moves_by_the_expected_normal_order_statistics(
    n: int, bound: float, log_bound: float
) -> None:
    # Equal ratings r: given the order, the performances are the order statistics of n standard
    # normals about r, so the gradient E[X_k | order] - r_k is the k-th expected order statistic.
    # 256 players overflowed the quadrature on the calibrated step (its last sum came out negative);
    # 1,000 players' gradient was 4e24 before the grid's cost bound stopped widening the step past the
    # crowd's stability limit (the module docstring states the bounds: 1e-6 up to 256, 1e-5 at 1,000).
    r = np.full(n, 0.3)
    log_lik, grad = order_log_likelihood(r, np.arange(n))
    assert log_lik == pytest.approx(-special.gammaln(n + 1), abs=log_bound)  # every order equally likely
    for k in (1, 2, n // 4, n // 2, n - 1, n):
        assert grad[k - 1] == pytest.approx(expected_normal_order_statistic(k, n), abs=bound)


@pytest.mark.slow
def test_a_crowd_of_4096_moves_by_the_expected_normal_order_statistics() -> None:
    # The compiled kernel's tilted messages (ratings/kernels/thurstonian.py, _crowd): a first game of 4,096
    # new players, so every rating is equal and each update is eta times the expected normal order statistic
    # of the player's place (David and Nagaraja eq. 2.1.6, by adaptive quadrature above).  The per-game
    # reference refuses a grid this large; measured within 1.5e-5 (the winner's; the rest within 1.4e-7).
    from ratings.history import Entry, Game, GameHistory

    n = 4096
    system = create("thurstonian")
    history = GameHistory([Game("g", tuple(Entry(f"p{q}", q + 1) for q in range(n)))])
    run = system.rate(history)
    change = (run.after - run.before) / system.params.eta
    assert np.all(np.isfinite(change))
    assert np.sum(change) == pytest.approx(0.0, abs=1e-8)
    for k in (1, 2, n // 4, n // 2, n - 1, n):  # the k-th smallest performance: place n + 1 - k
        assert change[n - k] == pytest.approx(expected_normal_order_statistic(k, n), abs=3e-5)


def test_a_256_player_game_with_a_tie_replays() -> None:
    rng = np.random.default_rng(9)
    ranks = np.concatenate([[0, 0], np.arange(1, 255)])  # the two winners tie
    r = rng.normal(0.0, 0.5, 256)
    g = thurstonian_gradient(r, ranks, np.zeros(256, bool))
    assert np.all(np.isfinite(g))
    assert np.sum(g) == pytest.approx(0.0, abs=1e-9)


def test_a_large_group_of_equal_ratings_is_the_probability_of_its_block() -> None:
    # Six tied players of equal rating g between two players below (a < b) and two above (c < d): every ordering
    # of the group is equally likely and the per-ordering gradients only permute the group, so the average over
    # the orderings (here all 720, each through the group's segment of the chain) is the gradient of the log of
    # P(X_a < X_b < every X_i of the group < X_c < X_d), the probability that six independent normals occupy the
    # block of places between b and c.  That probability is a double integral over x_b < x_c, computed here by
    # scipy's adaptive quadrature with each derivative taken under the integral (independent of the grid):
    #     P = int int phi(x_b - r_b) Phi(x_b - r_a) (Phi(x_c - g) - Phi(x_b - g))^6 phi(x_c - r_c) Phi(r_d - x_c).
    # (Phi is scipy's special.ndtr and phi written out: the same functions as stats.norm's, without its per-call
    # argument handling, which made this test 75 s of the suite.)
    ra, rb, g, rc, rd = -0.4, 0.3, 0.1, 0.5, -0.2
    k = 6
    cdf = special.ndtr

    def pdf(x: float) -> float:
        return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)

    def integral(factor: Callable[[float, float, float], float]) -> float:
        def f(xc: float, xb: float) -> float:
            block = cdf(xc - g) - cdf(xb - g)
            base = pdf(xb - rb) * pdf(xc - rc) * cdf(rd - xc)
            return base * factor(xb, xc, block)

        return integrate.dblquad(f, -12.0, 12.0, lambda xb: xb, 12.0, epsabs=1e-15, epsrel=1e-11)[0]

    p = integral(lambda xb, xc, block: cdf(xb - ra) * block**k)
    expected = {
        "a": integral(lambda xb, xc, block: -pdf(xb - ra) * block**k) / p,
        "b": integral(lambda xb, xc, block: (xb - rb) * cdf(xb - ra) * block**k) / p,
        "c": integral(lambda xb, xc, block: (xc - rc) * cdf(xb - ra) * block**k) / p,
        "d": integral(lambda xb, xc, block: pdf(rd - xc) / cdf(rd - xc) * cdf(xb - ra) * block**k) / p,
        "member": integral(lambda xb, xc, block: -(pdf(xc - g) - pdf(xb - g)) * cdf(xb - ra) * block ** (k - 1))
        / p,  # d/dg of block^6 is 6 block^5 (...): each of the six members' share is one sixth of it
    }
    r = [ra, rb, *[g] * k, rc, rd]
    ranks = [4, 3, *[2] * k, 1, 0]
    got = gradient(r, ranks)
    assert got[0] == pytest.approx(expected["a"], abs=1e-6)
    assert got[1] == pytest.approx(expected["b"], abs=1e-6)
    assert got[2 + k] == pytest.approx(expected["c"], abs=1e-6)
    assert got[3 + k] == pytest.approx(expected["d"], abs=1e-6)
    assert got[2 : 2 + k] == pytest.approx([expected["member"]] * k, abs=1e-6)


def test_a_large_group_design_covers_every_position_evenly() -> None:
    # The design of a group of m: rotations of its rating order and their reverses.  Every player's mean position
    # is the middle; with m rotations (2 m orderings) every player holds every position twice.
    from ratings.systems._orders import design_ordering, design_size

    base = [4, 9, 1, 7, 3, 8, 0]
    m = len(base)
    for samples in (2, 6, 14, 120):
        rows = [design_ordering(base, t, samples) for t in range(design_size(samples))]
        assert all(sorted(row) == sorted(base) for row in rows)
        positions = {p: [row.index(p) for row in rows] for p in base}
        assert all(np.mean(v) == pytest.approx((m - 1) / 2, abs=1e-12) for v in positions.values())
    rows = [design_ordering(base, t, 2 * m) for t in range(2 * m)]
    assert all(sorted(row.index(p) for row in rows) == sorted(list(range(m)) * 2) for p in base)


def test_small_tie_groups_far_apart_are_close_to_every_joint_ordering() -> None:
    # 150 players (a row budget of two orders): three tied pairs and a triple, each through its segment with the
    # others' averaged messages, instead of their 48 joint orderings.  What that leaves out is how one group's
    # ordering changes another's update: measured 4.9e-12 on the tied players, 4e-10 on all (walking the groups in
    # step: 1.4e-6), against updates of up to 2.6.
    rng = np.random.default_rng(5)
    n = 150
    r = rng.normal(0, 1, n)
    places = np.empty(n, dtype=int)
    places[np.argsort(-(r + rng.normal(0, 1, n)))] = np.arange(n)
    ranks = places.copy()
    for p in (20, 60, 100):
        ranks[places == p + 1] = p
    ranks[(places == 131) | (places == 132)] = 130
    groups = [np.flatnonzero(ranks == p) for p in sorted(set(ranks.tolist()), reverse=True)]
    exact = np.mean(
        [
            order_log_likelihood(r, [q for part in combo for q in part])[1]
            for combo in itertools.product(*[list(itertools.permutations(g.tolist())) for g in groups])
        ],
        axis=0,
    )
    walked = thurstonian_gradient(r, ranks, np.zeros(n, bool))
    assert np.abs(walked - exact).max() < 1e-8


@pytest.mark.slow
def test_a_contest_of_4096_with_its_ties_is_computed_in_the_kernel() -> None:
    # benchmarks/contests.py's first contest of 4,096 (at scale 0.005): 110 tied pairs, 4 triples and 123 tied last.
    # The per-game reference refuses a grid this large; the kernel passes each group through its segment on its tilted
    # crowd messages: every update finite, and zero-sum (each coincidence is added to one player and taken from
    # another, the one between two groups given one value).
    import importlib
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    history = importlib.import_module("contests").contests_history(0.005, max_size=4096)
    from ratings.history import GameHistory

    game = next(game for game in history.games if len(game.entries) >= 4096)
    places = np.array([e.place for e in game.entries])
    assert np.bincount(places)[places.max()] > 100
    system = create("thurstonian")
    calls: list[int] = []
    play = system._play
    system._play = lambda state, game: (calls.append(game.index), play(state, game))  # type: ignore[method-assign]
    run = system.rate(GameHistory([game]))
    assert calls == []
    change = run.after - run.before
    assert np.all(np.isfinite(change))
    assert np.sum(change) == pytest.approx(0.0, abs=1e-8)
    assert np.abs(change).max() > 0.1
