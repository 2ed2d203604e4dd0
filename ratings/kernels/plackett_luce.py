"""Gradient kernel of Kerby's exponential (Plackett-Luce) model, the compiled twin of
:func:`ratings.systems.plackett_luce.plackett_luce_gradient` (see that module for the maths:
Plackett 1975 and Luce 1959 for the order likelihood, a censored DNF set integrated by the
trapezoid rule after ``y = e^t``, and ties averaged over their orderings through subset sums).

The finishers' order terms are summed directly on ``lambda = e^-(r - top)`` (``top`` the highest finisher rating)
while the finishers' ratings spread over at most :data:`DIRECT_SPREAD`, in logarithms beyond it: on a history of
games of 4-10 players the log-space sums (two ``log1p(exp())`` per finisher) took most of the replay's time.

Tied groups of up to :data:`ratings.systems.plackett_luce.EXACT_SUBSETS` finishers are averaged
through their subsets, larger ones through the integral of :func:`ratings.systems.plackett_luce.group_integral`
(Gauss-Legendre nodes by Newton's method on the Legendre recurrence, where the reference asks scipy).

``theta = (dnf_order,)``: 0 the joint probability that every DNF finished below every finisher,
:data:`INDEPENDENT` the product of each DNF's own probability (Kerby's published code).
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.jit import helper, inlined
from ratings.kernels.numerics import log_sum_exp, logaddexp
from ratings.systems.plackett_luce import EXACT_SUBSETS, GROUP_T_STEP, MAX_NODES, T_STEP

__all__ = ["INDEPENDENT", "finishers_worst_first", "plackett_luce_gradient"]

#: ``theta[0]`` of :func:`plackett_luce_gradient` for ``dnf_order="independent"``.
INDEPENDENT = 1.0


#: Up to this many entrants a game's finishers are ordered by insertion (no work space, and faster than counting
#: for a few players); beyond it by counting (linear in the field, where insertion grows quadratically).
INSERTION_MAX = 16


@helper
def _worst_first_into(ranks: np.ndarray, dnf: np.ndarray, order: np.ndarray, count: np.ndarray) -> int:
    """Write the indices of the finishers into ``order`` from the worst place to the best, tied players in index
    order, and return how many there are.  ``count`` (``len(ranks) + 1`` integers) is work space for a field larger
    than :data:`INSERTION_MAX`; both sorts are stable, so the order is the same either way."""
    n = len(ranks)
    if n <= INSERTION_MAX:
        f = 0
        for i in range(n):
            if not dnf[i]:
                j = f
                while j > 0 and ranks[order[j - 1]] < ranks[i]:  # worse (larger) ranks first
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = i
                f += 1
        return f
    for r in range(n + 1):
        count[r] = 0
    for i in range(n):
        if not dnf[i]:
            count[n - 1 - min(max(ranks[i], 0), n - 1)] += 1  # worst rank first (dense ranks lie in 0..n-1)
    start = 0
    for r in range(n + 1):
        c = count[r]
        count[r] = start
        start += c
    for i in range(n):
        if not dnf[i]:
            key = n - 1 - min(max(ranks[i], 0), n - 1)
            order[count[key]] = i
            count[key] += 1
    return start


@helper
def finishers_worst_first(ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
    """Indices of the finishers from the worst place to the best, tied players in index order (a new array)."""
    n = len(ranks)
    work = np.empty(2 * n + 1, dtype=np.int64)
    f = _worst_first_into(ranks, dnf, work[:n], work[n:])
    return work[:f]


@helper
def _order_gradient(r: np.ndarray, fin: np.ndarray, out: np.ndarray) -> None:
    """``g_k = -1 + lambda_k sum_{i <= k} 1 / Lambda_i`` along the worst-first order, in log space."""
    k = len(fin)
    log_tail = np.empty(k)
    log_tail[k - 1] = -r[fin[k - 1]]
    for i in range(k - 2, -1, -1):
        log_tail[i] = logaddexp(log_tail[i + 1], -r[fin[i]])
    log_inv = -log_tail[0]
    for i in range(k):
        if i > 0:
            log_inv = logaddexp(log_inv, -log_tail[i])
        out[fin[i]] = -1.0 + math.exp(-r[fin[i]] + log_inv)


#: The widest spread of the finishers' ratings (largest minus smallest) that :func:`_direct_order_gradient` takes:
#: every finisher's ``lambda = e^(top - r)`` then lies in [1, e^600], a sum of ``k`` of them below ``k e^600`` and
#: each ``1 / Lambda_i`` above ``e^-600 / k``, far from overflow (e^709) and from subnormals (e^-708) for any field,
#: so that every sum and quotient keeps full relative precision.
DIRECT_SPREAD = 600.0


@helper
def _direct_order_gradient(lam: np.ndarray, fin: np.ndarray, out: np.ndarray) -> None:
    """:func:`_order_gradient` by direct sums of ``lam`` (``e^-(r - top)``, ``top`` the highest finisher rating: the
    common factor ``e^top`` cancels in ``lambda_k / Lambda_i``), valid while the finishers' spread is at most
    :data:`DIRECT_SPREAD`.  ``out`` first holds each ``1 / Lambda_i`` (tails summed best first, so that no tail
    is a difference of sums), then the gradient."""
    k = len(fin)
    tail = 0.0
    for i in range(k - 1, -1, -1):
        tail += lam[fin[i]]
        out[fin[i]] = 1.0 / tail
    running = 0.0
    for i in range(k):
        running += out[fin[i]]
        out[fin[i]] = -1.0 + lam[fin[i]] * running


@helper
def _binomial(m: int, k: int | np.integer) -> float:
    out = 1.0
    for i in range(1, k + 1):
        out = out * (m - k + i) / i
    return out


@helper
def _subset_sums(
    lam: np.ndarray, fin: np.ndarray, start: int | np.integer, stop: int | np.integer, above: float, own: np.ndarray
) -> float:
    """``own[b] = sum_{S ∋ b} w(S)`` and the return value ``sum_S w(S)`` over the non-empty subsets S of the
    group ``fin[start:stop]``, ``w(S) = 1 / (C(m, |S|) (lambda(S) + above))``, by enumeration."""
    m = stop - start
    factor = 0.0
    for mask in range(1, 1 << m):
        size = np.int64(0)  # not a literal 0, which numba would compile _binomial for once more
        total = above
        for b in range(m):
            if mask >> b & 1:
                size += 1
                total += lam[fin[start + b]]
        weight = 1.0 / _binomial(m, size) / total
        factor += weight
        for b in range(m):
            if mask >> b & 1:
                own[b] += weight
    return factor


@helper
def _legendre_nodes(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights of ``k`` points on [0, 1]: Newton's method on ``P_k`` from the
    Chebyshev-like first guesses ``cos(pi (i + 3/4) / (k + 1/2))`` (Abramowitz and Stegun 25.4.29)."""
    x = np.empty(k)
    w = np.empty(k)
    for i in range((k + 1) // 2):
        z = math.cos(math.pi * (i + 0.75) / (k + 0.5))
        dp = 1.0
        for _ in range(100):
            p0 = 1.0
            p1 = 0.0
            for j in range(k):  # P_{j+1} = ((2j+1) z P_j - j P_{j-1}) / (j+1)
                p2 = p1
                p1 = p0
                p0 = ((2.0 * j + 1.0) * z * p1 - j * p2) / (j + 1.0)
            dp = k * (z * p0 - p1) / (z * z - 1.0)
            step = p0 / dp
            z -= step
            if abs(step) < 1e-15:
                break
        weight = 2.0 / ((1.0 - z * z) * dp * dp)
        x[i] = 0.5 * (1.0 - z)
        x[k - 1 - i] = 0.5 * (1.0 + z)
        w[i] = w[k - 1 - i] = 0.5 * weight
    return x, w


@helper
def _group_integral(
    lam: np.ndarray, fin: np.ndarray, start: int | np.integer, stop: int | np.integer, above: float, own: np.ndarray
) -> float:
    """:func:`_subset_sums` by the integral of :func:`ratings.systems.plackett_luce.group_integral`."""
    m = stop - start
    u, wu = _legendre_nodes(m // 2 + 1)
    total = above
    smallest = math.inf
    for b in range(m):
        total += lam[fin[start + b]]
        smallest = min(smallest, lam[fin[start + b]])
    t_lo = -math.log(total) - 37.0
    t_hi = math.log(60.0 / (above + smallest))
    if not (t_hi - t_lo) / GROUP_T_STEP <= MAX_NODES:  # diverging ratings (also NaN): the per-game replay reports it
        own[:] = math.nan
        return math.nan
    nodes = int(math.floor((t_hi - t_lo) / GROUP_T_STEP)) + 1
    x = np.empty((nodes, m))
    jacobian = np.empty(nodes)
    for q in range(nodes):
        y = math.exp(t_lo + q * GROUP_T_STEP)
        jacobian[q] = GROUP_T_STEP * y * math.exp(-above * y)
        for b in range(m):
            x[q, b] = math.exp(-lam[fin[start + b]] * y)
    factor = 0.0
    for k in range(len(u)):
        uk = u[k]
        empty = (1.0 - uk) ** m
        part = 0.0
        for q in range(nodes):
            product = 1.0
            for b in range(m):
                product *= 1.0 - uk + uk * x[q, b]
            part += jacobian[q] * (product - empty)
            scale = wu[k] * uk * jacobian[q] * product
            for b in range(m):
                own[b] += scale * x[q, b] / (1.0 - uk + uk * x[q, b])
        factor += wu[k] * part
    for b in range(m):
        own[b] *= m + 1
    return (m + 1) * factor


@helper
def _tie_correction(
    lam: np.ndarray, fin: np.ndarray, start: int | np.integer, stop: int | np.integer, out: np.ndarray
) -> None:
    """Replace the positional terms of the tied group ``fin[start:stop]`` by their average over its orderings.

    The average over all m! orderings is a sum over the non-empty subsets S of the group,
    weighted ``1 / C(m, |S|)``; the terms of the one order already counted are taken away.
    """
    m = stop - start
    above = 0.0
    for i in range(stop, len(fin)):
        above += lam[fin[i]]
    own = np.zeros(m)
    if m > EXACT_SUBSETS:
        factor = _group_integral(lam, fin, start, stop, above, own)
    else:
        factor = _subset_sums(lam, fin, start, stop, above, own)
    # The counted order (worst first, index order): position t keeps members t..m-1.
    suffix = above
    base = np.empty(m)
    for t in range(m - 1, -1, -1):
        suffix += lam[fin[start + t]]
        base[t] = 1.0 / suffix
    cumulative = 0.0
    factor_base = 0.0
    for b in range(m):
        cumulative += base[b]
        p = fin[start + b]
        out[p] += lam[p] * (own[b] - cumulative)
    for t in range(m):
        factor_base += base[t]
    for i in range(stop, len(fin)):
        out[fin[i]] += lam[fin[i]] * (factor - factor_base)


@helper
def _censored_gradient(r: np.ndarray, dnf: np.ndarray, fin: np.ndarray, out: np.ndarray) -> None:
    """Add the gradient of log P(every DNF performs below every finisher), by quadrature over t = log y."""
    n_dnf = 0
    centre = 0.0
    for i in range(len(r)):
        if dnf[i]:
            n_dnf += 1
    for i in range(len(r)):
        if dnf[i]:
            centre += r[i]
    for i in fin:
        centre += r[i]
    centre /= n_dnf + len(fin)
    log_fin = np.empty(len(fin))
    for j in range(len(fin)):
        log_fin[j] = -(r[fin[j]] - centre)
    log_big = log_sum_exp(log_fin)
    lowest = -log_big
    for i in range(len(r)):
        if dnf[i]:
            lowest = min(lowest, r[i] - centre)
    t_hi = -log_big + math.log(2.0 * (n_dnf + 1) + 60.0)
    t_lo = lowest - 50.0 / (n_dnf + 1) - 2.0
    if not (t_hi - t_lo) / T_STEP <= MAX_NODES:  # diverging ratings (also NaN): the per-game replay reports it
        out[:] = math.nan
        return
    t = np.arange(t_lo, t_hi + T_STEP, T_STEP)
    w = np.empty(len(t))
    for q in range(len(t)):
        w[q] = log_big + t[q] - math.exp(log_big + t[q])
        for i in range(len(r)):
            if dnf[i]:
                w[q] += np.log(-math.expm1(-math.exp(-(r[i] - centre) + t[q])))
    top = log_sum_exp(w)
    for q in range(len(t)):
        w[q] = math.exp(w[q] - top)  # now the normalised weights p
    for i in range(len(r)):
        if dnf[i]:
            total = 0.0
            for q in range(len(t)):
                z = math.exp(-(r[i] - centre) + t[q])
                ratio = 1.0 - 0.5 * z if z < 1e-8 else z / math.expm1(z) if z < 700.0 else 0.0
                total += ratio * w[q]
            out[i] -= total
    for j in range(len(fin)):
        total = 0.0
        for q in range(len(t)):
            total += math.exp(log_fin[j] + t[q]) * w[q]
        out[fin[j]] += total - math.exp(log_fin[j] - log_big)


@helper
def _independent_gradient(r: np.ndarray, dnf: np.ndarray, fin: np.ndarray, out: np.ndarray) -> None:
    """Add the gradient of ``sum_d log(lambda_d / (lambda_d + Lambda))`` (each DNF below every finisher)."""
    log_fin = np.empty(len(fin))
    for j in range(len(fin)):
        log_fin[j] = -r[fin[j]]
    log_big = log_sum_exp(log_fin)
    log_inv = -math.inf  # log sum_d 1 / (lambda_d + Lambda)
    for i in range(len(r)):
        if dnf[i]:
            log_den = logaddexp(-r[i], log_big)
            out[i] -= math.exp(log_big - log_den)
            log_inv = logaddexp(log_inv, -log_den)
    for j in range(len(fin)):
        out[fin[j]] += math.exp(log_fin[j] + log_inv)


@inlined
def plackett_luce_gradient(
    r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray
) -> bool:
    """The update direction of one game: ties averaged over their orderings, DNFs censored (always True: every
    game is handled here, a tied group beyond EXACT_SUBSETS by its integral).

    The order terms come by direct sums (:func:`_direct_order_gradient`) while the finishers' ratings spread over
    at most :data:`DIRECT_SPREAD`, else in log space (:func:`_order_gradient`).  Two arrays per game (the order
    and ``lambda``) are its only allocations in a game without ties or DNFs.
    """
    n = len(r)
    out[:] = 0.0
    work = np.empty(2 * n + 1, dtype=np.int64)  # the finishers' order, then the counting sort's work space
    fin = work[: _worst_first_into(ranks, dnf, work[:n], work[n:])]
    if len(fin) == 0:
        return True
    top = r[fin[0]]
    low = r[fin[0]]
    for i in fin:
        top = max(top, r[i])
        low = min(low, r[i])
    lam = np.empty(n)  # by a loop: an array expression compiles its own ufunc loops
    for i in range(n):
        lam[i] = math.exp(-(r[i] - top))
    if top - low <= DIRECT_SPREAD:  # an infinite rating goes to the log-space path; a NaN gives NaN either way
        _direct_order_gradient(lam, fin, out)
    else:
        _order_gradient(r, fin, out)
    start = np.int64(0)  # not a literal 0 (see _tie_correction)
    while start < len(fin):
        stop = start + 1
        while stop < len(fin) and ranks[fin[stop]] == ranks[fin[start]]:
            stop += 1
        if stop - start > 1:
            _tie_correction(lam, fin, start, stop, out)
        start = stop
    if len(fin) < n:
        if theta[0] == INDEPENDENT:
            _independent_gradient(r, dnf, fin, out)
        else:
            _censored_gradient(r, dnf, fin, out)
    return True
