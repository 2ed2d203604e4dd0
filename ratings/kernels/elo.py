"""Gradient kernels of the Elo family, compiled twins of :mod:`ratings.systems.multielo` and
:mod:`ratings.systems.pairwise` (called by :func:`ratings.kernels.single.replay_single`).

- :func:`multielo_gradient`: Cunningham's multiplayer Elo ("Developing a generalized Elo rating
  system for multiplayer games", 2021): ``(N - 1)(S - E)`` with pairwise expected scores and a
  linear or exponential score function, tied players sharing the mean score of their positions.
  ``theta = (D, base, censored)``: with ``censored`` 1 the worst-rank group (the censored dummy's)
  shares its positions' total score in proportion to its members' expected scores
  (:func:`ratings.systems.multielo.censor_last`).
- :func:`pairwise_gradient`: every pair a two-player Elo game, logistic (Elo 1978) or Gaussian
  (Thurstone's case V), draws averaged, DNF pairs unobserved.  ``theta = (model, variant)`` with
  model 0 logistic / 1 gaussian and variant 0 sum / 1 average over n - 1 / 2 average over the
  opponents with a different rank.

Large fields.  Each player's expected score sums a function of its rating difference with every opponent,
``sum_j f(r_i - r_j)``.  Sorting and prefix sums make such a sum exact and linear only when ``f`` separates into
finitely many products ``g(r_i) h(r_j)`` (an exponential does); the logistic ``1 / (1 + 10^x)`` does not, so there is
no exact sub-quadratic form.  But the field sum ``F(x) = sum_j 1 / (1 + 10^((r_j - x) / D))`` is one smooth function
of ``x`` for the whole game, analytic in a strip around the real axis: from :data:`FIELD_PANEL_MIN` players
:func:`logistic_field_sums` interpolates it on panels (Chebyshev, degree 24, as
:func:`ratings.kernels.elo_mmr.panel_sums` does for Elo-MMR's tanh sums, through the same
:func:`ratings.kernels.numerics.chebyshev_interpolate`) within ``1.1e-15`` of its size ``n``, the roundings of the
term-by-term sum; a player's expected score is ``F(r_i) - 1/2`` (its own term taken off).  Logistic pairwise Elo's
update ``sum_j (S_ij - expit(r_i - r_j))`` splits the same way into a rank count and the field sum
(:func:`logistic_pair_updates`).  The actual scores (and the "compared" counts) count each rank's players once
(:func:`rank_counts`): linear for every field.  Below :data:`FIELD_PANEL_MIN` players every pair is summed, as
before, bit for bit: the panels pay from about 30 players (multielo) and 60 (logistic pairwise) on ratings spread
as a contests history's, measured with ``benchmarks/contests_replay.py --fields``; one game's gradient is 41x
faster at 1,000 players (multielo; logistic pairwise 11-13x), 169x at 4,096 (19-42x) and 816x at 20,000 (78-194x;
BENCHMARKS.md).

The Gaussian pair model's update depends on the result through two different functions (``phi / Phi`` of the
difference for a win, of its negative for a loss), so a player's sum runs over the players ranked above with one
function and over those below with the other: rank-restricted sums, which one field sum over everyone does not give.
From :data:`GAUSSIAN_FIELD_MIN` players :func:`ratings.kernels.gaussian_pairs.gaussian_pair_sums` gives them as
running sums over the rank order of Chebyshev panel accumulators, near panels with both branches and far levels
(doubling in width) with the growing branch only: ``O(n log(spread))``, every player's sum within ``1e-12`` of its
sum of absolute pair terms at spreads from 0.01 to 1,000 units (the bounds in ratings/kernels/gaussian_pairs.py,
checked by tests/test_pairwise_fields.py).  The panels pay from about 150 players on ratings of standard deviation
1.5 and 320-350 on ratings of 320, measured with ``benchmarks/contests_replay.py --pairwise-fields``; one game's
gradient is 2.7-10x faster at 1,000 players, 11-47x at 4,096 and 51-182x at 20,000 (BENCHMARKS.md).  Ratings spread
over more than 64 finest panels (128 units) a player, beyond ``2^52`` or not finite still sum every pair.
(Glicko-2's sums, whose terms scale each opponent by its own deviation, are still one function of the player's
rating per game: :func:`ratings.kernels.glicko2.glicko_field_sums`.)
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.gaussian_pairs import gaussian_pair_sums
from ratings.kernels.jit import helper, inlined
from ratings.kernels.numerics import CHEBYSHEV_NODES, PANEL_DEGREE, SQRT2, chebyshev_interpolate, expit, mills_ratio
from ratings.systems.pairwise import GAUSSIAN_MAX_SPREAD

__all__ = [
    "AVERAGE",
    "COMPARED",
    "FIELD_PANEL_MIN",
    "GAUSSIAN",
    "GAUSSIAN_FIELD_MIN",
    "PANEL_COST",
    "logistic_field_sums",
    "logistic_pair_updates",
    "multielo_gradient",
    "pair_score",
    "pairwise_gradient",
    "rank_counts",
    "score_function",
]

#: ``theta[0]`` of :func:`pairwise_gradient` for the Gaussian pair model.
GAUSSIAN = 1.0
#: ``theta[1]`` of :func:`pairwise_gradient` for the averaged variant.
AVERAGE = 1.0
#: ``theta[1]`` of :func:`pairwise_gradient` for the average over the opponents with a different rank.
COMPARED = 2.0
#: From this many players the Gaussian pair model's sums come from
#: :func:`ratings.kernels.gaussian_pairs.gaussian_pair_sums` (below it every pair is summed, bit for bit as before);
#: measured crossover: see the module docstring.
GAUSSIAN_FIELD_MIN = 384
#: From this many players a game's logistic sums come from :func:`logistic_field_sums` (below it every pair is
#: summed, as before, so that small games' results stay bit for bit); measured crossover: see the module docstring.
FIELD_PANEL_MIN = 64
#: A panel of :func:`logistic_field_sums` is interpolated when it holds this many points: building it costs one
#: exponential and ``PANEL_DEGREE + 1`` divisions per source summed, against one exponential and one division per
#: source and point when its points sum the terms one by one.
PANEL_COST = 8
#: :func:`logistic_field_sums` sums the sources up to this many panels either side of a point's panel; beyond, a
#: term is 0 or 1 within ``exp(-REACH pi / 2) = 4.3e-17``.
REACH = 24
LN10 = math.log(10.0)


@helper
def score_function(n: int, base: float) -> np.ndarray:
    """Scores of positions 1..n: linear for base 1, else ``(base^(n-p) - 1) / sum`` scaled by ``base^-(n-1)``."""
    out = np.empty(n)
    if base == 1.0:
        for p in range(n):
            out[p] = (n - (p + 1)) / (n * (n - 1) / 2)
        return out
    log_base = math.log(base)
    tail = math.exp(-(n - 1) * log_base)
    total = 0.0
    for p in range(n):
        out[p] = math.exp(-p * log_base) - tail
        total += out[p]
    for p in range(n):
        out[p] /= total
    return out


@helper
def logistic_field_sums(points: np.ndarray, sources: np.ndarray, scale: float, out: np.ndarray) -> int:
    """``out[i] = F(points[i])`` with ``F(x) = sum_j 1 / (1 + exp(scale (sources[j] - x)))``, every source summed
    (a point that is a source counts its own ``1/2``); returns the number of panels whose interpolant was built.

    The line is cut into panels of width ``w = pi / (2 scale)`` from the lowest value.  A source more than
    ``REACH = 24`` panels below a point's panel is ``> 24 w scale = 37.7`` logistic units away: its term is 1 within
    ``e^-37.7 = 4.3e-17``, so it counts as 1 (and a source as far above as 0); the ``2 REACH + 1`` panels around a
    point's panel hold the sources summed.  Within a panel holding ``PANEL_COST`` points or more, ``F`` comes from its
    Chebyshev interpolant: each term is the logistic function of ``scale (x - r_j)``, whose poles lie at
    ``Im x = +-pi (2m + 1) / scale``; in the strip ``|Im x| <= pi / (2 scale) = 2a`` (``a = w / 2``, the panel's
    half-width) the real part of ``exp(scale (r_j - x))`` is ``>= 0``, so each term has ``|1 / (1 + w)| <= 1`` and
    the summed ones at most their number ``M <= len(sources)``: the interpolant of degree
    :data:`~ratings.kernels.numerics.PANEL_DEGREE` errs by at most ``1.1e-15 M`` (the bound stated there), the size
    of the roundings of summing ``F`` term by term; the far sources add at most ``4.3e-17`` each.  A panel's
    ``PANEL_DEGREE + 1`` node sums share one exponential per source, ``exp(scale (r_j - c - a t_k)) =
    exp(scale (r_j - c)) exp(-a scale t_k)`` at the node ``c + a t_k``: a panel costs one exponential and 25
    divisions per source summed, and each of its points 25 divisions.  The points of a panel with fewer points sum
    its sources' terms one by one.  Ratings so spread that the panels outnumber four times the values, or not
    finite, sum every pair (tests/test_field_sums.py checks every case against ``math.fsum`` of the terms).
    """
    m = len(points)
    n = len(sources)
    lo = math.inf
    hi = -math.inf
    finite = True
    for i in range(m):
        finite = finite and math.isfinite(points[i])
        lo = min(lo, points[i])
        hi = max(hi, points[i])
    for j in range(n):
        finite = finite and math.isfinite(sources[j])
        lo = min(lo, sources[j])
        hi = max(hi, sources[j])
    width = 0.5 * math.pi / scale
    if not finite or m == 0 or (hi - lo) / width > 4 * (m + n):
        for i in range(m):
            total = 0.0
            for j in range(n):
                total += 1.0 / (1.0 + math.exp(scale * (sources[j] - points[i])))
            out[i] = total
        return 0
    n_panels = int((hi - lo) / width) + 1
    # The sources by panel (a counting sort): panel q's are ordered[first[q]:first[q + 1]].
    first = np.zeros(n_panels + 1, dtype=np.int64)
    for j in range(n):
        first[min(int((sources[j] - lo) / width), n_panels - 1) + 1] += 1
    for q in range(n_panels):
        first[q + 1] += first[q]
    ordered = np.empty(n)
    filled = first[:n_panels].copy()
    for j in range(n):
        q = min(int((sources[j] - lo) / width), n_panels - 1)
        ordered[filled[q]] = sources[j]
        filled[q] += 1
    crowd = np.zeros(n_panels, dtype=np.int64)
    for i in range(m):
        crowd[min(int((points[i] - lo) / width), n_panels - 1)] += 1
    slot = np.full(n_panels, -1, dtype=np.int64)
    built = 0
    for q in range(n_panels):
        if crowd[q] >= PANEL_COST:
            slot[q] = built
            built += 1
    half = 0.5 * width
    factor = np.empty(PANEL_DEGREE + 1)
    for k in range(PANEL_DEGREE + 1):
        factor[k] = math.exp(-scale * half * CHEBYSHEV_NODES[k])
    values = np.empty((built, PANEL_DEGREE + 1))
    row = np.empty(PANEL_DEGREE + 1)
    for q in range(n_panels):
        if slot[q] < 0:
            continue
        centre = lo + (q + 0.5) * width
        start = first[max(q - REACH, 0)]
        row[:] = 0.0
        for j in range(start, first[min(q + REACH + 1, n_panels)]):
            shift = math.exp(scale * (ordered[j] - centre))
            for k in range(PANEL_DEGREE + 1):
                row[k] += 1.0 / (1.0 + shift * factor[k])
        for k in range(PANEL_DEGREE + 1):
            values[slot[q], k] = start + row[k]  # the sources far below count 1 each
    for i in range(m):
        q = min(int((points[i] - lo) / width), n_panels - 1)
        if slot[q] >= 0:
            out[i] = chebyshev_interpolate((points[i] - (lo + (q + 0.5) * width)) / half, values, slot[q])
            continue
        start = first[max(q - REACH, 0)]
        total = 0.0
        for j in range(start, first[min(q + REACH + 1, n_panels)]):
            total += 1.0 / (1.0 + math.exp(scale * (ordered[j] - points[i])))
        out[i] = start + total
    return built


@helper
def rank_counts(ranks: np.ndarray, dnf: np.ndarray, only_dnf: bool) -> tuple[int, np.ndarray]:
    """``(best, counts)``: ``counts[k]`` players (DNFs only if ``only_dnf``) hold rank ``best + k``, for every rank
    from the best to the worst; ``counts`` is empty when the ranks span more than ``2 n`` values (the replay's are
    dense, so never: callers then count pair by pair)."""
    n = len(ranks)
    best = ranks[0] if n > 0 else 0
    worst = best
    for i in range(n):
        best = min(best, ranks[i])
        worst = max(worst, ranks[i])
    if worst - best >= 2 * n:
        return best, np.zeros(0, dtype=np.int64)
    counts = np.zeros(worst - best + 1, dtype=np.int64)
    for i in range(n):
        if dnf[i] or not only_dnf:
            counts[ranks[i] - best] += 1
    return best, counts


@inlined
def multielo_gradient(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> None:
    """``(N - 1)(S_i - E_i)`` for every player ``i``; DNFs already share the rank below the finishers.

    The expected scores sum every pair below :data:`FIELD_PANEL_MIN` players and come from
    :func:`logistic_field_sums` (``F(r_i) - 1/2``, the player's own term removed) from there; the actual scores
    count each rank's players once (:func:`rank_counts`) and give each tie group the mean of its positions' scores.
    """
    n = len(r)
    d = theta[0]
    scores = score_function(n, theta[1])
    pairs = n * (n - 1) / 2
    if n >= FIELD_PANEL_MIN:
        logistic_field_sums(r, r, LN10 / d, out)
        for i in range(n):
            out[i] -= 0.5
    else:
        out[:] = 0.0  # expected scores first: each pair once, E_ji = 1 - E_ij
        for i in range(n):
            for j in range(i + 1, n):
                e = 1.0 / (1.0 + 10.0 ** ((r[j] - r[i]) / d))
                out[i] += e
                out[j] += 1.0 - e
    worst = ranks[0]  # the worst rank, by a loop: ``ranks.max()`` compiles numba's generic reduction (0.7 s)
    for i in range(1, n):
        worst = max(worst, ranks[i])
    share = 1.0  # the censored group's total actual score over its total expected score (then pairs cancel)
    if theta[2] != 0.0:
        total = 0.0  # T_G: the scores of the last m positions
        expected = 0.0  # pairs * sum of E_i over the group
        m = 0
        for i in range(n):
            if ranks[i] == worst:
                m += 1
                expected += out[i]
        for p in range(n - m, n):
            total += scores[p]
        share = total * pairs / expected
    best, counts = rank_counts(ranks, dnf, False)
    mean_score = np.empty(len(counts))  # a tie group's mean score over the positions it spans
    ahead = 0
    for k in range(len(counts)):
        actual = 0.0
        for p in range(ahead, ahead + counts[k]):
            actual += scores[p]
        mean_score[k] = actual / counts[k] if counts[k] > 0 else 0.0
        ahead += counts[k]
    for i in range(n):
        if theta[2] != 0.0 and ranks[i] == worst:
            out[i] = (n - 1) * (share - 1.0) * out[i] / pairs
            continue
        if len(counts) > 0:
            out[i] = (n - 1) * (mean_score[ranks[i] - best] - out[i] / pairs)
            continue
        ahead = 0
        tied = 0
        for j in range(n):
            if ranks[j] < ranks[i]:
                ahead += 1
            elif ranks[j] == ranks[i]:
                tied += 1
        actual = 0.0
        for p in range(ahead, ahead + tied):
            actual += scores[p]
        out[i] = (n - 1) * (actual / tied - out[i] / pairs)


@helper
def pair_score(rank_i: int, rank_j: int) -> float:
    """1 if i finished ahead of j, 1/2 for a shared place, 0 if behind."""
    if rank_i < rank_j:
        return 1.0
    if rank_i == rank_j:
        return 0.5
    return 0.0


@helper
def logistic_pair_updates(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = sum_j (S_ij - expit(r_i - r_j))`` over ``i``'s observed pairs (two DNFs are not compared), in
    about ``n`` per panel: the scores from rank counts, ``sum_j S_ij = (players ranked below) + (tied others) / 2``,
    and the probabilities from the field sum ``F(r_i) - 1/2`` of :func:`logistic_field_sums`, a DNF taking off the
    pairs with the other DNFs (their scores by the DNFs' own rank counts, their probabilities by the DNFs' own
    field sum ``F_D(r_i) - 1/2``).  Exact when the ranks are dense (the replay's) up to the interpolant's
    ``1.1e-15 n`` per sum."""
    n = len(r)
    best, counts = rank_counts(ranks, dnf, False)
    _, dnf_counts = rank_counts(ranks, dnf, True)
    if len(counts) == 0:  # never from the replay; summed pair by pair
        for i in range(n):
            total = 0.0
            for j in range(n):
                if j != i and not (dnf[i] and dnf[j]):
                    total += pair_score(ranks[i], ranks[j]) - expit(r[i] - r[j])
            out[i] = total
        return
    below = np.zeros(len(counts) + 1, dtype=np.int64)  # below[k]: players ranked worse than best + k
    dnf_below = np.zeros(len(counts) + 1, dtype=np.int64)
    for k in range(len(counts) - 1, -1, -1):
        below[k] = below[k + 1] + counts[k + 1] if k + 1 < len(counts) else 0
        dnf_below[k] = dnf_below[k + 1] + dnf_counts[k + 1] if k + 1 < len(counts) else 0
    logistic_field_sums(r, r, 1.0, out)
    n_dnf = 0
    for i in range(n):
        n_dnf += 1 if dnf[i] else 0
    among = np.empty(n_dnf)  # the DNFs' ratings, and then their field sums over the DNFs
    field = 0
    for i in range(n):
        if dnf[i]:
            among[field] = r[i]
            field += 1
    dnf_sums = np.empty(n_dnf)
    logistic_field_sums(among, among, 1.0, dnf_sums)
    field = 0
    for i in range(n):
        k = ranks[i] - best
        score = below[k] + 0.5 * (counts[k] - 1)
        expected = out[i] - 0.5
        if dnf[i]:
            score -= dnf_below[k] + 0.5 * (dnf_counts[k] - 1)
            expected -= dnf_sums[field] - 0.5
            field += 1
        out[i] = score - expected


@inlined
def pairwise_gradient(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> None:
    """Each player's summed (or averaged) pair updates; two DNFs are not compared.

    The logistic model from :data:`FIELD_PANEL_MIN` players on by :func:`logistic_pair_updates`, the Gaussian
    model from :data:`GAUSSIAN_FIELD_MIN` by :func:`ratings.kernels.gaussian_pairs.gaussian_pair_sums` (both about
    linear in the field; see the module docstring); below those, and when the field sums decline, every pair.
    """
    n = len(r)
    gaussian = theta[0] == GAUSSIAN
    if gaussian:
        low = high = r[0]
        for i in range(n):
            low = min(low, r[i])
            high = max(high, r[i])
        if not high - low <= GAUSSIAN_MAX_SPREAD:  # diverging updates (also NaN): the per-game replay says so
            out[:] = math.nan
            return
    if not gaussian and n >= FIELD_PANEL_MIN:
        logistic_pair_updates(r, ranks, dnf, out)
    elif gaussian and n >= GAUSSIAN_FIELD_MIN and gaussian_pair_sums(r, ranks, dnf, out):
        pass
    else:
        out[:] = 0.0
        for i in range(n):  # each pair once: j's update is the negative of i's
            for j in range(i + 1, n):
                if dnf[i] and dnf[j]:
                    continue
                score = pair_score(ranks[i], ranks[j])
                diff = r[i] - r[j]
                if gaussian:
                    win = mills_ratio(diff / SQRT2) / SQRT2
                    loss = mills_ratio(-diff / SQRT2) / SQRT2
                    update = score * win - (1.0 - score) * loss
                else:
                    update = score - expit(diff)
                out[i] += update
                out[j] -= update
    if theta[1] == AVERAGE:
        for i in range(n):
            out[i] /= n - 1
    elif theta[1] == COMPARED:
        best, counts = rank_counts(ranks, dnf, False)
        for i in range(n):
            compared = 0
            if len(counts) > 0:
                compared = n - counts[ranks[i] - best]  # the opponents of another rank
            else:
                for j in range(n):
                    if ranks[j] != ranks[i]:
                        compared += 1
            out[i] /= compared if compared > 0 else n - 1
