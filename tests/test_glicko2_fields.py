"""Glicko-2's large-field sums (ratings.kernels.glicko2) against exact sums of the terms.

From ``FIELD_PANEL_MIN`` players a game without teams takes Glickman's step-3 and step-4 sums ("Example of the
Glicko-2 system", 2013) over every other player, ``sum_j g_j^2 E_j (1 - E_j)`` and ``sum_j g_j (s_j - E_j)``, from
Chebyshev interpolants of the field functions ``A`` and ``B`` on panels (:func:`glicko_field_sums`) and the scores
from sums per rank.  The references are independent of that code:

- ``A`` and ``B`` against ``math.fsum`` (correctly rounded) of the terms (scipy's ``expit``), at players' ratings,
  at points across every panel and at ratings spread too wide for panels;
- each player's sums, match count and score total against the same formulas summed pair by pair with ``math.fsum``,
  with ties and DNFs (two DNFs play no match);
- a whole history with large games against the system's per-game reference path (``rate_per_game``:
  :func:`ratings.systems.glicko2.glicko2_period` on numpy arrays of each player's opponents).

Tolerances.  The interpolant errs by at most ``1.1e-15 n`` (``n`` sources, each term at most 1 in the strip:
``glicko_field_sums``), and ``n`` terms summed one by one round by about ``sqrt(n)`` ulps: the sums are held to
``1e-13 n``.  A history's ratings move by ``phi'^2`` times an error of the gain (``phi' <= 2``) and compound over
games: held to ``1e-6`` Glicko points (measured: 3.4e-9 after eight games of up to 1,000 players), far inside the
whole points the page shows.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest
from numba import njit
from scipy import special

from ratings import Entry, Game, GameHistory, create
from ratings.kernels import glicko2 as kernel
from ratings.kernels.glicko2 import FIELD_PANEL_MIN, PANEL_WIDTH


@njit
def field_sums(points: np.ndarray, mu: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`ratings.kernels.glicko2.glicko_field_sums` called from compiled code, as the replay calls it."""
    a = np.empty(len(points))
    b = np.empty(len(points))
    built = kernel.glicko_field_sums(points, mu, g, a, b)
    return a, b, built


@njit
def field_matches(
    ranks: np.ndarray, dnf: np.ndarray, mu: np.ndarray, phi: np.ndarray
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = len(mu)
    inv_v, gain, matches, total = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    done = kernel._field_matches(ranks, dnf, mu, phi, inv_v, gain, matches, total)
    return done, inv_v, gain, matches, total


def g_of(phi: np.ndarray) -> np.ndarray:
    """Glickman's step 3: ``g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)``."""
    return 1.0 / np.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)


