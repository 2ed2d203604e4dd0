"""The Gaussian pair model's large-field sums (ratings.kernels.gaussian_pairs) against exact pair sums.

From ``GAUSSIAN_FIELD_MIN`` players :func:`ratings.kernels.elo.pairwise_gradient` takes the Gaussian model's
rank-restricted sums from Chebyshev panels and far levels (:func:`ratings.kernels.gaussian_pairs.gaussian_pair_sums`).
The references are independent of that code:

- the pair term ``g(d) = phi(d / sqrt 2) / (sqrt 2 Phi(d / sqrt 2)) = 1 / (sqrt(pi) erfcx(-d / 2))`` from scipy's
  ``erfcx`` (without the cancellation of ``phi / Phi`` on large upsets), every pair of Kerby 2025, section 3.1.2
  summed in blocks of rows by numpy (pairwise summation: an error of a few ``eps log2(n)`` of the sum of absolute
  terms);
- the whole replay against the per-game reference path (:mod:`ratings.systems.pairwise`, numpy's double sum).

Tolerance: each player's sum within ``1e-12`` of its sum of absolute pair terms (``|S w| + |(1 - S) l|`` over its
compared pairs, the size of the roundings of summing the pairs one by one), divided like the sum for the averaged
variants; a sum of absolute terms below ``1e-300`` (every term subnormal or underflowing) is held to ``1e-300``.
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
from ratings.kernels.elo import GAUSSIAN, GAUSSIAN_FIELD_MIN
from ratings.kernels.gaussian_pairs import gaussian_pair_sums, win_term
from ratings.systems.pairwise import GAUSSIAN_MAX_SPREAD
from tests.gradients import PAIRWISE, call_gradient
from tests.test_kernels import assert_agree

VARIANTS = {"sum": 0.0, "average": elo.AVERAGE, "compared": elo.COMPARED}


@njit
def win_terms(d: np.ndarray) -> np.ndarray:
    out = np.empty(len(d))
    for k in range(len(d)):
        out[k] = win_term(d[k])
    return out


@njit
def field_sums(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> tuple[np.ndarray, bool]:
    """:func:`gaussian_pair_sums` called from compiled code, as the kernel calls it."""
    out = np.zeros(len(r))
    done = gaussian_pair_sums(r, ranks, dnf, out)
    return out, done


def exact_g(d: np.ndarray) -> np.ndarray:
    """``g(d) = 1 / (sqrt(pi) erfcx(-d / 2))`` from scipy (Faddeeva's ``erfcx``, which takes ``2 exp(x^2) - erfcx(-x)``
    for a negative argument: no cancellation either way); 0 from ``d = 53`` on, where ``g < 1e-300``."""
    with np.errstate(over="ignore"):
        return 1.0 / (math.sqrt(math.pi) * special.erfcx(-0.5 * d))


def exact_sums(
    r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, players: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The summed pair updates and sums of absolute pair terms of ``players`` (default: everyone), each over every
    pair it is compared in, in blocks of 400 players."""
    chosen = np.arange(len(r)) if players is None else players
    total = np.empty(len(chosen))
    size = np.empty(len(chosen))
    for start in range(0, len(chosen), 400):
        block = slice(start, min(start + 400, len(chosen)))
        rows = chosen[block]
        scores = np.where(ranks[rows, None] < ranks[None, :], 1.0, np.where(ranks[rows, None] == ranks, 0.5, 0.0))
        observed = ~(dnf[rows, None] & dnf[None, :])
        observed[np.arange(len(rows)), rows] = False
        d = r[rows, None] - r[None, :]
        wins = np.where(observed, scores * exact_g(d), 0.0)
        losses = np.where(observed, (1.0 - scores) * exact_g(-d), 0.0)
        total[block] = wins.sum(axis=1) - losses.sum(axis=1)
        size[block] = wins.sum(axis=1) + losses.sum(axis=1)
    return total, size


def divisors(ranks: np.ndarray, variant: str) -> np.ndarray:
    n = len(ranks)
    if variant == "sum":
        return np.ones(n)
    if variant == "average":
        return np.full(n, n - 1.0)
    _, inverse, counts = np.unique(ranks, return_inverse=True, return_counts=True)
    compared = n - counts[inverse]
    return np.where(compared > 0, compared, n - 1).astype(float)


