"""Gradient kernel of Kerby's Gaussian (Thurstonian) model, the compiled twin of
:func:`ratings.systems.thurstonian.thurstonian_gradient`: the same grid (it runs
:func:`~ratings.systems.thurstonian.grid_plan` itself, compiled), the same Euler-Maclaurin
corrected cumulative integrals, scaled forward and backward messages (Rabiner 1989's scaling),
censored DNFs, the gradient as densities of neighbouring performances coinciding, and the closed
form of a two-player game (see that module for the derivation).

What the compiled code does differently changes only roundings: a density row is built by the
recurrence ``phi(z + h) = phi(z) exp(-z h - h^2 / 2)`` outward from its largest value (two
multiplications a point instead of an exponential, in four interleaved chains), the sums are
vectorised (in another order of addition), and the work arrays are reused.

Crowds (:data:`CROWD_FROM` players or more, :func:`_crowd`): the scaled messages lose their mass from
about 650 players, so each message is also tilted by an exponential that makes it peak near its player's
posterior mode, and the forward rows are checkpointed (about ``2 sqrt(m)`` rows held), so that the
kernel computes games up to :data:`KERNEL_CELLS` (about 6,000 players), beyond the reference's
:data:`~ratings.systems.thurstonian.MAX_CELLS` (about 1,400).  The same quadrature on the same grid:
a crowd of 1,000 equals the reference's logarithmic computation to 2e-10 of its largest component
(tests); a crowd of 4,096 equal ratings is within 1.5e-5 of the expected normal order statistics.
A crowd is computed banded (:func:`_banded`): each tilted integrand held only where it is above
:data:`_NEGLIGIBLE` of its peak (about ``30 sqrt(n)`` grid points in the middle of the field, of ``9 n``), its
cumulative integrals' constants carried exactly, so that a game costs about ``n^1.5`` cells for ``9 n^2``; it
agrees with :func:`_crowd` (kept as the reference, and computing what the banded rows cannot hold) to 1.2e-8 at
4,096 players (tests).  One first game of equal ratings (``benchmarks/thurstonian_crowds.py``, BENCHMARKS.md
"Banded Thurstonian crowds"): 4,096 players 0.3 s, 20,000 players 3.1 s (87.8 s on the whole grid).  The scale-1
contests history (``benchmarks/contests.py``: 1,000 contests of 450-20,000, 3,096,461 results) with its ties broken
in the file's order rates from the command line in 404 s of CPU, 729 MB at most (same section); with its ties, each
contest's groups go through their segments below (c0005, 20,000 players with 600 tied last: about 55 s of CPU and
1.9 GB, most of it sampling the 600, BENCHMARKS.md "Thurstonian tie groups in crowds").

Tied finishers are averaged as the reference averages them (:mod:`ratings.systems.thurstonian`, "Ties"): every
joint ordering within the row budget (:data:`TIE_WORK` bounds those orders x whole-grid cells); else each group
through its segment of the chain (the reference's ``tie_segments``: the same shared grid, the same two sweeps, every
ordering of a group of at most five and blocks of rotations of shuffles of a larger one, drawn by the same integer
generator, :func:`_ordering`, stopped by the same rule with its stated error), on the whole grid below
:data:`~ratings.systems.thurstonian.SEGMENTS_BELOW` players (:func:`_tie_segments`) and on the banded crowd's tilted
windows from there (:func:`_crowd_segments`): each position's tilt fixed by a pass in rating order, so that every
ordering's rows at a position sum directly, and each group's averaged rows kept as windows.  Where the whole grid
still holds a crowd's scaled rows the two agree to 1e-10 (tests, 420-450 players); a crowd of 500 with 60, 25 and 14
tied is within its stated error of 600 joint orderings drawn independently through the strict path (tests).

Declined (replayed through the per-game hooks): the rare orders whose messages do not fit the scaled
representation (the reference's logarithmic computation: many players reversing a spread of 30
or more; in a crowd, a tilt whose stages disagree under both cuts of its windows), and games whose grid exceeds
:data:`~ratings.systems.thurstonian.MAX_CELLS` below :data:`CROWD_FROM` players or
:data:`KERNEL_CELLS` from there (``theta[0]`` when given: :attr:`ratings.systems.thurstonian.Thurstonian.crowd_cells`;
the reference refuses them beyond MAX_CELLS with its error).
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.jit import contracted, helper, inlined, reassociated
from ratings.kernels.numerics import LOG_SQRT_2PI, SQRT2, log_ndtr, mills_ratio, ndtr
from ratings.kernels.plackett_luce import finishers_worst_first
from ratings.systems import thurstonian as reference
from ratings.systems._orders import (
    EXACT_GROUP,
    MAX_ROWS,
    SAME_RATING,
    SHUFFLE_MODULUS,
    SHUFFLE_MULTIPLIER,
    SHUFFLE_SEED,
)
from ratings.systems.thurstonian import (
    BLOCK_ROTATIONS,
    CONSISTENCY,
    CORRECTION,
    CROWD_CELLS,
    ENUMERATION_WORK,
    MAX_BLOCKS,
    MAX_CELLS,
    MAX_SPREAD,
    MIN_BLOCKS,
    ROW_BUDGET,
    SAMPLE_WORK,
    SCALED_RANGE,
    SEGMENTS_BELOW,
    SMALLEST_SUM,
    SWEEPS,
    TIE_TOLERANCE,
)

__all__ = ["thurstonian_gradient"]

#: The reference's grid, compiled (one definition of where the grid lies and how fine it is; its rows' ranges are
#: registered first, so that the compiled grid_plan calls them compiled).
_row_ranges = helper(reference.row_ranges)
_student_95 = helper(reference.student_95)
_plan = helper(reference.grid_plan)
_W1, _W2, _W3, _W4, _W5 = CORRECTION
#: Half-width of the correction stencil (the work arrays carry this much zero padding each side).
_PAD = len(CORRECTION)
#: Below this a density's value is flushed to zero (its recurrence would continue in subnormals).
_TINY = 1e-300
#: The stages' likelihoods agree to CONSISTENCY in logarithms: their ratio lies between these.
_AGREE_LOW = math.exp(-CONSISTENCY)
_AGREE_HIGH = math.exp(CONSISTENCY)


#: The corrections loops run over the grid's g points rounded up to a multiple of this, the ``span`` (the vector
#: width, doubles in AVX-512), so that no point is left to a scalar remainder loop; the rows carry zeros up to there.
_LANES = 8


@contracted
def _integrate(rows: np.ndarray, source: int, g: int, span: int, step: float, target: int) -> float:
    """Euler-Maclaurin corrected cumulative integral of ``v[_PAD : _PAD + g]`` (``v`` the row ``source`` of
    ``rows``, zero padded to ``span + 2 * _PAD``) into ``out[:g]`` (the row ``target``); returns its last
    value (the total, by which the reference divides the message).

    Rows are passed by index, not as views: a view made in the caller and passed to a compiled function
    that is not inlined costs an atomic increment and decrement of the allocation's reference count
    (numba's NRT, about 3% of the replay's samples, perf, 2026-11-27).

    The corrections first, times the step, in a loop without a carried dependency (so that it vectorises),
    then the running sum four points at a time (its chain of dependent additions one per four points), each
    point ``step * sum - correction`` in one fused multiply-add (seven integrations of 94 points: 661 against
    738 ns as ``step * (sum - correction)``, compiled loop, 2026-11-27).
    """
    v = rows[source]
    out = rows[target]
    for j in range(span):
        c = j + _PAD
        out[j] = step * (
            0.5 * v[c]
            + _W1 * (v[c + 1] - v[c - 1])
            + _W2 * (v[c + 2] - v[c - 2])
            + _W3 * (v[c + 3] - v[c - 3])
            + _W4 * (v[c + 4] - v[c - 4])
            + _W5 * (v[c + 5] - v[c - 5])
        )
    total = 0.0
    j = 0
    while j + 3 < g:
        a = v[j + _PAD]
        ab = a + v[j + 1 + _PAD]
        abc = ab + v[j + 2 + _PAD]
        out[j] = step * (total + a) - out[j]
        out[j + 1] = step * (total + ab) - out[j + 1]
        out[j + 2] = step * (total + abc) - out[j + 2]
        total += abc + v[j + 3 + _PAD]
        out[j + 3] = step * total - out[j + 3]
        j += 4
    while j < g:
        total += v[j + _PAD]
        out[j] = step * total - out[j]
        j += 1
    return out[g - 1]


@contracted
def _integrate_right(rows: np.ndarray, source: int, g: int, span: int, step: float, target: int) -> float:
    """The same integral from the right (the transpose of :func:`_integrate`); returns its first value."""
    v = rows[source]
    out = rows[target]
    for j in range(span):
        c = j + _PAD
        out[j] = step * (
            0.5 * v[c]
            - _W1 * (v[c + 1] - v[c - 1])
            - _W2 * (v[c + 2] - v[c - 2])
            - _W3 * (v[c + 3] - v[c - 3])
            - _W4 * (v[c + 4] - v[c - 4])
            - _W5 * (v[c + 5] - v[c - 5])
        )
    total = 0.0
    j = g - 1
    while j > 2:
        a = v[j + _PAD]
        ab = a + v[j - 1 + _PAD]
        abc = ab + v[j - 2 + _PAD]
        out[j] = step * (total + a) - out[j]
        out[j - 1] = step * (total + ab) - out[j - 1]
        out[j - 2] = step * (total + abc) - out[j - 2]
        total += abc + v[j - 3 + _PAD]
        out[j - 3] = step * total - out[j - 3]
        j -= 4
    while j >= 0:
        total += v[j + _PAD]
        out[j] = step * total - out[j]
        j -= 1
    return out[0]


@helper
def _tail(rows: np.ndarray, target: int, start: int, count: int, sign: int, up: float, shrink: float) -> None:
    """One side of a density row (``row``, ``rows[target]``) outward from its peak: ``row[start + sign * i]``
    is ``v(i + 1)`` for ``i`` below ``count``, where ``v(0) = 1`` and ``v(i + 1) = v(i) up shrink^i``
    (decreasing: ``up <= 1``), flushed to zero below :data:`_TINY`.

    Four interleaved chains, each point four steps on from the one before it in its chain (ratio
    ``up^4 shrink^(4i + 6)``, itself times ``shrink^16`` a step), so that the chains' multiplications overlap
    instead of each waiting for the last: 8 rows of 94 points took 580 ns against 780 ns in one chain.
    """
    if count <= 0:
        return
    row = rows[target]
    q2 = shrink * shrink
    q4 = q2 * q2
    q16 = (q4 * q4) * (q4 * q4)
    v0 = up
    v1 = v0 * (up * shrink)
    v2 = v1 * (up * q2)
    v3 = v2 * (up * q2 * shrink)
    up2 = up * up
    r0 = (up2 * up2) * (q4 * q4 * q2)  # v(i + 5) / v(i + 1) at i = 0
    r1 = r0 * q4
    r2 = r1 * q4
    r3 = r2 * q4
    i = 0
    while i + 3 < count and v3 >= _TINY:  # v3 is the smallest of the four
        row[start + sign * i] = v0
        row[start + sign * (i + 1)] = v1
        row[start + sign * (i + 2)] = v2
        row[start + sign * (i + 3)] = v3
        v0 *= r0
        v1 *= r1
        v2 *= r2
        v3 *= r3
        r0 *= q16
        r1 *= q16
        r2 *= q16
        r3 *= q16
        i += 4
    if i < count:
        row[start + sign * i] = v0 if v0 >= _TINY else 0.0
    if i + 1 < count:
        row[start + sign * (i + 1)] = v1 if v1 >= _TINY else 0.0
    if i + 2 < count:
        row[start + sign * (i + 2)] = v2 if v2 >= _TINY else 0.0
    if i + 3 < count:
        row[start + sign * (i + 3)] = v3 if v3 >= _TINY else 0.0
    for k in range(i + 4, count):
        row[start + sign * k] = 0.0


@helper
def _density(rating: float, lo: float, step: float, shrink: float, g: int, rows: np.ndarray, target: int) -> float:
    """``phi(lo + step j - rating)`` over its largest value on the grid, into ``rows[target]``; returns that
    value's log.

    ``shrink`` is ``exp(-step^2)``, the ratio of consecutive ratios (the same for every row of a grid).
    """
    peak = int(round((rating - lo) / step))
    peak = min(max(peak, 0), g - 1)
    z = lo + step * peak - rating
    rows[target, peak] = 1.0
    up = math.exp(-z * step - 0.5 * step * step)  # row[j + 1] / row[j] at j = peak
    _tail(rows, target, peak + 1, g - 1 - peak, 1, up, shrink)
    # row[j - 1] / row[j] at j = peak: exp(z step - step^2 / 2)
    _tail(rows, target, peak - 1, peak, -1, shrink / up, shrink)
    return -0.5 * z * z - LOG_SQRT_2PI


@reassociated
def _stage_sums(t: np.ndarray, back: np.ndarray, above: np.ndarray, u: np.ndarray, g: int) -> tuple[float, float]:
    """``sum_j t_j b_j`` and ``sum_j t_j u_j b'_j`` over the first g points.

    Vectorised (eight lanes): six stages of 94 points took 130 ns against 457 ns as four scalar partial sums
    (compiled loop of 200,000 calls, 2026-11-27); the replay of L about 4% less CPU.
    """
    s = 0.0
    c = 0.0
    for j in range(g):
        s += t[j] * back[j]
        c += t[j] * above[j] * u[j]
    return s, c


@helper
def _share(total: float, log_scale: float) -> float:
    """``total * exp(log_scale)``, in logarithms where the factor alone would overflow or underflow."""
    if total == 0.0:
        return 0.0
    if abs(log_scale) < 700.0:
        return total * math.exp(log_scale)
    return math.copysign(math.exp(math.log(abs(total)) + log_scale), total)


@helper
def _order(r: np.ndarray, chain: np.ndarray, bottom: np.ndarray, weight: float, out: np.ndarray, cells: float) -> bool:
    """Add ``weight`` times the gradient of one order's log-likelihood to ``out``; False if it needs logarithms
    (or, a crowd, more than ``cells`` players x grid points).

    Rows are kept as in the reference, except that a message is divided by its largest magnitude
    when it is next multiplied rather than in a pass of its own.
    """
    lo, step, g, scaled = _plan(r, chain, bottom)
    if len(r) >= CROWD_FROM:
        # Only the density rows must fit a scaled row: the bottom's distribution function is tilted from its log.
        scaled = _row_ranges(r, chain, bottom, lo, lo + step * (g - 1))[0] < SCALED_RANGE
        if not (scaled and len(r) * g <= cells):
            return False
        # The banded computation, else (a window it could not hold) the whole grid's.
        coincide = np.empty(len(chain) - 1 + len(bottom))
        if not (
            _banded(r, chain, bottom, lo, step, g, coincide, _NEGLIGIBLE)
            or _banded(r, chain, bottom, lo, step, g, coincide, _NEGLIGIBLE_AGAIN)
        ):
            return _crowd(r, chain, bottom, weight, out, lo, step, g)
        for k in range(len(chain) - 1):
            out[chain[k]] -= weight * coincide[k]
            out[chain[k + 1]] += weight * coincide[k]
        for d in range(len(bottom)):
            out[bottom[d]] -= weight * coincide[len(chain) - 1 + d]
            out[chain[0]] += weight * coincide[len(chain) - 1 + d]
        return True
    if not scaled or len(r) * g > MAX_CELLS:  # the reference refuses a game beyond MAX_CELLS with its error
        return False
    m = len(chain)
    nb = len(bottom)
    span = (g + _LANES - 1) // _LANES * _LANES
    wide = span + 2 * _PAD
    # Rows of ``wide``, of which the first g are used; t_k = f_{k-1} u_k is zero padded for the
    # integration's stencil (from _PAD, and up to span after it), and so is ``work``.  Element
    # loops rather than slice assignments, here and below: numba compiles a slice assignment with its
    # shape checks and their formatted messages, seconds of compile time for nothing.
    rows = np.empty((3 * m + nb + 2, wide))  # one allocation, carved into views (their first rows below)
    t_row, back_row, f_row, work_row = m, 2 * m, 3 * m + nb, 3 * m + nb + 1
    u = rows[:m]
    t = rows[m : 2 * m]
    back = rows[2 * m : 3 * m]
    sides = rows[3 * m : 3 * m + nb]
    f = rows[3 * m + nb]
    work = rows[3 * m + nb + 1]
    for j in range(_PAD):
        work[j] = 0.0
        for k in range(m):
            t[k, j] = 0.0
    for j in range(_PAD + g, wide):
        work[j] = 0.0
        for k in range(m):
            t[k, j] = 0.0
    scales = np.empty(3 * m + nb)
    u_scale = scales[:m]
    t_scale = scales[m : 2 * m]
    b_scale = scales[2 * m : 3 * m]
    side_scale = scales[3 * m :]
    shrink = math.exp(-step * step)
    for k in range(m):
        u_scale[k] = _density(r[chain[k]], lo, step, shrink, g, rows, k)
    if nb == 1:
        density_scale = _density(r[bottom[0]], lo, step, shrink, g, rows, 3 * m)
        side_scale[0] = density_scale
        for j in range(g):
            t[0, j + _PAD] = sides[0, j]  # borrowed as the integration's input
        top = _integrate(rows, t_row, g, span, step, f_row)
        start = log_ndtr(lo - r[bottom[0]])
        f_scale = max(density_scale + math.log(top), start)
        a = math.exp(density_scale - f_scale)
        c = math.exp(start - f_scale)
        for j in range(g):
            t[0, j + _PAD] = (f[j] * a + c) * u[0, j]
    else:
        log_cdf = np.empty((nb, g))  # every element written below (np.zeros: two more compiled generics)
        for j in range(g):
            total = 0.0
            for d in range(nb):
                log_cdf[d, j] = log_ndtr(lo + step * j - r[bottom[d]])
                total += log_cdf[d, j]
            f[j] = total
        f_scale = -math.inf
        for j in range(g):
            f_scale = max(f_scale, f[j])
        for j in range(g):
            f0 = math.exp(f[j] - f_scale)
            t[0, j + _PAD] = f0 * u[0, j]
            for d in range(nb):
                z = lo + step * j - r[bottom[d]]
                sides[d, j] = math.exp(-0.5 * z * z - LOG_SQRT_2PI - log_cdf[d, j]) * f0
        for d in range(nb):
            side_scale[d] = f_scale
    t_scale[0] = f_scale + u_scale[0]
    for k in range(1, m):  # forward: f_{k-1} = integral of t_{k-1}, then t_k = f_{k-1} u_k
        top = _integrate(rows, t_row + k - 1, g, span, step, f_row)
        inverse = 1.0 / top
        for j in range(g):
            t[k, j + _PAD] = f[j] * inverse * u[k, j]
        t_scale[k] = t_scale[k - 1] + math.log(top) + u_scale[k]
    # Backward: b_{k-1} = integral from the right of u_k b_k, from b_{m-1} = 1.
    for j in range(g):
        back[m - 1, j] = 1.0
    total = _stage_sums(t[m - 1, _PAD:], back[m - 1], back[m - 1], u[m - 1], g)[0]  # the last stage's (b = 1)
    if not total > 0.0:  # the quadrature lost the mass: the reference's logarithmic computation
        return False
    log_lik = t_scale[m - 1] + math.log(step * total)
    b_scale[m - 1] = 0.0
    b_top = np.empty(m)  # b_top[k]: the total by which back[k + 1]'s integral was divided, giving back[k]
    b_top[m - 1] = 1.0
    top = 1.0
    for k in range(m - 1, 0, -1):
        inverse = 1.0 / top
        for j in range(g):
            work[j + _PAD] = u[k, j] * back[k, j] * inverse
        b_scale[k - 1] = b_scale[k] + math.log(top) + u_scale[k]
        top = _integrate_right(rows, work_row, g, span, step, back_row + k - 1)
        b_top[k - 1] = top
    # The stages' likelihoods agree (else mass was lost to underflow); neighbours' coincidences.
    for k in range(m - 1):
        stage, total = _stage_sums(t[k, _PAD:], back[k], back[k + 1], u[k + 1], g)
        stage *= step
        # The stage's log-likelihood is log(stage) + t_scale[k] + b_scale[k], and b_scale[k] is
        # b_scale[k + 1] + u_scale[k + 1] + log(b_top[k + 1]): compared as a ratio with exp(share) where that
        # fits, the exponential the neighbours' share needs anyway, instead of a logarithm of its own.
        share = t_scale[k] + u_scale[k + 1] + b_scale[k + 1] - log_lik
        if abs(share) < 700.0:
            factor = math.exp(share)
            ratio = stage * b_top[k + 1] * factor
            if not (stage > 0.0 and _AGREE_LOW <= ratio <= _AGREE_HIGH):
                return False
        elif not (stage > 0.0 and abs(math.log(stage) + t_scale[k] + b_scale[k] - log_lik) <= CONSISTENCY):
            return False
        if not (step * total >= SMALLEST_SUM or total == 0.0):
            return False
        c = step * total * factor if abs(share) < 700.0 else _share(step * total, share)
        out[chain[k]] -= weight * c
        out[chain[k + 1]] += weight * c
    for d in range(nb):  # a bottom player and chain[0]
        total = _stage_sums(sides[d], back[0], back[0], u[0], g)[1]
        if not (step * total >= SMALLEST_SUM or total == 0.0):
            return False
        c = _share(step * total, side_scale[d] + u_scale[0] + b_scale[0] - log_lik)
        out[bottom[d]] -= weight * c
        out[chain[0]] += weight * c
    return True


#: From this many players an order is computed by :func:`_crowd` (tilted messages, checkpointed rows); below it
#: by :func:`_order`, whose products of scaled messages hold the mass up to about 650 players.
CROWD_FROM = 400
#: Largest players x grid points of an order the kernel computes unless ``theta[0]`` says otherwise
#: (:attr:`ratings.systems.thurstonian.Thurstonian.crowd_cells`): :func:`_crowd` holds about ``2 sqrt(m)`` rows
#: of the grid (4,096 players: 128 rows of 35,000 points, 36 MB), so its bound is time, not memory: about
#: 6,000 players (the reference, holding every row, stops at :data:`MAX_CELLS`).
KERNEL_CELLS = CROWD_CELLS
#: Largest tilt times step accepted (the corrections' weights are ``exp(+-5 lambda h)``).
_STEEPEST = 40.0
#: A retilted row's factor is held below this (the row beyond it is negligible: see :func:`_retilt`).
_HUGE = 1e300


#: Points of the coarse grid on which :func:`_anchors` inverts the field's mixture distribution.
_MIXTURE_POINTS = 1024


@helper
def _anchors(r: np.ndarray, chain: np.ndarray, bottom: np.ndarray, lo: float, step: float, g: int) -> np.ndarray:
    """Grid points near each chain player's posterior mode, where its messages are tilted to peak.

    The player's place in the field mapped through the field's mixture of performance distributions,
    ``M(x) = mean_i Phi(x - r_i) = (place - 0.375) / (n + 0.25)`` (Blom's plotting position, Blom 1958): for
    equal ratings these are the expected normal order statistics to about 1e-3, and where the order agrees
    with widely spread ratings they are about the ratings.  Elsewhere (a crowd reversing a wide spread
    squeezes its performances together) it is only a choice of tilt, and a poor one is caught by the stages'
    agreement and the game declined.  ``M`` is inverted by linear interpolation on a coarse grid of
    :data:`_MIXTURE_POINTS` over the grid's range.
    """
    m = len(chain)
    nb = len(bottom)
    n = m + nb
    hi = lo + step * (g - 1)
    width = (hi - lo) / (_MIXTURE_POINTS - 1)
    mixture = np.empty(_MIXTURE_POINTS)
    for q in range(_MIXTURE_POINTS):
        x = lo + width * q
        total = 0.0
        for k in range(m):
            total += ndtr(x - r[chain[k]])
        for d in range(nb):
            total += ndtr(x - r[bottom[d]])
        mixture[q] = total / n
    out = np.empty(m, dtype=np.int64)
    q = 0
    for k in range(m):
        p = (nb + k + 1 - 0.375) / (n + 0.25)  # the chain's k-th player is the field's (nb + k + 1)-th from the bottom
        while q < _MIXTURE_POINTS - 2 and mixture[q + 1] < p:
            q += 1
        low, high = mixture[q], mixture[q + 1]
        share = (p - low) / (high - low) if high > low else 0.5
        x = lo + width * (q + min(max(share, 0.0), 1.0))
        out[k] = min(max(int(round((x - lo) / step)), 1), g - 2)
    return out


@contracted
def _integrate_tilted(rows: np.ndarray, source: int, g: int, step: float, rho: float, target: int, up: bool) -> float:
    """:func:`_integrate` (``up``) or :func:`_integrate_right` of a tilted row; returns the largest value.

    The row holds ``v_j exp(-lambda x_j)`` (up to a constant) and so does its integral: with
    ``rho = exp(-lambda step)`` the running sum is ``S_j = rho S_(j-1) + v_j`` and the corrections' terms
    ``v_(j+k)`` and ``v_(j-k)`` carry ``rho^-k`` and ``rho^k`` (from the right the tilt is ``exp(+lambda x)``:
    the same ``rho`` with the roles of the two sides exchanged).  The same quadrature as the reference's,
    in another scaling.  A running sum below :data:`_TINY` is flushed to zero: with a small tilt (``rho`` near 1,
    the top of a crowd) it would otherwise decay through subnormal numbers over thousands of points, each
    operation on them tens of times slower (4,096 equal ratings: 14.0 s a game against 3.6 s flushed).
    """
    v = rows[source]
    out = rows[target]
    sign = 1.0 if up else -1.0
    a1 = 1.0 / rho if up else rho
    a2 = a1 * a1
    a3 = a2 * a1
    a4 = a2 * a2
    a5 = a4 * a1
    b1 = 1.0 / a1
    b2 = b1 * b1
    b3 = b2 * b1
    b4 = b2 * b2
    b5 = b4 * b1
    for j in range(g):
        c = j + _PAD
        out[j] = step * (
            0.5 * v[c]
            + sign
            * (
                _W1 * (v[c + 1] * a1 - v[c - 1] * b1)
                + _W2 * (v[c + 2] * a2 - v[c - 2] * b2)
                + _W3 * (v[c + 3] * a3 - v[c - 3] * b3)
                + _W4 * (v[c + 4] * a4 - v[c - 4] * b4)
                + _W5 * (v[c + 5] * a5 - v[c - 5] * b5)
            )
        )
    total = 0.0
    top = 0.0
    for i in range(g):
        j = i if up else g - 1 - i
        total = rho * total + v[j + _PAD]
        if total < _TINY:  # flushed: a tail decaying through subnormal numbers cost 4x the whole game's time
            total = 0.0
        out[j] = step * total - out[j]
        top = max(top, out[j])
    return top


@helper
def _retilt(rows: np.ndarray, source: int, target: int, g: int, shift: int, anchor: int, slope: float) -> float:
    """``rows[target, j] = rows[source, shift + j] exp(-slope (j - anchor))`` for j below g; returns the largest.

    The factor is a geometric sequence from 1 at ``anchor`` (one multiplication a point); where it would
    exceed :data:`_HUGE` it stays there (the tilted messages are log-concave, peaking near their anchor by
    the choice of tilt, so a point that needs more holds nothing of weight; the stages' agreement checks it).
    """
    v = rows[source]
    out = rows[target]
    ratio = math.exp(-slope)
    factor = 1.0
    top = 0.0
    for j in range(anchor, g):
        out[j] = v[shift + j] * factor
        top = max(top, out[j])
        factor = min(factor * ratio, _HUGE)
    ratio = 1.0 / ratio
    factor = ratio
    for j in range(anchor - 1, -1, -1):
        out[j] = v[shift + j] * factor
        top = max(top, out[j])
        factor = min(factor * ratio, _HUGE)
    return top


@helper
def _scale_row(rows: np.ndarray, target: int, g: int, shift: int, factor: float) -> None:
    """Multiply the first g values of ``rows[target]`` (from ``shift``) by ``factor``."""
    row = rows[target]
    for j in range(shift, shift + g):
        row[j] *= factor


@helper
def _sum2(high: float, low: float, x: float) -> tuple[float, float]:
    """``(high + low) + x`` as an unevaluated sum ``(high', low')`` (Knuth's TwoSum: ``low`` gathers each rounding).

    A crowd's log scales are sums of thousands of terms of tens of thousands in all (4,096 players: the
    log-likelihood is about -30,000); added in plain doubles their roundings (an ulp is 3.6e-12 there) drifted
    by 3e-9 in the middle of the chain, and every coincidence with them.
    """
    total = high + x
    back = total - high
    return total, low + ((high - (total - back)) + (x - back))


@helper
def _crowd_step(
    rows: np.ndarray,
    k: int,
    source: int,
    target: int,
    r: np.ndarray,
    chain: np.ndarray,
    lo: float,
    step: float,
    shrink: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
    fresh: bool,
) -> bool:
    """The forward message ``t_k = f_(k-1) u_k`` into ``rows[target]`` (padded) from ``t_(k-1)`` in ``rows[source]``,
    tilted to peak at ``anchors[k]``, divided by its largest value (log scale into ``t_scale[k] + t_low[k]``).

    ``fresh``: choose the tilt (``tilt[k]``: the slope of ``log t_k`` at the anchor, by a central difference;
    0 for the last player, whose ``t`` is its own posterior); else use the one chosen before, so that a
    recomputed row is the row computed first, to the bit.  Rows: 0 is the density, 1 the integral.
    """
    m = len(chain)
    top = _integrate_tilted(rows, source, g, step, math.exp(-tilt[k - 1] * step), 1, True)
    if not top > 0.0:
        return False
    u_scale = _density(r[chain[k]], lo, step, shrink, g, rows, 0)
    inverse = 1.0 / top
    u = rows[0]
    f = rows[1]
    for j in range(g):  # t_k with t_(k-1)'s tilt, into the integral's row (unpadded)
        f[j] = f[j] * inverse * u[j]
    high, low = _sum2(t_scale[k - 1], t_low[k - 1], math.log(top))
    high, low = _sum2(high, low, u_scale)
    a = anchors[k]
    if fresh:
        if k == m - 1:
            tilt[k] = 0.0
        else:
            left, right = f[a - 1], f[a + 1]
            if not (left > 0.0 and right > 0.0):
                return False
            tilt[k] = tilt[k - 1] + (math.log(right) - math.log(left)) / (2.0 * step)
            if not abs(tilt[k] * step) <= _STEEPEST:
                return False
    # From tilt[k - 1] at anchors[k - 1] to tilt[k] at a: the row's constant gains tilt[k - 1] (x_a - x_(a'))
    top = _retilt(rows, 1, target, g, 0, a, (tilt[k] - tilt[k - 1]) * step)
    if not top > 0.0:
        return False
    # _retilt wrote target[0:g]; the padded row holds it from _PAD: shift it in place, from the right.
    t = rows[target]
    inverse = 1.0 / top
    for j in range(g - 1, -1, -1):
        t[j + _PAD] = t[j] * inverse
    for j in range(_PAD):
        t[j] = 0.0
    high, low = _sum2(high, low, tilt[k - 1] * step * (a - anchors[k - 1]))
    t_scale[k], t_low[k] = _sum2(high, low, math.log(top))
    return True


@helper
def _walk(
    rows: np.ndarray,
    begin: int,
    end: int,
    s: int,
    first_block: int,
    first_check: int,
    r: np.ndarray,
    chain: np.ndarray,
    lo: float,
    step: float,
    shrink: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
) -> bool:
    """The forward messages ``t_(begin+1) .. t_(end-1)`` from ``t_begin``, each into block row ``k mod s``.

    The first pass (``first_check`` a row index) chooses the tilts and copies every s-th row to its
    checkpoint; a recomputation (``first_check`` -1) reuses the tilts, so that its rows are the first pass's.
    """
    fresh = first_check >= 0
    for k in range(begin + 1, end):
        source, target = first_block + (k - 1) % s, first_block + k % s
        if not _crowd_step(
            rows, k, source, target, r, chain, lo, step, shrink, g, anchors, tilt, t_scale, t_low, fresh
        ):
            return False
        if fresh and k % s == 0:
            for j in range(rows.shape[1]):
                rows[first_check + k // s, j] = rows[target, j]
    return True


@helper
def _bottom_rows(
    r: np.ndarray,
    bottom: np.ndarray,
    lo: float,
    step: float,
    shrink: float,
    g: int,
    rows: np.ndarray,
    anchors: np.ndarray,
) -> tuple[float, float]:
    """A crowd's bottom (its DNFs, or its last finisher) as the distribution function ``f0`` of where the first
    finisher lies, on the whole grid into ``rows[5]`` (rows 0-2 used as work); returns ``f0``'s log scale and its
    tilt (:func:`_crowd`, :func:`_banded`)."""
    nb = len(bottom)
    f0 = rows[5]
    if nb == 1:
        density_scale = _density(r[bottom[0]], lo, step, shrink, g, rows, 0)
        work = rows[2]
        for j in range(g):
            work[j + _PAD] = rows[0, j]
        top = _integrate(rows, 2, g, g, step, 1)  # the plain integral (no tilt): span g, its loops exact
        start = log_ndtr(lo - r[bottom[0]])
        f_scale = max(density_scale + math.log(top), start)
        a = math.exp(density_scale - f_scale)
        c = math.exp(start - f_scale)
        for j in range(g):
            f0[j] = rows[1, j] * a + c
        for j in range(g + 2 * _PAD):
            work[j] = 0.0
        f_tilt = 0.0
    else:
        # Many DNFs: their product of distribution functions, where the first finisher lies, can be far below
        # its largest value (500 DNFs below 3,500 finishers: about 0.13^500); it is tilted as the messages are,
        # from its logarithm, by its slope at chain[0]'s anchor.
        for j in range(g):
            total = 0.0
            for d in range(nb):
                total += log_ndtr(lo + step * j - r[bottom[d]])
            f0[j] = total
        a = anchors[0]
        f_tilt = (f0[a + 1] - f0[a - 1]) / (2.0 * step)
        f_scale = -math.inf
        for j in range(g):
            f0[j] -= f_tilt * step * (j - a)
            f_scale = max(f_scale, f0[j])
        for j in range(g):
            f0[j] = math.exp(f0[j] - f_scale)
    return f_scale, f_tilt


@helper
def _crowd(
    r: np.ndarray, chain: np.ndarray, bottom: np.ndarray, weight: float, out: np.ndarray, lo: float, step: float, g: int
) -> bool:
    """:func:`_order` for crowds: the same quantities, with every message tilted by an exponential.

    In a crowd the scaled messages lose their mass: ``f_k`` divided by its largest value is about
    ``Phi^k`` (2^-k) where ``X_(k+1)`` lies, and ``b_k`` about ``(1 - Phi)^(m-k)``, so their product
    underflows from about 650 players and each factor alone from about 2,000.  Here ``t_k`` is held as
    ``t_k(x) exp(-lambda_k (x - x_a))``, with ``lambda_k`` the slope of ``log t_k`` at ``x_a``, a grid point
    near the player's posterior mode (:func:`_anchors`), and ``b_k`` as ``b_k(x) exp(+lambda_k (x - x_a))``:
    both peak near ``x_a`` (at the posterior mode the two slopes cancel; the messages are log-concave, by
    Prekopa's theorem), their product is the posterior and needs no range, and the tilts cancel in every
    sum.  Each row is still divided by its largest value, with that value's logarithm kept beside it.

    Memory: forward rows are kept every ``s = ceil(sqrt(m))`` players; the backward pass recomputes a block of
    ``s`` of them from its checkpoint before it walks down through it (Griewank's checkpointing), so the
    rows held are about ``2 sqrt(m)``, at the price of a second forward pass.
    """
    m = len(chain)
    nb = len(bottom)
    wide = g + 2 * _PAD
    s = int(math.ceil(math.sqrt(m)))
    checkpoints = (m + s - 1) // s
    # Rows: 0 density, 1 integral, 2 work (padded), 3 and 4 backward messages, 5 the bottom's distribution
    # function, then the checkpoints, then one block.
    first_check = 6
    first_block = first_check + checkpoints
    rows = np.zeros((first_block + s, wide))
    anchors = _anchors(r, chain, bottom, lo, step, g)
    tilt = np.empty(m)
    t_scale = np.empty(m)  # each log scale as t_scale + t_low (see _sum2)
    t_low = np.empty(m)
    shrink = math.exp(-step * step)
    # The bottom's distribution function f0 (row 5, its log scale f_scale, its tilt f_tilt).
    f_scale, f_tilt = _bottom_rows(r, bottom, lo, step, shrink, g, rows, anchors)
    f0 = rows[5]
    # t_0 = f0 u_0, tilted at its anchor (from f0's tilt, f_tilt at the same anchor).
    u_scale = _density(r[chain[0]], lo, step, shrink, g, rows, 0)
    for j in range(g):
        rows[1, j] = f0[j] * rows[0, j]
    a = anchors[0]
    left, right = rows[1, a - 1], rows[1, a + 1]
    if not (left > 0.0 and right > 0.0):
        return False
    tilt[0] = f_tilt + (math.log(right) - math.log(left)) / (2.0 * step) if m > 1 else 0.0
    if not abs(tilt[0] * step) <= _STEEPEST:
        return False
    top = _retilt(rows, 1, first_block, g, 0, a, (tilt[0] - f_tilt) * step)
    if not top > 0.0:
        return False
    t = rows[first_block]
    for j in range(g - 1, -1, -1):
        t[j + _PAD] = t[j] / top
    for j in range(_PAD):
        t[j] = 0.0
    high, low = _sum2(f_scale, 0.0, u_scale)
    t_scale[0], t_low[0] = _sum2(high, low, math.log(top))
    for j in range(wide):
        rows[first_check, j] = t[j]
    # Forward: every t_k, the last block's rows kept and every s-th row checkpointed.
    if not _walk(rows, 0, m, s, first_block, first_check, r, chain, lo, step, shrink, g, anchors, tilt, t_scale, t_low):
        return False
    total = 0.0
    last = rows[first_block + (m - 1) % s]
    for j in range(_PAD, _PAD + g):
        total += last[j]
    if not total > 0.0:
        return False
    log_lik, lik_low = _sum2(t_scale[m - 1], t_low[m - 1], math.log(step * total))
    # Backward, block by block from the top: b_(m-1) = 1 (tilt 0, as t_(m-1)'s).
    b_row, b_scale, b_low = 3, 0.0, 0.0
    for j in range(g):
        rows[b_row, j] = 1.0
    for block in range(checkpoints - 1, -1, -1):
        begin = block * s
        end = min(begin + s, m)
        if block < checkpoints - 1:  # recompute the block's rows from its checkpoint
            for j in range(wide):
                rows[first_block, j] = rows[first_check + block, j]
            if not _walk(
                rows, begin, end, s, first_block, -1, r, chain, lo, step, shrink, g, anchors, tilt, t_scale, t_low
            ):
                return False
        for k in range(end - 1, begin - 1, -1):
            t = rows[first_block + k % s]
            if k < m - 1:
                # work = u_(k+1) b_(k+1), from b_(k+1)'s tilt (-tilt[k+1] at anchors[k+1]) to b_k's (-tilt[k] at
                # anchors[k]); the constant gains -tilt[k+1] (x_a - x_a').
                u_scale = _density(r[chain[k + 1]], lo, step, shrink, g, rows, 0)
                for j in range(g):
                    rows[1, j] = rows[0, j] * rows[b_row, j]
                a = anchors[k]
                top = _retilt(rows, 1, 1, g, 0, a, (tilt[k + 1] - tilt[k]) * step)
                if not top > 0.0:
                    return False
                work = rows[2]
                for j in range(g):
                    work[j + _PAD] = rows[1, j] / top
                w_scale, w_low = _sum2(b_scale, b_low, u_scale)
                w_scale, w_low = _sum2(w_scale, w_low, -tilt[k + 1] * step * (a - anchors[k + 1]))
                w_scale, w_low = _sum2(w_scale, w_low, math.log(top))
                coincide = 0.0
                for j in range(g):
                    coincide += t[j + _PAD] * work[j + _PAD]
                share = (t_scale[k] - log_lik) + w_scale + (t_low[k] - lik_low + w_low)
                c = _share(step * coincide, share)
                if not (step * coincide >= SMALLEST_SUM or coincide == 0.0):
                    return False
                out[chain[k]] -= weight * c
                out[chain[k + 1]] += weight * c
                next_row = 7 - b_row  # rows 3 and 4 in turn
                top = _integrate_tilted(rows, 2, g, step, math.exp(-tilt[k] * step), next_row, False)
                if not top > 0.0:
                    return False
                _scale_row(rows, next_row, g, 0, 1.0 / top)
                b_row = next_row
                b_scale, b_low = _sum2(w_scale, w_low, math.log(top))
                # The stage's likelihood (t_k b_k) agrees with the last stage's.
                stage = 0.0
                for j in range(g):
                    stage += t[j + _PAD] * rows[b_row, j]
                drift = (t_scale[k] - log_lik) + b_scale + (t_low[k] - lik_low + b_low)
                if not (stage > 0.0 and abs(math.log(step * stage) + drift) <= CONSISTENCY):
                    return False
    # A bottom player and chain[0] coinciding: side_d u_0 b_0, the side tilted as t_0.
    u_scale = _density(r[chain[0]], lo, step, shrink, g, rows, 0)
    for d in range(nb):
        if nb == 1:
            side_scale = _density(r[bottom[0]], lo, step, shrink, g, rows, 1)
            for j in range(g):
                rows[1, j] *= rows[0, j]
        else:
            side_scale = f_scale
            for j in range(g):
                z = lo + step * j - r[bottom[d]]
                rows[1, j] = math.exp(-0.5 * z * z - LOG_SQRT_2PI - log_ndtr(z)) * f0[j] * rows[0, j]
        # The side has f0's tilt (nb > 1) or none: to t_0's.
        top = _retilt(rows, 1, 1, g, 0, anchors[0], (tilt[0] - f_tilt) * step)
        if not top > 0.0:
            return False
        _scale_row(rows, 1, g, 0, 1.0 / top)
        side_scale += math.log(top)
        total = 0.0
        for j in range(g):
            total += rows[1, j] * rows[b_row, j]
        if not (step * total >= SMALLEST_SUM or total == 0.0):
            return False
        c = _share(step * total, (side_scale - log_lik) + u_scale + b_scale + (b_low - lik_low))
        out[bottom[d]] -= weight * c
        out[chain[0]] += weight * c
    return True


#: A banded row (:func:`_banded`) keeps the points where its tilted value is at least this fraction of its largest.
#: The rows cut are integrands (forward messages ``t_k`` and the backward integrands ``u_(k+1) b_(k+1)``), each
#: log-concave once tilted (Prekopa), so the points dropped lie in its two tails, each below this fraction of the
#: peak and falling away from it: a row's neglected mass is below ``g`` times this of its largest value (``g``
#: points; 20,000 players: 171,000 points, so below 2e-25 of the row's peak, about 1e-22 of its mass), and the
#: cumulative integrals built from the rows keep their constants exactly (see :func:`_banded`).  Its width follows
#: the row: about ``sqrt(2 log(1/this) / c)`` from the peak for a row of curvature ``c``, so ``15 sqrt(n)`` grid
#: points each side in the middle of a crowd of ``n`` (``c`` about ``0.3 n``, the grid's step ``1.4 / n``) and the
#: whole grid for the lowest few finishers' forward rows and the highest few's backward ones (``c`` about 1).
_NEGLIGIBLE = 1e-30
#: The cut of a second try.  A row's cut is relative to its own peak, which its tilt puts at its anchor; where the
#: anchors are far from the posterior (ratings spread 1 or more finishing in an order unrelated to them: 600 to 2,000
#: players, tests) the posterior lies in the rows' tails, the stages' agreement fails, and the game is computed again
#: with this cut (the scaled rows' own range: nothing above 1e-250 of a row's peak is dropped) before the whole grid.
_NEGLIGIBLE_AGAIN = 1e-250
#: A banded row's exponential factor is a recurrence of two multiplications a point restarted from an exact
#: exponential every this many points (so that it neither drifts nor stays at zero after an underflow).
_RESTART = 32


@helper
def _parabola(j: float, lo: float, step: float, rating: float, slope: float, anchor: int) -> float:
    """``log phi(lo + step j - rating) - slope (j - anchor)``: a density row's logarithm, tilted, at grid point j."""
    z = lo + step * j - rating
    return -0.5 * z * z - LOG_SQRT_2PI - slope * (j - anchor)


@helper
def _parabola_top(lo: float, step: float, rating: float, slope: float, anchor: int, first: int, last: int) -> float:
    """The largest value of :func:`_parabola` over the grid points ``first .. last`` (a concave parabola in j)."""
    j = (rating - lo) / step - slope / (step * step)
    return _parabola(min(max(j, float(first)), float(last)), lo, step, rating, slope, anchor)


@helper
def _pad_window(rows: np.ndarray, target: int, w0: int, w1: int, g: int) -> None:
    """Zeros in the padded row ``rows[target]`` for ``2 _PAD`` points each side of its window ``[w0, w1)`` (grid
    indices), the reach of the corrections' stencil from any point whose stencil meets the window."""
    for j in range(max(w0 - 2 * _PAD, -_PAD), w0):
        rows[target, j + _PAD] = 0.0
    for j in range(w1, min(w1 + 2 * _PAD, g + _PAD)):
        rows[target, j + _PAD] = 0.0


@helper
def _window_span(w0: int, w1: int, g: int) -> tuple[int, int]:
    """The padded row's indices ``[first, end)`` of a window with its zero pads (:func:`_pad_window`)."""
    return max(w0 - 2 * _PAD, -_PAD) + _PAD, min(w1 + 2 * _PAD, g + _PAD) + _PAD


@helper
def _keep(pool: np.ndarray, used: int, rows: np.ndarray, source: int, w0: int, w1: int, g: int) -> np.ndarray:
    """Append a padded row's window with its pads to ``pool`` from ``used`` (the pool doubled when full)."""
    first, end = _window_span(w0, w1, g)
    if used + end - first > len(pool):
        grown = np.empty(max(2 * len(pool), used + end - first))
        for i in range(used):
            grown[i] = pool[i]
        pool = grown
    for c in range(first, end):
        pool[used + c - first] = rows[source, c]
    return pool


@contracted
def _band_forward(
    rows: np.ndarray,
    k: int,
    source: int,
    target: int,
    r: np.ndarray,
    chain: np.ndarray,
    lo: float,
    step: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
    t_lo: np.ndarray,
    t_hi: np.ndarray,
    fresh: bool,
    negligible: float,
    carried: float,
) -> bool:
    """:func:`_crowd_step` on windows: ``t_k`` into the padded ``rows[target]`` over its window ``[t_lo[k], t_hi[k])``
    from ``t_(k-1)`` (padded, in ``rows[source]``, zero beyond its window and its pads).

    ``carried``: the running sum's value before the window's first point, in ``t_(k-1)``'s scaled units over the step
    (0 but for the mass below the grid of a tied crowd's opening player, :func:`_crowd_segments`, whose row is
    untilted and starts at the grid's first point).

    The integral ``f_(k-1)`` of ``t_(k-1)`` (tilted) is zero below the window (less the stencil's reach) and beyond
    it the constant ``t_(k-1)``'s mass, which tilted is the geometric sequence its running sum continues as;
    ``t_k = f_(k-1) u_k`` retilted is walked from the window's first point upwards until, past the anchor, it falls
    below ``negligible`` of its largest value (log-concave: it only falls from there), and its low points
    under that fraction are dropped as well.  Row 1 holds the walk's values.
    """
    m = len(chain)
    a0, a1 = t_lo[k - 1], t_hi[k - 1]
    a = anchors[k]
    rating = r[chain[k]]
    v = rows[source]
    f = rows[1]
    rho = math.exp(-tilt[k - 1] * step)
    b1 = rho
    b2 = b1 * b1
    b3 = b2 * b1
    b4 = b2 * b2
    b5 = b4 * b1
    c1 = 1.0 / rho
    c2 = c1 * c1
    c3 = c2 * c1
    c4 = c2 * c2
    c5 = c4 * c1
    first = max(a0 - _PAD, 0)
    stencil_end = min(a1 + _PAD, g)
    total = carried
    for j in range(first, stencil_end):  # the tilted integral where its corrections reach the window
        c = j + _PAD
        correction = 0.5 * v[c] + (
            _W1 * (v[c + 1] * c1 - v[c - 1] * b1)
            + _W2 * (v[c + 2] * c2 - v[c - 2] * b2)
            + _W3 * (v[c + 3] * c3 - v[c - 3] * b3)
            + _W4 * (v[c + 4] * c4 - v[c - 4] * b4)
            + _W5 * (v[c + 5] * c5 - v[c - 5] * b5)
        )
        total = rho * total + v[c]
        if total < _TINY:
            total = 0.0
        f[j] = step * total - step * correction
    # Beyond the stencil's reach the integral is step * total, the running sum carried on with nothing added.
    if fresh:
        if k == m - 1:
            tilt[k] = 0.0
        else:
            if not (a - 1 >= first and a + 1 < g):
                return False
            left = f[a - 1] if a - 1 < stencil_end else step * total * rho ** (a - stencil_end)
            right = f[a + 1] if a + 1 < stencil_end else step * total * rho ** (a + 2 - stencil_end)
            if not (left > 0.0 and right > 0.0):
                return False
            # The slope of log(f u_k) at the anchor: f's by a central difference, the density's exactly (-z).
            tilt[k] = tilt[k - 1] + (math.log(right) - math.log(left)) / (2.0 * step) - (lo + step * a - rating)
            if not abs(tilt[k] * step) <= _STEEPEST:
                return False
    slope = (tilt[k] - tilt[k - 1]) * step
    shrink = math.exp(-step * step)
    scale = _parabola_top(lo, step, rating, slope, a, first, g - 1)
    top = 0.0
    last = 0.0
    j = first
    tail = step * total
    end = g
    while j < g:
        factor = math.exp(_parabola(float(j), lo, step, rating, slope, a) - scale)
        z = lo + step * j - rating
        ratio = math.exp(-z * step - 0.5 * step * step - slope)
        stop = min(j + _RESTART, g)
        done = False
        while j < stop:
            if j < stencil_end:
                value = f[j] * factor
            else:
                tail *= rho
                if tail < _TINY:
                    tail = 0.0
                value = tail * factor
            f[j] = value
            top = max(top, value)
            if j > a and value < negligible * top and value <= last:
                done = True
                break
            last = value
            factor *= ratio
            ratio *= shrink
            j += 1
        if done:
            end = j
            break
    if not top > 0.0:
        return False
    start = first
    while f[start] < negligible * top:
        start += 1
    t = rows[target]
    inverse = 1.0 / top
    for j in range(start, end):
        t[j + _PAD] = f[j] * inverse
    _pad_window(rows, target, start, end, g)
    t_lo[k], t_hi[k] = start, end
    high, low = _sum2(t_scale[k - 1], t_low[k - 1], scale)
    high, low = _sum2(high, low, tilt[k - 1] * step * (a - anchors[k - 1]))
    t_scale[k], t_low[k] = _sum2(high, low, math.log(top))
    return True


@helper
def _band_walk(
    rows: np.ndarray,
    begin: int,
    end: int,
    s: int,
    first_block: int,
    fresh: bool,
    r: np.ndarray,
    chain: np.ndarray,
    lo: float,
    step: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
    t_lo: np.ndarray,
    t_hi: np.ndarray,
    negligible: float,
) -> bool:
    """:func:`_walk` on windows (:func:`_band_forward`), without its checkpoints (:func:`_banded` keeps them)."""
    for k in range(begin + 1, end):
        source, target = first_block + (k - 1) % s, first_block + k % s
        if not _band_forward(
            rows, k, source, target, r, chain, lo, step, g, anchors, tilt, t_scale, t_low, t_lo, t_hi, fresh,
            negligible, 0.0,
        ):  # fmt: skip
            return False
    return True


@reassociated
def _band_dot(a: np.ndarray, a_shift: int, b: np.ndarray, b_shift: int, first: int, last: int) -> float:
    """``sum_j a[j + a_shift] b[j + b_shift]`` over ``first <= j < last``."""
    total = 0.0
    for j in range(first, last):
        total += a[j + a_shift] * b[j + b_shift]
    return total


@helper
def _band_extend(rows: np.ndarray, b_row: int, b_first: int, tail: float, rho: float, target: int) -> tuple[int, float]:
    """Write a backward row's values below its computed points down to ``target``: there the integral from the right
    is its running sum carried on with nothing added (``tail``, already scaled, times ``rho`` a point); returns the
    new first point and tail."""
    row = rows[b_row]
    while b_first > target:
        tail *= rho
        if tail < _TINY:
            tail = 0.0
        b_first -= 1
        row[b_first] = tail
    return b_first, tail


@helper
def _band_first(
    rows: np.ndarray,
    f_row: int,
    target: int,
    p: int,
    rating: float,
    f_scale: float,
    f_tilt: float,
    fresh: bool,
    last: bool,
    lo: float,
    step: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
    t_lo: np.ndarray,
    t_hi: np.ndarray,
    negligible: float,
) -> bool:
    """The first chain position's ``t_p = f0 u_p`` (``f0`` the bottom's distribution function on the whole grid,
    unpadded in ``rows[f_row]``, tilted by ``f_tilt``, log scale ``f_scale``) tilted at its anchor and cut to its
    window, into the padded ``rows[target]``; ``fresh``: choose its tilt (0 if it is the ``last``).  Rows 0 and 1 are
    work."""
    u_scale = _density(rating, lo, step, math.exp(-step * step), g, rows, 0)
    for j in range(g):
        rows[1, j] = rows[f_row, j] * rows[0, j]
    a = anchors[p]
    left, right = rows[1, a - 1], rows[1, a + 1]
    if not (left > 0.0 and right > 0.0):
        return False
    if fresh:
        tilt[p] = f_tilt + (math.log(right) - math.log(left)) / (2.0 * step) if not last else 0.0
    if not abs(tilt[p] * step) <= _STEEPEST:
        return False
    top = _retilt(rows, 1, 1, g, 0, a, (tilt[p] - f_tilt) * step)
    if not top > 0.0:
        return False
    w0 = 0
    while rows[1, w0] < negligible * top:
        w0 += 1
    w1 = g
    while rows[1, w1 - 1] < negligible * top:
        w1 -= 1
    t = rows[target]
    for j in range(w0, w1):
        t[j + _PAD] = rows[1, j] / top
    _pad_window(rows, target, w0, w1, g)
    t_lo[p], t_hi[p] = w0, w1
    high, low = _sum2(f_scale, 0.0, u_scale)
    t_scale[p], t_low[p] = _sum2(high, low, math.log(top))
    return True


@helper
def _band_integrand(
    rows: np.ndarray,
    b_row: int,
    b_first: int,
    b_end: int,
    b_tail: float,
    b_rho: float,
    rating: float,
    slope: float,
    a: int,
    lo: float,
    step: float,
    g: int,
    negligible: float,
) -> tuple[bool, int, int, float, float, int, float]:
    """A backward integrand ``u b`` (``b`` the backward row ``rows[b_row]``: points ``b_first .. b_end - 1``, below them
    its carried sum ``b_tail`` times ``b_rho`` a point; ``u`` the density of ``rating``) retilted by ``slope`` a point
    from ``a``, walked down from ``b``'s last point until, below ``a``, it falls under ``negligible`` of its largest
    value, into the padded row 2 over its window ``[w0, w1)`` (row 1 is work).  Returns ``(ok, w0, w1, scale, log_top,
    b_first, b_tail)``: the integrand's log scale is ``b``'s plus ``scale`` plus ``log_top``, and ``b`` may have been
    written further down (:func:`_band_extend`)."""
    shrink = math.exp(-step * step)
    scale = _parabola_top(lo, step, rating, slope, a, 0, b_end - 1)
    v = rows[1]
    top = 0.0
    last_value = 0.0
    j = b_end - 1
    w0 = 0
    while j >= 0:
        factor = math.exp(_parabola(float(j), lo, step, rating, slope, a) - scale)
        z = lo + step * j - rating
        ratio = math.exp(z * step - 0.5 * step * step + slope)  # factor(j - 1) / factor(j)
        stop = max(j - _RESTART, -1)
        done = False
        while j > stop:
            if j < b_first:
                b_first, b_tail = _band_extend(rows, b_row, b_first, b_tail, b_rho, j)
            value = rows[b_row, j] * factor
            v[j] = value
            top = max(top, value)
            if j < a and value < negligible * top and value <= last_value:
                done = True
                break
            last_value = value
            factor *= ratio
            ratio *= shrink
            j -= 1
        if done:
            w0 = j + 1
            break
    if not top > 0.0:
        return False, 0, 0, 0.0, 0.0, b_first, b_tail
    w1 = b_end
    while v[w1 - 1] < negligible * top:
        w1 -= 1
    work = rows[2]
    inverse = 1.0 / top
    for j in range(w0, w1):
        work[j + _PAD] = v[j] * inverse
    _pad_window(rows, 2, w0, w1, g)
    return True, w0, w1, scale, math.log(top), b_first, b_tail


@helper
def _band_right(
    rows: np.ndarray, source: int, w0: int, w1: int, rho: float, step: float, g: int, target: int
) -> tuple[bool, int, int, float, float]:
    """The backward message from a padded integrand ``rows[source]`` (window ``[w0, w1)``, tilt ``rho`` a point): its
    tilted integral from the right on the window and the stencil's reach below it, into ``rows[target]`` (unpadded),
    divided by its largest value.  Returns ``(ok, first, end, tail, log_top)``: the row's points and, below them, its
    running sum carried on (``tail``, times ``rho`` a point: :func:`_band_extend`)."""
    work = rows[source]
    b1 = rho
    b2 = b1 * b1
    b3 = b2 * b1
    b4 = b2 * b2
    b5 = b4 * b1
    c1 = 1.0 / rho
    c2 = c1 * c1
    c3 = c2 * c1
    c4 = c2 * c2
    c5 = c4 * c1
    out_row = rows[target]
    new_first = max(w0 - _PAD, 0)
    new_end = min(w1 + _PAD, g)
    total = 0.0
    top = 0.0
    for j in range(new_end - 1, new_first - 1, -1):
        c = j + _PAD
        correction = 0.5 * work[c] - (
            _W1 * (work[c + 1] * b1 - work[c - 1] * c1)
            + _W2 * (work[c + 2] * b2 - work[c - 2] * c2)
            + _W3 * (work[c + 3] * b3 - work[c - 3] * c3)
            + _W4 * (work[c + 4] * b4 - work[c - 4] * c4)
            + _W5 * (work[c + 5] * b5 - work[c - 5] * c5)
        )
        total = rho * total + work[c]
        if total < _TINY:
            total = 0.0
        out_row[j] = step * total - step * correction
        top = max(top, out_row[j])
    tail = step * total
    if rho > 1.0 and tail > 0.0:  # the carried sum grows downwards: its largest value is at the grid's first
        top = max(top, math.exp(math.log(tail) + new_first * math.log(rho)))
    if not (top > 0.0 and top < math.inf):
        return False, 0, 0, 0.0, 0.0
    inverse = 1.0 / top
    for j in range(new_first, new_end):
        out_row[j] *= inverse
    return True, new_first, new_end, tail * inverse, math.log(top)


@helper
def _banded(
    r: np.ndarray,
    chain: np.ndarray,
    bottom: np.ndarray,
    lo: float,
    step: float,
    g: int,
    coincide: np.ndarray,
    negligible: float,
) -> bool:
    """:func:`_crowd` with each integrand held where it is above ``negligible`` of its peak (:data:`_NEGLIGIBLE`, else
    :data:`_NEGLIGIBLE_AGAIN`): the same tilts, anchors, scales and checkpoints, the same quadrature, in about
    ``n^1.5`` cells for ``n^2``.  The coincidences come out in
    ``coincide`` (``m - 1`` between chain neighbours, then one for each bottom player with ``chain[0]``), so that a
    declined game leaves the gradient untouched for :func:`_crowd`.

    Outside an integrand's window its cumulative integral is not zero on both sides: from the left (``f_k``) it is
    zero below and the integrand's mass above, from the right (``b_k``) the reverse, tilted into geometric sequences
    that :func:`_band_forward` and :func:`_band_extend` continue exactly (the running sum with nothing added).
    """
    m = len(chain)
    nb = len(bottom)
    wide = g + 2 * _PAD
    s = int(math.ceil(math.sqrt(m)))
    checkpoints = (m + s - 1) // s
    # Rows as in _crowd, except the checkpoints: each block's first row, its window and pads only, in ``pool``
    # from ``kept[block]``.
    first_block = 6
    rows = np.zeros((first_block + s, wide))
    pool = np.empty(wide + 64 * checkpoints * (int(math.sqrt(g)) + 4 * _PAD))
    kept = np.empty(checkpoints + 1, dtype=np.int64)
    anchors = _anchors(r, chain, bottom, lo, step, g)
    tilt = np.empty(m)
    t_scale = np.empty(m)
    t_low = np.empty(m)
    t_lo = np.empty(m, dtype=np.int64)
    t_hi = np.empty(m, dtype=np.int64)
    shrink = math.exp(-step * step)
    # The bottom's distribution function f0 (row 5, its log scale f_scale, its tilt f_tilt).
    f_scale, f_tilt = _bottom_rows(r, bottom, lo, step, shrink, g, rows, anchors)
    f0 = rows[5]
    # t_0 = f0 u_0 tilted at its anchor, then cut to its window.
    if not _band_first(
        rows, 5, first_block, 0, r[chain[0]], f_scale, f_tilt, True, m == 1, lo, step, g, anchors, tilt, t_scale, t_low,
        t_lo, t_hi, negligible,
    ):  # fmt: skip
        return False
    kept[0] = 0
    for block in range(checkpoints):  # forward: every t_k, each block's first row kept
        begin = block * s
        if block > 0 and not _band_walk(
            rows,
            begin - 1,
            begin + 1,
            s,
            first_block,
            True,
            r,
            chain,
            lo,
            step,
            g,
            anchors,
            tilt,
            t_scale,
            t_low,
            t_lo,
            t_hi,
            negligible,
        ):
            return False
        first, end = _window_span(t_lo[begin], t_hi[begin], g)
        pool = _keep(pool, kept[block], rows, first_block, t_lo[begin], t_hi[begin], g)
        kept[block + 1] = kept[block] + end - first
        if not _band_walk(
            rows,
            begin,
            min(begin + s, m),
            s,
            first_block,
            True,
            r,
            chain,
            lo,
            step,
            g,
            anchors,
            tilt,
            t_scale,
            t_low,
            t_lo,
            t_hi,
            negligible,
        ):
            return False
    last = rows[first_block + (m - 1) % s]
    total = 0.0
    for j in range(t_lo[m - 1], t_hi[m - 1]):
        total += last[j + _PAD]
    if not total > 0.0:
        return False
    log_lik, lik_low = _sum2(t_scale[m - 1], t_low[m - 1], math.log(step * total))
    # Backward: b_(m-1) = 1 on the whole grid (tilt 0); a backward row holds its points b_first .. b_end - 1, zero
    # above, and below them its running sum carried on (b_tail, times b_rho a point: _band_extend).
    b_row, b_scale, b_low = 3, 0.0, 0.0
    for j in range(g):
        rows[b_row, j] = 1.0
    b_first, b_end, b_tail, b_rho = 0, g, 0.0, 1.0
    for block in range(checkpoints - 1, -1, -1):
        begin = block * s
        end = min(begin + s, m)
        if block < checkpoints - 1:
            first, stop = _window_span(t_lo[begin], t_hi[begin], g)
            for c in range(first, stop):
                rows[first_block, c] = pool[kept[block] + c - first]
            if not _band_walk(
                rows,
                begin,
                end,
                s,
                first_block,
                False,
                r,
                chain,
                lo,
                step,
                g,
                anchors,
                tilt,
                t_scale,
                t_low,
                t_lo,
                t_hi,
                negligible,
            ):
                return False
        for k in range(end - 1, begin - 1, -1):
            if k == m - 1:
                continue
            t_row = first_block + k % s
            t = rows[t_row]
            a = anchors[k]
            ok, w0, w1, scale, log_top, b_first, b_tail = _band_integrand(
                rows, b_row, b_first, b_end, b_tail, b_rho, r[chain[k + 1]], (tilt[k + 1] - tilt[k]) * step, a, lo,
                step, g, negligible,
            )  # fmt: skip
            if not ok:
                return False
            work = rows[2]
            w_scale, w_low = _sum2(b_scale, b_low, scale)
            w_scale, w_low = _sum2(w_scale, w_low, -tilt[k + 1] * step * (a - anchors[k + 1]))
            w_scale, w_low = _sum2(w_scale, w_low, log_top)
            both = _band_dot(t, _PAD, work, _PAD, max(w0, t_lo[k]), min(w1, t_hi[k]))
            share = (t_scale[k] - log_lik) + w_scale + (t_low[k] - lik_low + w_low)
            if not (step * both >= SMALLEST_SUM or both == 0.0):
                return False
            coincide[k] = _share(step * both, share)
            rho = math.exp(-tilt[k] * step)
            next_row = 7 - b_row
            ok, b_first, b_end, b_tail, log_top = _band_right(rows, 2, w0, w1, rho, step, g, next_row)
            if not ok:
                return False
            b_row, b_rho = next_row, rho
            b_scale, b_low = _sum2(w_scale, w_low, log_top)
            # The stage's likelihood (t_k b_k) agrees with the last stage's.
            if b_first > t_lo[k]:
                b_first, b_tail = _band_extend(rows, b_row, b_first, b_tail, b_rho, t_lo[k])
            stage = _band_dot(t, _PAD, rows[b_row], 0, t_lo[k], min(t_hi[k], b_end))
            drift = (t_scale[k] - log_lik) + b_scale + (t_low[k] - lik_low + b_low)
            if not (stage > 0.0 and abs(math.log(step * stage) + drift) <= CONSISTENCY):
                return False
    # A bottom player and chain[0] coinciding, on t_0's window: side_d u_0 b_0, the side tilted as t_0.
    w0, w1 = t_lo[0], t_hi[0]
    if b_first > w0:
        b_first, b_tail = _band_extend(rows, b_row, b_first, b_tail, b_rho, w0)
    w1 = min(w1, b_end)
    u_scale = _density(r[chain[0]], lo, step, shrink, g, rows, 0)
    a = anchors[0]
    for d in range(nb):
        if nb == 1:
            side_scale = _density(r[bottom[0]], lo, step, shrink, g, rows, 1)
            for j in range(w0, w1):
                rows[1, j] *= rows[0, j]
        else:
            side_scale = f_scale
            for j in range(w0, w1):
                z = lo + step * j - r[bottom[d]]
                rows[1, j] = math.exp(-0.5 * z * z - LOG_SQRT_2PI - log_ndtr(z)) * f0[j] * rows[0, j]
        slope = (tilt[0] - f_tilt) * step
        top = 0.0
        for j in range(w0, w1):
            rows[1, j] *= min(math.exp(-slope * (j - a)), _HUGE)
            top = max(top, rows[1, j])
        if not top > 0.0:
            return False
        side_scale += math.log(top)
        total = _band_dot(rows[1], 0, rows[b_row], 0, w0, w1) / top
        if not (step * total >= SMALLEST_SUM or total == 0.0):
            return False
        coincide[m - 1 + d] = _share(step * total, (side_scale - log_lik) + u_scale + b_scale + (b_low - lik_low))
    return True


@helper
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


#: Largest joint orderings x players x whole-grid points of one game with ties that the kernel enumerates (a crowd's
#: tied pair: two orders, to about 7,500 players); a game beyond it is declined, and the reference computes it or,
#: beyond MAX_CELLS, refuses it with its error.  (Whole-grid points, not the banded crowd's window cells: the
#: bound keeps its meaning whatever the windows.)
TIE_WORK = 1e9


@helper
def _cells(r: np.ndarray, fin: np.ndarray, failed: np.ndarray) -> int:
    """Players x grid points of the game's first order (by which the reference bounds its orderings).

    A helper, so that :func:`grid_plan` is compiled once, under the helpers' flags, as :func:`_order` calls it
    (called in the inlined gradient, it compiled a second time under its ``cfunc``'s flags).
    """
    chain = fin if len(failed) > 0 else fin[1:]
    bottom = failed if len(failed) > 0 else fin[:1]
    return len(r) * _plan(r, chain, bottom)[2]


@helper
def _factorial(m: int) -> int:
    out = 1
    for k in range(2, m + 1):
        out *= k
    return out


@contracted
def _cum_padded(rows: np.ndarray, source: int, target: int, g: int, step: float, right: bool) -> float:
    """The reference's cumulative integral (:func:`ratings.systems.thurstonian._cumulative`, from the right when
    ``right``) of ``rows[source]`` into ``rows[target]``, both padded (data from ``_PAD``); returns the largest
    magnitude of the result."""
    v = rows[source]
    out = rows[target]
    sign = -1.0 if right else 1.0
    for j in range(g):
        c = j + _PAD
        out[c] = 0.5 * v[c] + sign * (
            _W1 * (v[c + 1] - v[c - 1])
            + _W2 * (v[c + 2] - v[c - 2])
            + _W3 * (v[c + 3] - v[c - 3])
            + _W4 * (v[c + 4] - v[c - 4])
            + _W5 * (v[c + 5] - v[c - 5])
        )
    total = 0.0
    top = 0.0
    for i in range(g):
        c = (g - 1 - i if right else i) + _PAD
        total += v[c]
        out[c] = step * (total - out[c])
        top = max(top, abs(out[c]))
    return top


@helper
def _scale_padded(rows: np.ndarray, target: int, g: int, factor: float) -> None:
    row = rows[target]
    for j in range(_PAD, _PAD + g):
        row[j] *= factor


@reassociated
def _dot_padded(a: np.ndarray, b: np.ndarray, g: int) -> float:
    total = 0.0
    for j in range(_PAD, _PAD + g):
        total += a[j] * b[j]
    return total


@helper
def _seg_pass(
    cur: np.ndarray,
    u: np.ndarray,
    us: np.ndarray,
    fin_rows: np.ndarray,
    fin_scales: np.ndarray,
    fk: int,
    opening: bool,
    start: np.ndarray,
    b_rows: np.ndarray,
    b_scales: np.ndarray,
    bk: int,
    step: float,
    g: int,
    seg: np.ndarray,
    scales: np.ndarray,
    backward: bool,
) -> float:
    """One ordering ``cur`` of a tied group through its segment (the reference's ``_Segment``): the forward rows
    ``t_i`` into ``seg[i]`` and, when ``backward``, the backward integrands ``v_i`` into ``seg[m + i]`` (log scales
    in ``scales``); ``seg[2 m]`` is work.  Entering: ``fin_rows[fk]`` (or, ``opening``, the last finisher's exact
    start) and ``b_rows[bk]``.  Returns log L of the ordering (-inf if the rows lost their mass)."""
    m = len(cur)
    work = 2 * m
    for i in range(m):
        p = cur[i]
        if i == 0 and opening:
            for j in range(_PAD, _PAD + g):
                seg[0, j] = u[p, j]
            scales[0] = us[p]
        elif i == 0:
            for j in range(_PAD, _PAD + g):
                seg[0, j] = fin_rows[fk, j] * u[p, j]
            scales[0] = fin_scales[fk] + us[p]
        else:
            for j in range(_PAD, _PAD + g):
                seg[i, j] = seg[work, j] * u[p, j]
            scales[i] = scales[work] + us[p]
        if i < m - 1:
            top = _cum_padded(seg, i, work, g, step, False)
            if i == 0 and opening:
                low = math.exp(start[p] - scales[0])
                top = 0.0
                for j in range(_PAD, _PAD + g):
                    seg[work, j] += low
                    top = max(top, abs(seg[work, j]))
            if not top > 0.0:
                return -math.inf
            _scale_padded(seg, work, g, 1.0 / top)
            scales[work] = scales[i] + math.log(top)
    last = step * _dot_padded(seg[m - 1], b_rows[bk], g)
    if not last > 0.0:
        return -math.inf
    log_lik = scales[m - 1] + b_scales[bk] + math.log(last)
    check = 1 if opening else 0
    if backward:
        for i in range(m - 1, -1, -1):
            p = cur[i]
            if i == m - 1:
                for j in range(_PAD, _PAD + g):
                    seg[m + i, j] = u[p, j] * b_rows[bk, j]
                scales[m + i] = us[p] + b_scales[bk]
            else:
                for j in range(_PAD, _PAD + g):
                    seg[m + i, j] = u[p, j] * seg[work, j]
                scales[m + i] = us[p] + scales[work]
            if i > 0:
                top = _cum_padded(seg, m + i, work, g, step, True)
                if not top > 0.0:
                    return -math.inf
                _scale_padded(seg, work, g, 1.0 / top)
                scales[work] = scales[m + i] + math.log(top)
                if i - 1 == check:  # the reference's check of one stage's likelihood
                    stage = step * _dot_padded(seg[check], seg[work], g)
                    if not (
                        stage > 0.0 and abs(math.log(stage) + scales[check] + scales[work] - log_lik) <= CONSISTENCY
                    ):
                        return -math.inf
    return log_lik


@helper
def _mean_add(rows: np.ndarray, target: int, scales: np.ndarray, source: np.ndarray, scale: float, g: int) -> None:
    """Add ``source exp(scale)`` to the running sum ``rows[target] exp(scales[target])`` (kept scaled)."""
    row = rows[target]
    if scale > scales[target]:
        factor = math.exp(scales[target] - scale) if scales[target] > -math.inf else 0.0
        for j in range(_PAD, _PAD + g):
            row[j] *= factor
        scales[target] = scale
    factor = math.exp(scale - scales[target])
    for j in range(_PAD, _PAD + g):
        row[j] += source[j] * factor


@helper
def _mean_result(rows: np.ndarray, target: int, scales: np.ndarray, count: int, g: int) -> bool:
    """Divide the running sum by its count, held divided by its largest magnitude; False if it is zero."""
    top = 0.0
    for j in range(_PAD, _PAD + g):
        top = max(top, abs(rows[target, j]))
    if not top > 0.0:
        return False
    _scale_padded(rows, target, g, 1.0 / top)
    scales[target] += math.log(top) - math.log(count)
    return True


@helper
def _members(
    cur: np.ndarray,
    seg: np.ndarray,
    scales: np.ndarray,
    log_lik: float,
    k: int,
    sides: np.ndarray,
    side_scales: np.ndarray,
    nb: int,
    means: np.ndarray,
    mean_scales: np.ndarray,
    above: np.ndarray,
    above_scales: np.ndarray,
    above_k: int,
    log_above: float,
    step: float,
    g: int,
    weight: float,
    acc: np.ndarray,
) -> bool:
    """Add ``weight`` times each member's share of the coincidences of this ordering of group ``k`` to ``acc`` (the
    reference's ``members``): with the rows below its first (the DNFs' ``sides`` for the lowest group, else the
    group below's averaged message ``means[k - 1]``), between neighbours, and with ``above[above_k]`` (if
    ``above_k >= 0``) over its last, that one over ``log_above``.  False where a coincidence's scaled sum is below
    SMALLEST_SUM (not zero): it may have lost its significant terms."""
    m = len(cur)
    below = sides if k == 0 else means
    below_scales = side_scales if k == 0 else mean_scales
    first = 0 if k == 0 else k - 1
    last = nb if k == 0 else k
    for s in range(first, last):
        total = step * _dot_padded(below[s], seg[m], g)
        if not (total >= SMALLEST_SUM or total == 0.0):
            return False
        acc[cur[0]] += weight * _share(total, below_scales[s] + scales[m] - log_lik)
    for i in range(m - 1):
        total = step * _dot_padded(seg[i], seg[m + i + 1], g)
        if not (total >= SMALLEST_SUM or total == 0.0):
            return False
        c = _share(total, scales[i] + scales[m + i + 1] - log_lik)
        acc[cur[i]] -= weight * c
        acc[cur[i + 1]] += weight * c
    if above_k >= 0:
        total = step * _dot_padded(seg[m - 1], above[above_k], g)
        if not (total >= SMALLEST_SUM or total == 0.0):
            return False
        acc[cur[m - 1]] -= weight * _share(total, scales[m - 1] + above_scales[above_k] - log_above)
    return True


@helper
def _ordering(
    base: np.ndarray, a: int, m: int, enumerate_all: bool, t: int, state: int, cur: np.ndarray, drawn: np.ndarray
) -> int:
    """Ordering ``t`` of the group ``base[a:a+m]`` into ``cur``: the next permutation (``enumerate_all``; ``cur``
    holds the previous one, sorted at t = 0), else ordering ``t`` of the reference's blocks: every ``2 q`` orderings
    (``q = min(m, BLOCK_ROTATIONS)``) a shuffle of the group in rating order drawn from ``state`` into ``drawn``
    (:func:`ratings.systems._orders.shuffled`), then its rotation by ``s m // q`` (``s = (t mod 2 q) // 2``), reversed
    for odd t.  Returns the generator's state."""
    if enumerate_all:
        if t == 0:
            for i in range(m):
                cur[i] = base[a + i]
            for i in range(1, m):  # sorted by index (an insertion sort), the first of the lexicographic walk
                b = i
                while b > 0 and cur[b - 1] > cur[b]:
                    cur[b - 1], cur[b] = cur[b], cur[b - 1]
                    b -= 1
        else:
            _next_permutation(cur, 0, m)
        return state
    q = min(m, BLOCK_ROTATIONS)
    at = t % (2 * q)
    if at == 0:
        for i in range(m):
            drawn[i] = base[a + i]
        for i in range(m - 1, 0, -1):
            state = state * SHUFFLE_MULTIPLIER % SHUFFLE_MODULUS
            j = state % (i + 1)
            drawn[i], drawn[j] = drawn[j], drawn[i]
    shift = (at // 2) * m // q
    for i in range(m):
        cur[m - 1 - i if t % 2 else i] = drawn[(i + shift) % m]
    return state


@helper
def _group_seed(start: int) -> int:
    """:func:`ratings.systems._orders.group_seed`."""
    return (SHUFFLE_SEED + start) % (SHUFFLE_MODULUS - 1) + 1


@helper
def _tie_bases(r: np.ndarray, fin: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``fin`` with each tied group in rating order (the index breaking exact ties), as the reference's bases."""
    base = fin.copy()
    for k in range(len(starts) - 1):
        for a in range(starts[k] + 1, starts[k + 1]):
            b = a
            while b > starts[k] and (
                r[base[b - 1]] > r[base[b]] or (r[base[b - 1]] == r[base[b]] and base[b - 1] > base[b])
            ):
                base[b - 1], base[b] = base[b], base[b - 1]
                b -= 1
    return base


@helper
def _tie_plan(
    r: np.ndarray, base: np.ndarray, failed: np.ndarray, starts: np.ndarray
) -> tuple[float, float, int, bool]:
    """The reference's :func:`~ratings.systems.thurstonian.tie_grid`: the plans of the groups in rating order and in
    reversed rating order, the lowest start, the highest end and the finer step."""
    lo = math.inf
    hi = -math.inf
    step = math.inf
    scaled = True
    order = base.copy()
    for sweep in range(2):
        if sweep == 1:
            for k in range(len(starts) - 1):
                a, e = starts[k], starts[k + 1]
                for i in range(e - a):
                    order[a + i] = base[e - 1 - i]
        if len(failed) > 0:
            plo, pstep, pg, ps = _plan(r, order, failed)
        else:
            plo, pstep, pg, ps = _plan(r, order[1:], order[:1])
        lo = min(lo, plo)
        hi = max(hi, plo + pstep * (pg - 1))
        step = min(step, pstep)
        scaled &= ps
    return lo, step, int(math.ceil((hi - lo) / step)) + 1, scaled


@helper
def _enumerated(m: int, g: int) -> bool:
    """The reference's rule: a tied group's orderings are all enumerated (else sampled in blocks)."""
    return m <= EXACT_GROUP or (m <= 20 and float(_factorial(m)) * m * g <= ENUMERATION_WORK)


@helper
def _block_done(
    base: np.ndarray,
    a: int,
    m: int,
    done: int,
    pair: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    work: float,
) -> bool:
    """After ``done`` blocks of a sampled group (members ``base[a:a+m]``, each block's mean update in ``pair``): the
    reference's stopping rule, every member's 95% half-width (Student's quantile times the standard error from the
    blocks' spread) within TIE_TOLERANCE after MIN_BLOCKS, or MAX_BLOCKS, or ``work`` (orderings x cells so far)
    beyond SAMPLE_WORK after two blocks."""
    widest = 0.0
    for i in range(m):
        p = base[a + i]
        sums[p] += pair[p]
        squares[p] += pair[p] * pair[p]
        if done >= MIN_BLOCKS:
            mean = sums[p] / done
            widest = max(widest, max(squares[p] / done - mean * mean, 0.0) * done / (done - 1))
    return (done >= MIN_BLOCKS and _student_95(done - 1) * math.sqrt(widest / done) <= TIE_TOLERANCE) or (
        done >= 2 and (done >= MAX_BLOCKS or work >= SAMPLE_WORK)
    )


@helper
def _tie_segments(r: np.ndarray, fin: np.ndarray, failed: np.ndarray, starts: np.ndarray, out: np.ndarray) -> bool:
    """The reference's :func:`~ratings.systems.thurstonian.tie_segments` on its :func:`tie_grid` (False where the
    scaled rows do not hold the game: the reference then decides).  ``starts`` are the tied groups' first positions
    in ``fin`` (and its length last)."""
    n = len(r)
    nb = len(failed)
    groups = len(starts) - 1
    base = _tie_bases(r, fin, starts)
    lo, step, g, scaled = _tie_plan(r, base, failed, starts)
    if not scaled or n * g > MAX_CELLS:
        return False
    wide = g + 2 * _PAD
    shrink = math.exp(-step * step)
    u = np.zeros((n, wide))
    us = np.empty(n)
    scratch = np.zeros((1, wide))
    for p in range(n):
        us[p] = _density(r[p], lo, step, shrink, g, scratch, 0)
        for j in range(g):
            u[p, j + _PAD] = scratch[0, j]
    start = np.empty(n)
    sides = np.zeros((max(nb, 1), wide))
    side_scales = np.zeros(max(nb, 1))
    if nb > 0:
        f0 = np.zeros((1, wide))
        f0_scale = np.empty(1)
        top = -math.inf
        for j in range(g):
            total = 0.0
            for d in range(nb):
                total += log_ndtr(lo + step * j - r[failed[d]])
            f0[0, j + _PAD] = total
            top = max(top, total)
        for j in range(g):
            f0[0, j + _PAD] = math.exp(f0[0, j + _PAD] - top)
        f0_scale[0] = top
        for d in range(nb):
            side_scales[d] = top
            for j in range(g):
                z = lo + step * j - r[failed[d]]
                sides[d, j + _PAD] = math.exp(-0.5 * z * z - LOG_SQRT_2PI - log_ndtr(z)) * f0[0, j + _PAD]
    else:
        f0 = np.zeros((1, wide))
        f0_scale = np.zeros(1)
        for p in range(n):
            start[p] = log_ndtr(lo - r[p])
    sizes = np.empty(groups, dtype=np.int64)
    enumerate_all = np.empty(groups, dtype=np.bool_)
    blocks = np.zeros(groups, dtype=np.int64)
    largest = 1
    for k in range(groups):
        m = starts[k + 1] - starts[k]
        largest = max(largest, m)
        enumerate_all[k] = _enumerated(m, g)
        sizes[k] = _factorial(m) if enumerate_all[k] else 0
    # Rows per group: the forward sweep's averaged message (t_rows), the message entering it from below (f_rows),
    # from above (b_rows) and its averaged backward message (v_rows, one more: none above the top group).
    t_rows = np.zeros((groups, wide))
    t_scales = np.full(groups, -math.inf)
    f_rows = np.zeros((groups, wide))
    f_scales = np.zeros(groups)
    b_rows = np.zeros((groups, wide))
    b_scales = np.zeros(groups)
    v_rows = np.zeros((groups + 1, wide))
    v_scales = np.full(groups + 1, -math.inf)
    seg = np.zeros((2 * largest + 1, wide))
    scales = np.zeros(2 * largest + 1)
    flow = np.zeros((2, wide))  # the message passed between groups (row 0) and a copy (row 1)
    flow_scales = np.zeros(2)
    cur = np.empty(largest, dtype=np.int64)
    drawn = np.empty(largest, dtype=np.int64)
    pair = np.zeros(n)
    sums = np.zeros(n)
    squares = np.zeros(n)
    # The backward messages through the groups in rating order.
    for j in range(_PAD, _PAD + g):
        flow[0, j] = 1.0
    flow_scales[0] = 0.0
    for k in range(groups - 1, -1, -1):
        for j in range(wide):
            b_rows[k, j] = flow[0, j]
        b_scales[k] = flow_scales[0]
        for i in range(starts[k + 1] - 1, starts[k] - 1, -1):
            p = base[i]
            for j in range(_PAD, _PAD + g):
                flow[1, j] = u[p, j] * flow[0, j]
            flow_scales[1] = us[p] + flow_scales[0]
            if i == starts[k]:
                for j in range(wide):
                    v_rows[k, j] = flow[1, j]
                v_scales[k] = flow_scales[1]
            top = _cum_padded(flow, 1, 0, g, step, True)
            if not top > 0.0:
                return False
            _scale_padded(flow, 0, g, 1.0 / top)
            flow_scales[0] = flow_scales[1] + math.log(top)
    for sweep in range(SWEEPS):
        # Forward sweep.
        opening = nb == 0
        for j in range(wide):
            flow[0, j] = f0[0, j]
        flow_scales[0] = f0_scale[0]
        for k in range(groups):
            a = starts[k]
            m = starts[k + 1] - a
            members = cur[:m]
            for j in range(wide):
                f_rows[k, j] = flow[0, j]
                t_rows[k, j] = 0.0
            f_scales[k] = flow_scales[0]
            t_scales[k] = -math.inf
            first = opening and m == 1
            low_mass = -math.inf  # log of the opening player's mass below the grid over L (a singleton's)
            state = _group_seed(a)
            sampling = sweep == 0 and not enumerate_all[k]
            q = min(m, BLOCK_ROTATIONS)
            count = sizes[k] if enumerate_all[k] else 2 * q * blocks[k]
            t = 0
            while True:
                if not sampling and t >= count:
                    break
                state = _ordering(base, a, m, enumerate_all[k], t, state, members, drawn)
                log_lik = _seg_pass(
                    members,
                    u,
                    us,
                    f_rows,
                    f_scales,
                    k,
                    opening,
                    start,
                    b_rows,
                    b_scales,
                    k,
                    step,
                    g,
                    seg,
                    scales,
                    sampling,
                )
                if not log_lik > -math.inf:
                    return False
                _mean_add(t_rows, k, t_scales, seg[m - 1], scales[m - 1] - log_lik, g)
                if first:
                    low_mass = start[members[0]] - log_lik  # (in logs: L can be below 1e-308)
                if sampling:
                    if t % (2 * q) == 0:
                        for i in range(m):
                            pair[base[a + i]] = 0.0
                    if not _members(
                        members,
                        seg,
                        scales,
                        log_lik,
                        k,
                        sides,
                        side_scales,
                        nb,
                        t_rows,
                        t_scales,
                        v_rows,
                        v_scales,
                        k + 1 if k + 1 < groups else -1,
                        log_lik,
                        step,
                        g,
                        0.5 / q,
                        pair,
                    ):
                        return False
                    if t % (2 * q) == 2 * q - 1 and _block_done(
                        base, a, m, (t + 1) // (2 * q), pair, sums, squares, float(t + 1) * m * g
                    ):  # a block done, and the reference's stopping rule met
                        blocks[k] = (t + 1) // (2 * q)
                        count = t + 1
                        break
                t += 1
            if not _mean_result(t_rows, k, t_scales, count, g):
                return False
            for j in range(wide):
                flow[1, j] = t_rows[k, j]
            top = _cum_padded(flow, 1, 0, g, step, False)
            if first:
                low = math.exp(low_mass - t_scales[k])
                top = 0.0
                for j in range(_PAD, _PAD + g):
                    flow[0, j] += low
                    top = max(top, abs(flow[0, j]))
            if not top > 0.0:
                return False
            _scale_padded(flow, 0, g, 1.0 / top)
            flow_scales[0] = t_scales[k] + math.log(top)
            opening = False
        # Backward sweep: the members' updates (in the last sweep) and each group's averaged backward message.
        for j in range(wide):
            flow[0, j] = 0.0
        for j in range(_PAD, _PAD + g):
            flow[0, j] = 1.0
        flow_scales[0] = 0.0
        for k in range(groups - 1, -1, -1):
            a = starts[k]
            m = starts[k + 1] - a
            members = cur[:m]
            count = sizes[k] if enumerate_all[k] else 2 * min(m, BLOCK_ROTATIONS) * blocks[k]
            for i in range(m):
                p = base[a + i]
                out[p] = 0.0
                pair[p] = 0.0
            state = _group_seed(a)
            # flow[0] enters this group from above; the forward sweep's b_rows[k] is kept for the shares above.
            for j in range(wide):
                flow[1, j] = 0.0
            flow_scales[1] = -math.inf
            for t in range(count):
                state = _ordering(base, a, m, enumerate_all[k], t, state, members, drawn)
                log_lik = _seg_pass(
                    members,
                    u,
                    us,
                    f_rows,
                    f_scales,
                    k,
                    nb == 0 and k == 0,
                    start,
                    flow,
                    flow_scales,
                    0,
                    step,
                    g,
                    seg,
                    scales,
                    True,
                )
                if not log_lik > -math.inf:
                    return False
                _mean_add(flow, 1, flow_scales, seg[m], scales[m] - log_lik, g)
                forward_last = step * _dot_padded(seg[m - 1], b_rows[k], g)
                if not forward_last > 0.0:
                    return False
                log_above = scales[m - 1] + b_scales[k] + math.log(forward_last)
                above_k = k + 1 if k + 1 < groups else -1
                if not _members(
                    members,
                    seg,
                    scales,
                    log_lik,
                    k,
                    sides,
                    side_scales,
                    nb,
                    t_rows,
                    t_scales,
                    v_rows,
                    v_scales,
                    above_k,
                    log_above,
                    step,
                    g,
                    1.0,
                    out,
                ):
                    return False
            for i in range(m):
                out[base[a + i]] /= count
            if not _mean_result(flow, 1, flow_scales, count, g):
                return False
            for j in range(wide):
                b_rows[k, j] = flow[0, j]
                v_rows[k, j] = flow[1, j]
            b_scales[k] = flow_scales[0]
            v_scales[k] = flow_scales[1]
            top = _cum_padded(flow, 1, 0, g, step, True)
            if not top > 0.0:
                return False
            _scale_padded(flow, 0, g, 1.0 / top)
            flow_scales[0] = flow_scales[1] + math.log(top)
    for d in range(nb):
        total = step * _dot_padded(sides[d], v_rows[0], g)
        if not (total >= SMALLEST_SUM or total == 0.0):
            return False
        out[failed[d]] = -_share(total, side_scales[d] + v_scales[0])
    return True


@helper
def _load(pool: np.ndarray, offset: int, rows: np.ndarray, target: int, w0: int, w1: int, g: int) -> None:
    """A window kept by :func:`_keep` from ``offset``, with its pads, back into the padded row ``rows[target]``."""
    first, end = _window_span(w0, w1, g)
    for c in range(first, end):
        rows[target, c] = pool[offset + c - first]


@helper
def _mean_window(
    rows: np.ndarray,
    target: int,
    m0: int,
    m1: int,
    mean_scale: float,
    source: np.ndarray,
    shift: int,
    w0: int,
    w1: int,
    scale: float,
) -> tuple[int, int, float]:
    """:func:`_mean_add` on windows: add ``source[j + shift] exp(scale)`` over ``[w0, w1)`` to the running sum in the
    padded ``rows[target]`` (its window ``[m0, m1)``, empty when ``m0 == m1``, times ``exp(mean_scale)``); returns the
    sum's new window and scale.  Points newly inside the window are zeroed first, so the row is never cleared whole."""
    row = rows[target]
    if m0 >= m1:
        for j in range(w0, w1):
            row[j + _PAD] = source[j + shift]
        return w0, w1, scale
    if scale > mean_scale:
        factor = math.exp(mean_scale - scale)
        for j in range(m0, m1):
            row[j + _PAD] *= factor
        mean_scale = scale
    for j in range(w0, m0):
        row[j + _PAD] = 0.0
    for j in range(m1, w1):
        row[j + _PAD] = 0.0
    factor = math.exp(scale - mean_scale)
    for j in range(w0, w1):
        row[j + _PAD] += source[j + shift] * factor
    return min(m0, w0), max(m1, w1), mean_scale


@helper
def _mean_close(rows: np.ndarray, target: int, m0: int, m1: int, mean_scale: float, count: int, g: int) -> float:
    """:func:`_mean_result` on a window: the running sum over its count, divided by its largest magnitude, zero padded;
    returns its log scale (NaN if it is zero)."""
    top = 0.0
    for j in range(m0, m1):
        top = max(top, abs(rows[target, j + _PAD]))
    if not top > 0.0:
        return math.nan
    inverse = 1.0 / top
    for j in range(m0, m1):
        rows[target, j + _PAD] *= inverse
    _pad_window(rows, target, m0, m1, g)
    return mean_scale + math.log(top) - math.log(count)


@helper
def _seg_forward(
    rows: np.ndarray,
    order: np.ndarray,
    a: int,
    e: int,
    r: np.ndarray,
    lo: float,
    step: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
    t_lo: np.ndarray,
    t_hi: np.ndarray,
    nb: int,
    f_scale: float,
    f_tilt: float,
    carried: float,
    fresh: bool,
    keep: bool,
    negligible: float,
    seg_pool: np.ndarray,
    seg_off: np.ndarray,
) -> tuple[bool, int, int, np.ndarray]:
    """The forward rows of positions ``a .. e`` of ``order`` (one ordering of a tied group written there, in a crowd)
    into rows 6 and 7 in turn, from ``t_(a-1)`` in row 12 (its window and scale at ``a - 1``); with ``keep``, each
    kept in ``seg_pool`` from ``seg_off[i - a]``.  Position 0 is the DNFs' ``f0`` (row 5) times the first player's
    density (:func:`_band_first`), or, without DNFs, the opening player's density, untilted on the whole grid (the
    reference's ``_seg_pass``); the next position then carries the mass below the grid (``carried`` when it opens
    the segment: the group below is that opening player).  ``fresh``: choose the tilts (the first pass).  Returns
    ``(ok, row of t_e, cells, seg_pool)``."""
    used = 0
    source = 12
    target = 6
    cells = 0
    for i in range(a, e + 1):
        if i == 0 and nb == 0:
            scale = _density(r[order[0]], lo, step, math.exp(-step * step), g, rows, 1)
            for j in range(g):
                rows[target, j + _PAD] = rows[1, j]
            _pad_window(rows, target, 0, g, g)
            t_lo[0], t_hi[0] = 0, g
            t_scale[0], t_low[0] = scale, 0.0
            tilt[0] = 0.0
        elif i == 0:
            if not _band_first(
                rows, 5, target, 0, r[order[0]], f_scale, f_tilt, fresh, e == 0, lo, step, g, anchors, tilt, t_scale,
                t_low, t_lo, t_hi, negligible,
            ):  # fmt: skip
                return False, target, cells, seg_pool
        else:
            mass = 0.0
            if i == 1 and nb == 0 and i == a:  # the opening player's mass below the grid, in its row's units
                mass = carried
            elif i == 1 and nb == 0:
                mass = math.exp(log_ndtr(lo - r[order[0]]) - t_scale[0] - t_low[0]) / step
            if not _band_forward(
                rows, i, source, target, r, order, lo, step, g, anchors, tilt, t_scale, t_low, t_lo, t_hi, fresh,
                negligible, mass,
            ):  # fmt: skip
                return False, target, cells, seg_pool
        cells += t_hi[i] - t_lo[i]
        if keep:
            first, end = _window_span(t_lo[i], t_hi[i], g)
            seg_pool = _keep(seg_pool, used, rows, target, t_lo[i], t_hi[i], g)
            seg_off[i - a] = used
            used += end - first
        source = target
        target = 13 - target
    return True, source, cells, seg_pool


@helper
def _seg_backward(
    rows: np.ndarray,
    order: np.ndarray,
    a: int,
    e: int,
    b_first: int,
    b_end: int,
    b_tail: float,
    b_rho: float,
    b_scale: float,
    log_lik: float,
    below_scale: float,
    r: np.ndarray,
    lo: float,
    step: float,
    g: int,
    anchors: np.ndarray,
    tilt: np.ndarray,
    t_scale: np.ndarray,
    t_low: np.ndarray,
    t_lo: np.ndarray,
    t_hi: np.ndarray,
    nb: int,
    side_scale: float,
    seg_pool: np.ndarray,
    seg_off: np.ndarray,
    weight: float,
    acc: np.ndarray,
    averaging: bool,
    m0: int,
    m1: int,
    mean_scale: float,
    negligible: float,
) -> tuple[bool, int, int, float, int, float]:
    """One ordering's backward pass through its segment (the reference's ``_seg_pass`` backward and ``_members``), in a
    crowd: from ``b_e`` (row 8, its points ``b_first .. b_end - 1``, carried sum and scale) down, each integrand
    ``u_i b_i`` retilted to position ``i - 1`` (:func:`_band_integrand`), its coincidence with ``t_(i-1)`` (kept in
    ``seg_pool``, or, at the group's first member, the group below's averaged row 12, log scale ``below_scale``; at
    position 0 the DNFs' summed sides, row 11) over ``log_lik`` added to ``acc`` times ``weight``; with ``averaging``
    the first member's integrand over ``log_lik`` is added to the running mean in row 9 (window ``[m0, m1)``).  The
    stage at the group's first member (its second when the chain opens there) is checked against ``log_lik``.
    Returns ``(ok, m0, m1, mean_scale, cells, below)``, ``below`` the share with the row below the group."""
    b_row = 8
    b_low = 0.0
    cells = 0
    below = 0.0
    check = a + 1 if a == 0 and nb == 0 else a
    for i in range(e, a - 1, -1):
        if i == 0 and nb == 0:  # the opening player: nothing below it
            break
        if i == 0:  # the DNFs below the first finisher
            if b_first > 0:
                b_first, b_tail = _band_extend(rows, b_row, b_first, b_tail, b_rho, 0)
            u_scale = _density(r[order[0]], lo, step, math.exp(-step * step), g, rows, 0)
            top = 0.0
            for j in range(b_end):
                rows[2, j + _PAD] = rows[0, j] * rows[b_row, j]
                top = max(top, rows[2, j + _PAD])
            if not top > 0.0:
                return False, m0, m1, mean_scale, cells, 0.0
            inverse = 1.0 / top
            for j in range(b_end):
                rows[2, j + _PAD] *= inverse
            _pad_window(rows, 2, 0, b_end, g)
            v_scale = u_scale + b_scale + b_low + math.log(top)
            total = step * _band_dot(rows[11], 0, rows[2], _PAD, 0, b_end)
            if not (total >= SMALLEST_SUM or total == 0.0):
                return False, m0, m1, mean_scale, cells, 0.0
            below = weight * _share(total, side_scale + v_scale - log_lik)
            acc[order[0]] += below
            cells += b_end
            if averaging:
                m0, m1, mean_scale = _mean_window(
                    rows, 9, m0, m1, mean_scale, rows[2], _PAD, 0, b_end, v_scale - log_lik
                )
            break
        k = i - 1
        ok, w0, w1, scale, log_top, b_first, b_tail = _band_integrand(
            rows, b_row, b_first, b_end, b_tail, b_rho, r[order[i]], (tilt[i] - tilt[k]) * step, anchors[k], lo, step,
            g, negligible,
        )  # fmt: skip
        if not ok:
            return False, m0, m1, mean_scale, cells, 0.0
        # The log scales in two parts (_sum2): a group of hundreds passes its backward message through as many rows, and
        # a crowd's scales are tens of thousands (plain sums drifted past CONSISTENCY through 600 tied last of 20,000).
        w_scale, w_low = _sum2(b_scale, b_low, scale)
        w_scale, w_low = _sum2(w_scale, w_low, -tilt[i] * step * (anchors[k] - anchors[i]))
        w_scale, w_low = _sum2(w_scale, w_low, log_top)
        cells += w1 - w0
        if i > a:
            first = _window_span(t_lo[k], t_hi[k], g)[0]
            shift = seg_off[k - a] + _PAD - first
            both = step * _band_dot(seg_pool, shift, rows[2], _PAD, max(w0, t_lo[k]), min(w1, t_hi[k]))
            if not (both >= SMALLEST_SUM or both == 0.0):
                return False, m0, m1, mean_scale, cells, 0.0
            c = weight * _share(both, (t_scale[k] - log_lik) + w_scale + (t_low[k] + w_low))
            acc[order[k]] -= c
            acc[order[i]] += c
        else:
            both = step * _band_dot(rows[12], _PAD, rows[2], _PAD, max(w0, t_lo[k]), min(w1, t_hi[k]))
            if not (both >= SMALLEST_SUM or both == 0.0):
                return False, m0, m1, mean_scale, cells, 0.0
            below = weight * _share(both, (below_scale - log_lik) + w_scale + w_low)
            acc[order[a]] += below
            if averaging:
                m0, m1, mean_scale = _mean_window(
                    rows, 9, m0, m1, mean_scale, rows[2], _PAD, w0, w1, (w_scale - log_lik) + w_low
                )
            break
        rho = math.exp(-tilt[k] * step)
        target = 3 if b_row != 3 else 4
        ok, b_first, b_end, b_tail, log_top = _band_right(rows, 2, w0, w1, rho, step, g, target)
        if not ok:
            return False, m0, m1, mean_scale, cells, 0.0
        b_row, b_rho = target, rho
        b_scale, b_low = _sum2(w_scale, w_low, log_top)
        if k == check:  # the reference's check of one stage's likelihood
            if b_first > t_lo[k]:
                b_first, b_tail = _band_extend(rows, b_row, b_first, b_tail, b_rho, t_lo[k])
            first = _window_span(t_lo[k], t_hi[k], g)[0]
            shift = seg_off[k - a] + _PAD - first
            stage = step * _band_dot(seg_pool, shift, rows[b_row], 0, t_lo[k], min(t_hi[k], b_end))
            drift = (t_scale[k] - log_lik) + b_scale + (t_low[k] + b_low)
            if not (stage > 0.0 and abs(math.log(stage) + drift) <= CONSISTENCY):
                return False, m0, m1, mean_scale, cells, 0.0
    return True, m0, m1, mean_scale, cells, below


@helper
def _crowd_segments(
    r: np.ndarray,
    fin: np.ndarray,
    failed: np.ndarray,
    starts: np.ndarray,
    bound: float,
    out: np.ndarray,
    half: np.ndarray,
    negligible: float,
) -> bool:
    """:func:`_tie_segments` for crowds (:data:`CROWD_FROM` players or more): the same groups, orderings, sweeps and
    stopping rule (Kerby 2025 section 4's rule, each group averaged with the others' averaged forward and backward
    messages, Rabiner 1989's factorisation), each group's orderings passed through its segment with the banded crowd's
    tilted windows (:func:`_banded`), on the same shared grid (:func:`_tie_plan`).

    Each position's tilt is fixed by a first pass in rating order (the reference's bases), so that every ordering's
    rows, and their averages, at a position share one tilt and sum directly.  Densities are computed as they are
    needed; each group's averaged forward row (``t_e`` over the ordering's likelihood) and averaged backward integrand
    (``u_a b_a`` over it) are kept as windows in two pools, as :func:`_banded` keeps its checkpoints; the message
    entering a group from above is computed from the integrand above it when it is needed.  The sampled groups'
    work, counted against SAMPLE_WORK, is their rows' window cells; ``negligible``: the windows' cut (:func:`_banded`).
    ``half[0]``: the largest 95% half-width of a sampled group's member (0 if every group was enumerated), as the
    reference's ``tied_gradient`` states it.  False where the rows do not hold the game (a window's mass lost, a stage
    disagreeing): the kernel then tries the second cut, then declines it.
    """
    n = len(r)
    big_m = len(fin)
    nb = len(failed)
    groups = len(starts) - 1
    half[0] = 0.0
    base = _tie_bases(r, fin, starts)
    lo, step, g, _ = _tie_plan(r, base, failed, starts)
    bottom = failed if nb > 0 else base[:1]
    if not (_row_ranges(r, base, bottom, lo, lo + step * (g - 1))[0] < SCALED_RANGE and n * g <= bound):
        return False
    wide = g + 2 * _PAD
    # Rows: 0 and 1 work, 2 an integrand, 3 and 4 backward messages, 5 the DNFs' f0, 6 and 7 forward messages, 8 the
    # message entering a group from above, 9 a running mean, 11 the DNFs' summed sides, 12 the averaged row below a
    # group, 13 the averaged integrand above it.
    rows = np.zeros((14, wide))
    anchors = _anchors(r, base, failed, lo, step, g)
    tilt = np.zeros(big_m)
    t_scale = np.zeros(big_m)
    t_low = np.zeros(big_m)
    t_lo = np.zeros(big_m, dtype=np.int64)
    t_hi = np.zeros(big_m, dtype=np.int64)
    order = base.copy()
    f_scale = 0.0
    f_tilt = 0.0
    if nb > 0:  # the DNFs' product of distribution functions, tilted at the first anchor (as _banded's)
        for j in range(g):
            total = 0.0
            for d in range(nb):
                total += log_ndtr(lo + step * j - r[failed[d]])
            rows[5, j] = total
        a = anchors[0]
        f_tilt = (rows[5, a + 1] - rows[5, a - 1]) / (2.0 * step)
        f_scale = -math.inf
        for j in range(g):
            rows[5, j] -= f_tilt * step * (j - a)
            f_scale = max(f_scale, rows[5, j])
        for j in range(g):
            rows[5, j] = math.exp(rows[5, j] - f_scale)
    largest = 1
    for k in range(groups):
        largest = max(largest, starts[k + 1] - starts[k])
    seg_off = np.zeros(largest, dtype=np.int64)
    seg_pool = np.empty(wide)
    # The first pass, in rating order: every position's tilt, and the windows' size (the pools').
    ok, _, cells, seg_pool = _seg_forward(
        rows, order, 0, big_m - 1, r, lo, step, g, anchors, tilt, t_scale, t_low, t_lo, t_hi, nb, f_scale, f_tilt, 0.0,
        True, False, negligible, seg_pool, seg_off,
    )  # fmt: skip
    if not ok:
        return False
    if nb > 0:  # their sides summed (the first finisher's coincidence with any of them), retilted to t_0's tilt
        a = anchors[0]
        slope = (tilt[0] - f_tilt) * step
        for j in range(g):
            total = 0.0
            for d in range(nb):
                z = lo + step * j - r[failed[d]]
                total += math.exp(-0.5 * z * z - LOG_SQRT_2PI - log_ndtr(z))
            rows[11, j] = total * rows[5, j] * min(math.exp(-slope * (j - a)), _HUGE)
    size = cells + big_m * 4 * _PAD + wide
    t_pool = np.empty(size)
    v_pool = np.empty(size)
    t_off = np.zeros(groups, dtype=np.int64)
    t_w = np.zeros((groups, 2), dtype=np.int64)
    t_sc = np.zeros(groups)
    v_off = np.zeros(groups, dtype=np.int64)
    v_w = np.zeros((groups, 2), dtype=np.int64)
    v_sc = np.zeros(groups)
    # The backward messages through the groups in rating order: each group's integrand at its first member.
    for j in range(g):
        rows[3, j] = 1.0
    b_row, b_first, b_end, b_tail, b_rho, b_scale = 3, 0, g, 0.0, 1.0, 0.0
    used = 0
    k = groups - 1
    for i in range(big_m - 1, 0, -1):
        ok, w0, w1, scale, log_top, b_first, b_tail = _band_integrand(
            rows, b_row, b_first, b_end, b_tail, b_rho, r[base[i]], (tilt[i] - tilt[i - 1]) * step, anchors[i - 1],
            lo, step, g, negligible,
        )  # fmt: skip
        if not ok:
            return False
        w_scale = b_scale + scale - tilt[i] * step * (anchors[i - 1] - anchors[i]) + log_top
        while starts[k] > i:
            k -= 1
        if starts[k] == i:
            first, end = _window_span(w0, w1, g)
            v_pool = _keep(v_pool, used, rows, 2, w0, w1, g)
            v_off[k], v_w[k, 0], v_w[k, 1], v_sc[k] = used, w0, w1, w_scale
            used += end - first
        rho = math.exp(-tilt[i - 1] * step)
        target = 7 - b_row
        ok, b_first, b_end, b_tail, log_top = _band_right(rows, 2, w0, w1, rho, step, g, target)
        if not ok:
            return False
        b_row, b_rho, b_scale = target, rho, w_scale + log_top
    sizes = np.zeros(groups, dtype=np.int64)
    enumerate_all = np.empty(groups, dtype=np.bool_)
    blocks = np.zeros(groups, dtype=np.int64)
    lik_from = np.zeros(groups + 1, dtype=np.int64)
    for k in range(groups):
        m = starts[k + 1] - starts[k]
        enumerate_all[k] = _enumerated(m, g)
        sizes[k] = _factorial(m) if enumerate_all[k] else 0
    liks = np.empty(2 * big_m)
    cur = np.empty(largest, dtype=np.int64)
    drawn = np.empty(largest, dtype=np.int64)
    pair = np.zeros(n)
    sums = np.zeros(n)
    squares = np.zeros(n)
    above = np.zeros(n)
    opening = 0.0  # log of the opening player's mass below the grid over its likelihood (a singleton's)
    for sweep in range(SWEEPS):
        # Forward sweep: each group's averaged t_e / L, and (first sweep) the sampled groups' numbers of blocks.
        used = 0
        for k in range(groups):
            a = starts[k]
            m = starts[k + 1] - a
            e = a + m - 1
            members = cur[:m]
            carried = 0.0
            below_scale = 0.0
            if k > 0:
                _load(t_pool, t_off[k - 1], rows, 12, t_w[k - 1, 0], t_w[k - 1, 1], g)
                t_lo[a - 1], t_hi[a - 1], t_scale[a - 1], t_low[a - 1] = t_w[k - 1, 0], t_w[k - 1, 1], t_sc[k - 1], 0.0
                below_scale = t_sc[k - 1]
                if a == 1 and nb == 0:
                    carried = math.exp(opening - t_sc[0]) / step
            if k + 1 < groups:
                _load(v_pool, v_off[k + 1], rows, 13, v_w[k + 1, 0], v_w[k + 1, 1], g)
                b_rho = math.exp(-tilt[e] * step)
                w0, w1 = v_w[k + 1, 0], v_w[k + 1, 1]
                ok, b_first, b_end, b_tail, log_top = _band_right(rows, 13, w0, w1, b_rho, step, g, 8)
                if not ok:
                    return False
                b_scale = v_sc[k + 1] + log_top
            else:
                for j in range(g):
                    rows[8, j] = 1.0
                b_first, b_end, b_tail, b_rho, b_scale = 0, g, 0.0, 1.0, 0.0
            m0, m1, mean_scale = 0, 0, -math.inf
            state = _group_seed(a)
            sampling = sweep == 0 and not enumerate_all[k]
            q = min(m, BLOCK_ROTATIONS)
            count = sizes[k] if enumerate_all[k] else 2 * q * blocks[k]
            work = 0.0
            t = 0
            while sampling or t < count:
                state = _ordering(base, a, m, enumerate_all[k], t, state, members, drawn)
                for i in range(m):
                    order[a + i] = members[i]
                ok, last, cells, seg_pool = _seg_forward(
                    rows, order, a, e, r, lo, step, g, anchors, tilt, t_scale, t_low, t_lo, t_hi, nb, f_scale, f_tilt,
                    carried, False, sampling, negligible, seg_pool, seg_off,
                )  # fmt: skip
                if not ok:
                    return False
                if b_first > t_lo[e]:
                    b_first, b_tail = _band_extend(rows, 8, b_first, b_tail, b_rho, t_lo[e])
                both = _band_dot(rows[last], _PAD, rows[8], 0, t_lo[e], min(t_hi[e], b_end))
                if not both > 0.0:
                    return False
                log_lik = t_scale[e] + t_low[e] + b_scale + math.log(step * both)
                index = lik_from[k] + t
                if index >= len(liks):
                    grown = np.empty(2 * len(liks))
                    for i in range(len(liks)):
                        grown[i] = liks[i]
                    liks = grown
                liks[index] = log_lik
                m0, m1, mean_scale = _mean_window(
                    rows, 9, m0, m1, mean_scale, rows[last], _PAD, t_lo[e], t_hi[e], t_scale[e] + t_low[e] - log_lik
                )
                if a == 0 and m == 1 and nb == 0:
                    opening = log_ndtr(lo - r[members[0]]) - log_lik
                if sampling:
                    if t % (2 * q) == 0:
                        for i in range(m):
                            pair[base[a + i]] = 0.0
                    if k + 1 < groups:
                        both = step * _band_dot(
                            rows[last], _PAD, rows[13], _PAD, max(t_lo[e], v_w[k + 1, 0]), min(t_hi[e], v_w[k + 1, 1])
                        )
                        pair[order[e]] -= 0.5 / q * _share(both, t_scale[e] + t_low[e] + v_sc[k + 1] - log_lik)
                    ok, _, _, _, back, _ = _seg_backward(
                        rows, order, a, e, b_first, b_end, b_tail, b_rho, b_scale, log_lik, below_scale, r, lo, step, g,
                        anchors, tilt, t_scale, t_low, t_lo, t_hi, nb, f_scale, seg_pool, seg_off, 0.5 / q, pair, False,
                        0, 0, 0.0, negligible,
                    )  # fmt: skip
                    if not ok:
                        return False
                    work += float(cells + back)
                    if t % (2 * q) == 2 * q - 1 and _block_done(
                        base, a, m, (t + 1) // (2 * q), pair, sums, squares, work
                    ):
                        blocks[k] = (t + 1) // (2 * q)
                        count = t + 1
                        break
                t += 1
            lik_from[k + 1] = lik_from[k] + count
            scale = _mean_close(rows, 9, m0, m1, mean_scale, count, g)
            if math.isnan(scale):
                return False
            first, end = _window_span(m0, m1, g)
            t_pool = _keep(t_pool, used, rows, 9, m0, m1, g)
            t_off[k], t_w[k, 0], t_w[k, 1], t_sc[k] = used, m0, m1, scale
            used += end - first
        # Backward sweep: each group's averaged u_a b_a / L, which the chain below continues from, and its members'
        # updates (the shares above over the forward sweep's likelihood of the same ordering).
        used = 0
        for j in range(g):
            rows[8, j] = 1.0
        b_first, b_end, b_tail, b_rho, b_scale = 0, g, 0.0, 1.0, 0.0
        below_above = 0.0  # the group above's share with this group's averaged row
        for k in range(groups - 1, -1, -1):
            a = starts[k]
            m = starts[k + 1] - a
            e = a + m - 1
            members = cur[:m]
            for i in range(m):
                out[base[a + i]] = 0.0
                pair[base[a + i]] = 0.0
                squares[base[a + i]] = 0.0
            carried = 0.0
            below_scale = 0.0
            if k > 0:
                _load(t_pool, t_off[k - 1], rows, 12, t_w[k - 1, 0], t_w[k - 1, 1], g)
                t_lo[a - 1], t_hi[a - 1], t_scale[a - 1], t_low[a - 1] = t_w[k - 1, 0], t_w[k - 1, 1], t_sc[k - 1], 0.0
                below_scale = t_sc[k - 1]
                if a == 1 and nb == 0:
                    carried = math.exp(opening - t_sc[0]) / step
            m0, m1, mean_scale = 0, 0, -math.inf
            state = _group_seed(a)
            count = lik_from[k + 1] - lik_from[k]
            averaging = k > 0 or nb > 0  # (no DNFs: nothing below the lowest group reads its average)
            # A sampled group's members' shares gather in ``pair`` block by block (their spread is the stated error).
            per_block = 2 * min(m, BLOCK_ROTATIONS) if not enumerate_all[k] else count
            acc = out if enumerate_all[k] else pair
            above_total = 0.0
            below_total = 0.0
            for t in range(count):
                state = _ordering(base, a, m, enumerate_all[k], t, state, members, drawn)
                for i in range(m):
                    order[a + i] = members[i]
                ok, last, _, seg_pool = _seg_forward(
                    rows, order, a, e, r, lo, step, g, anchors, tilt, t_scale, t_low, t_lo, t_hi, nb, f_scale, f_tilt,
                    carried, False, True, negligible, seg_pool, seg_off,
                )  # fmt: skip
                if not ok:
                    return False
                if b_first > t_lo[e]:
                    b_first, b_tail = _band_extend(rows, 8, b_first, b_tail, b_rho, t_lo[e])
                both = _band_dot(rows[last], _PAD, rows[8], 0, t_lo[e], min(t_hi[e], b_end))
                if not both > 0.0:
                    return False
                log_lik = t_scale[e] + t_low[e] + b_scale + math.log(step * both)
                if k + 1 < groups:
                    both = step * _band_dot(
                        rows[last], _PAD, rows[13], _PAD, max(t_lo[e], v_w[k + 1, 0]), min(t_hi[e], v_w[k + 1, 1])
                    )
                    if not (both >= SMALLEST_SUM or both == 0.0):
                        return False
                    share = _share(both, t_scale[e] + t_low[e] + v_sc[k + 1] - liks[lik_from[k] + t])
                    acc[order[e]] -= share
                    above[order[e]] += share
                    above_total += share
                ok, m0, m1, mean_scale, _, below = _seg_backward(
                    rows, order, a, e, b_first, b_end, b_tail, b_rho, b_scale, log_lik, below_scale, r, lo, step, g,
                    anchors, tilt, t_scale, t_low, t_lo, t_hi, nb, f_scale, seg_pool, seg_off, 1.0, acc, averaging, m0,
                    m1, mean_scale, negligible,
                )  # fmt: skip
                if not ok:
                    return False
                below_total += below
                if not enumerate_all[k] and t % per_block == per_block - 1:
                    for i in range(m):
                        p = base[a + i]
                        out[p] += pair[p]
                        squares[p] += (pair[p] / per_block) ** 2
                        pair[p] = 0.0
            # The coincidence with the group above is one number, ``mean_pi t_e(pi) V_(k+1) / L_pi`` from here and the
            # group above's share with this group's averaged row from there: equal but for the roundings of their log
            # scales (tens of thousands in a crowd, the coincidences thousands), it is given the group above's value,
            # so that the updates sum to zero as each order's do.
            ratio = below_above * count / above_total if above_total > 0.0 else 1.0
            for i in range(m):
                p = base[a + i]
                out[p] = (out[p] - (ratio - 1.0) * above[p]) / count
                above[p] = 0.0
            below_above = below_total / count
            if not enumerate_all[k] and sweep == SWEEPS - 1:  # the reference's stated half-width
                done = count // per_block
                widest = 0.0
                for i in range(m):
                    p = base[a + i]
                    widest = max(widest, max(squares[p] / done - out[p] * out[p], 0.0) * done / (done - 1))
                half[0] = max(half[0], _student_95(done - 1) * math.sqrt(widest / done))
            if k == 0 and nb == 0:
                break
            scale = _mean_close(rows, 9, m0, m1, mean_scale, count, g)
            if math.isnan(scale):
                return False
            first, end = _window_span(m0, m1, g)
            v_pool = _keep(v_pool, used, rows, 9, m0, m1, g)
            v_off[k], v_w[k, 0], v_w[k, 1], v_sc[k] = used, m0, m1, scale
            used += end - first
            for c in range(first, end):  # the integrand above the group below
                rows[13, c] = rows[9, c]
            if k > 0:
                b_rho = math.exp(-tilt[a - 1] * step)
                ok, b_first, b_end, b_tail, log_top = _band_right(rows, 9, m0, m1, b_rho, step, g, 8)
                if not ok:
                    return False
                b_scale = scale + log_top
    if nb > 0:  # each DNF's coincidence with the first finisher, against the averaged u_0 b_0 (row 13)
        a = anchors[0]
        slope = (tilt[0] - f_tilt) * step
        w0, w1 = v_w[0, 0], v_w[0, 1]
        for d in range(nb):
            total = 0.0
            for j in range(w0, w1):
                z = lo + step * j - r[failed[d]]
                side = math.exp(-0.5 * z * z - LOG_SQRT_2PI - log_ndtr(z)) * rows[5, j]
                side *= min(math.exp(-slope * (j - a)), _HUGE)
                total += side * rows[13, j + _PAD]
            total *= step
            if not (total >= SMALLEST_SUM or total == 0.0):
                return False
            out[failed[d]] = -_share(total, f_scale + v_sc[0])
        # Their coincidences with the first finisher sum to the one it took (as with the group above, roundings apart).
        total = 0.0
        for d in range(nb):
            total -= out[failed[d]]
        ratio = below_above / total if total > 0.0 else 1.0
        for d in range(nb):
            out[failed[d]] *= ratio
    return True


@helper
def game_groups(ranks: np.ndarray, dnf: np.ndarray, fin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The game's DNFs (indices, in index order) and its tied groups' start positions in ``fin`` (the worst-first
    finishers), ending with ``len(fin)``, as :func:`ratings.systems._orders.tie_orderings` reads them."""
    failed = np.empty(len(ranks) - len(fin), dtype=np.int64)
    k = 0
    for i in range(len(ranks)):
        if dnf[i]:
            failed[k] = i
            k += 1
    starts = np.empty(len(fin) + 1, dtype=np.int64)
    groups = 0
    for i in range(len(fin)):
        if i == 0 or ranks[fin[i]] != ranks[fin[i - 1]]:
            starts[groups] = i
            groups += 1
    starts[groups] = len(fin)
    return failed, starts[: groups + 1]


@inlined
def thurstonian_gradient(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> bool:
    """The update direction of one game; False for a game the kernel declines (see the module docstring).
    ``theta[0]``, if given, bounds a crowd's players x grid points (else :data:`KERNEL_CELLS`)."""
    cells = theta[0] if len(theta) > 0 else float(KERNEL_CELLS)
    bound = cells
    n = len(r)
    low = high = r[0]
    undefined = False
    for i in range(n):
        out[i] = 0.0
        low = min(low, r[i])
        high = max(high, r[i])
        undefined |= r[i] != r[i]
    fin = finishers_worst_first(ranks, dnf)
    if len(fin) == 0:
        return True
    if undefined or not high - low <= MAX_SPREAD:  # diverging ratings (also NaN): the per-game replay reports it
        for i in range(n):
            out[i] = math.nan
        return True
    failed, starts = game_groups(ranks, dnf, fin)
    groups = len(starts) - 1
    tied = False
    for k in range(groups):
        tied |= starts[k + 1] - starts[k] > 1
    if not tied and n == 2 and len(fin) == 2:  # Thurstone's case V in closed form
        d = (r[fin[1]] - r[fin[0]]) / SQRT2
        gain = mills_ratio(d) / SQRT2
        out[fin[1]] = gain
        out[fin[0]] = -gain
        return True
    order = fin.copy()
    rows = 1
    if tied:
        cells = _cells(r, fin, failed)
        allowed = int(min(max(ROW_BUDGET / cells, 2.0), float(MAX_ROWS)))  # the reference's orderings enumerated
        joint = 1.0
        for k in range(groups):
            joint *= float(_factorial(min(starts[k + 1] - starts[k], 20)))
        if joint > allowed:  # each group through its segment (the reference's tied_gradient), a crowd's banded
            if n < SEGMENTS_BELOW:
                if not _tie_segments(r, fin, failed, starts, out):
                    return False
            else:  # the banded windows' first cut, else their second (as _order tries them)
                half = np.zeros(1)
                if not (
                    _crowd_segments(r, fin, failed, starts, bound, out, half, _NEGLIGIBLE)
                    or _crowd_segments(r, fin, failed, starts, bound, out, half, _NEGLIGIBLE_AGAIN)
                ):
                    return False
            _equalise_ties(r, fin, starts, out)
            return True
        rows = int(joint)
        if rows * float(cells) > TIE_WORK:
            return False
    for _ in range(rows):  # every joint ordering of the tied groups, odometer-wise
        # One worst-first finisher order: the DNFs are the bottom, else the last finisher (one call site of
        # _order, whose body numba inlines: each call site would be optimised again).
        if len(failed) > 0:
            chain, bottom = order, failed
        else:
            chain, bottom = order[1:], order[:1]
        if not _order(r, chain, bottom, 1.0 / rows, out, bound):
            return False
        k = groups - 1  # the next joint ordering: the last group's next permutation, carried when it wraps
        while k >= 0 and (starts[k + 1] - starts[k] == 1 or not _next_permutation(order, starts[k], starts[k + 1])):
            k -= 1
    if tied:
        _equalise_ties(r, order, starts, out)
    return True


@helper
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
        ranked = members.copy()  # by rating, stably (an insertion sort: quadratic only in a group's size)
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
    for i in range(len(out)):
        out[i] = means[i]
