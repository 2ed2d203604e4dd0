"""Scalar special functions for compiled kernels, matching :mod:`ratings.numerics` (scipy) to rounding.

numba compiles ``math.erfc`` and ``math.exp`` but not scipy's special functions, so the few
the kernels need are written here on top of them and tested against scipy:

- ``ndtr(x) = erfc(-x / sqrt 2) / 2``, the standard normal distribution function, with
  ``erf`` near zero as in Cephes (Moshier, *Methods and Programs for Mathematical Functions*,
  1989), which scipy's ``special.ndtr`` uses;
- ``log_ndtr``: ``log1p(-Phi(-x))`` above zero, ``log Phi(x)`` down to -20, and
  below ``x = -20`` the asymptotic series of Abramowitz and Stegun 26.2.12,
  ``Phi(x) = phi(x) / (-x) * sum_k (-1)^k (2k-1)!! / x^(2k)``;
- ``mills_ratio(x) = phi(x) / Phi(x)`` and ``expit`` (the logistic function);
- ``logaddexp`` as numpy's ``npy_logaddexp`` and ``log_sum_exp`` of an array, shifted by its maximum;
- ``erfcx_tail``, the scaled complementary error function for large arguments;
- ``interp``, numpy's ``interp`` of one point (written out: numba's generic version takes seconds to compile);
- ``team_means``, a team game's weighted means per team, in the reference path's order of operations;
- ``chebyshev_interpolate``, the interpolant of degree :data:`PANEL_DEGREE` in Chebyshev points on a panel, by which
  Elo-MMR's tanh sum (:func:`ratings.kernels.elo_mmr.panel_sums`) and the Elo family's logistic field sum
  (:func:`ratings.kernels.elo.logistic_field_sums`) cost about ``n`` per panel instead of ``n`` per point.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.jit import helper

__all__ = [
    "CHEBYSHEV_NODES",
    "ERFCX_TAIL_MIN",
    "LOG_SQRT_2PI",
    "PANEL_DEGREE",
    "SQRT2",
    "chebyshev_interpolate",
    "erfcx_tail",
    "expit",
    "idle_days",
    "interp",
    "log_ndtr",
    "log_sum_exp",
    "logaddexp",
    "mills_ratio",
    "ndtr",
    "team_means",
]

SQRT2 = math.sqrt(2.0)
SQRT1_2 = math.sqrt(0.5)
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: Terms of the lower-tail series; at x = -20 the next term is below 1e-17 of the sum.
_SERIES_TERMS = 12


@helper
def ndtr(x: float) -> float:
    """Standard normal distribution function Phi(x)."""
    z = x * SQRT1_2
    if abs(z) < SQRT1_2:
        return 0.5 + 0.5 * math.erf(z)
    y = 0.5 * math.erfc(abs(z))
    return 1.0 - y if z > 0 else y


@helper
def log_ndtr(x: float) -> float:
    """log Phi(x), accurate far into the lower tail."""
    if x > 0.0:
        return math.log1p(-ndtr(-x))
    if x > -20.0:
        return math.log(ndtr(x))
    inv2 = 1.0 / (x * x)
    total = 1.0
    term = 1.0
    for k in range(1, _SERIES_TERMS + 1):
        term *= -(2 * k - 1) * inv2
        total += term
    return -0.5 * x * x - math.log(-x) - LOG_SQRT_2PI + math.log(total)


@helper
def mills_ratio(x: float) -> float:
    """phi(x) / Phi(x) without underflow (tends to -x as x -> -inf)."""
    return math.exp(-0.5 * x * x - LOG_SQRT_2PI - log_ndtr(x))


@helper
def expit(x: float) -> float:
    """The logistic function 1 / (1 + exp(-x)), 0 or 1 instead of overflowing."""
    if x < -745.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


@helper
def logaddexp(x: float, y: float) -> float:
    """log(e^x + e^y) without overflow (numpy's rule: equal arguments give x + log 2)."""
    if x == y:
        return x + math.log(2.0)
    d = x - y
    if d > 0:
        return x + math.log1p(math.exp(-d))
    if d <= 0:
        return y + math.log1p(math.exp(d))
    return d  # NaN


@helper
def log_sum_exp(values: np.ndarray) -> float:
    """log(sum(exp(values))), shifted by the maximum; -inf when every value is -inf."""
    top = -np.inf
    for v in values:
        top = max(top, v)
    if not math.isfinite(top):
        top = 0.0
    total = 0.0
    for v in values:
        total += math.exp(v - top)
    return -math.inf if total == 0.0 else top + math.log(total)


#: Terms of the asymptotic series of erfcx; below ERFCX_TAIL_MIN it would not reach full precision.
_ERFCX_TERMS = 20
ERFCX_TAIL_MIN = 26.0


@helper
def erfcx_tail(y: float) -> float:
    """The scaled complementary error function e^(y^2) erfc(y) for y >= 26 (asymptotic series).

    Abramowitz and Stegun 7.1.23: ``sqrt(pi) y e^(y^2) erfc(y) ~ 1 + sum_k (-1)^k (2k-1)!! / (2y^2)^k``;
    at y = 26 the terms shrink by at least 40/1352 each, so twenty reach the last bit.
    """
    inv = 1.0 / (2.0 * y * y)
    total = 1.0
    term = 1.0
    for k in range(1, _ERFCX_TERMS + 1):
        term *= -(2 * k - 1) * inv
        total += term
    return total / (y * math.sqrt(math.pi))


@helper
def interp(x: float, knots: np.ndarray, values: np.ndarray) -> float:
    """Piecewise-linear through ``(knots, values)``, constant beyond the ends, as ``numpy.interp``."""
    last = len(knots) - 1
    if x >= knots[last]:
        return values[last] if x == x else x  # NaN stays NaN
    if x <= knots[0]:
        return values[0] if x == x else x
    j = 0
    while knots[j + 1] <= x:
        j += 1
    slope = (values[j + 1] - values[j]) / (knots[j + 1] - knots[j])
    return slope * (x - knots[j]) + values[j]


@helper
def idle_days(last_day: np.ndarray, p: int, today: float) -> float:
    """Days from player ``p``'s previous dated game to ``today``, never negative, 0 before the first; records
    ``today`` as the last (:func:`ratings.base.idle_days`, one player)."""
    last = last_day[p]
    last_day[p] = today
    return 0.0 if np.isnan(last) else max(today - last, 0.0)


@helper
def largest_game(offsets: np.ndarray) -> int:
    """The most players in one game of a history's flat ``offsets`` (at least 1): the size of a kernel's work arrays."""
    largest = 1
    for game in range(len(offsets) - 1):
        largest = max(largest, offsets[game + 1] - offsets[game])
    return largest


@helper
def team_means(
    s: int,
    n: int,
    team: np.ndarray,
    weight: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    mean_a: np.ndarray,
    mean_b: np.ndarray,
    total: np.ndarray,
    rank: np.ndarray,
    fail: np.ndarray,
) -> int:
    """The weighted means of the per-entry values ``a`` and ``b`` over each team of the game of entries ``s`` to
    ``s + n`` (into ``mean_a``, ``mean_b``; ``total``: each team's summed weight), each team's rank and
    did-not-finish state; returns the team count.

    Sums in entry order and then one division, as ``ratings.systems._teams.strength(..., "mean")`` (numpy's
    ``bincount``) computes them; ``a`` and ``b`` are indexed from 0 for the game's first entry.
    """
    count = 0
    for i in range(n):
        count = max(count, team[s + i] + 1)
    for t in range(count):
        mean_a[t] = 0.0
        mean_b[t] = 0.0
        total[t] = 0.0
    for i in range(n):
        t = team[s + i]
        mean_a[t] += weight[s + i] * a[i]
        mean_b[t] += weight[s + i] * b[i]
        total[t] += weight[s + i]
        rank[t] = ranks[s + i]
        fail[t] = dnf[s + i]
    for t in range(count):
        mean_a[t] = mean_a[t] / total[t]
        mean_b[t] = mean_b[t] / total[t]
    return count


#: Degree of the Chebyshev interpolants on panels.  A function analytic and bounded by ``M`` in the strip
#: ``|Im z| <= 2a`` around a panel of half-width ``a`` is analytic in that panel's Bernstein ellipse of semi-minor
#: axis ``2a`` (``rho = 2 + sqrt(5)``); by Trefethen, *Approximation Theory and Approximation Practice* (2013),
#: Theorem 8.2, its interpolant in the ``N + 1`` Chebyshev points then errs by at most ``4 M rho^-N / (rho - 1)``:
#: with ``N = 24``, ``1.1e-15 M``.  The barycentric formula adds a few roundings of ``M`` (Higham, "The numerical
#: stability of barycentric Lagrange interpolation", IMA J. Numer. Anal. 24, 2004: forward stable in these points).
PANEL_DEGREE = 24
#: Chebyshev points of the second kind on [-1, 1], ``cos(k pi / PANEL_DEGREE)``.
CHEBYSHEV_NODES = np.cos(np.arange(PANEL_DEGREE + 1) * math.pi / PANEL_DEGREE)


@helper
def chebyshev_interpolate(u: float, values: np.ndarray, p: int) -> float:
    """The interpolant through ``values[p, k]`` at ``CHEBYSHEV_NODES[k]``, at ``u`` in [-1, 1], by the
    barycentric formula of the second kind (weights ``(-1)^k``, halved at the ends: Berrut and Trefethen,
    "Barycentric Lagrange interpolation", SIAM Review 46, 2004, eq. 5.2); at a node, its value."""
    num = 0.0
    den = 0.0
    for k in range(PANEL_DEGREE + 1):
        d = u - CHEBYSHEV_NODES[k]
        if d == 0.0:
            return values[p, k]
        w = (0.5 if k == 0 or k == PANEL_DEGREE else 1.0) / d
        if k % 2 == 1:
            w = -w
        num += w * values[p, k]
        den += w
    return num / den
