"""Compiled replay of Elo-MMR (Ebtekar and Liu, "Elo-MMR: A Rating System for Massive Multiplayer
Competitions", WWW 2021), the twin of :class:`ratings.systems.elo_mmr.EloMMR`: drift or
pseudodiffusion (Algorithm 2), one performance per rank group as the zero of ``Q`` (Theorem 3.2,
logistic or Gaussian), then the belief update (equation 10 for rho, the Gaussian posterior for
chi), with the same safeguarded Newton solver, brackets, starting points and history folding as
that module (see its docstrings for the derivations).  Every root is solved on its own, as the
reference's solver treats them independently.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.base import NO_DATE
from ratings.kernels.jit import entry, helper
from ratings.kernels.numerics import (
    CHEBYSHEV_NODES,
    PANEL_DEGREE,
    chebyshev_interpolate,
    idle_days,
    largest_game,
    mills_ratio,
    team_means,
)
from ratings.systems.elo_mmr import FOLD_SHARE, TANH_SCALE, TOLERANCE

__all__ = [
    "FACTORED_REACH",
    "PANEL_DEGREE",
    "PANEL_MIN_GROUPS",
    "panel_sums",
    "panel_width",
    "replay_elo_mmr",
    "tanh_sums",
]

MAX_ITER = 200
#: Width of a new history table (the reference's ``min(8, max_history)``).
FIRST_WIDTH = 8
# Positions in ``theta``.
CHI, MU0, SIGMA_LIMIT, DISPLAY_K, RHO, BETA, GAMMA2, MAX_HISTORY, DRIFT_PER_DAY, SIGMA0_SQUARED = range(10)


@helper
def _newton_step(x: float, value: float, slope: float, lo: float, hi: float) -> tuple[float, float, float, bool]:
    """One safeguarded step on a sure bracket of a decreasing function: ``(next x, lo, hi, done)``."""
    if value == 0.0:
        return x, lo, hi, True
    if value > 0.0:
        lo = x
    elif value < 0.0:
        hi = x
    newton = x - value / slope if slope != 0.0 else math.nan
    small = abs(newton - x) <= TOLERANCE
    nxt = newton if small or lo < newton < hi else 0.5 * (lo + hi)
    return nxt, lo, hi, small or hi - lo <= TOLERANCE


@helper
def _start(guess: float, lo: float, hi: float) -> float:
    """The guess clipped into the bracket; at (or beyond) an end, the middle instead."""
    x = min(max(guess, lo), hi)
    return 0.5 * (lo + hi) if x <= lo or x >= hi else x


@helper
def _performance_value(
    x: float, k: int, mu: np.ndarray, inv: np.ndarray, group: np.ndarray, constant: float, chi: bool
) -> tuple[float, float]:
    """``Q`` of rank group ``k`` at ``x`` (times two in the logistic model) and its derivative.

    ``inv`` is each player's ``1 / delta`` (Gaussian) or ``TANH_SCALE / delta`` (logistic), computed once per
    game by :func:`performances` instead of once per term and Newton step (the same numbers: one division).
    """
    value = 0.0
    slope = 0.0
    if chi:
        for j in range(len(mu)):
            inv_d = inv[j]
            z = (x - mu[j]) * inv_d
            if group[j] == k:  # a tie: -z / delta
                value -= z * inv_d
                slope -= inv_d * inv_d
            else:
                side = 1.0 if group[j] > k else -1.0  # a win against a worse player, a loss to a better one
                m = mills_ratio(side * z)
                value += side * m * inv_d
                slope -= (side * z + m) * m * inv_d * inv_d
        return value, slope
    for j in range(len(mu)):
        inv_s = inv[j]
        half = 0.5 * inv_s
        t = math.tanh((x - mu[j]) * half)
        twice = 2.0 if group[j] == k else 1.0  # a tie is a win plus a loss
        value -= t * inv_s * twice
        slope -= (1.0 - t * t) * inv_s * half * twice
    return constant + value, slope


@helper
def _sort_descending(values: np.ndarray, out: np.ndarray) -> None:
    """``out`` = ``values`` from largest to smallest, by heap sort (Williams 1964).

    Written out because numba's ``np.sort`` compiles a generic quicksort that costs seconds of first-call
    compile; the sorted values are the same whatever the algorithm.
    """
    n = len(values)
    for i in range(n):
        out[i] = values[i]
    # A min-heap, so that repeatedly moving its root to the end leaves the array in descending order.
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(out, start, n)
    root = n - n  # a computed 0: a literal would compile _sift_down a second time, specialised for it
    for end in range(n - 1, 0, -1):
        out[root], out[end] = out[end], out[root]
        _sift_down(out, root, end)


@helper
def _sift_down(heap: np.ndarray, root: int, end: int) -> None:
    """Restore the min-heap property below ``root`` within ``heap[:end]``."""
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] < heap[root]:
            heap[root], heap[child] = heap[child], heap[root]
            root = child
        else:
            return


@helper
def tanh_sums(x: float, mu: np.ndarray, inv: np.ndarray) -> tuple[float, float]:
    """``S(x) = sum_j t_j / s_j`` with ``t_j = tanh((x - mu_j) / (2 s_j))``, and its derivative
    ``S'(x) = sum_j (1 - t_j^2) / (2 s_j^2)``, every player summed (``inv`` holds ``1 / s_j``)."""
    value = 0.0
    slope = 0.0
    for j in range(len(mu)):
        inv_s = inv[j]
        half = 0.5 * inv_s
        t = math.tanh((x - mu[j]) * half)
        value += t * inv_s
        slope += (1.0 - t * t) * inv_s * half
    return value, slope