def game(
    rng: np.random.Generator, n: int, spread: float, noise: float, dnf_share: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings of standard deviation ``spread`` (3% anywhere in a range eight times as wide, 5% equal: new
    players), places by rating plus normal noise of ``noise`` (``inf``: places at random) with tie groups, and
    ``dnf_share`` of the field sharing the rank below every finisher."""
    r = rng.normal(0.0, spread, n)
    outliers = rng.random(n) < 0.03
    r[outliers] = rng.uniform(-4 * spread, 4 * spread, outliers.sum())
    r[rng.random(n) < 0.05] = 0.0
    performance = rng.random(n) if math.isinf(noise) else r + rng.normal(0.0, noise, n)
    order = np.argsort(-performance)
    finishers = n - int(dnf_share * n)
    places = np.sort(rng.integers(0, int(0.8 * finishers) + 1, finishers))  # ties: equal draws share a place
    ranks = np.empty(n, dtype=np.int64)
    ranks[order[:finishers]] = np.unique(places, return_inverse=True)[1]
    ranks[order[finishers:]] = ranks[order[:finishers]].max() + 1
    dnf = np.zeros(n, dtype=bool)
    dnf[order[finishers:]] = True
    return r, ranks, dnf


def assert_matches_exact(
    r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, variant: str, players: np.ndarray | None = None
) -> None:
    """The kernel's sum of every player (or of ``players`` only) within the tolerance of the module docstring.

    Ratings spread over more than :data:`GAUSSIAN_MAX_SPREAD` (a replay's updates diverged) are refused by
    the gradient (every value NaN, which stops the replay with a ComputationError); the sums
    :func:`gaussian_pair_sums` gives for them are checked as the gradient would divide them."""
    got = np.empty(len(r))
    call_gradient(PAIRWISE, r, ranks, dnf, np.array([GAUSSIAN, VARIANTS[variant]]), got)
    if np.ptp(r) > GAUSSIAN_MAX_SPREAD:
        assert np.isnan(got).all()
        sums, done = field_sums(r, ranks, dnf)
        assert done
        got = sums / divisors(ranks, variant)
    chosen = np.arange(len(r)) if players is None else players
    total, size = exact_sums(r, ranks, dnf, chosen)
    divisor = divisors(ranks, variant)[chosen]
    error = np.abs(got[chosen] - total / divisor)
    bound = np.maximum(1e-12 * size, 1e-300) / divisor
    worst = int(np.argmax(error / bound))
    assert error[worst] <= bound[worst], (chosen[worst], got[chosen[worst]], total[worst] / divisor[worst], size[worst])


def test_win_term_against_scipy() -> None:
    """``g`` within 2e-13 of scipy's from the largest upsets to ``d = 52`` (``g = 1e-294``, near the underflow),
    and of ``phi / Phi`` by scipy's ``ndtr`` on the expected side (where ``Phi(d / sqrt 2)`` lies in [1/2, 1]).
    Where the reference path's ``phi / Phi`` takes the exponential of a quantity of size ``d^2 / 4``, that
    quantity's rounding is ``d^2 eps / 4`` of the term, at most ``7.5e-14`` here; beyond ``d = -52`` gaussian_pairs
    sums the ``erfcx`` series instead (at ``d = -1,000``, ``phi / Phi`` would lose ``3e-11``)."""
    d = np.concatenate([-np.geomspace(1e-3, 5e3, 400), np.linspace(-52.0, 52.0, 1041)])
    np.testing.assert_allclose(win_terms(d), exact_g(d), rtol=2e-13, atol=0.0)
    expected = d[d > 0.0]
    by_ndtr = np.exp(-0.25 * expected**2) / (2.0 * math.sqrt(math.pi) * special.ndtr(expected / math.sqrt(2.0)))
    np.testing.assert_allclose(win_terms(expected), by_ndtr, rtol=2e-13, atol=0.0)


@pytest.mark.parametrize(
    ("n", "spread", "noise", "dnf_share"),
    [
        (GAUSSIAN_FIELD_MIN, 0.01, 0.01, 0.0),
        (2000, 0.01, 0.01, 0.5),
        (2500, 1.5, 1.0, 0.03),
        (1000, 1.5, math.inf, 0.2),
        (3000, 30.0, 3.0, 0.1),
        (2000, 300.0, 30.0, 0.03),
        (2000, 300.0, math.inf, 0.0),
        (1500, 1000.0, 5.0, 0.3),
        (GAUSSIAN_FIELD_MIN, 1000.0, math.inf, 0.5),
    ],
)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sums_match_exact_pair_sums(n: int, spread: float, noise: float, dnf_share: float, variant: str) -> None:
    """Spreads from 0.01 to 1,000 units, places near the ratings' order or at random (upsets at every distance),
    ties, DNF shares 0-50%, every variant."""
    rng = np.random.default_rng([n, int(100 * spread), int(100 * dnf_share)])
    r, ranks, dnf = game(rng, n, spread, noise, dnf_share)
    assert_matches_exact(r, ranks, dnf, variant)


def test_sums_at_20000_players() -> None:
    """A field of 20,000 spread as the summed variant's ratings after a contests history (standard deviation 300).

    Checked on 2,600 of its players against their exact sums (every pair of the whole field; all 20,000 took 19 s
    of CPU): every tenth in rating order, so every stretch of the ratings and of the far levels is met, and the
    100 highest and lowest rated, best and worst placed (the ends of the panels and of the rank order)."""
    rng = np.random.default_rng(20_000)
    r, ranks, dnf = game(rng, 20_000, 300.0, 40.0, 0.03)
    by_rating, by_rank = np.argsort(r, kind="stable"), np.argsort(ranks, kind="stable")
    players = np.unique(
        np.concatenate([by_rating[::10], by_rating[:100], by_rating[-100:], by_rank[:100], by_rank[-100:]])
    )
    assert 2000 < len(players) < 3000
    assert_matches_exact(r, ranks, dnf, "sum", players)


def test_players_far_from_everyone() -> None:
    """Sums made of tiny terms only: a winner 20 and 40 units above the field (``g(20) = 1.1e-44``), a DNF cluster
    30 units below every finisher, a loser far above the field (one large term), and the same field with the
    finishers tied last also counted as DNFs (as the censored dummy marks them)."""
    rng = np.random.default_rng(77)
    r, ranks, dnf = game(rng, 1000, 1.5, 1.0, 0.1)
    r[dnf] = rng.uniform(-35.0, -30.0, dnf.sum())
    best = np.flatnonzero(ranks == ranks.min())[0]
    r[best] = 40.0
    second = np.flatnonzero(ranks == np.unique(ranks)[1])[0]
    r[second] = 20.0
    worst_finisher = np.flatnonzero((ranks == ranks[~dnf].max()) & ~dnf)[0]
    r[worst_finisher] = 60.0
    assert_matches_exact(r, ranks, dnf, "sum")
    assert_matches_exact(r, ranks, ranks >= ranks[~dnf].max(), "average")


def test_sums_every_pair_when_the_panels_outnumber_the_players() -> None:
    """Ratings spread over 200,000 units in a field of 600 (more than 64 panels of 2 a player):
    :func:`gaussian_pair_sums` declines (every pair is summed by the caller), as it does for a rating that is not
    finite."""
    rng = np.random.default_rng(5)
    r, ranks, dnf = game(rng, 600, 1.5, 1.0, 0.0)
    r = rng.uniform(-1e5, 1e5, 600)
    assert not field_sums(r, ranks, dnf)[1]
    r[3] = math.nan
    assert not field_sums(r, ranks, dnf)[1]
    r[3] = 0.0
    assert field_sums(np.clip(r, -100.0, 100.0), ranks, dnf)[1]


@pytest.mark.parametrize(
    "params",
    [
        {"model": "gaussian", "eta": 0.01},
        {"model": "gaussian", "variant": "average", "eta": 0.75},
        {"model": "gaussian", "variant": "average", "average_over": "compared", "dummy": -0.5},
    ],
)
def test_rate_of_large_contests_agrees_with_the_per_game_path(params: dict[str, Any]) -> None:
    """Three contests of 2,500 entrants (ties, DNFs, returning players): the compiled replay through the field sums
    against the per-game reference path, every rating before and after, to 1e-9 (tests/test_kernels.py).  The
    summed variant's learning rate spreads the ratings over thousands of units (2,950 after the third contest):
    at its default 0.07 they reach hundreds of thousands, where the reference path's ``phi / Phi``
    (ratings.numerics.mills_ratio) loses ``d^2 eps / 4``, 1e-8 of a term, and the kernel's (win_term) does not."""
    rng = np.random.default_rng(41)
    games = []
    for g in range(3):
        players = rng.choice(3000, size=2500, replace=False)
        _, ranks, dnf = game(rng, 2500, 1.0, 1.0, 0.04)
        entries = tuple(
            Entry(f"p{q}", None if out else int(rank) + 1) for q, rank, out in zip(players, ranks, dnf, strict=True)
        )
        games.append(Game(f"g{g}", entries))
    assert_agree(create("pairwise-elo", **params), GameHistory(games))
