"""Gradient kernel of Kerby's Gaussian (Thurstonian) model, the compiled twin of
:func:`ratings.systems.thurstonian.thurstonian_gradient` on its main path: Thurstone's case V
order likelihood integrated on a grid by forward-backward messages (Rabiner 1989's scaling),
Gregory's corrected trapezoid rule and Romberg's extrapolation over steps h and 2h, censored
DNFs, and the closed form of a two-player game (see that module for the derivation).

Tied finishers are averaged over every ordering of their groups, as the reference does while
the orderings are few enough to enumerate (groups of at most
:data:`ratings.systems._orders.EXACT_GROUP`, and at most its row budget of orderings in all).
Declined (replayed through the per-game hooks): games with more orderings than that (the
reference samples a fixed-seed design) and games whose ratings spread over more than
:data:`ratings.systems.thurstonian.SCALED_SPREAD` (the reference's fully logarithmic path).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ratings.kernels.numerics import LOG_SQRT_2PI, SQRT2, log_ndtr, mills_ratio
from ratings.kernels.plackett_luce import finishers_worst_first
from ratings.systems._orders import EXACT_GROUP, MAX_ROWS, SAME_RATING
from ratings.systems.thurstonian import (
    EXTENT,
    LEVELS,
    MAX_POINTS,
    MAX_SPREAD,
    ROW_BUDGET,
    SCALED_SPREAD,
    STAGE_STEP,
    STEP,
)

__all__ = ["thurstonian_gradient"]

#: Romberg weights of the corrected trapezoid for steps h and 2h (its error starts at h^4).
_ROMBERG = (16.0 / 15.0, -1.0 / 15.0)


@njit(cache=True)
def _gregory(v: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
    """Cumulative corrected trapezoid in units of h/24: ``13 (S_j + S_{j-1}) - (S_{j+1} + S_{j-2})``."""
    g = len(v)
    s[0] = 0.0
    s[1] = 0.0
    total = 0.0
    for j in range(g):
        total += v[j]
        s[j + 2] = total
    s[g + 2] = s[g + 1]
    for j in range(g):
        out[j] = -s[j] + 13.0 * s[j + 1] + 13.0 * s[j + 2] - s[j + 3]


@njit(cache=True)
def _pdf(z: float) -> float:
    return math.exp((z * z) * -0.5 - LOG_SQRT_2PI)


@njit(cache=True)
def _level(r: np.ndarray, fin: np.ndarray, dnf: np.ndarray, x: np.ndarray, weight: float, out: np.ndarray) -> None:
    """Add ``weight`` times the exact gradient of the discretised log-likelihood on the grid ``x``."""
    g = len(x)
    censored = len(fin) < len(r)
    chain = fin if censored else fin[1:]
    m = len(chain)
    log_a0 = np.zeros(g)
    for j in range(g):
        if censored:
            for d in range(len(r)):
                if dnf[d]:
                    log_a0[j] += log_ndtr(x[j] - r[d])
        else:
            log_a0[j] = log_ndtr(x[j] - r[fin[0]])
    u = np.empty((m, g))
    for i in range(m):
        for j in range(g):
            u[i, j] = _pdf(x[j] - r[chain[i]])
    top = log_a0.max()
    forward = np.empty((m, g))
    backward = np.empty((m, g))  # in reversed grid order, stage by stage from the top
    for j in range(g):
        forward[0, j] = math.exp(log_a0[j] - top)
        backward[0, j] = 1.0
    product = np.empty(g)
    running = np.empty(g + 3)
    a = np.empty(g)
    for k in range(1, m):
        for j in range(g):
            product[j] = forward[k - 1, j] * u[k - 1, j]
        _gregory(product, running, a)
        for j in range(g):
            forward[k, j] = a[j] / a[g - 1]
        for j in range(g):
            product[j] = backward[k - 1, j] * u[m - k, g - 1 - j]
        _gregory(product, running, a)
        for j in range(g):
            backward[k, j] = a[j] / a[g - 1]
    for i in range(m):
        mass = 0.0
        first = 0.0
        for j in range(g):
            post = forward[i, j] * backward[m - 1 - i, g - 1 - j] * u[i, j]
            mass += post
            first += post * x[j]
        out[chain[i]] += weight * (first / mass - r[chain[i]])
        if i == 0:  # the bottom: every DNF, or the last finisher
            for b in range(len(r)):
                if (censored and dnf[b]) or (not censored and b == fin[0]):
                    total = 0.0
                    for j in range(g):
                        z = x[j] - r[b]
                        post = forward[0, j] * backward[m - 1, g - 1 - j] * u[0, j]
                        total += math.exp((z * z) * -0.5 - LOG_SQRT_2PI - log_ndtr(z)) * post
                    out[b] -= weight * total / mass


@njit(cache=True)
def _next_permutation(a: np.ndarray, lo: int, hi: int) -> bool:
    """Advance ``a[lo:hi]`` to its next lexicographic permutation; at the last, sort it back and return False."""
    i = hi - 2
    while i >= lo and a[i] >= a[i + 1]:
        i -= 1
    if i >= lo:
        j = hi - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
    left, right = i + 1, hi - 1
    while left < right:
        a[left], a[right] = a[right], a[left]
        left += 1
        right -= 1
    return i >= lo


@njit(cache=True)
def thurstonian_gradient(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> bool:
    """The update direction of one game; False for a game the kernel declines (see the module docstring)."""
    out[:] = 0.0
    fin = finishers_worst_first(ranks, dnf)
    if len(fin) == 0:
        return True
    spread = r.max() - r.min()
    if not spread <= MAX_SPREAD:  # diverging ratings (also NaN): the per-game replay reports it
        out[:] = math.nan
        return True
    if spread > SCALED_SPREAD:
        return False
    n = len(r)
    step = max(min(STEP, STAGE_STEP / max(n - 1, 1)), (spread + 2 * EXTENT) * n * LEVELS / MAX_POINTS)
    # Tied groups (start positions in fin) and the number of orderings to average over.
    starts = np.empty(len(fin) + 1, dtype=np.int64)
    groups = 0
    orderings = 1
    for i in range(len(fin)):
        if i == 0 or ranks[fin[i]] != ranks[fin[i - 1]]:
            starts[groups] = i
            groups += 1
        size = i + 1 - starts[groups - 1]
        if size > EXACT_GROUP:
            return False
        if size > 1:
            orderings *= size  # a group of size m has m! orderings
    starts[groups] = len(fin)
    if orderings > 1:
        grid = (spread + 2 * EXTENT) / step
        if orderings > int(min(max(ROW_BUDGET / (n * grid), 2.0), MAX_ROWS)):
            return False
    elif n == 2 and len(fin) == 2:  # Thurstone's case V in closed form
        d = (r[fin[1]] - r[fin[0]]) / SQRT2
        gain = mills_ratio(d) / SQRT2
        out[fin[1]] = gain
        out[fin[0]] = -gain
        return True
    lo = r.min() - EXTENT
    span = r.max() + EXTENT - lo
    cells = int(math.ceil(span / (step * 2))) * 2
    order = fin.copy()
    for level in range(LEVELS):
        x = np.empty((cells >> level) + 1)
        for j in range(len(x)):
            x[j] = lo + step * (j << level)
        while True:  # every ordering of every tied group, odometer-wise (each group starts in index order)
            _level(r, order, dnf, x, _ROMBERG[level] / orderings, out)
            k = groups - 1
            while k >= 0 and not _next_permutation(order, starts[k], starts[k + 1]):
                k -= 1
            if k < 0:
                break
    if orderings > 1:
        _equalise_ties(r, order, starts[: groups + 1], out)
    return True


@njit(cache=True)
def _equalise_ties(r: np.ndarray, order: np.ndarray, starts: np.ndarray, out: np.ndarray) -> None:
    """Give tied players with equal ratings the mean of their updates (the rule of
    :func:`ratings.systems._orders.symmetrize`, which the reference applies to its sampled designs).

    The exact average over orderings is symmetric in them already; summed in another order it can
    differ in the last bit, which a later sampled design would amplify.
    """
    means = out.copy()
    for k in range(len(starts) - 1):
        members = order[starts[k] : starts[k + 1]]
        if len(members) < 2:
            continue
        ranked = members.copy()  # by rating, stably (an insertion sort: groups have at most EXACT_GROUP)
        for a in range(1, len(ranked)):
            b = a
            while b > 0 and r[ranked[b - 1]] > r[ranked[b]]:
                ranked[b - 1], ranked[b] = ranked[b], ranked[b - 1]
                b -= 1
        start = 0
        for j in range(1, len(ranked) + 1):
            if j == len(ranked) or r[ranked[j]] - r[ranked[start]] > SAME_RATING:
                total = 0.0
                for b in range(start, j):
                    total += out[ranked[b]]
                for b in range(start, j):
                    means[ranked[b]] = total / (j - start)
                start = j
    out[:] = means
