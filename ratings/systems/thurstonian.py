"""Kerby's Gaussian model (Thurstonian), Kerby 2025 section 3.2.3.

Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note,
2025 (section numbers below are the note's); the model is Thurstone's ("A law of comparative
judgment", 1927) with unit-variance Gaussian performances.

Performances are independent ``N(r_i, 1)``; the update is the gradient of the log-likelihood
of the observed order.  Reading the game worst first (``X_1 < ... < X_n``), the likelihood is
a chain of one-dimensional operations (section 3.2.3): start from the distribution function
of the bottom, multiply pointwise by the next player's density, integrate cumulatively, and
so on; the last integral is the probability.  With DNFs (section 4) the bottom is the
maximum of the DNFs' performances, whose distribution function is the product of their
``Phi(x - r_d)``; without DNFs it is ``Phi(x - r)`` of the last finisher.

Where the grid lies (:func:`grid_plan`).  Given the order, the performances are ``N(r, I)``
conditioned on a convex cone, so their posterior is dominated by a unit Gaussian centred on the
projection of ``r`` onto the cone (the isotonic regression of the ratings along the order,
pool-adjacent-violators; Barlow et al., *Statistical Inference under Order Restrictions*, 1972),
and by Brascamp and Lieb's inequality no performance's posterior is wider than a unit Gaussian.
The grid therefore covers the projection's range widened by :data:`EXTENT` on each side (a
posterior mass of about 1e-9 is left out), not the ratings' range: when the result reverses a
wide spread of ratings, every performance is squeezed near the mean and the grid stays narrow.

How fine.  Squeezed performances are held apart by the rating differences they overrule:
inside a pooled block of the projection, the gap between consecutive performances is roughly
exponential with rate ``C_k``, the sum of ``p - r_i`` over the players above the gap.  Crowded
agreeing games steepen the messages too (after ``i`` integrations they behave like ``F^i / i!``).
The step is ``h = STEP_SCALE / (n^(2/3) + PRESSURE_WEIGHT * max C_k)``, calibrated so that the
gradient is accurate to about 1e-7 of its largest component from 2 to 30 players and spreads
up to 40 in either direction (against an independent high-precision reference in the tests).
Beyond :data:`CROWD_FREE` players the crowd's steepening outgrows ``n^(2/3)``: a message grows by
about ``n h |x|`` per step in its lower tail, and once that passes 2-3 the quadrature's corrections
amplify the tail's error at each of the ``n`` integrations (256 equal players: the likelihood's last
sum came out negative).  ``CROWD_WEIGHT * (n - CROWD_FREE)`` is added to the denominator, which
keeps ``n h`` near 1.2 (32 to 256 equal players: the gradient within 1e-6 of the expected normal
order statistics, 1,000 within 1e-5, tests), and leaves games of up to 30 players on the calibrated step.
The bound on the grid's cost (:data:`MAX_POINTS`) never widens the step past that limit, so a crowd's grid
grows as the square of its size, and this module refuses a game beyond :data:`MAX_CELLS` (about 1,400
players: it holds every row).
From about 650 players the scaled messages no longer hold the performances' region: a forward message
there is about ``Phi^k`` of its largest value, and a coincidence's product of two such rows falls below
:data:`SMALLEST_SUM`, so this module computes those games in logarithms (slow: 1.8 s for 1,000 players).
The compiled kernel computes crowds with tilted messages and checkpointed rows instead (up to about 6,000
players by default, any size once :attr:`Thurstonian.crowd_cells` is lifted, as the command line does for a local
file; see :mod:`ratings.kernels.thurstonian`), equal to the logarithmic computation at 1,000 players
to 2e-10 of the largest component; at 4,096 equal ratings its gradient is within 1.5e-5 of the expected
normal order statistics (the top player's; the others within 1.4e-7).

Quadrature.  Every cumulative integral is the running sum corrected by the Euler-Maclaurin
formula, ``int_{-inf}^{x_j} f = h (S_j - f_j / 2 - sum_k w_k (f_{j+k} - f_{j-k}))``, whose
centred differences (five each side) reproduce its terms ``h^2 f' / 12 - h^4 f''' / 720 + ...``
to ``h^10``: the error is O(h^12) and the cost a few operations per point.  Its transpose (for
the backward messages) is the same rule from the right.  The final integral is the plain sum,
spectrally accurate for these smooth, fast-decaying integrands.  The last finisher's
distribution function is itself such an integral of its density (started from the exact
``Phi(lo - r)``); a product of several DNFs' distribution functions would multiply their
relative errors in the tails, so those are exact (``log_ndtr``).

Log space.  Section 3.2.3 warns that the probability underflows, so it is never formed: every
density row and every message is stored divided by its largest value, with the logarithm of that
scale kept beside it (the scaling of hidden-Markov forward-backward, Rabiner 1989).  When a row
spans more than double precision holds (many players reversing a spread of 30 or more), the
same computation runs on logarithms (:func:`_order_log`, slower); which one is decided by the
rows' ranges (:func:`grid_plan`) and by a check that the scaled messages kept their mass.

Gradient.  With forward messages ``f_k`` (the probability that the players up to ``k`` are in
order and below ``x``) and backward messages ``b_k`` (that the players above ``k`` are in order
and above ``x``),

    d log L / d r_k = E[X_k] - r_k = (c_{k-1} - c_k) / L,   c_k = int f_{k-1} u_k u_{k+1} b_{k+1} dx,

where ``u_k`` is player k's density: integrating ``(x - r_k) u_k`` by parts leaves only the
densities of two neighbours' performances coinciding (``c_k``: players k and k+1).  A player in
the bottom has ``-int phi_d prod_{e != d} Phi_e u_1 b_1 / L``.  Unlike a posterior mean minus the
rating, these sums carry no cancellation, so the gradient keeps its relative accuracy when it is
tiny (an order agreeing with widely spread ratings) or huge (a reversed one), and the updates sum
to zero by construction.

Ties.  Tied finishers drew: their update is the average, over the orderings of their group, of the gradient of
each resulting strict order (:mod:`ratings.systems._orders`).  The average of logarithms has no closed form (unlike
the probability of the tie itself, the sum over the orderings), and it is computed in one of three ways:

- every joint ordering of the groups while they fit :data:`ROW_BUDGET` (exact; each order on its own grid);
- beyond, each group through its own segment of the chain (:func:`tie_segments`; in crowds of
  :data:`SEGMENTS_BELOW` players or more the kernel passes the segments through its banded crowd's tilted windows,
  :mod:`ratings.kernels.thurstonian`, where this module's scaled rows hold them up to about 650 players).  An
  ordering ``pi`` of a group at positions ``a..e`` changes only that segment: the forward message entering it from
  below (``f_{a-1}``) and the backward one entering from above (``b_e``) are the same for every ordering, so one
  ordering costs ``m`` rows, not ``n``.  A coincidence below the group is linear in the
  integrand ``v_a(pi) = u_{pi_a} b_a(pi)`` whose integral from above is the message the group passes down, one above
  it is linear in ``t_e(pi) = f_{e-1}(pi) u_{pi_e}``, and each is divided by ``L_pi``; so the average over orderings
  of everyone else's update is the ordinary pass run with the averaged normalised messages ``mean v_a(pi) / L_pi``
  and ``mean t_e(pi) / L_pi``, and the members get the average of their segment's coincidences over ``L_pi``.  With
  one tied group this is the rule exactly: against every ordering (brute force with :func:`order_log_likelihood`,
  groups of 5-6 in 20-25 players, tied first, last, above DNFs) 2e-12 to 9e-10, the quadrature's difference
  between one shared grid (:func:`tie_grid`) and each order's own.  Several groups: each is averaged with the
  others' averaged messages, in a forward sweep then a backward sweep, twice (:data:`SWEEPS`), which leaves out how
  one group's ordering moves another's update: against every joint ordering 1.7e-7, 3.6e-8 and 1.2e-9 on the tied
  players (two triples and a pair in 20; a pair, four and a triple above two DNFs in 30; three pairs and a triple
  in 60), 2e-8 on the others, against 1e-3 with one sweep and 4e-4 walking the groups in step (tests).
  A group of at most :data:`~ratings.systems._orders.EXACT_GROUP` has all of its orderings enumerated, a larger one
  while ``m! m`` grid rows fit :data:`ENUMERATION_WORK` (6 to 1,150 grid points, 7 to 140); beyond, they are sampled in
  blocks, a uniformly shuffled ordering (:func:`~ratings.systems._orders.shuffled`, a generator the kernel runs
  identically), its rotations (at most :data:`BLOCK_ROTATIONS`, evenly spaced) and their reverses (each member in
  every position twice, in a group of up to 16), until every member's 95% half-width, 1.96 times the standard error
  estimated from the blocks' own spread, times Student's quantile (:func:`student_95`), is under
  :data:`TIE_TOLERANCE` (0.01 of the update direction, before the learning rate), after at least :data:`MIN_BLOCKS`
  blocks and at most :data:`MAX_BLOCKS` or :data:`SAMPLE_WORK`.  The bound is statistical: an estimate from the
  samples (whose members' block means are close to normal by the central limit theorem), met with probability
  about 95% per member, not a guarantee; :func:`tied_gradient` returns the half-width
  reached (a replay does not keep it).  Against 20,000 orderings drawn independently (16 tied last of 80, tests)
  every member is within 4 combined standard errors.
- otherwise (games whose scaled rows lose their mass: here, crowds beyond about 650 players, which the compiled kernel
  computes through the segments on its tilted messages), the groups are walked in step,
  each through all of its own orderings (a group of at most five) or a design of rotations and reverses (a larger
  group).  Errors measured against every joint ordering (scratch runs, 100-150 players, ratings N(0, 1), largest
  component of the update 2.3-2.8): small groups walked in step (three pairs and a triple, 6 orders for 48) 1.4e-6
  on the tied players, 3e-8 on the others; a large group with a design of 2 orders (a 6- or 7-player group tied
  last) 0.15 and 0.29 on its members, 4e-4 and 4e-3 on the others.  A contest of 1,000 (ratings N(0, 0.5)) with 30
  tied last: two orders against 60 differ by 0.47 on the group's members (their updates up to 3.8), 9e-4 on the
  others: this path has no stated bound.

Where a tied group's players have equal ratings the design is exact whatever its size: every ordering is
then equally likely and only permutes the group's updates (:func:`~ratings.systems._orders.symmetrize`
gives them their mean), so the average is the gradient of the log-probability that the group occupies its
block of places (a test computes that probability by quadrature).

The compiled kernel (:mod:`ratings.kernels.thurstonian`) computes the same quantities with the
same grid; this module is the readable reference it is tested against (crowds beyond MAX_CELLS: against
the expected normal order statistics).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.base import ComputationError, State
from ratings.lazy import lazy_module
from ratings.numerics import LOG_SQRT_2PI, log_sum_exp
from ratings.params import Interval, Rule, param
from ratings.systems._orders import (
    EXACT_GROUP,
    MAX_ROWS,
    Split,
    group_seed,
    shuffled,
    split_game,
    symmetrize,
    tie_orderings,
)
from ratings.systems._single import KNOT_RULES, KerbyParams, SingleRatingSystem, anchors_rule, boost_rule

#: scipy.special, loaded on first use (:mod:`ratings.lazy`).
special = lazy_module("scipy.special")

__all__ = ["Thurstonian", "ThurstonianParams", "grid_plan", "order_log_likelihood", "thurstonian_gradient"]

#: Grid extent beyond the lowest and highest value of the projection (a unit Gaussian's mass
#: beyond 6 standard deviations is 1e-9).
EXTENT = 6.0
#: The step is STEP_SCALE / (players^(2/3) + PRESSURE_WEIGHT * pressure) (see the module docstring).
STEP_SCALE = 0.7
PRESSURE_WEIGHT = 1.2
#: Euler-Maclaurin corrections by centred differences: ``w_k`` multiplies ``f_{j+k} - f_{j-k}``.
#: They solve ``sum_k 2 k^(2p-1) w_k / (2p-1)! = B_2p / (2p)!`` for p = 1..5 (``B`` the Bernoulli
#: numbers), so that the differences reproduce the formula's first five correction terms.
CORRECTION = (
    11639731 / 159667200,
    -299093 / 13305600,
    203257 / 35481600,
    -230371 / 239500800,
    14797 / 191600640,
)
#: Bound on players x grid points of one order: the grid never grows past it, whatever the
#: ratings (a runaway learning rate spreads them without limit).  Up to a spread of 40 among 30
#: players the calibrated step fits (the accuracy above holds); beyond, the step widens so that the
#: cost stays bounded, and the result degrades smoothly instead (never past a crowd's stability limit:
#: see MAX_CELLS).
MAX_POINTS = 1_000_000
#: Beyond this many players the step shrinks with the crowd too (see the module docstring).
CROWD_FREE = 30
CROWD_WEIGHT = 0.5
#: Largest players x grid points of a game that is computed.  MAX_POINTS widens the step only up to the
#: crowd's stability limit (a wider step let the messages grow past the quadrature's stability from about
#: 330 players: n h = 2.0 at 400 players, 13.6 at 1,000, where the gradient came out as 4e24), so a crowd's
#: grid grows as the square of its size (about 10 n^2 points); this bounds its memory (three rows of this
#: many doubles, 480 MB): about 1,400 players at usual ratings.  A larger game is refused with an error.
MAX_CELLS = 20_000_000
#: Default of :attr:`Thurstonian.crowd_cells`, the largest players x grid points of one order the compiled kernel
#: computes for a crowd (it holds about ``2 sqrt(m)`` rows, so the bound is time, not memory): about 6,000 players,
#: 25 s of CPU on the whole grid, under a second banded (BENCHMARKS.md, "Banded Thurstonian crowds").  The command
#: line lifts it for a local file.
CROWD_CELLS = 400_000_000
#: Bound on orderings x players x grid points when ties are averaged.
ROW_BUDGET = 400_000
#: Widest rating spread within one game that the model is computed for.  Ratings 60 performance
#: standard deviations apart give an upset probability below 1e-190: only a learning rate so large
#: that the updates diverge gets there, and then the replay stops with a ComputationError that
#: says so (instead of running on ever wider grids).
MAX_SPREAD = 60.0
#: Largest range (natural logarithm) of a row held divided by its largest value: beyond it the
#: smallest values would underflow, and the computation is made in logarithms instead.
SCALED_RANGE = 600.0
#: The scaled computation is used when the log-likelihood of every stage (the same number, by the
#: exact transpose relation of the forward and backward messages) agrees to this: a message that
#: lost significant mass to underflow breaks the agreement.
CONSISTENCY = 1e-9
#: A coincidence whose scaled sum is this small may have lost its significant terms to underflow
#: (its scale can be huge): it is then computed in logarithms too.
SMALLEST_SUM = 1e-200


#: Valid learning rates: the Gaussian likelihood's gradient grows linearly with a reversed result's
#: margin (the inverse Mills ratio), so a larger step overshoots further each game and the ratings diverge.
#: On the bundled racing sample eta = 2 drove one game's ratings 73 standard deviations apart by game 537,
#: 1.8 spread them over 15, 1.5 over 9: 1.5 keeps a margin.
THURSTONIAN_ETA = Interval(0.0, 1.5, closed="right")


def _rates_within_eta(p: Any) -> bool:
    return all(v in THURSTONIAN_ETA or v == 0 for v in p.eta_values or ())


@dataclass(frozen=True, kw_only=True)
class ThurstonianParams(KerbyParams):
    """Parameters of the Gaussian (Thurstonian) model."""

    RULES = (
        *KNOT_RULES,
        anchors_rule(),
        Rule(("eta_values",), _rates_within_eta, f"each learning rate must be {THURSTONIAN_ETA.words()}, or 0"),
        boost_rule("eta", THURSTONIAN_ETA),
    )

    # Kerby 2025, section 5, first table: eta = 0.26 was the hand-tuned rate without a dummy.
    eta: float = param(
        0.26,
        "Learning rate: how far one game moves a rating (Kerby 2025 tuned 0.26).",
        valid=THURSTONIAN_ETA,
        low=0.01,
        high=1.5,
        step=0.01,
        label="learning rate eta",
    )


def grid_plan(ratings: np.ndarray, chain: np.ndarray, bottom: np.ndarray) -> tuple[float, float, int, bool]:
    """``(lo, step, points, scaled)`` of the grid for the event ``max(X[bottom]) < X[chain[0]] < X[chain[1]] < ...``.

    The projection is pool-adjacent-violators along the chain, then each bottom player rated above
    the lowest block (highest first) joins it, merging upwards as the pooled value rises (the
    isotonic regression on this tree order).  ``scaled`` says whether every density row fits the
    scaled representation (see :func:`_order`).  Written with scalar loops only, so that the
    compiled kernel runs this very function (:func:`numba.njit` of it).
    """
    m = len(chain)
    value = np.empty(m)
    size = np.empty(m, dtype=np.int64)
    members = np.empty(m, dtype=np.int64)  # chain players in each block
    blocks = 0
    for k in range(m):
        value[blocks] = ratings[chain[k]]
        size[blocks] = 1
        members[blocks] = 1
        blocks += 1
        while blocks > 1 and value[blocks - 2] > value[blocks - 1]:
            total = value[blocks - 2] * size[blocks - 2] + value[blocks - 1] * size[blocks - 1]
            size[blocks - 2] += size[blocks - 1]
            members[blocks - 2] += members[blocks - 1]
            value[blocks - 2] = total / size[blocks - 2]
            blocks -= 1
    below = np.empty(len(bottom))  # the bottom's ratings, highest first (insertion sort: they are few)
    for d in range(len(bottom)):
        below[d] = ratings[bottom[d]]
        i = d
        while i > 0 and below[i - 1] < below[i]:
            below[i - 1], below[i] = below[i], below[i - 1]
            i -= 1
    level = below[0]  # the bottom's projected level: its highest rating, unless pooled
    for d in range(len(below)):
        if below[d] <= value[0]:
            break
        value[0] = (value[0] * size[0] + below[d]) / (size[0] + 1)
        size[0] += 1
        level = value[0]
        while blocks > 1 and value[0] > value[1]:
            value[0] = (value[0] * size[0] + value[1] * size[1]) / (size[0] + size[1])
            size[0] += size[1]
            members[0] += members[1]
            for b in range(1, blocks - 1):
                value[b] = value[b + 1]
                size[b] = size[b + 1]
                members[b] = members[b + 1]
            blocks -= 1
            level = value[0]
    # Pressure: the largest sum, from the top of a block down over its chain players, of (block value - rating).
    pressure = 0.0
    k = m
    for block in range(blocks - 1, -1, -1):
        total = 0.0
        for _ in range(members[block]):
            k -= 1
            total += value[block] - ratings[chain[k]]
            pressure = max(pressure, total)
    lo = min(level, value[0]) - EXTENT
    hi = value[blocks - 1] + EXTENT
    players = len(chain) + len(bottom)
    crowd = CROWD_WEIGHT * max(players - CROWD_FREE, 0)
    step = STEP_SCALE / (players ** (2.0 / 3.0) + PRESSURE_WEIGHT * pressure + crowd)
    # Widened to bound the cost, but never beyond the crowd's stability limit (``n h`` near 1.4).
    stable = STEP_SCALE / crowd if crowd > 0.0 else math.inf
    step = max(step, min((hi - lo) * players / MAX_POINTS, stable))
    widest, deficit = row_ranges(ratings, chain, bottom, lo, hi)
    scaled = widest < SCALED_RANGE and (len(bottom) == 1 or deficit < SCALED_RANGE)
    return lo, step, int(math.ceil((hi - lo) / step)) + 1, scaled


def row_ranges(ratings: np.ndarray, chain: np.ndarray, bottom: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """``(widest, deficit)`` on ``[lo, hi]``: the largest range (natural logarithm) of a player's density row, and a
    bound on the range of the bottom's product of distribution functions.

    Can every density row, and the DNFs' product of distribution functions, be held divided by its largest value
    without underflowing?  (A parabola's range on [lo, hi] is set by its ends; -log Phi(z) <= z^2 / 2 +
    log(sqrt(2 pi) (1 + |z|)) for z <= 0.)  Scalar loops, compiled by the kernel too.
    """
    widest = 0.0
    deficit = 0.0
    for k in range(len(chain) + len(bottom)):
        rating = ratings[chain[k]] if k < len(chain) else ratings[bottom[k - len(chain)]]
        near = min(max(rating, lo), hi) - rating
        far = max(abs(lo - rating), abs(hi - rating))
        widest = max(widest, 0.5 * (far * far - near * near))
        if k >= len(chain):
            z = min(lo - rating, 0.0)
            deficit += 0.5 * z * z + LOG_SQRT_2PI + math.log1p(-z)
    return widest, deficit


def _cumulative(v: np.ndarray, step: float) -> np.ndarray:
    """``int_{-inf}^{x_j}`` of each row of ``v`` (zero beyond the grid), Euler-Maclaurin corrected."""
    q = len(CORRECTION)
    g = v.shape[-1]
    padded = np.zeros(v.shape[:-1] + (g + 2 * q,))
    padded[..., q : q + g] = v
    out = np.cumsum(v, axis=-1)
    out -= 0.5 * v
    for k, w in enumerate(CORRECTION, start=1):
        out -= w * (padded[..., q + k : q + k + g] - padded[..., q - k : q - k + g])
    out *= step
    return out


def _scaled(log_values: np.ndarray) -> tuple[np.ndarray, float]:
    """``exp(log_values)`` divided by its largest value, and the logarithm of that value."""
    top = float(np.max(log_values))
    return np.exp(log_values - top), top


def _normalised(values: np.ndarray) -> tuple[np.ndarray, float]:
    """``values`` divided by its largest magnitude, and the logarithm of that magnitude."""
    top = float(np.max(np.abs(values)))
    return values / top, math.log(top)


def _share(total: float, log_scale: float) -> float:
    """``total * exp(log_scale)`` without overflowing when ``total`` is tiny."""
    if total == 0.0:
        return 0.0
    return math.copysign(math.exp(math.log(abs(total)) + log_scale), total)


def _order(
    ratings: np.ndarray, chain: np.ndarray, bottom: np.ndarray, lo: float, step: float, points: int
) -> tuple[float, np.ndarray, bool]:
    """log P(max X[bottom] < X[chain[0]] < ...) on the grid ``lo + step * j``, its gradient, and
    whether the scaled messages kept their mass (:data:`CONSISTENCY`, :data:`SMALLEST_SUM`); if not,
    use :func:`_order_log`.
    """
    x = lo + step * np.arange(points)
    m = len(chain)
    u = np.empty((m, points))
    u_scale = np.empty(m)
    for k in range(m):
        z = x - ratings[chain[k]]
        u[k], u_scale[k] = _scaled(-0.5 * z * z - LOG_SQRT_2PI)
    # The bottom's distribution function f0 (scale f0_scale) and, per bottom player, the factor
    # whose integral against u_1 b_1 is its coincidence with the first finisher (scale side_scale).
    if len(bottom) == 1:
        zb = x - ratings[bottom[0]]
        density, density_scale = _scaled(-0.5 * zb * zb - LOG_SQRT_2PI)
        ramp = _cumulative(density, step)
        start = float(special.log_ndtr(lo - ratings[bottom[0]]))
        f0_scale = max(density_scale + math.log(float(np.max(ramp))), start)
        f0 = ramp * math.exp(density_scale - f0_scale) + math.exp(start - f0_scale)
        sides = [density]
        side_scales = [density_scale]
    else:
        zb = x[None, :] - ratings[bottom][:, None]
        log_cdf = special.log_ndtr(zb)
        f0, f0_scale = _scaled(log_cdf.sum(axis=0))
        mills = np.exp(-0.5 * zb * zb - LOG_SQRT_2PI - log_cdf)
        sides = list(mills * f0)
        side_scales = [f0_scale] * len(bottom)
    # Forward: t_k = f_{k-1} u_k (kept for the coincidences), f_k = cumulative integral of t_k.
    t = np.empty((m, points))
    t_scale = np.empty(m)
    f, f_scale = f0, f0_scale
    for k in range(m):
        t[k] = f * u[k]
        t_scale[k] = f_scale + u_scale[k]
        if k < m - 1:
            f, scale = _normalised(_cumulative(t[k], step))
            f_scale = t_scale[k] + scale
    last = step * float(np.sum(t[m - 1]))
    if not last > 0.0:  # the quadrature lost the mass (see the module docstring): in logarithms instead
        return -math.inf, np.zeros(len(ratings)), False
    log_lik = t_scale[m - 1] + math.log(last)
    # Backward: b_m = 1, b_{k-1} = integral from x upwards of u_k b_k.
    b = np.empty((m, points))
    b_scale = np.empty(m)
    b[m - 1] = 1.0
    b_scale[m - 1] = 0.0
    for k in range(m - 1, 0, -1):
        b[k - 1], scale = _normalised(_cumulative((u[k] * b[k])[::-1], step)[::-1])
        b_scale[k - 1] = b_scale[k] + u_scale[k] + scale
    consistent = True
    for k in range(m - 1):
        stage = step * float(np.sum(t[k] * b[k]))
        consistent &= stage > 0.0 and abs(math.log(stage) + t_scale[k] + b_scale[k] - log_lik) <= CONSISTENCY
    grad = np.zeros(len(ratings))
    for k in range(m - 1):  # players chain[k] and chain[k + 1] coinciding
        total = step * float(np.sum(t[k] * u[k + 1] * b[k + 1]))
        consistent &= total >= SMALLEST_SUM or total == 0.0
        c = _share(total, t_scale[k] + u_scale[k + 1] + b_scale[k + 1] - log_lik)
        grad[chain[k]] -= c
        grad[chain[k + 1]] += c
    for d, side, side_scale in zip(bottom, sides, side_scales, strict=True):  # a bottom player and chain[0]
        total = step * float(np.sum(side * u[0] * b[0]))
        consistent &= total >= SMALLEST_SUM or total == 0.0
        c = _share(total, side_scale + u_scale[0] + b_scale[0] - log_lik)
        grad[d] -= c
        grad[chain[0]] += c
    return log_lik, grad, consistent


def _log_cumulative(log_v: np.ndarray, step: float) -> np.ndarray:
    """:func:`_cumulative` of ``exp(log_v)`` (one row) in logarithms: the running sum by ``logaddexp``,
    the corrections relative to it (they are bounded by the integrand's local growth)."""
    q = len(CORRECTION)
    g = len(log_v)
    log_s = np.logaddexp.accumulate(log_v)
    base = np.where(np.isfinite(log_s), log_s, 0.0)
    padded = np.full(g + 2 * q, -np.inf)
    padded[q : q + g] = log_v
    correction = 0.5 * np.exp(log_v - base)
    for k, w in enumerate(CORRECTION, start=1):
        correction += w * (np.exp(padded[q + k : q + k + g] - base) - np.exp(padded[q - k : q - k + g] - base))
    with np.errstate(divide="ignore", invalid="ignore"):
        return log_s + np.log1p(-np.minimum(correction, 1.0)) + math.log(step)


def _order_log(
    ratings: np.ndarray, chain: np.ndarray, bottom: np.ndarray, lo: float, step: float, points: int
) -> tuple[float, np.ndarray]:
    """:func:`_order` with every row held as its logarithm (for orders whose messages span more
    than double precision's range: a wide spread of ratings reversed by many players)."""
    x = lo + step * np.arange(points)
    m = len(chain)
    log_u = -0.5 * (x[None, :] - ratings[chain][:, None]) ** 2 - LOG_SQRT_2PI
    zb = x[None, :] - ratings[bottom][:, None]
    log_pdf = -0.5 * zb * zb - LOG_SQRT_2PI
    if len(bottom) == 1:
        log_f = np.logaddexp(float(special.log_ndtr(lo - ratings[bottom[0]])), _log_cumulative(log_pdf[0], step))
        sides = log_pdf
    else:
        log_cdf = special.log_ndtr(zb)
        log_f = log_cdf.sum(axis=0)
        sides = log_pdf - log_cdf + log_f
    log_t = np.empty((m, points))
    for k in range(m):
        log_t[k] = log_f + log_u[k]
        if k < m - 1:
            log_f = _log_cumulative(log_t[k], step)
    log_step = math.log(step)
    log_lik = log_step + float(log_sum_exp(log_t[m - 1]))
    log_b = np.zeros((m, points))
    for k in range(m - 1, 0, -1):
        log_b[k - 1] = _log_cumulative((log_u[k] + log_b[k])[::-1], step)[::-1]
    grad = np.zeros(len(ratings))
    for k in range(m - 1):
        c = math.exp(log_step + float(log_sum_exp(log_t[k] + log_u[k + 1] + log_b[k + 1])) - log_lik)
        grad[chain[k]] -= c
        grad[chain[k + 1]] += c
    for d, side in zip(bottom, sides, strict=True):
        c = math.exp(log_step + float(log_sum_exp(side + log_u[0] + log_b[0])) - log_lik)
        grad[d] -= c
        grad[chain[0]] += c
    return log_lik, grad


def _event(order: np.ndarray, dnf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(chain, bottom) of a worst-first finisher order: the DNFs are the bottom, else the last finisher."""
    if len(dnf):
        return order, dnf
    return order[1:], order[:1]


def order_log_likelihood(
    ratings: Sequence[float] | np.ndarray,
    order: Sequence[int] | np.ndarray,
    dnf: Sequence[int] | np.ndarray = (),
    *,
    step: float | None = None,
) -> tuple[float, np.ndarray]:
    """log P(max over ``dnf`` < X[order[0]] < X[order[1]] < ...) and its gradient.

    ``order`` lists the finishers worst first; ``dnf`` the players whose order is unobserved
    below them.  Players in neither are not part of the event.  ``step`` overrides the grid step
    (the grid's extent stays that of :func:`grid_plan`).
    """
    r = np.asarray(ratings, dtype=float)
    rows = np.asarray(order, dtype=np.int64)
    d = np.asarray(dnf, dtype=np.int64)
    if len(rows) == 0 or len(rows) + len(d) < 2:
        raise ValueError("the event needs at least one finisher and two players")
    chain, bottom = _event(rows, d)
    lo, planned, points, scaled = grid_plan(r, chain, bottom)
    if step is not None:
        points = int(math.ceil((points - 1) * planned / step)) + 1
        planned = step
    if scaled:
        log_lik, grad, consistent = _order(r, chain, bottom, lo, planned, points)
        if consistent:
            return log_lik, grad
    return _order_log(r, chain, bottom, lo, planned, points)


def _two_player_gradient(ratings: np.ndarray, loser: int, winner: int) -> np.ndarray:
    """Closed form of a two-player game without a tie or a DNF (Kerby 2025, section 3.1.2).

    ``P(X_loser < X_winner) = Phi(d)`` with ``d = (r_winner - r_loser) / sqrt(2)``, so the winner's
    gradient is ``phi(d) / (sqrt(2) Phi(d))`` and the loser's its negative; the ratio is taken in
    log space (``log_ndtr``) so that it stays accurate for extreme upsets.  This is the quantity
    the grid computes (tests), at a fraction of the cost.
    """
    d = (ratings[winner] - ratings[loser]) / np.sqrt(2.0)
    g = float(np.exp(-0.5 * d * d - LOG_SQRT_2PI - special.log_ndtr(d))) / np.sqrt(2.0)
    out = np.zeros(2)
    out[winner] = g
    out[loser] = -g
    return out


def thurstonian_gradient(ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
    """The update direction of one game: ties averaged over orderings, DNFs censored."""
    ratings = np.asarray(ratings, dtype=float)
    split = split_game(ranks, dnf)
    if split.finishers == 0:
        return np.zeros(len(ratings))
    spread = float(np.ptp(ratings))
    if not spread <= MAX_SPREAD:  # also NaN
        raise ComputationError(
            f"the players' ratings spread over {spread:.3g} performance standard deviations (at most "
            f"{MAX_SPREAD:g} are computed): the updates diverge; lower the learning rate or bring the dummy "
            "and floor nearer the initial rating"
        )
    if not split.has_ties and len(split.dnf) == 0 and len(ratings) == 2:
        return _two_player_gradient(ratings, int(split.groups[0][0]), int(split.groups[1][0]))
    first = np.concatenate(split.groups)
    points = grid_plan(ratings, *_event(first, split.dnf))[2]
    if len(ratings) * points > MAX_CELLS:
        raise ComputationError(
            f"a game of {len(ratings)} players needs a grid of {len(ratings) * points:,} points (at most "
            f"{MAX_CELLS:,} are computed here, about 1,400 players at usual ratings; the compiled replay rates "
            f"larger fields, up to {CROWD_CELLS:,} points (about 6,000 players; Thurstonian.crowd_cells = None "
            "lifts that bound, as the command line does for a local file: about 3 s of CPU for 20,000 players), "
            "but not this game (beyond that bound, or messages it could not hold)"
        )
    if not split.has_ties:
        return order_log_likelihood(ratings, first, split.dnf)[1]
    # Bound the ordering rows so that orderings x players x grid stays near ROW_BUDGET (large games).
    allowed = int(np.clip(ROW_BUDGET / (len(ratings) * points), 2, MAX_ROWS))
    if math.prod(math.factorial(len(g)) for g in split.groups) > allowed:
        segments = tied_gradient(ratings, split)
        if segments is not None:
            return segments[0]
    rows, weights, exact = tie_orderings(split, ratings, max_rows=allowed)
    g = np.zeros(len(ratings))
    for row, weight in zip(rows, weights, strict=True):
        g += weight * order_log_likelihood(ratings, row, split.dnf)[1]
    return g if exact else symmetrize(g, ratings, split)


#: A game whose joint orderings exceed the row budget averages each group by :func:`tie_segments`: the compiled kernel
#: on the whole grid below this many players, on its banded crowd's tilted windows from it (its crowds'
#: :data:`~ratings.kernels.thurstonian.CROWD_FROM`); this module on the whole grid, while its scaled rows hold the
#: game (about 650 players), else walking the designs (:func:`~ratings.systems._orders.tie_orderings`).
SEGMENTS_BELOW = 400
#: A tied group's orderings are all enumerated while ``m! * m * points`` stays within this (the cost of passing
#: every ordering through the group's segment): a group of 5 up to 8,300 grid points, of 6 up to 1,150, of 7 up to
#: 140; beyond, they are sampled.
ENUMERATION_WORK = 5_000_000
#: Sampled orderings come in blocks: a uniformly shuffled ordering, its m rotations (each member then holds every
#: position once; at most :data:`BLOCK_ROTATIONS` of them) and the reverse of each (2 m orderings).  A member's update
#: varies mostly with its position, which a block averages out: on 11 tied of 120 a block's spread was 0.016 against
#: an antithetic pair's 0.142, so that a half-width of 0.01 needed 200 orderings instead of 1,500.  At least
#: MIN_BLOCKS are drawn before the error is estimated from the blocks' spread.
MIN_BLOCKS = 8
#: A block of a group larger than this takes this many rotations of its shuffle, evenly spaced (shifts ``s m // q``),
#: and their reverses: each ordering is still uniformly drawn, so a block's mean is unbiased, and each member visits
#: ``q`` positions spread over the group.  So a contest's 600 tied last cost 32 orderings a block, not 1,200 (each of
#: them 600 rows of the crowd's grid).
BLOCK_ROTATIONS = 16
#: Target of the sampled groups' error: the 95% half-width (Student's quantile times the standard error, both from the
#: blocks' spread: :func:`student_95`) of every member's update direction, in performance standard deviations (the
#: update is ``eta`` times it).
TIE_TOLERANCE = 0.01
#: The sampling stops at this many blocks, or when orderings x members x grid points reaches SAMPLE_WORK, whichever
#: comes first; the half-width reached is then larger than TIE_TOLERANCE and is reported as such.
MAX_BLOCKS = 1_000
SAMPLE_WORK = 400_000_000
#: Sweeps of the groups' averaged messages (forward, then backward): with two, several small groups' updates are
#: within 2e-7 of every joint ordering's (1e-3 with one; see "Ties").
SWEEPS = 2
#: 1.96: the normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def student_95(dof: int) -> float:
    """The 97.5% quantile of Student's t with ``dof`` degrees of freedom (the half-width of a 95% interval from a
    standard error estimated with ``dof`` degrees of freedom): the expansion in powers of ``1 / dof`` about the normal
    quantile, Abramowitz and Stegun 26.7.5, four terms (7 degrees of freedom: 2.36458 against 2.36462; 4: 2.7756
    against 2.7764; scipy's ``t.ppf``, tests).  Scalar arithmetic only: the kernel compiles this function."""
    z = Z95
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    v = float(dof)
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)


class _Rows:
    """A row held divided by its largest magnitude, with the logarithm of that magnitude (see "Log space")."""

    __slots__ = ("row", "scale")

    def __init__(self, row: np.ndarray, scale: float) -> None:
        self.row = row
        self.scale = scale


class _LostMass(Exception):
    """A coincidence's scaled sum is so small that it may have lost its significant terms (:data:`SMALLEST_SUM`)."""


def _dot(a: _Rows, b: _Rows, step: float, log_norm: float) -> float:
    """``step * sum(a b) / exp(log_norm)``: a coincidence over the likelihood; raises :class:`_LostMass` as above."""
    total = step * float(np.dot(a.row, b.row))
    if not (total >= SMALLEST_SUM or total == 0.0):
        raise _LostMass
    return _share(total, a.scale + b.scale - log_norm)


class _Mean:
    """A running mean of rows given as :class:`_Rows` times a weight ``exp(log_weight)`` (kept scaled)."""

    def __init__(self, points: int) -> None:
        self.total = np.zeros(points)
        self.scale = -math.inf

    def add(self, rows: _Rows, log_weight: float) -> None:
        s = rows.scale + log_weight
        if s > self.scale:
            self.total *= math.exp(self.scale - s) if math.isfinite(self.scale) else 0.0
            self.scale = s
        self.total += rows.row * math.exp(s - self.scale)

    def result(self, count: int) -> _Rows:
        row, scale = _normalised(self.total)
        return _Rows(row, scale + self.scale - math.log(count))


class _Segment:
    """One ordering of a tied group passed through its segment of the chain (see :func:`tie_segments`)."""

    def __init__(
        self,
        order: Sequence[int],
        u: list[_Rows],
        f_in: _Rows | None,
        start: np.ndarray | None,
        b_in: _Rows,
        step: float,
    ) -> None:
        m = len(order)
        # Forward: t_i = f_{i-1} u_i.  f_in None: the game's last finisher opens the chain (no DNFs), whose
        # distribution function is its density's integral started from the exact mass below the grid.
        self.t: list[_Rows] = []
        f = f_in
        for i, p in enumerate(order):
            t = _Rows(u[p].row, u[p].scale) if f is None else _Rows(f.row * u[p].row, f.scale + u[p].scale)
            self.t.append(t)
            if i < m - 1:
                ramp = _cumulative(t.row, step)
                if f is None:
                    assert start is not None
                    low = math.exp(float(start[p]) - t.scale)
                    ramp = ramp + low
                row, scale = _normalised(ramp)
                f = _Rows(row, scale + t.scale)
        last = step * float(np.dot(self.t[-1].row, b_in.row))
        self.log_lik = self.t[-1].scale + b_in.scale + math.log(last) if last > 0.0 else -math.inf
        # Backward: v_i = u_i b_i with b_last = b_in and b_{i-1} the integral from x upwards of v_i.  The stage at the
        # group's first member (its second when the chain opens here: the first's exact start lies off the grid)
        # gives the same likelihood unless the scaled rows lost mass.
        check = 1 if f_in is None else 0
        self.v: list[_Rows] = [_Rows(np.empty(0), 0.0)] * m
        b = b_in
        for i in range(m - 1, -1, -1):
            p = order[i]
            self.v[i] = _Rows(u[p].row * b.row, u[p].scale + b.scale)
            if i > 0:
                row, scale = _normalised(_cumulative(self.v[i].row[::-1], step)[::-1])
                b = _Rows(row, scale + self.v[i].scale)
                if i - 1 == check:
                    stage = step * float(np.dot(self.t[check].row, b.row))
                    if not (
                        stage > 0.0
                        and abs(math.log(stage) + self.t[check].scale + b.scale - self.log_lik) <= CONSISTENCY
                    ):
                        self.log_lik = -math.inf


def tie_segments(
    ratings: np.ndarray,
    split: Split,
    lo: float,
    step: float,
    points: int,
    *,
    tolerance: float = TIE_TOLERANCE,
    sweeps: int = SWEEPS,
) -> tuple[np.ndarray, float] | None:
    """The update direction of a game with ties, each tied group averaged over its orderings through its segment
    of the chain, and the largest 95% half-width of a sampled group's members (0.0 if every group was enumerated).

    None when the scaled rows lost their mass (a likelihood that is not positive, or a stage's that disagrees with
    it): the caller then walks the groups' designs instead.  See the module docstring ("Ties") for the derivation
    and the error.
    """
    n = len(ratings)
    x = lo + step * np.arange(points)
    groups = split.groups
    dnf = split.dnf
    u: list[_Rows] = []
    for p in range(n):
        z = x - ratings[p]
        u.append(_Rows(*_scaled(-0.5 * z * z - LOG_SQRT_2PI)))
    start: np.ndarray | None = None
    f_start: _Rows | None = None
    sides: list[_Rows] = []
    if len(dnf):
        zb = x[None, :] - ratings[dnf][:, None]
        log_cdf = special.log_ndtr(zb)
        f0, f0_scale = _scaled(log_cdf.sum(axis=0))
        f_start = _Rows(f0, f0_scale)
        sides = [
            _Rows(np.exp(-0.5 * z * z - LOG_SQRT_2PI - c) * f0, f0_scale) for z, c in zip(zb, log_cdf, strict=True)
        ]
    else:
        start = special.log_ndtr(lo - ratings)
    # Each group's orderings: all of them within ENUMERATION_WORK, else blocks of rotations of shuffles.
    bases = [[int(p) for p in g[np.lexsort((g, ratings[g]))]] for g in groups]
    firsts = np.cumsum([0] + [len(g) for g in groups])
    enumerated = [
        len(b) <= EXACT_GROUP or (len(b) <= 20 and math.factorial(len(b)) * len(b) * points <= ENUMERATION_WORK)
        for b in bases
    ]
    ones = _Rows(np.ones(points), 0.0)

    def block(base: list[int], state: int) -> tuple[list[list[int]], int]:
        drawn, state = shuffled(base, state)
        out = []
        q = min(len(base), BLOCK_ROTATIONS)
        for s in range(q):
            shift = s * len(base) // q
            rotation = drawn[shift:] + drawn[:shift]
            out += [rotation, rotation[::-1]]
        return out, state

    # The backward messages through the groups in rating order: where the forward sweep's groups meet the chain
    # above them (exact when no group above is tied).
    b_init: list[_Rows] = [ones] * len(groups)
    v_init: list[_Rows | None] = [None] * (len(groups) + 1)
    b = ones
    for k in range(len(groups) - 1, -1, -1):
        b_init[k] = b
        for i, p in enumerate(reversed(bases[k])):
            v = _Rows(u[p].row * b.row, u[p].scale + b.scale)
            if i == len(bases[k]) - 1:
                v_init[k] = v
            row, scale = _normalised(_cumulative(v.row[::-1], step)[::-1])
            b = _Rows(row, scale + v.scale)

    def members(seg: _Segment, order: list[int], below: list[_Rows], above: _Rows | None, log_above: float) -> dict:
        """Each member's share of the coincidences, over this ordering's likelihood (the top one over log_above)."""
        g = dict.fromkeys(order, 0.0)
        for side in below:
            g[order[0]] += _dot(side, seg.v[0], step, seg.log_lik)
        for i in range(len(order) - 1):
            c = _dot(seg.t[i], seg.v[i + 1], step, seg.log_lik)
            g[order[i]] -= c
            g[order[i + 1]] += c
        if above is not None:
            g[order[-1]] -= _dot(seg.t[-1], above, step, log_above)
        return g

    used: list[list[list[int]]] = []
    for sweep in range(sweeps):
        # Forward sweep: each group's averaged normalised message t_e / L, which the chain above it continues from;
        # the sampled groups draw blocks until their members' half-width meets the tolerance.
        f_in: list[_Rows | None] = [None] * len(groups)
        t_mean: list[_Rows] = []
        f: _Rows | None = f_start
        for k, base in enumerate(bases):
            f_in[k] = f
            below = sides if k == 0 else [t_mean[k - 1]]
            mean = _Mean(points)
            opening = f is None and len(base) == 1
            low_mass = -math.inf  # log of the opening player's mass below the grid over L (a singleton's)
            if enumerated[k] or sweep > 0:
                chosen = [list(o) for o in itertools.permutations(base)] if enumerated[k] else used[k]
                for order in chosen:
                    seg = _Segment(order, u, f, start, b_init[k], step)
                    if not seg.log_lik > -math.inf:
                        return None
                    mean.add(seg.t[-1], -seg.log_lik)
                    if opening:
                        assert start is not None
                        low_mass = float(start[order[0]]) - seg.log_lik  # (in logs: L can be below 1e-308)
            else:
                above = v_init[k + 1]
                sums = np.zeros(len(base))
                squares = np.zeros(len(base))
                index = {p: i for i, p in enumerate(base)}
                state = group_seed(int(firsts[k]))
                chosen = []
                blocks = 0
                while True:
                    orders, state = block(base, state)
                    means = np.zeros(len(base))
                    for o in orders:
                        seg = _Segment(o, u, f, start, b_init[k], step)
                        if not seg.log_lik > -math.inf:
                            return None
                        mean.add(seg.t[-1], -seg.log_lik)
                        for p, value in members(seg, o, below, above, seg.log_lik).items():
                            means[index[p]] += value / len(orders)
                    chosen += orders
                    blocks += 1
                    sums += means
                    squares += means * means
                    if blocks >= MIN_BLOCKS:
                        spread = np.maximum(squares / blocks - (sums / blocks) ** 2, 0.0) * blocks / (blocks - 1)
                        if student_95(blocks - 1) * math.sqrt(float(spread.max()) / blocks) <= tolerance:
                            break
                    if blocks >= 2 and (blocks >= MAX_BLOCKS or len(chosen) * len(base) * points >= SAMPLE_WORK):
                        break  # (two blocks at least, for a spread)
            if sweep == 0:
                used.append(chosen)
            t_mean.append(mean.result(len(chosen)))
            ramp = _cumulative(t_mean[k].row, step)
            if opening:
                ramp = ramp + math.exp(low_mass - t_mean[k].scale)
            row, scale = _normalised(ramp)
            f = _Rows(row, scale + t_mean[k].scale)
        # Backward sweep: each group's averaged normalised message v_a / L, which the chain below it continues from,
        # and its members' updates (their shares of the coincidence with the group above over the forward sweep's
        # likelihood, so that both sides of that coincidence are the same sum and the updates sum to zero).
        grad = np.zeros(n)
        bound = 0.0
        above_mean: _Rows | None = None
        b = ones
        for k in range(len(groups) - 1, -1, -1):
            below = sides if k == 0 else [t_mean[k - 1]]
            mean = _Mean(points)
            sums = np.zeros(n)
            squares = np.zeros(n)
            chosen = used[k]
            for j, order in enumerate(chosen):
                seg = _Segment(order, u, f_in[k], start, b, step)
                if not seg.log_lik > -math.inf:
                    return None
                mean.add(seg.v[0], -seg.log_lik)
                forward_last = step * float(np.dot(seg.t[-1].row, b_init[k].row))
                if not forward_last > 0.0:
                    return None
                log_above = seg.t[-1].scale + b_init[k].scale + math.log(forward_last)
                share = members(seg, order, below, above_mean, log_above)
                per_block = 2 * min(len(order), BLOCK_ROTATIONS)
                for p, value in share.items():
                    grad[p] += value
                    if not enumerated[k]:
                        sums[p] += value / per_block
                        if j % per_block == per_block - 1:
                            squares[p] += sums[p] ** 2
                            sums[p] = 0.0
            grad[bases[k]] /= len(chosen)
            if not enumerated[k]:
                blocks = len(chosen) // (2 * min(len(bases[k]), BLOCK_ROTATIONS))
                mean_block = grad[bases[k]]
                spread = np.maximum(squares[bases[k]] / blocks - mean_block**2, 0.0) * blocks / (blocks - 1)
                bound = max(bound, student_95(blocks - 1) * math.sqrt(float(spread.max()) / blocks))
            b_init[k] = b
            v_init[k] = above_mean = mean.result(len(chosen))
            row, scale = _normalised(_cumulative(above_mean.row[::-1], step)[::-1])
            b = _Rows(row, scale + above_mean.scale)
    assert above_mean is not None
    for d, side in zip(dnf, sides, strict=True):
        grad[d] -= _dot(side, above_mean, step, 0.0)
    return grad, bound


def tie_grid(ratings: np.ndarray, split: Split) -> tuple[float, float, int, bool]:
    """The grid shared by every ordering of the tied groups: :func:`grid_plan`'s of the groups in rating order and in
    reversed rating order (the orders that agree most and least with the ratings), the lowest start, the highest
    end and the finer step."""
    plans = []
    for sign in (1.0, -1.0):
        order = np.concatenate([g[np.lexsort((g, sign * ratings[g]))] for g in split.groups])
        plans.append(grid_plan(ratings, *_event(order, split.dnf)))
    lo = min(p[0] for p in plans)
    step = min(p[1] for p in plans)
    hi = max(p[0] + p[1] * (p[2] - 1) for p in plans)
    return lo, step, int(math.ceil((hi - lo) / step)) + 1, all(p[3] for p in plans)


def tied_gradient(
    ratings: np.ndarray, split: Split, *, tolerance: float = TIE_TOLERANCE
) -> tuple[np.ndarray, float] | None:
    """:func:`tie_segments` on :func:`tie_grid`'s grid, equally rated tied players given their mean
    (:func:`~ratings.systems._orders.symmetrize`); None where the scaled rows do not hold the game."""
    lo, step, points, scaled = tie_grid(ratings, split)
    if not scaled or len(ratings) * points > MAX_CELLS:
        return None
    try:
        result = tie_segments(ratings, split, lo, step, points, tolerance=tolerance)
    except _LostMass:
        return None
    if result is None:
        return None
    return symmetrize(result[0], ratings, split), result[1]


class Thurstonian(SingleRatingSystem):
    """Unit-variance Gaussian performances, likelihood-gradient updates (Kerby 2025, section 3.2.3)."""

    name = "thurstonian"
    title = "Thurstonian (Gaussian)"
    summary = (
        "Kerby's Gaussian model: one rating per player, updated along the gradient of the likelihood "
        "of the finishing order under normal performances; DNFs' order is left unobserved."
    )
    Params = ThurstonianParams
    #: Largest players x grid points of a crowd's order the compiled replay computes (``None``: no bound).  The
    #: grid's step shrinks as the field grows, so a game of n players has about ``9 n^2`` points, of which the kernel's
    #: banded crowd computes about ``n^1.5``: 6,000 players (the default bound, :data:`CROWD_CELLS`) under a second,
    #: 20,000 about 3 s and 800 MB (BENCHMARKS.md, "Banded Thurstonian crowds").  A game beyond it is
    #: refused with an error.  Not a parameter of the model (the results are the same): set it on the instance
    #: before its first ``rate``.
    crowd_cells: float | None = CROWD_CELLS

    def _gradient(self, ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
        return thurstonian_gradient(ratings, ranks, dnf)

    def _kernel(self) -> tuple[int, np.ndarray]:
        """Compiled for every game except those whose tied orderings are sampled (they go game by game);
        ``theta`` holds :attr:`crowd_cells`."""
        from ratings.kernels.single import THURSTONIAN

        return THURSTONIAN, np.array([math.inf if self.crowd_cells is None else float(self.crowd_cells)])

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Monte Carlo (fixed seed) of unit-variance normal performances."""
        from ratings.predict import monte_carlo_places  # with scipy's integrators, loaded when first asked for

        ratings = state["rating"][np.asarray(players, dtype=int)]
        return monte_carlo_places(lambda rng, count: ratings + rng.standard_normal((count, len(ratings))), len(ratings))