#: The logistic solver interpolates the tanh sum once a contest has this many rank groups (and the panels
#: covering its bracket are few enough, see :func:`performances`); smaller contests sum every player at each
#: Newton step, as the reference does.
PANEL_MIN_GROUPS = 512


@helper
def panel_width(delta: np.ndarray) -> float:
    """Width of the panels on which :func:`panel_sums` interpolates the tanh sum, with its error bound.

    The sum ``S`` of Elo-MMR's logistic performance equation (Ebtekar and Liu, WWW 2021, Theorem 3.2 with
    the logistic model of section 3.1) is analytic in the complex plane but for the poles of each
    ``tanh((z - mu_j) / (2 s_j))``, at ``Im z = +-pi s_j (2m + 1)``, nearest at ``pi s_j = sqrt(3) delta_j``.
    Within ``|Im z| <= sqrt(3) delta_j / 2`` the argument's imaginary part ``v`` has ``|v| <= pi / 4``, so
    ``cos 2v >= 0`` and ``|tanh(u + iv)|^2 = (sinh^2 2u + sin^2 2v) / (cosh 2u + cos 2v)^2 <= 1``: there
    ``|S| <= M = sum_j 1 / s_j``, and ``|S'| <= M'`` with ``M' = 2 sum_j 1 / (2 s_j^2)`` (``|sech^2| <= 2``,
    as ``|cosh(u + iv)|^2 = sinh^2 u + cos^2 v >= 1/2``).

    A panel of half-width ``a = sqrt(3) min(delta) / 4`` has the strip ``|Im z| <= 2a`` inside that one, so
    the interpolant of degree :data:`ratings.kernels.numerics.PANEL_DEGREE` errs by at most ``1.1e-15 M`` (and
    ``1.1e-15 M'`` for the slope; the bound is :data:`~ratings.kernels.numerics.PANEL_DEGREE`'s), to which
    the barycentric formula adds a few roundings of ``M``.  ``M`` is also the size of the roundings of
    summing ``S`` term by term, so the interpolant is as good as the sum it replaces; the tests compare
    them on random contests (within ``1e-12 M``).
    """
    smallest = math.inf
    for j in range(len(delta)):
        smallest = min(smallest, delta[j])
    return math.sqrt(3.0) * smallest / 2.0


@helper
def panel_sums(
    x: float,
    lo: float,
    width: float,
    mu: np.ndarray,
    inv: np.ndarray,
    built: np.ndarray,
    values: np.ndarray,
    slopes: np.ndarray,
) -> tuple[float, float]:
    """``(S(x), S'(x))`` of :func:`tanh_sums` from the Chebyshev interpolant of the panel holding ``x``
    (panel ``p`` covers ``[lo + p width, lo + (p + 1) width]``), built on first use: ``PANEL_DEGREE + 1``
    full sums, after which each evaluation costs ``PANEL_DEGREE`` divisions whatever the contest's size.
    """
    p = min(max(int((x - lo) / width), 0), len(built) - 1)
    half = 0.5 * width
    centre = lo + (p + 0.5) * width
    if not built[p]:
        for k in range(PANEL_DEGREE + 1):
            values[p, k], slopes[p, k] = tanh_sums(centre + half * CHEBYSHEV_NODES[k], mu, inv)
        built[p] = True
    u = (x - centre) / half
    return chebyshev_interpolate(u, values, p), chebyshev_interpolate(u, slopes, p)