def contest_field(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Ratings and deviations (Glicko-2 scale) as after a long contests history: ratings of standard deviation 1.2
    clamped to the default bounds (+-6.045), 3% anywhere between them, 5% new players (rating 0, deviation 2.015);
    deviations between the lowest (0.175) and a new player's."""
    mu = np.clip(rng.normal(0.0, 1.2, n), -6.045, 6.045)
    outliers = rng.random(n) < 0.03
    mu[outliers] = rng.uniform(-6.045, 6.045, outliers.sum())
    phi = rng.uniform(0.175, 1.2, n)
    new = rng.random(n) < 0.05
    mu[new] = 0.0
    phi[new] = 2.015
    return mu, phi


def contest_ranks(rng: np.random.Generator, n: int, dnf_share: float) -> tuple[np.ndarray, np.ndarray]:
    """Dense ranks (0 best) with tie groups, and ``dnf_share`` of the field sharing the rank below every finisher
    (as the replay passes them)."""
    finishers = n - int(dnf_share * n)
    places = np.sort(rng.integers(0, int(0.8 * finishers) + 1, finishers))
    ranks = np.unique(places, return_inverse=True)[1].astype(np.int64)
    ranks = np.concatenate([ranks, np.full(n - finishers, ranks.max() + 1, dtype=np.int64)])
    order = rng.permutation(n)
    return ranks[order], (np.arange(n) >= finishers)[order]


def exact_a_b(x: float, mu: np.ndarray, g: np.ndarray) -> tuple[float, float]:
    e = special.expit(g * (x - mu))
    return math.fsum(g * g * e * (1.0 - e)), math.fsum(g * e)


@pytest.mark.parametrize("n", [2_000, 4_096, 20_000])
def test_field_sums_equal_the_exact_sums(n: int) -> None:
    rng = np.random.default_rng(n)
    mu, phi = contest_field(rng, n)
    g = g_of(phi)
    # the players' own ratings (a sample of them at 20,000) and points across every panel of the field's span
    sample = mu[rng.choice(n, min(n, 400), replace=False)]
    across = np.linspace(mu.min(), mu.max(), 300)
    points = np.concatenate([sample, across])
    a, b, built = field_sums(points, mu, g)
    assert built >= int((mu.max() - mu.min()) / PANEL_WIDTH) - 1  # the panels were interpolated, not skipped
    for x, got_a, got_b in zip(points, a, b, strict=True):
        want_a, want_b = exact_a_b(x, mu, g)
        assert got_a == pytest.approx(want_a, abs=1e-13 * n)
        assert got_b == pytest.approx(want_b, abs=1e-13 * n)


def test_a_spread_too_wide_for_panels_and_a_sparse_panel_sum_every_term() -> None:
    rng = np.random.default_rng(5)
    mu = rng.uniform(-1e4, 1e4, 40)  # far more panels than four times the values: every pair summed
    g = g_of(rng.uniform(0.2, 2.0, 40))
    points = np.concatenate([mu, [mu[0] + 0.3]])
    a, b, built = field_sums(points, mu, g)
    assert built == 0
    for x, got_a, got_b in zip(points, a, b, strict=True):
        want_a, want_b = exact_a_b(x, mu, g)
        assert got_a == pytest.approx(want_a, rel=1e-14, abs=1e-300)
        assert got_b == pytest.approx(want_b, rel=1e-14, abs=1e-300)
    few = np.array([0.1, 0.2, 5.0])  # three points: no panel holds PANEL_COST of them
    a, b, built = field_sums(few, mu[:10] * 1e-4, g[:10])
    assert built == 0
    for x, got_a in zip(few, a, strict=True):
        assert got_a == pytest.approx(exact_a_b(x, mu[:10] * 1e-4, g[:10])[0], rel=1e-14)


def exact_matches(
    i: int, ranks: np.ndarray, dnf: np.ndarray, mu: np.ndarray, phi: np.ndarray
) -> tuple[float, float, int, float]:
    """Player ``i``'s step-3 and step-4 sums, match count and score total, pair by pair."""
    others = np.array([j for j in range(len(mu)) if j != i and not (dnf[i] and dnf[j])], dtype=np.int64)
    g = g_of(phi[others])
    e = special.expit(g * (mu[i] - mu[others]))
    s = np.where(ranks[i] < ranks[others], 1.0, np.where(ranks[i] == ranks[others], 0.5, 0.0))
    return math.fsum(g * g * e * (1.0 - e)), math.fsum(g * (s - e)), len(others), math.fsum(s)


@pytest.mark.parametrize(("n", "dnf_share"), [(FIELD_PANEL_MIN, 0.1), (2_000, 0.03), (4_096, 0.0), (20_000, 0.03)])
def test_each_players_sums_equal_the_pair_by_pair_sums(n: int, dnf_share: float) -> None:
    rng = np.random.default_rng(n + 1)
    mu, phi = contest_field(rng, n)
    ranks, dnf = contest_ranks(rng, n, dnf_share)
    done, inv_v, gain, matches, total = field_matches(ranks, dnf, mu, phi)
    assert done
    checked = range(n) if n <= 2_000 else rng.choice(n, 300, replace=False)
    checked = sorted({*checked, *np.flatnonzero(dnf)[:20]})
    for i in checked:
        want_inv_v, want_gain, want_matches, want_total = exact_matches(i, ranks, dnf, mu, phi)
        assert inv_v[i] == pytest.approx(want_inv_v, abs=1e-13 * n), i
        assert gain[i] == pytest.approx(want_gain, abs=2e-13 * n), i
        assert (matches[i], total[i]) == (want_matches, want_total), i


def test_ranks_spread_beyond_twice_the_field_are_left_to_the_pair_sums() -> None:
    n = 100
    ranks = np.arange(n, dtype=np.int64) * 3  # not dense: the replay never passes these
    done, *_ = field_matches(ranks, np.zeros(n, dtype=np.bool_), np.zeros(n), np.full(n, 1.0))
    assert not done


def contests(rng: np.random.Generator, sizes: list[int], pool: int) -> GameHistory:
    """Games of the given sizes among ``pool`` players, places with ties and a few DNFs, a day apart."""
    games = []
    for k, size in enumerate(sizes):
        players = rng.choice(pool, size, replace=False)
        places = rng.integers(1, max(2, int(0.8 * size)), size)
        entries = [
            Entry(f"p{p}", None if rng.random() < 0.03 else int(place))
            for p, place in zip(players, places, strict=True)
        ]
        games.append(Game(f"c{k}", tuple(entries), dt.date(2024, 1, 1) + dt.timedelta(days=k)))
    return GameHistory(games)


def test_a_history_of_large_games_equals_the_per_game_reference() -> None:
    rng = np.random.default_rng(11)
    history = contests(rng, [300, 5, 1_000, 80, FIELD_PANEL_MIN, 600, 3, 1_000], pool=1_500)
    system = create("glicko2")
    fast = system.rate(history)
    slow = system.rate_per_game(history)
    assert fast.players == slow.players
    np.testing.assert_allclose(fast.final, slow.final, rtol=0, atol=1e-6)
    for name, values in fast.final_extras.items():  # rating, deviation, volatility, Rank Points
        np.testing.assert_allclose(values, slow.final_extras[name], rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", ["everyone tied", "everyone a DNF", "two far outliers"])
def test_degenerate_large_games_equal_the_pair_by_pair_sums(case: str) -> None:
    """A game where every pair draws, one where nobody finished (no pair plays a match), and one whose two players
    sit 60 and 75 units from a tight field (panels across the gap would be mostly empty)."""
    n = 300
    rng = np.random.default_rng(7)
    mu, phi = rng.normal(0.0, 0.3, n), rng.uniform(0.175, 1.2, n)
    ranks, dnf = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.bool_)
    if case == "everyone a DNF":
        dnf[:] = True
    elif case == "two far outliers":
        ranks = rng.permutation(n).astype(np.int64)
        mu[:2] = (60.0, -75.0)
    done, inv_v, gain, matches, total = field_matches(ranks, dnf, mu, phi)
    assert done  # the field sums took the game (none of these is left to the pair sums)
    for i in range(n):
        want_inv_v, want_gain, want_matches, want_total = exact_matches(i, ranks, dnf, mu, phi)
        assert inv_v[i] == pytest.approx(want_inv_v, abs=1e-13 * n), i
        assert gain[i] == pytest.approx(want_gain, abs=2e-13 * n), i
        assert (matches[i], total[i]) == (want_matches, want_total), i
    # the game's whole update from new players' ratings (the replay's own path) against the per-game reference
    names = [f"p{i}" for i in range(n)]
    entries = tuple(Entry(name, None if dnf[i] else int(ranks[i]) + 1) for i, name in enumerate(names))
    history = GameHistory([Game("g", entries, dt.date(2024, 1, 1))])
    system = create("glicko2")
    np.testing.assert_allclose(system.rate(history).final, system.rate_per_game(history).final, rtol=0, atol=1e-6)
