"""Thurstonian tie groups in crowds (400 players or more) through their segments on the banded crowd's windows
(``ratings.kernels.thurstonian._crowd_segments``).

Sources.  The rule (Kerby 2025, section 4: a tied group's update is the average over its orderings of the strict
order's gradient) is computed here independently of the segments: joint orderings of the groups drawn with numpy's
generator, each through the kernel's strict-order crowd path (``_order``: the banded crowd, checked against the whole
grid in ``test_kernels.py``), averaged.  Where the whole grid still holds a crowd's scaled rows (up to about 650
players), the same segments computed on the whole grid (the kernel's ``_tie_segments`` and the reference's
``tied_gradient``, numpy) are the second check.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from ratings.kernels import thurstonian as kernel
from ratings.kernels.plackett_luce import finishers_worst_first
from ratings.systems._orders import split_game
from ratings.systems.thurstonian import TIE_TOLERANCE, tied_gradient
from tests.gradients import THURSTONIAN, call_gradient


@njit
def _segments(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, banded: bool) -> tuple[bool, np.ndarray, float]:
    """The game's tie groups through their segments: banded (``_crowd_segments``, with its stated half-width) or on
    the whole grid (``_tie_segments``), read from the places as the kernel's gradient reads them."""
    n = len(r)
    fin = finishers_worst_first(ranks, dnf)
    failed, starts = kernel.game_groups(ranks, dnf, fin)
    out = np.zeros(n)
    half = np.zeros(1)
    if banded:
        ok = kernel._crowd_segments(r, fin, failed, starts, np.inf, out, half, kernel._NEGLIGIBLE)
    else:
        ok = kernel._tie_segments(r, fin, failed, starts, out)
    return ok, out, half[0]


def _strict_orders(r: np.ndarray, orders: np.ndarray, failed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and mean square over the rows of ``orders`` (worst-first finishers) of each strict order's gradient,
    through the kernel's strict-order path (a crowd's banded messages): the replay's own gradient (its cached cfunc,
    called through ctypes, as tests/gradients.py does) of the game in which each row is a strict order above the
    DNFs ``failed``, with no bound on the grid (``theta[0]`` infinite), so that it calls ``_order(r, row, failed,
    1.0, out, inf)``, or with no DNF ``_order(r, row[1:], row[:1], 1.0, out, inf)``.  (An @njit function calling
    ``_order`` itself compiled it afresh in this process, 13 s of CPU a run.)"""
    n = len(r)
    total = np.zeros(n)
    squares = np.zeros(n)
    one = np.zeros(n)
    ranks = np.full(n, orders.shape[1], dtype=np.int64)  # the DNFs below every finisher (their rank is not read)
    dnf = np.zeros(n, dtype=np.bool_)
    dnf[failed] = True
    unbounded = np.array([np.inf])
    for t in range(orders.shape[0]):
        ranks[orders[t]] = np.arange(orders.shape[1])[::-1]  # worst first: the last place, 0 the best
        if not call_gradient(THURSTONIAN, r, ranks, dnf, unbounded, one):
            one[:] = np.nan
        total += one
        squares += one * one
    return total / orders.shape[0], squares / orders.shape[0]


def crowd(
    seed: int, n: int, groups: list[tuple[int, int]], dnfs: int = 0, spread: float = 0.7
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings N(0, spread), places from noisy performances, each ``(place, size)`` group tied (place 0 the best), the
    ``dnfs`` last did not finish."""
    rng = np.random.default_rng(seed)
    r = rng.normal(0, spread, n)
    places = np.empty(n, dtype=np.int64)
    places[np.argsort(-(r + rng.normal(0, 1, n)))] = np.arange(n)
    ranks = places.copy()
    for place, size in groups:
        ranks[(places >= place) & (places < place + size)] = place
    return r, ranks, places >= n - dnfs