@helper
def performances(mu: np.ndarray, delta: np.ndarray, group: np.ndarray, chi: bool, out: np.ndarray) -> None:
    """Every player's performance: one root of ``Q`` per dense rank group (Theorem 3.2).

    Summing every player for each group's Newton steps costs ``n`` per step and group: quadratic in the
    contest's size.  In the logistic model ``2 Q_k(x) = c_k - S(x) - T_k(x)``, where the sum ``S`` over
    every player is the same function for all groups and ``T_k`` (the second copy of the tied players'
    terms) runs over group ``k`` only; a large contest therefore evaluates ``S`` from its Chebyshev
    interpolant (:func:`panel_sums`, within ``1.1e-15`` of ``sum_j 1 / s_j`` by :func:`panel_width`),
    which costs ``n`` per panel used instead of per step: the roots move by that error over the slope.
    """
    n = len(mu)
    g = 0
    for j in range(n):
        g = max(g, group[j] + 1)
    counts = np.zeros(g, dtype=np.int64)
    group_sum = np.zeros(g)
    for j in range(n):
        counts[group[j]] += 1
        group_sum[group[j]] += TANH_SCALE / delta[j]
    total = 0.0
    for k in range(g):
        total += group_sum[k]
    # Brackets: beyond them the player's own tie term outweighs every opposite tail (see the reference).
    lo = math.inf
    hi = -math.inf
    if chi:
        widest = 0.0
        narrowest = math.inf
        for j in range(n):
            widest = max(widest, delta[j])
            narrowest = min(narrowest, delta[j])
        reach = math.sqrt(2.0 * math.log(max(n * widest / narrowest, 2.0))) + 1.0
        for j in range(n):
            lo = min(lo, mu[j] - reach * delta[j])
            hi = max(hi, mu[j] + reach * delta[j])
    else:
        widest = 0.0
        narrowest = math.inf
        for j in range(n):
            scale = 1.0 / (TANH_SCALE / delta[j])
            widest = max(widest, scale)
            narrowest = min(narrowest, scale)
        reach = 0.5 * math.log(8.0 * n * widest / narrowest) + 1.0
        for j in range(n):
            scale = 1.0 / (TANH_SCALE / delta[j])
            lo = min(lo, mu[j] - 2.0 * reach * scale)
            hi = max(hi, mu[j] + 2.0 * reach * scale)
    inv = np.empty(n)
    for j in range(n):
        inv[j] = 1.0 / delta[j] if chi else TANH_SCALE / delta[j]
    ordered = np.empty(n)
    _sort_descending(mu, ordered)
    # The players of each group, in order (a counting sort).
    first = np.zeros(g + 1, dtype=np.int64)
    for k in range(g):
        first[k + 1] = first[k] + counts[k]
    members = np.empty(n, dtype=np.int64)
    filled = first[:g].copy()
    for j in range(n):
        members[filled[group[j]]] = j
        filled[group[j]] += 1
    # Interpolate when the panels over the whole bracket cost at most a few full sums per group.
    width = panel_width(delta) if not chi else 1.0
    n_panels = int(math.ceil((hi - lo) / width)) if not chi else 0
    interpolate = not chi and g >= PANEL_MIN_GROUPS and n_panels * (PANEL_DEGREE + 1) <= 4 * g
    built = np.zeros(n_panels if interpolate else 0, dtype=np.bool_)
    values = np.empty((len(built), PANEL_DEGREE + 1))
    slopes = np.empty((len(built), PANEL_DEGREE + 1))
    below = 0.0  # sum of 1/s over better groups
    end = 0
    x = 0.0
    for k in range(g):
        end += counts[k]
        above = total - below - group_sum[k]
        constant = above - below
        below += group_sum[k]
        a, b = lo, hi
        # The reference starts at the median rating of the group (in sorted order); the root of the group
        # above is nearer in a large game (consecutive groups' roots differ little), so Newton takes fewer
        # steps to the same root (within TOLERANCE: the solver stops on a Newton step below it).
        x = _start(ordered[(end - counts[k] + end - 1) // 2] if k == 0 else x, a, b)
        for _ in range(MAX_ITER):
            if interpolate:
                value, slope = panel_sums(x, lo, width, mu, inv, built, values, slopes)
                value = constant - value
                slope = -slope
                for m in range(first[k], first[k + 1]):
                    j = members[m]
                    inv_s = inv[j]
                    half = 0.5 * inv_s
                    t = math.tanh((x - mu[j]) * half)
                    value -= t * inv_s
                    slope -= (1.0 - t * t) * inv_s * half
            else:
                value, slope = _performance_value(x, k, mu, inv, group, constant, chi)
            x, a, b, done = _newton_step(x, value, slope, a, b)
            if done:
                break
        for m in range(first[k], first[k + 1]):
            out[members[m]] = x


#: The robust average factors each term's exponential (:func:`robust_average`) while ``arg`` times its bracket's
#: width is at most this: every factor then stays within ``exp(+-2 FACTORED_REACH)``, far from overflow.
FACTORED_REACH = 300.0


@helper
def robust_average(
    p0: float, w0: float, hist_p: np.ndarray, hist_w: np.ndarray, beta: float, scratch: np.ndarray
) -> float:
    """The zero of ``L'`` in equation (10) for one player (terms of weight 0 are unused).

    ``L'(x) = w0 (x - p0) + sum_k w_k B tanh(a (x - p_k))`` with ``B = beta pi / sqrt 3`` and
    ``a = pi / (beta sqrt 12)``, solved by the reference's safeguarded Newton iteration from equation (7)'s
    weighted mean of the centres, in fewer passes over the player's terms than the reference takes:

    *One exponential per term and call.*  ``tanh(a (x - p_k)) = (1 - e_k) / (1 + e_k)`` with
    ``e_k = exp(-2 a (x - p_k)) = exp(-2 a (x - c)) exp(2 a (p_k - c))`` around the bracket's centre ``c``:
    the terms' factors (in ``scratch``) are computed once, and each step costs one exponential and a division
    per term (it was an exponential per term and step: with about 3.7 steps, most of a long replay's time).
    While ``a`` times the bracket's width is at most :data:`FACTORED_REACH`, both factors lie within
    ``exp(+-600)`` (no overflow, no underflow to 0) and each ``e_k`` carries a relative rounding of a few ulps
    of ``2 a |p_k - c|`` (at most ``300 * 2^-52``, 7e-14), so ``tanh`` errs by at most that and the root by
    that over ``a`` (about 1e-11 rating points at the defaults); wider brackets (tiny ``beta``, far-flung
    ratings) take each term's exponential at each step, as the reference does.

    *No confirming pass.*  The reference stops once a Newton step is below :data:`TOLERANCE`, which costs a
    last pass over the terms only to find the step small.  Write ``f = L'`` (increasing: ``f' >= w0``
    everywhere).  After a Newton step ``d`` from ``x``, ``f(x + d) = f''(xi) d^2 / 2`` (Taylor, as
    ``f(x) + f'(x) d = 0``), so the root lies within ``M d^2 / (2 w0)`` of ``x + d``, where ``M`` bounds
    ``|f''|``: each term's ``|d^2/dx^2 tanh(a (x - p))| = 2 a^2 |t (1 - t^2)| <= 4 a^2 / (3 sqrt 3)``, so
    ``M = 4 a^2 B sum_k w_k / (3 sqrt 3)``.  When that is at most ``TOLERANCE / 2`` the step's end is
    returned: within the reference's tolerance of the root, one pass sooner.
    """
    out_scale = beta * TANH_SCALE
    arg = TANH_SCALE / (2.0 * beta)
    lo = p0
    hi = p0
    weighted = w0 * p0
    weight = 0.0
    for k in range(len(hist_w)):
        if hist_w[k] > 0:
            lo = min(lo, hist_p[k])
            hi = max(hi, hist_p[k])
        weighted += hist_w[k] * hist_p[k]
        weight += hist_w[k]
    lo -= 1.0
    hi += 1.0
    x = _start(weighted / (w0 + weight), lo, hi)
    # The root lies within reach * d^2 of the end of a Newton step d (docstring).
    reach = 4.0 * arg * arg * out_scale * weight / (3.0 * math.sqrt(3.0)) / (2.0 * w0)
    centre = 0.5 * (lo + hi)
    factored = arg * (hi - lo) <= FACTORED_REACH
    if factored:
        for k in range(len(hist_w)):
            # A term of weight 0 adds nothing (e_k = 0 keeps its tanh finite wherever its centre lies).
            scratch[k] = math.exp(2.0 * arg * (hist_p[k] - centre)) if hist_w[k] > 0 else 0.0
    for _ in range(MAX_ITER):
        value = w0 * (p0 - x)
        slope = 0.0
        if factored:
            shift = math.exp(-2.0 * arg * (x - centre))
            for k in range(len(hist_w)):
                e = shift * scratch[k]
                r = 1.0 / (1.0 + e)
                term = hist_w[k] * out_scale
                value -= (1.0 - e) * r * term
                slope += 4.0 * e * r * r * term  # 1 - tanh^2
        else:
            for k in range(len(hist_w)):
                # tanh through one exp of a non-positive number (libm's tanh cost 40% more; the same to a few ulps)
                e = math.exp(-2.0 * abs((x - hist_p[k]) * arg))
                t = math.copysign((1.0 - e) / (1.0 + e), x - hist_p[k])
                value -= t * hist_w[k] * out_scale
                slope += (1.0 - t * t) * hist_w[k] * out_scale
        derivative = -w0 - slope * arg
        newton = x - value / derivative
        x_before = x
        x, lo, hi, done = _newton_step(x, value, derivative, lo, hi)
        if done or (x == newton and reach * (newton - x_before) ** 2 <= 0.5 * TOLERANCE):
            break
    return x


@helper
def _grow(table: np.ndarray, width: int) -> np.ndarray:
    """``table`` with zero columns appended up to ``width`` (a loop: a slice assignment compiles numba's
    shape-mismatch error formatting, seconds of first-call compile)."""
    wider = np.zeros((table.shape[0], width))
    for i in range(table.shape[0]):
        for k in range(table.shape[1]):
            wider[i, k] = table[i, k]
    return wider


@entry
def replay_elo_mmr(
    theta: np.ndarray,
    games: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    mu_s: np.ndarray,
    sigma_s: np.ndarray,
    p0: np.ndarray,
    w0: np.ndarray,
    hist_p: np.ndarray,
    hist_w: np.ndarray,
    hist_len: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    series_before: tuple[np.ndarray, np.ndarray],
    series_after: tuple[np.ndarray, np.ndarray],
    teams: tuple[np.ndarray, np.ndarray, np.ndarray],
    idle: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Replay every game; returns the (possibly widened) history tables of the rho variant.

    ``idle`` is ``(days, last_day)``: each game's day number and each player's last rated dated game (NaN before
    the first), read only when ``drift_per_day > 0`` (:meth:`ratings.systems.elo_mmr.EloMMR._idle_drift`).
    ``theta = (chi, mu, sigma_limit, display_k, rho, beta_game, gamma^2, max_history, drift_per_day, sigma^2)``; the
    chi variant ignores ``p0`` .. ``hist_len``.  ``teams`` is ``(team_game, team, weight)``: a team game's
    teams are entrants with their members' pooled skill and variance, each member observing its team's
    performance with its weight (:class:`ratings.systems.elo_mmr.EloMMR`).
    """
    offsets, players, ranks, dnf = games
    team_game, team, weight = teams
    chi = theta[CHI] == 1.0
    k_display = theta[DISPLAY_K]
    beta = theta[BETA]
    beta2 = beta * beta
    gamma2 = theta[GAMMA2]
    limit = int(theta[MAX_HISTORY])
    per_day = theta[DRIFT_PER_DAY]
    days, last_day = idle
    largest = largest_game(offsets)
    mu = np.empty(largest)
    delta = np.empty(largest)
    sigma2 = np.empty(largest)
    perf = np.empty(largest)
    group = np.empty(largest, dtype=np.int64)
    observed = np.empty(largest)  # each entry's weight of the game's observation (1 / beta^2 in a free game)
    t_mu = np.empty(largest)
    t_var = np.empty(largest)
    t_weight = np.empty(largest)
    t_perf = np.empty(largest)
    t_fail = np.empty(largest, dtype=np.bool_)
    scratch = np.empty(max(limit, 1))  # robust_average's factors (a history holds at most limit terms)
    for game in range(len(offsets) - 1):
        s = offsets[game]
        n = offsets[game + 1] - s
        for i in range(n):
            p = players[s + i]
            series_before[0][s + i] = mu_s[p]
            series_before[1][s + i] = sigma_s[p]
            before[s + i] = mu_s[p] if k_display == 0.0 else mu_s[p] - k_display * (sigma_s[p] - theta[SIGMA_LIMIT])
        if n >= 2:
            dated = per_day > 0.0 and days[game] != NO_DATE
            for i in range(n):
                p = players[s + i]
                sigma2[i] = sigma_s[p] ** 2
                drift = gamma2
                if dated:  # the drift over the idle days, capped (EloMMR._idle_drift)
                    elapsed = idle_days(last_day, p, float(days[game]))
                    drift = min(gamma2 * (1.0 + per_day * elapsed), max(gamma2, theta[SIGMA0_SQUARED] - sigma2[i]))
                if not chi:  # Algorithm 2: pseudodiffusion
                    kappa = sigma2[i] / (sigma2[i] + drift)
                    keep = kappa ** theta[RHO]
                    w_gauss = keep * w0[p]
                    total = w0[p]
                    # Only the player's own terms: the table's columns beyond hist_len hold weight 0, and looping
                    # over the whole width cost every player the longest history's time.
                    for k in range(hist_len[p]):
                        total += hist_w[p, k]
                    w_moved = (1.0 - keep) * total
                    p0[p] = (w_gauss * p0[p] + w_moved * mu_s[p]) / (w_gauss + w_moved)
                    w0[p] = kappa * (w_gauss + w_moved)
                    for k in range(hist_len[p]):
                        hist_w[p, k] *= kappa * keep
                sigma2[i] += drift
                mu[i] = mu_s[p]
                delta[i] = math.sqrt(sigma2[i] + beta2)
                group[i] = ranks[s + i]
                observed[i] = 1.0 / beta2
            if team_game[game]:
                count = team_means(s, n, team, weight, ranks, dnf, mu, sigma2, t_mu, t_var, t_weight, group, t_fail)
                for i in range(n):
                    observed[i] = weight[s + i] / beta2
                for t in range(count):
                    t_var[t] = math.sqrt(t_var[t] + beta2)
                performances(t_mu[:count], t_var[:count], group[:count], chi, t_perf)
                for i in range(n):
                    perf[i] = t_perf[team[s + i]]
            else:
                performances(mu[:n], delta[:n], group[:n], chi, perf)
            if chi:
                for i in range(n):
                    w_prior = 1.0 / sigma2[i]
                    w_perf = observed[i]
                    mu_s[players[s + i]] = (w_prior * mu[i] + w_perf * perf[i]) / (w_prior + w_perf)
            else:
                for i in range(n):  # section 5.3: fold the oldest term into the Gaussian one when full or light
                    p = players[s + i]
                    total = w0[p]
                    for k in range(hist_len[p]):
                        total += hist_w[p, k]
                    while hist_len[p] >= limit or (hist_len[p] > 0 and hist_w[p, 0] < FOLD_SHARE * total):
                        wn = w0[p]
                        wl = hist_w[p, 0]
                        p0[p] = (wn * p0[p] + wl * hist_p[p, 0]) / (wn + wl)
                        w0[p] = wn + wl
                        # Only the player's own terms move (the columns beyond hold weight 0): shifting the table's
                        # whole width cost every fold the widest history's time.
                        last = hist_len[p] - 1
                        for k in range(last):
                            hist_p[p, k] = hist_p[p, k + 1]
                            hist_w[p, k] = hist_w[p, k + 1]
                        hist_p[p, last] = 0.0
                        hist_w[p, last] = 0.0
                        hist_len[p] = last
                for i in range(n):
                    if hist_len[players[s + i]] >= hist_p.shape[1]:
                        width = min(2 * hist_p.shape[1], limit)
                        hist_p = _grow(hist_p, width)
                        hist_w = _grow(hist_w, width)
                        break
                for i in range(n):
                    p = players[s + i]
                    hist_p[p, hist_len[p]] = perf[i]
                    hist_w[p, hist_len[p]] = observed[i]
                    hist_len[p] += 1
                for i in range(n):
                    p = players[s + i]
                    terms = hist_len[p]
                    mu_s[p] = robust_average(p0[p], w0[p], hist_p[p, :terms], hist_w[p, :terms], beta, scratch[:terms])
            for i in range(n):
                sigma_s[players[s + i]] = 1.0 / math.sqrt(1.0 / sigma2[i] + observed[i])
        for i in range(n):
            p = players[s + i]
            series_after[0][s + i] = mu_s[p]
            series_after[1][s + i] = sigma_s[p]
            after[s + i] = mu_s[p] if k_display == 0.0 else mu_s[p] - k_display * (sigma_s[p] - theta[SIGMA_LIMIT])
    return hist_p, hist_w
