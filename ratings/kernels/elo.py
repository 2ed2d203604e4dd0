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

Why a game of n players costs n^2 here (both): each player's expected score sums a function of its rating
difference with every opponent, ``sum_j f(r_j - r_i)``.  Sorting and prefix sums make such a sum linear only when
``f`` separates into finitely many products ``g(r_j) h(r_i)`` (an exponential does: ``10^((r_j - r_i) / D) =
10^(r_j / D) 10^(-r_i / D)``); the logistic ``1 / (1 + 10^x)`` and the normal ``Phi(x)`` of the pair models do not
(each is a ratio or integral with no finite separable expansion), so there is no exact sub-quadratic form.  A
Chebyshev interpolant of the sum on panels (as :func:`ratings.kernels.elo_mmr.panel_sums` does for Elo-MMR's tanh
sums, within 1.1e-15 of the sum's size) would make it about linear in the field; not done: the fields where it pays
are contests of thousands, where these pair sums cost 4.5 ms a game at 1,000 players and 44 ms at 4,096 (multielo;
pairwise 3 and 39 ms; benchmarks/contests_replay.py, BENCHMARKS.md), against 61 and 257 us a result for openskill's
Plackett-Luce.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.jit import helper, inlined
from ratings.kernels.numerics import SQRT2, expit, mills_ratio

__all__ = ["GAUSSIAN", "AVERAGE", "COMPARED", "multielo_gradient", "pair_score", "pairwise_gradient", "score_function"]

#: ``theta[0]`` of :func:`pairwise_gradient` for the Gaussian pair model.
GAUSSIAN = 1.0
#: ``theta[1]`` of :func:`pairwise_gradient` for the averaged variant.
AVERAGE = 1.0
#: ``theta[1]`` of :func:`pairwise_gradient` for the average over the opponents with a different rank.
COMPARED = 2.0


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


@inlined
def multielo_gradient(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> None:
    """``(N - 1)(S_i - E_i)`` for every player ``i``; DNFs already share the rank below the finishers."""
    n = len(r)
    d = theta[0]
    scores = score_function(n, theta[1])
    pairs = n * (n - 1) / 2
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
    for i in range(n):
        if theta[2] != 0.0 and ranks[i] == worst:
            out[i] = (n - 1) * (share - 1.0) * out[i] / pairs
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


@inlined
def pairwise_gradient(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> None:
    """Each player's summed (or averaged) pair updates; two DNFs are not compared."""
    n = len(r)
    gaussian = theta[0] == GAUSSIAN
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
        for i in range(n):
            compared = 0
            for j in range(n):
                if ranks[j] != ranks[i]:
                    compared += 1
            out[i] /= compared if compared > 0 else n - 1