WHOLE_GRID = [
    pytest.param(7, 420, [(403, 14), (50, 2), (120, 4), (300, 3)], 3, False, id="fourteen-above-three-dnfs"),
    pytest.param(7, 420, [(0, 2), (10, 20), (150, 2)], 0, True, id="twenty-in-the-middle-pair-first"),
    pytest.param(8, 450, [(420, 30), (200, 5), (100, 2)], 0, False, id="thirty-tied-last"),
]


@pytest.mark.parametrize(("seed", "n", "groups", "dnfs", "numpy"), WHOLE_GRID)
def test_a_tied_crowd_banded_is_its_segments_on_the_whole_grid(
    seed: int, n: int, groups: list[tuple[int, int]], dnfs: int, numpy: bool
) -> None:
    # Crowds whose scaled rows the whole grid still holds: the banded segments (each position's tilt fixed by a pass in
    # rating order, rows cut below 1e-30 of their peak) against the same orderings, sweeps and stopping rule on the
    # whole grid (kernel; one case also in numpy, the reference, slower): measured 1e-11 to 1.3e-10 for updates up
    # to 3.3; the stated half-width the same as the reference's.
    r, ranks, dnf = crowd(seed, n, groups, dnfs)
    banded_ok, banded, half = _segments(r, ranks, dnf, True)
    whole_ok, whole, _ = _segments(r, ranks, dnf, False)
    assert banded_ok and whole_ok
    assert np.abs(whole).max() > 1.0
    np.testing.assert_allclose(banded, whole, rtol=0, atol=1e-8)
    assert np.sum(banded) == pytest.approx(0.0, abs=1e-9)
    if numpy:
        reference = tied_gradient(r, split_game(ranks, dnf))
        assert reference is not None
        np.testing.assert_allclose(banded, reference[0], rtol=0, atol=1e-8)
        assert half == pytest.approx(reference[1], rel=1e-6)
        assert half > 0.0


def test_a_tied_crowd_is_within_its_stated_error_of_independent_orderings() -> None:
    # 500 players, a contest's shape: 60 tied just above 4 DNFs, 14 and 25 tied in the field, pairs and a triple.
    # The banded segments against 600 joint orderings drawn with numpy's generator, each through the strict path
    # (about 12 s): every tied player within 4 combined standard errors (ours from its stated half-width, 0.0098; the
    # sampling's up to 0.017), measured 1.5 (2.7 with 2,000 orderings, whose standard error is 0.009); the others
    # within 4 of the sampling's own (measured 2.3e-4 against 5.9e-3); the updates sum to zero.
    n, dnfs = 500, 4
    groups = [(n - dnfs - 60, 60), (300, 14), (150, 25), (60, 2), (80, 3), (250, 2)]
    r, ranks, dnf = crowd(11, n, groups, dnfs)
    ok, banded, bound = _segments(r, ranks, dnf, True)
    assert ok
    assert 0.0 < bound <= TIE_TOLERANCE
    assert np.sum(banded) == pytest.approx(0.0, abs=1e-9)
    split = split_game(ranks, dnf)
    rng = np.random.default_rng(2026)
    samples = 600
    orders = np.array([np.concatenate([rng.permutation(g) for g in split.groups]) for _ in range(samples)])
    mean, square = _strict_orders(r, orders, split.dnf)
    se = np.sqrt(np.maximum(square - mean**2, 0.0) / (samples - 1))
    tied = np.concatenate([g for g in split.groups if len(g) > 1])
    ours = bound / 1.959963984540054  # at most: the bound is Student's quantile (above 1.96) times it
    z = np.abs(banded - mean)[tied] / np.sqrt(ours**2 + se[tied] ** 2)
    assert z.max() < 4.0
    others = np.setdiff1d(np.arange(n), tied)
    assert np.abs(banded - mean)[others].max() < 4.0 * se[others].max() + 1e-3
    assert np.abs(mean[tied]).max() > 1.0  # the tied players' updates are large beside the errors
