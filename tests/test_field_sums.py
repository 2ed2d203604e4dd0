"""The Elo family's large-field kernels (ratings.kernels.elo) against exact double sums.

From ``FIELD_PANEL_MIN`` players multiplayer Elo's expected scores and logistic pairwise Elo's pair probabilities come
from a Chebyshev interpolant of the field sum ``F(x) = sum_j 1 / (1 + exp(scale (r_j - x)))`` on panels, and the
actual scores from rank counts.  The references are independent of that code:

- ``F`` itself against ``math.fsum`` (correctly rounded) of the terms (scipy's ``expit``), at the panels' Chebyshev
  nodes and at the players' ratings;
- the gradients against the per-game reference path (:mod:`ratings.systems.multielo`,
  :mod:`ratings.systems.pairwise`: numpy's double sum over every pair), and at 10,000 and 20,000 players, where that
  path's ``n x n`` matrices would take 1-3 GB, against the same formulas (Cunningham 2021, eq. 4; Kerby 2025, section
  3.1.1) summed in blocks of rows.

Tolerances.  The interpolant errs by at most ``1.1e-15 n`` (``n`` sources: the bound of
``ratings.kernels.numerics.PANEL_DEGREE`` with ``|F| <= n`` in the strip, ``logistic_field_sums``), the sources
counted as 0 or 1 beyond its reach by ``4.3e-17`` each; summing ``n`` terms one by one (the reference, and the
kernel at the nodes) rounds by about ``sqrt(n)`` ulps of ``F`` in practice.  ``F`` is held to ``1e-13 n``.  A
multiplayer Elo gradient ``(n - 1)(S - E / (n (n - 1) / 2))`` moves by ``2 / n`` times an error in ``E``, so
``1e-13 n`` in ``F`` is ``2e-13`` in the gradient: held to ``1e-12``, and to ``1e-14`` of its size (a few
roundings: with the exponential score function the winner's gradient is in the thousands).  A pairwise sum moves
by the error of ``F`` (twice for a DNF, who takes the DNFs' own sum off everyone's): held to ``1e-12 n``
(``1e-12 n / (n - 1)`` when averaged).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numba import njit
from scipy import special

from ratings import Entry, Game, GameHistory, create
from ratings.kernels import elo
from ratings.kernels.elo import FIELD_PANEL_MIN
from ratings.kernels.numerics import CHEBYSHEV_NODES
from ratings.systems.multielo import MultiElo, actual_scores, censor_last
from ratings.systems.pairwise import pair_scores, pairwise_gradient
from tests.gradients import MULTIELO, PAIRWISE, call_gradient
from tests.test_kernels import assert_agree


@njit
def field_sums(points: np.ndarray, sources: np.ndarray, scale: float) -> tuple[np.ndarray, int]:
    """:func:`ratings.kernels.elo.logistic_field_sums` called from compiled code, as the kernels call it: the sums
    and the number of panels interpolated."""
    out = np.empty(len(points))
    built = elo.logistic_field_sums(points, sources, scale, out)
    return out, built


def contest_ratings(rng: np.random.Generator, n: int, spread: float, centre: float = 1000.0) -> np.ndarray:
    """Ratings spread as multiplayer Elo's are after the whole contests history (benchmarks/contests.py at scale 1,
    K 32: a standard deviation of 97 between 330 and 1,780) with ``spread`` that standard deviation, 3% of them
    anywhere in a range eight times as wide, and some equal ratings (new players)."""
    r = rng.normal(centre, spread, n)
    outliers = rng.random(n) < 0.03
    r[outliers] = rng.uniform(centre - 4 * spread, centre + 4 * spread, outliers.sum())
    r[rng.random(n) < 0.05] = centre
    return r


def contest_ranks(rng: np.random.Generator, n: int, dnf_share: float) -> tuple[np.ndarray, np.ndarray]:
    """Dense ranks (0 best) with tie groups of two or three and more, and ``dnf_share`` of the field sharing the
    rank below every finisher (as the replay passes them)."""
    finishers = n - int(dnf_share * n)
    places = np.sort(rng.integers(0, int(0.8 * finishers) + 1, finishers))
    ranks = np.unique(places, return_inverse=True)[1].astype(np.int64)
    ranks = np.concatenate([ranks, np.full(n - finishers, ranks.max() + 1, dtype=np.int64)])
    order = rng.permutation(n)
    dnf = np.arange(n) >= finishers
    return ranks[order], dnf[order]


def exact_field_sum(x: float, sources: np.ndarray, scale: float) -> float:
    return math.fsum(special.expit(scale * (x - sources)))


@pytest.mark.parametrize(
    ("n", "spread", "scale"),
    [(2000, 97.0, math.log(10.0) / 400.0), (20_000, 97.0, math.log(10.0) / 400.0), (3000, 2.0, 1.0)],
)
def test_field_sum_matches_fsum_at_nodes_and_ratings(n: int, spread: float, scale: float) -> None:
    """``F`` at every panel's Chebyshev nodes (the points its interpolant is built from) and at 300 of the
    ratings (interpolated), against ``math.fsum`` of the exact terms: within ``1e-13 n``."""
    rng = np.random.default_rng(n)
    r = contest_ratings(rng, n, spread, 0.0 if scale == 1.0 else 1000.0)
    width = 0.5 * math.pi / scale  # the panels of logistic_field_sums: from the lowest point, this wide
    lo = r.min()
    n_panels = int((r.max() - lo) / width) + 1
    nodes = np.concatenate([lo + (p + 0.5) * width + 0.5 * width * CHEBYSHEV_NODES for p in range(n_panels)])
    nodes = nodes[(nodes >= lo) & (nodes <= r.max())]
    sample = rng.choice(n, 300, replace=False)
    points = np.concatenate([r, nodes])
    got, built = field_sums(points, r, scale)
    assert built > 0
    for i in list(sample) + list(range(n, len(points))):
        assert abs(got[i] - exact_field_sum(points[i], r, scale)) <= 1e-13 * n


@pytest.mark.parametrize(("n", "spread", "interpolated"), [(20_000, 320.0, True), (3000, 3000.0, False)])
def test_field_sum_of_spread_ratings(n: int, spread: float, interpolated: bool) -> None:
    """Ratings on the natural scale spread as logistic pairwise Elo's (sum variant) are after the contests history
    (a standard deviation of 320): panels far apart, each summing its neighbourhood and counting the sources
    beyond; spread evenly over 6,000 units, no panel holds enough points to be interpolated, and each point sums
    the terms of its neighbourhood one by one."""
    rng = np.random.default_rng(int(spread))
    r = contest_ratings(rng, n, spread, 0.0) if interpolated else rng.uniform(-spread, spread, n)
    got, built = field_sums(r, r, 1.0)
    assert (built > 0) == interpolated
    for i in rng.choice(n, 200, replace=False):
        assert abs(got[i] - exact_field_sum(r[i], r, 1.0)) <= 1e-13 * n


def test_field_sum_sums_every_pair_when_the_panels_outnumber_the_ratings() -> None:
    rng = np.random.default_rng(5)
    r = rng.uniform(-1e5, 1e5, 400)
    got, built = field_sums(r, r, 1.0)
    assert built == 0
    for i in range(0, 400, 7):
        assert abs(got[i] - exact_field_sum(r[i], r, 1.0)) <= 1e-13 * 400


def multielo_kernel(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, d: float, base: float, censored: bool) -> Any:
    out = np.empty(len(r))
    call_gradient(MULTIELO, r, ranks, dnf, np.array([d, base, 1.0 if censored else 0.0]), out)
    return out


@pytest.mark.parametrize(("n", "spread"), [(3000, 97.0), (2000, 400.0)])
@pytest.mark.parametrize("base", [1.0, 1.6])
@pytest.mark.parametrize("censored", [False, True])
def test_multielo_kernel_matches_the_reference_path(n: int, base: float, censored: bool, spread: float) -> None:
    assert n >= FIELD_PANEL_MIN
    rng = np.random.default_rng([n, int(spread), int(censored)])
    r = contest_ratings(rng, n, spread)
    ranks, dnf = contest_ranks(rng, n, 0.03)
    system = MultiElo(d=300.0, base=base, dummy=1000.0 if censored else None)
    expected = system._gradient(r, ranks, dnf)
    got = multielo_kernel(r, ranks, dnf, 300.0, base, censored)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-12)


def blocked_multielo(r: np.ndarray, ranks: np.ndarray, d: float, base: float, censored: bool) -> np.ndarray:
    """Cunningham 2021, eq. 4 summed over every pair in blocks of 500 rows, then the reference path's actual scores
    (and censoring): the reference path without its ``n x n`` matrix."""
    n = len(r)
    expected = np.empty(n)
    for start in range(0, n, 500):
        block = slice(start, start + 500)
        terms = 1.0 / (1.0 + np.exp((r[None, :] - r[block, None]) * (math.log(10.0) / d)))
        expected[block] = terms.sum(axis=1) - 0.5  # the diagonal term is exactly 1/2
    expected /= n * (n - 1) / 2
    actual = actual_scores(ranks, base)
    if censored:
        actual = censor_last(actual, expected, ranks)
    return (n - 1) * (actual - expected)


def test_multielo_kernel_at_20000_players() -> None:
    rng = np.random.default_rng(20_000)
    r = contest_ratings(rng, 20_000, 97.0)
    ranks, dnf = contest_ranks(rng, 20_000, 0.03)
    got = multielo_kernel(r, ranks, dnf, 400.0, 1.0, True)
    np.testing.assert_allclose(got, blocked_multielo(r, ranks, 400.0, 1.0, True), rtol=1e-14, atol=1e-12)


def test_multielo_kernel_counts_ranks_that_are_not_dense() -> None:
    """Ranks spanning more than twice the field (never from the replay): counted pair by pair, the same scores."""
    rng = np.random.default_rng(3)
    r = contest_ratings(rng, 500, 97.0)
    ranks = np.sort(rng.choice(100_000, 500, replace=False)).astype(np.int64)
    ranks[10:14] = ranks[10]
    dnf = np.zeros(500, dtype=bool)
    expected = MultiElo()._gradient(r, ranks, dnf)
    np.testing.assert_allclose(multielo_kernel(r, ranks, dnf, 400.0, 1.0, False), expected, rtol=0.0, atol=1e-12)


AVERAGES = {("sum", "all"): 0.0, ("average", "all"): elo.AVERAGE, ("average", "compared"): elo.COMPARED}


def pairwise_kernel(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, variant: str, over: str) -> Any:
    out = np.empty(len(r))
    call_gradient(PAIRWISE, r, ranks, dnf, np.array([0.0, AVERAGES[variant, over]]), out)
    return out


@pytest.mark.parametrize(("n", "dnf_share"), [(2000, 0.0), (3000, 0.03), (2000, 0.5)])
@pytest.mark.parametrize(("variant", "over"), list(AVERAGES))
def test_logistic_pairwise_kernel_matches_the_reference_path(n: int, variant: str, over: str, dnf_share: float) -> None:
    """Ties, DNFs (none, a few, half the field: their pairs with each other unobserved), ratings on the natural
    scale spread over several panels."""
    rng = np.random.default_rng([n, int(100 * dnf_share)])
    r = contest_ratings(rng, n, 1.5, 0.0)
    ranks, dnf = contest_ranks(rng, n, dnf_share)
    expected = pairwise_gradient(r, ranks, dnf, variant=variant, average_over=over)
    tolerance = 1e-12 * n / (n - 1 if variant == "average" else 1)
    np.testing.assert_allclose(pairwise_kernel(r, ranks, dnf, variant, over), expected, rtol=0.0, atol=tolerance)


def test_logistic_pairwise_kernel_with_the_censored_worst_group() -> None:
    """The censored dummy marks every player of the worst rank (finishers tied last and the dummy) as a DNF."""
    rng = np.random.default_rng(8)
    r = contest_ratings(rng, 2500, 1.5, 0.0)
    ranks, _ = contest_ranks(rng, 2500, 0.1)
    dnf = ranks == ranks.max()
    expected = pairwise_gradient(r, ranks, dnf)
    np.testing.assert_allclose(pairwise_kernel(r, ranks, dnf, "sum", "all"), expected, rtol=0.0, atol=1e-12 * 2500)


def test_logistic_pairwise_kernel_at_10000_players() -> None:
    """Kerby 2025, section 3.1.1 over every observed pair, in blocks of 500 rows."""
    n = 10_000
    rng = np.random.default_rng(n + 1)
    r = contest_ratings(rng, n, 1.5, 0.0)
    ranks, dnf = contest_ranks(rng, n, 0.05)
    expected = np.empty(n)
    for start in range(0, n, 500):
        rows = np.arange(start, min(start + 500, n))
        scores = np.where(ranks[rows, None] < ranks[None, :], 1.0, np.where(ranks[rows, None] == ranks, 0.5, 0.0))
        observed = ~(dnf[rows, None] & dnf[None, :])
        observed[np.arange(len(rows)), rows] = False
        terms = scores - 1.0 / (1.0 + np.exp(r[None, :] - r[rows, None]))
        expected[rows] = np.where(observed, terms, 0.0).sum(axis=1)
    np.testing.assert_allclose(pairwise_kernel(r, ranks, dnf, "sum", "all"), expected, rtol=0.0, atol=1e-12 * n)


def test_pair_scores_of_the_blocked_reference_are_the_reference_paths() -> None:
    """The blocked reference's scores and observed pairs are those of ratings.systems.pairwise.pair_scores."""
    rng = np.random.default_rng(9)
    ranks, dnf = contest_ranks(rng, 60, 0.2)
    scores, observed = pair_scores(ranks, dnf)
    mine = np.where(ranks[:, None] < ranks[None, :], 1.0, np.where(ranks[:, None] == ranks, 0.5, 0.0))
    mask = ~(dnf[:, None] & dnf[None, :])
    np.fill_diagonal(mask, False)
    assert (scores == mine).all()
    assert (observed == mask).all()


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("multielo", {"dummy": 950.0}),
        ("multielo", {"base": 1.6}),
        ("pairwise-elo", {"dummy": -0.5}),
        ("pairwise-elo", {"variant": "average", "average_over": "compared"}),
    ],
)
def test_rate_of_large_contests_agrees_with_the_per_game_path(name: str, params: dict[str, Any]) -> None:
    """Three contests of 2,500 entrants (ties, DNFs, returning players): the compiled replay through the field sums
    against the per-game reference path, every rating before and after, to 1e-9 (tests/test_kernels.py)."""
    rng = np.random.default_rng(31)
    games = []
    for g in range(3):
        players = rng.choice(3000, size=2500, replace=False)
        ranks, dnf = contest_ranks(rng, 2500, 0.04)
        entries = tuple(
            Entry(f"p{q}", None if out else int(rank) + 1) for q, rank, out in zip(players, ranks, dnf, strict=True)
        )
        games.append(Game(f"g{g}", entries))
    assert_agree(create(name, **params), GameHistory(games))
