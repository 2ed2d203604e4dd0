"""The Gaussian pair model's rank-restricted sums in about linear time (large fields of pairwise Elo).

Player ``i``'s summed update in the Gaussian pair model (Thurstone's case V, Kerby 2025, section 3.1.2) is

    ``A_i - B_i``,  ``A_i = sum_{j below i} g(r_i - r_j)``,  ``B_i = sum_{j above i} g(r_j - r_i)``,

with ``g(d) = phi(d / sqrt 2) / (sqrt 2 Phi(d / sqrt 2))``, a tied opponent in both sums with weight 1/2 and the pairs
of two DNFs in neither.  ``g`` decays like ``exp(-d^2 / 4)`` as ``d -> +inf`` (the expected result) and grows like
``-d / 2`` as ``d -> -inf`` (an upset), so no opponent counts as 0 or 1 and the rank restriction rules out one field
sum over everyone.  :func:`gaussian_pair_sums` gives both sums in about ``n`` operations per panel and level:

- **Running sums over the rank order.**  The players are visited from the worst rank to the best, each visit first
  reading the player's ``A`` (what has been added so far: the players ranked below) and then adding the player as a
  source; ``B`` is the same walk from the best rank.  A tie group is added half before its members read and half
  after.  Sources are kept in two sets, finishers and DNFs, and a DNF reads only the finishers'.
- **Chebyshev panels on the rating axis** (:data:`WIDTH` wide).  Each panel accumulates the values of its sum at its
  Chebyshev nodes; a player reads its panel's accumulator through the interpolant.  A source is added to a panel's
  accumulator through a precomputed matrix ``g(x_k - y_l)`` between the target panel's nodes ``x_k`` and its own
  panel's nodes ``y_l`` (the bivariate Chebyshev interpolant of the kernel: Fong and Darve, "The black-box fast
  multipole method", J. Comput. Phys. 228, 2009), weighted by the Lagrange basis at the source's rating: one
  matrix-vector product per target panel instead of one kernel evaluation per node.
- **Near and far.**  The panels up to :data:`NEAR` panels away (distances below ``(NEAR + 1) WIDTH``) receive both
  branches of ``g``, at degree :data:`~ratings.kernels.numerics.PANEL_DEGREE`.  Beyond, the decaying branch is below
  ``g(16) = 4.5e-29`` and is left out; the growing branch (nearly linear, smooth away from its source) is carried at
  degree :data:`FAR_DEGREE` by a hierarchy of panels doubling in width, each source added at each level only to the
  panels of its interaction list (those more than ``K`` panels away whose parents are at most :data:`BAND` apart:
  ``K`` = :data:`NEAR` at the finest level, :data:`BAND` above), so that every far pair is counted at exactly one
  level (Greengard and Rokhlin, "A fast algorithm for particle simulations", J. Comput. Phys. 73, 1987, in one
  dimension).  Each level costs a bounded number of products per source: ``O(n log(spread))`` in all.

Accuracy.  ``g(x - y)`` is analytic except at ``x - y = -2 z`` for the zeros ``z`` of ``erfc`` (Fettis, Caslin and
Cramer, "Complex zeros of the error function and of the complementary error function", Math. Comp. 27, 1973: the first
at ``-2 z = 2.71 +- 3.98i``, the others further out, approaching ``arg = +-pi/4``), so on a panel of half-width 1 it is
analytic in the strip ``|Im| <= 2``: both interpolants of degree 24 err by at most ``1.1e-15`` of the kernel's size in
that strip (the bound of :data:`~ratings.kernels.numerics.PANEL_DEGREE`).  The far levels' panels are at least eight
half-widths from their sources and only the growing branch enters, whose singularities lie beyond its source: there the
interpolants converge like ``16^-N``, and ``N = 12`` reaches ``4e-15``.  Those errors are relative to the terms summed,
except that a sum of decaying terms alone can be far smaller than its nodes' values (and than the decaying terms left
out beyond the near panels): a player with no compared opponent within :data:`ISOLATED` therefore takes its near pairs,
and the far pairs' decaying branches as far as they count, pair by pair from the rating order (:func:`_isolated`); such
players lie where the field is sparse, so their windows are short.
tests/test_pairwise_fields.py checks every player against exact pair sums.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.jit import helper
from ratings.kernels.numerics import CHEBYSHEV_NODES, ERFCX_TAIL_MIN, PANEL_DEGREE, SQRT2, erfcx_tail, mills_ratio

__all__ = [
    "BAND",
    "FAR_DEGREE",
    "FAR_NODES",
    "ISOLATED",
    "NEAR",
    "SPARSE",
    "WIDTH",
    "gaussian_pair_sums",
    "lagrange_basis",
    "win_term",
]

#: Width of the finest panels (rating units of the natural scale: a pair's difference ``d``).
WIDTH = 2.0
#: Panels up to this many away from a source's panel receive both branches of ``g``: beyond, the decaying branch
#: is below ``g(NEAR * WIDTH) = g(16) = 4.5e-29``.
NEAR = 8
#: On the coarser levels, panels more than this many apart interact through their far expansion.
BAND = 4
#: Degree of the far levels' interpolants (panels eight half-widths or more from their sources).
FAR_DEGREE = 12
#: Chebyshev points of the second kind for :data:`FAR_DEGREE`.
FAR_NODES = np.cos(np.arange(FAR_DEGREE + 1) * math.pi / FAR_DEGREE)
#: A player with no compared opponent within this distance sums its near pairs pair by pair (its sum may consist of
#: decaying terms only, far smaller than the interpolants' node values); with one, its sum of absolute terms is at
#: least ``g(1.5) = 0.19``.
ISOLATED = 1.5
SQRT_PI = math.sqrt(math.pi)
#: Ratings spread over more than this many finest panels per player are summed pair by pair (the panel tables take
#: memory in proportion to the spread: 64 per player is 128 units, a spread of 65,536 at 512 players).
SPARSE = 64
#: The far levels' tables cover targets up to this many panels from the source (the parents' band).
FAR_REACH = 2 * BAND + 2


@helper
def win_term(d: float) -> float:
    """``g(d) = phi(d / sqrt 2) / (sqrt 2 Phi(d / sqrt 2)) = 1 / (sqrt(pi) erfcx(-d / 2))``: the winner's update of a
    pair won by the rating difference ``d`` (:mod:`ratings.systems.pairwise`; the loser's is ``-g(-d)``).

    :func:`~ratings.kernels.numerics.mills_ratio` takes the exponential of ``-x^2 / 2 - log Phi(x)``, two terms of
    size ``d^2 / 4`` that cancel to ``log(-x)`` when ``d`` is large and negative: its relative error grows like
    ``d^2 eps / 4`` (``3e-11`` at ``d = -1,000``).  From ``d = -2 ERFCX_TAIL_MIN = -52`` on this takes the scaled
    complementary error function's asymptotic series instead (Abramowitz and Stegun 7.1.23), exact to rounding;
    above, ``mills_ratio`` errs by at most ``52^2 eps / 4 = 7.5e-14`` of the term.
    """
    if d <= -2.0 * ERFCX_TAIL_MIN:
        return 1.0 / (SQRT_PI * erfcx_tail(-0.5 * d))
    return mills_ratio(d / SQRT2) / SQRT2


@helper
def lagrange_basis(u: float, nodes: np.ndarray, out: np.ndarray) -> None:
    """``out[l] = L_l(u)``: the Lagrange basis in the Chebyshev points ``nodes`` (second kind, descending) at ``u``,
    by the barycentric formula (Berrut and Trefethen, "Barycentric Lagrange interpolation", SIAM Review 46, 2004,
    eq. 5.2: weights ``(-1)^l``, halved at the ends); at a node, that node's unit vector."""
    degree = len(nodes) - 1
    total = 0.0
    for k in range(degree + 1):
        d = u - nodes[k]
        if d == 0.0:
            out[:] = 0.0
            out[k] = 1.0
            return
        w = (0.5 if k == 0 or k == degree else 1.0) / d
        if k % 2 == 1:
            w = -w
        out[k] = w
        total += w
    for k in range(degree + 1):
        out[k] /= total


@helper
def _band(level: int) -> int:
    """Panels at most this many apart are near at ``level``."""
    return NEAR if level == 0 else BAND


@helper
def _read(i: int, dnf: np.ndarray, acc: np.ndarray, s: int, basis: np.ndarray) -> float:
    """Panel accumulator ``acc[s]`` interpolated with ``basis`` (the Lagrange basis at player ``i``'s rating): both
    source sets for a finisher, the finishers' only for a DNF."""
    value = 0.0
    for k in range(len(basis)):
        value += basis[k] * (acc[s, 0, k] if dnf[i] else acc[s, 0, k] + acc[s, 1, k])
    return value


@helper
def _add(acc: np.ndarray, s: int, source: int, matrix: np.ndarray, basis: np.ndarray, weight: float) -> None:
    """``acc[s, source, k] += weight * sum_l matrix[l, k] basis[l]``: one source's kernel values at a panel's nodes
    (``matrix[l, k]``: from the source panel's node ``l`` to the target's node ``k``), column by column so that the
    loop over the nodes vectorises."""
    size = len(basis)
    for m in range(size):
        b = weight * basis[m]
        for k in range(size):
            acc[s, source, k] += b * matrix[m, k]


@helper
def _walk(
    kind: int,
    order: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    cell: np.ndarray,
    offset: np.ndarray,
    panels: np.ndarray,
    near_slot: np.ndarray,
    far_slot: np.ndarray,
    base: np.ndarray,
    near: np.ndarray,
    far: np.ndarray,
    out: np.ndarray,
) -> None:
    """One walk over the rank order: ``kind`` 0 from the worst rank (``A_i``), 1 from the best (``B_i``); the near
    panels' part into ``out[i, 0]``, the far levels' into ``out[i, 1]``.  ``cell[i, level]`` is player ``i``'s panel
    at each far level (level 0 also the near one), ``offset[i, level]`` its position there in [-1, 1];
    ``panels[level]`` the panels at that level; ``near_slot[q]`` and ``far_slot[base[level] + q]`` the accumulator of
    a panel holding players (-1: none)."""
    n = len(order)
    levels = len(base) - 1  # far levels
    near_count = 0
    for q in range(len(near_slot)):
        near_count = max(near_count, near_slot[q] + 1)
    far_count = 1
    for q in range(len(far_slot)):
        far_count = max(far_count, far_slot[q] + 1)
    near_acc = np.zeros((near_count, 2, PANEL_DEGREE + 1))
    far_acc = np.zeros((far_count, 2, FAR_DEGREE + 1))
    basis = np.empty(PANEL_DEGREE + 1)
    far_basis = np.empty(FAR_DEGREE + 1)
    end = 0
    while end < n:
        start = end
        leader = order[n - 1 - start] if kind == 0 else order[start]
        while end < n and ranks[order[n - 1 - end] if kind == 0 else order[end]] == ranks[leader]:
            end += 1
        single = end - start == 1
        for step in range(3):  # a tie group: half of it added, its members read, the other half added
            if step == 0 and single:
                continue
            for g in range(start, end):
                i = order[n - 1 - g] if kind == 0 else order[g]
                lagrange_basis(offset[i, 0], CHEBYSHEV_NODES, basis)
                q = cell[i, 0]
                if step == 1:
                    out[i, 0] = _read(i, dnf, near_acc, near_slot[q], basis)
                    value = 0.0
                    for level in range(levels):
                        lagrange_basis(offset[i, level], FAR_NODES, far_basis)
                        value += _read(i, dnf, far_acc, far_slot[base[level] + cell[i, level]], far_basis)
                    out[i, 1] = value
                    continue
                weight = 1.0 if single else 0.5
                source = 1 if dnf[i] else 0
                for t in range(max(q - NEAR, 0), min(q + NEAR, len(near_slot) - 1) + 1):
                    if near_slot[t] >= 0:
                        _add(near_acc, near_slot[t], source, near[kind, t - q + NEAR], basis, weight)
                for level in range(levels):
                    q = cell[i, level]
                    parent = q >> 1
                    lagrange_basis(offset[i, level], FAR_NODES, far_basis)
                    for t in range(max(2 * (parent - BAND), 0), min(2 * (parent + BAND) + 1, panels[level] - 1) + 1):
                        delta = t - q
                        if abs(delta) <= _band(level) or (delta > 0) == (kind == 0):
                            continue  # near at this level, or on the decaying side of the source
                        s = far_slot[base[level] + t]
                        if s >= 0:
                            _add(far_acc, s, source, far[kind, level, delta + FAR_REACH], far_basis, weight)


@helper
def _tables(levels: int, panels: np.ndarray, finest: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel between a source panel's nodes ``y_l`` and a target panel's ``x_k``: ``near[kind, t - s + NEAR, l,
    k]`` for the finest panels, both branches, and ``far[kind, level, t - s + FAR_REACH, l, k]`` for the far levels,
    the growing branch only; ``kind`` 0 is ``g(x_k - y_l)`` (the target's win), 1 ``g(y_l - x_k)`` (its loss).  Only
    the offsets that occur (``|t - s|`` below the number of panels) are computed."""
    half = 0.5 * WIDTH
    reach = min(NEAR, finest - 1)
    near = np.zeros((2, 2 * NEAR + 1, PANEL_DEGREE + 1, PANEL_DEGREE + 1))
    for delta in range(-reach, reach + 1):
        for k in range(PANEL_DEGREE + 1):
            for m in range(PANEL_DEGREE + 1):
                d = delta * WIDTH + half * (CHEBYSHEV_NODES[k] - CHEBYSHEV_NODES[m])
                near[0, delta + NEAR, m, k] = win_term(d)
    for delta in range(-reach, reach + 1):  # g(y_l - x_k) at offset delta is g(x_l - y_k) at -delta
        for k in range(PANEL_DEGREE + 1):
            for m in range(PANEL_DEGREE + 1):
                near[1, delta + NEAR, m, k] = near[0, NEAR - delta, k, m]
    far = np.zeros((2, max(levels, 1), 2 * FAR_REACH + 1, FAR_DEGREE + 1, FAR_DEGREE + 1))
    for level in range(levels):
        width = WIDTH * 2.0**level
        for delta in range(-FAR_REACH, FAR_REACH + 1):
            if abs(delta) <= _band(level) or abs(delta) >= panels[level]:
                continue
            kind = 0 if delta < 0 else 1  # the growing side: sources above a win's target, below a loss's
            for k in range(FAR_DEGREE + 1):
                for m in range(FAR_DEGREE + 1):
                    d = delta * width + 0.5 * width * (FAR_NODES[k] - FAR_NODES[m])
                    far[kind, level, delta + FAR_REACH, m, k] = win_term(d if kind == 0 else -d)
    return near, far


@helper
def _sorted_order(keys: np.ndarray) -> np.ndarray:
    """The indices that sort ``keys`` (finite), ascending, equal keys in index order: a bottom-up merge sort, written
    out because numba's ``np.argsort`` adds about a second of compile time per array type to the kernel."""
    n = len(keys)
    order = np.arange(n)
    spare = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for start in range(0, n, 2 * width):
            middle = min(start + width, n)
            stop = min(start + 2 * width, n)
            left = start
            right = middle
            for k in range(start, stop):
                if left < middle and (right >= stop or keys[order[left]] <= keys[order[right]]):
                    spare[k] = order[left]
                    left += 1
                else:
                    spare[k] = order[right]
                    right += 1
        order, spare = spare, order
        width *= 2
    return order


@helper
def gaussian_pair_sums(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, out: np.ndarray) -> bool:
    """``out[i] = A_i - B_i``, player ``i``'s summed pair updates of the Gaussian model (the module docstring), two
    DNFs not compared; False (``out`` untouched) when the ratings are not all finite, beyond ``2^52`` in size, or so
    spread that the finest panels would outnumber :data:`SPARSE` times the players (the caller then sums every
    pair)."""
    n = len(r)
    lo = math.inf
    hi = -math.inf
    for i in range(n):
        if not math.isfinite(r[i]):
            return False
        lo = min(lo, r[i])
        hi = max(hi, r[i])
    # The panels start at an even integer: every panel centre at every level, lo + (q + 1/2) 2^(level + 1), is an
    # integer, exact below 2^53, and so is each player's offset from it (the tables assume centres exactly a panel
    # width apart).
    lo = WIDTH * math.floor(lo / WIDTH)
    finest = int((hi - lo) / WIDTH) + 1
    if n == 0 or finest > SPARSE * n or max(-lo, hi) >= 2.0**52:
        return False
    levels = 0  # far levels: those with panels more than their band apart
    while ((finest - 1) >> levels) > _band(levels):
        levels += 1
    panels = np.empty(max(levels, 1), dtype=np.int64)
    base = np.zeros(levels + 1, dtype=np.int64)
    for level in range(levels):
        panels[level] = ((finest - 1) >> level) + 1
        base[level + 1] = base[level] + panels[level]
    cell = np.empty((n, max(levels, 1)), dtype=np.int64)
    offset = np.empty((n, max(levels, 1)))
    near_slot = np.full(finest, -1, dtype=np.int64)
    far_slot = np.full(max(base[levels], 1), -1, dtype=np.int64)
    near_count = 0
    far_count = 0
    for i in range(n):
        q = min(int((r[i] - lo) / WIDTH), finest - 1)
        for level in range(max(levels, 1)):
            width = WIDTH * 2.0**level
            cell[i, level] = q >> level
            offset[i, level] = (r[i] - (lo + (cell[i, level] + 0.5) * width)) / (0.5 * width)
        if near_slot[q] < 0:
            near_slot[q] = near_count
            near_count += 1
        for level in range(levels):
            at = base[level] + cell[i, level]
            if far_slot[at] < 0:
                far_slot[at] = far_count
                far_count += 1
    near, far = _tables(levels, panels, finest)
    order = _sorted_order(ranks.astype(np.float64))  # exact: ranks are far below 2^53
    wins = np.empty((n, 2))
    losses = np.empty((n, 2))
    _walk(0, order, ranks, dnf, cell, offset, panels, near_slot, far_slot, base, near, far, wins)
    _walk(1, order, ranks, dnf, cell, offset, panels, near_slot, far_slot, base, near, far, losses)
    # The distance to the nearest compared opponent, by the rating order: the nearest player for a finisher, the
    # nearest finisher for a DNF.
    by_rating = _sorted_order(r)
    nearest = np.full(n, math.inf)
    for sweep in range(2):
        last_any = math.nan
        last_finisher = math.nan
        for step in range(n):
            i = by_rating[step] if sweep == 0 else by_rating[n - 1 - step]
            other = last_finisher if dnf[i] else last_any
            if other == other:  # not NaN
                nearest[i] = min(nearest[i], abs(r[i] - other))
            last_any = r[i]
            if not dnf[i]:
                last_finisher = r[i]
    place = np.empty(n, dtype=np.int64)
    for step in range(n):
        place[by_rating[step]] = step
    for i in range(n):
        if nearest[i] <= ISOLATED:
            out[i] = (wins[i, 0] + wins[i, 1]) - (losses[i, 0] + losses[i, 1])
        elif nearest[i] == math.inf:
            out[i] = 0.0  # no compared opponent
        else:
            near_pairs = _isolated(i, r, ranks, dnf, cell[:, 0], by_rating, place[i], nearest[i])
            out[i] = wins[i, 1] - losses[i, 1] + near_pairs
    return True


@helper
def _isolated(
    i: int,
    r: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    cell: np.ndarray,
    by_rating: np.ndarray,
    place: int,
    nearest: float,
) -> float:
    """What an isolated player's sum adds to the far levels' (growing branches beyond the near panels), pair by pair:
    every pair with an opponent in the near panels, and the decaying branch of the farther pairs, which the far
    levels leave out, up to ``nearest + 15`` away.  Beyond, a decaying term is smaller than the nearest opponent's by
    ``exp(-((u + 15)^2 - u^2) / 4) <= exp(-56)`` (``u = nearest``)."""
    reach = max(nearest + 15.0, (NEAR + 1) * WIDTH)
    total = 0.0
    for direction in range(2):
        step = place + 1 if direction == 0 else place - 1
        while 0 <= step < len(r):
            j = by_rating[step]
            step += 1 if direction == 0 else -1
            if abs(r[j] - r[i]) > reach:
                break
            if dnf[i] and dnf[j]:
                continue
            score = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
            diff = r[i] - r[j]
            if abs(cell[j] - cell[i]) <= NEAR:
                total += score * win_term(diff) - (1.0 - score) * win_term(-diff)
            elif diff > 0.0:
                total += score * win_term(diff)  # a win's decaying branch (a loss to a lower rating: far level)
            else:
                total -= (1.0 - score) * win_term(-diff)
    return total
