"""Compiled replay of TrueSkill free-for-all games, the twin of
:func:`ratings.systems._factor_graph.free_for_all` (Herbrich, Minka and Graepel 2006, with the
schedule, stopping rule and Chebyshev-fitted normal arithmetic of the Python ``trueskill``
package 0.4.5; see that module for the derivation).  The message arrays of one game live in
the rows of one work matrix allocated once per replay.

Squares: the package writes ``x**2``, which CPython evaluates with C ``pow`` and which differs
from ``x * x`` in the last bit for about one argument in a thousand; with a draw margin as
narrow as ``draw_probability = 0`` gives (1e-7) such a bit grows to 1e-8 in the ratings.  LLVM
rewrites ``pow(x, 2.0)`` with a constant exponent into ``x * x``, so the kernel receives the
exponent ``two`` at run time and calls ``pow`` as the package does.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.kernels.jit import entry, helper
from ratings.kernels.numerics import SQRT2, erfcx_tail, largest_game

__all__ = ["free_for_all", "replay_trueskill"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
# The constants of ratings.systems._factor_graph (the package's conventions).
_W_MIN = 1e-300
_W_MAX = 1.0 - 1e-15
_TAIL = -37.5

# Rows of the work matrix: natural parameters (precision *_P, precision-adjusted mean *_T) of the
# skill prior, the likelihood message, the team-performance marginal and its messages from the
# performance (DN), the difference above (UP) and below (LO); then per difference d_k its
# marginal (DV), the difference factor's message (F) and the truncation's message (TR).
PRIOR_P, PRIOR_T, LIKE_P, LIKE_T, TV_P, TV_T, DN_P, DN_T, UP_P, UP_T, LO_P, LO_T = range(12)
DV_P, DV_T, F_P, F_T, TR_P, TR_T = range(12, 18)
ROWS = 18


@helper
def _erfc(x: float) -> float:
    """Numerical Recipes' ``erfcc`` Chebyshev fit, nested as the ``trueskill`` package nests it."""
    z = abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    q = 0.17087277
    q = q * t - 0.82215223
    q = q * t + 1.48851587
    q = q * t - 1.13520398
    q = q * t + 0.27886807
    q = q * t - 0.18628806
    q = q * t + 0.09678418
    q = q * t + 0.37409196
    r = t * math.exp(-z * z - 1.26551223 + t * (q * t + 1.00002368))
    return 2.0 - r if x < 0.0 else r


@helper
def _cdf(x: float) -> float:
    return 0.5 * _erfc(-x / SQRT2)


@helper
def _pdf(x: float, two: float) -> float:
    return _INV_SQRT_2PI * math.exp(-(math.pow(x, two) / 2.0))


@helper
def _mills(x: float, two: float) -> float:
    if x < _TAIL:
        return _SQRT_2_OVER_PI / erfcx_tail(-x / SQRT2)
    return _pdf(x, two) / _cdf(x)


@helper
def _win_vw(t: float, eps: float, two: float) -> tuple[float, float]:
    x = t - eps
    v = _mills(x, two)
    w = v * (v + x)
    return v, (_W_MIN if w < _W_MIN else (_W_MAX if w > _W_MAX else w))


@helper
def _draw_vw(t: float, eps: float, two: float) -> tuple[float, float]:
    s = abs(t)
    a = eps - s
    b = -eps - s
    if a < _TAIL:
        r = math.exp(0.5 * (a * a - b * b))
        z = 0.5 * (erfcx_tail(-a / SQRT2) - r * erfcx_tail(-b / SQRT2))
        pa = _INV_SQRT_2PI
        pb = _INV_SQRT_2PI * r
    else:
        z = _cdf(a) - _cdf(b)
        pa = _pdf(a, two)
        pb = _pdf(b, two)
    if z <= 0.0:
        return (-a if t < 0 else a), _W_MAX
    v = (pb - pa) / z
    w = math.pow(v, two) + (a * pa - b * pb) / z
    return (-v if t < 0 else v), (_W_MAX if w == 1.0 else w)


@helper
def _inverse(p: float) -> float:
    return 1.0 / p if p else math.inf


@helper
def _mean(p: float, t: float) -> float:
    return t / p if p else 0.0


@helper
def _sum_message(ap: float, at: float, bp: float, bt: float, sign: float) -> tuple[float, float]:
    """The sum factor's message for a = b +- c from cavities a and b: variances add, means add or subtract."""
    p = 1.0 / (_inverse(ap) + _inverse(bp))
    return p, p * (_mean(ap, at) + sign * _mean(bp, bt))


@helper
def _down(w: np.ndarray, k: int) -> None:
    """d_k = t_k - t_{k+1}."""
    p, t = _sum_message(w[TV_P, k] - w[LO_P, k], w[TV_T, k] - w[LO_T, k], w[TV_P, k + 1] - w[UP_P, k + 1],
                        w[TV_T, k + 1] - w[UP_T, k + 1], -1.0)  # fmt: skip
    w[DV_P, k] = w[DV_P, k] - w[F_P, k] + p
    w[DV_T, k] = w[DV_T, k] - w[F_T, k] + t
    w[F_P, k] = p
    w[F_T, k] = t


@helper
def _truncate(w: np.ndarray, k: int, tied: bool, margin: float, two: float) -> float:
    """Moment-match the truncated cavity of d_k; returns the package's change measure."""
    cp = w[DV_P, k] - w[TR_P, k]
    ct = w[DV_T, k] - w[TR_T, k]
    root = math.sqrt(cp)
    x = ct / root
    e = margin * root
    v, ww = _draw_vw(x, e, two) if tied else _win_vw(x, e, two)
    denom = 1.0 - ww
    new_p = cp / denom
    new_t = (ct + root * v) / denom
    old_p = w[DV_P, k]
    old_t = w[DV_T, k]
    w[TR_P, k] = new_p + w[TR_P, k] - old_p
    w[TR_T, k] = new_t + w[TR_T, k] - old_t
    w[DV_P, k] = new_p
    w[DV_T, k] = new_t
    change = abs(old_p - new_p)
    if change == math.inf:
        return 0.0
    a = abs(old_t - new_t)
    b = math.sqrt(change)
    return b if b > a else a


@helper
def _to_next(w: np.ndarray, k: int) -> None:
    """t_{k+1} = t_k - d_k."""
    p, t = _sum_message(w[TV_P, k] - w[LO_P, k], w[TV_T, k] - w[LO_T, k], w[DV_P, k] - w[F_P, k],
                        w[DV_T, k] - w[F_T, k], -1.0)  # fmt: skip
    w[TV_P, k + 1] = w[TV_P, k + 1] - w[UP_P, k + 1] + p
    w[TV_T, k + 1] = w[TV_T, k + 1] - w[UP_T, k + 1] + t
    w[UP_P, k + 1] = p
    w[UP_T, k + 1] = t


@helper
def _to_previous(w: np.ndarray, k: int) -> None:
    """t_k = d_k + t_{k+1}."""
    p, t = _sum_message(w[DV_P, k] - w[F_P, k], w[DV_T, k] - w[F_T, k], w[TV_P, k + 1] - w[UP_P, k + 1],
                        w[TV_T, k + 1] - w[UP_T, k + 1], 1.0)  # fmt: skip
    w[TV_P, k] = w[TV_P, k] - w[LO_P, k] + p
    w[TV_T, k] = w[TV_T, k] - w[LO_T, k] + t
    w[LO_P, k] = p
    w[LO_T, k] = t


@helper
def free_for_all(
    mu: np.ndarray,
    sigma: np.ndarray,
    tied_with_next: np.ndarray,
    beta: float,
    tau: float,
    margin: float,
    min_delta: float,
    max_sweeps: int,
    w: np.ndarray,
    two: float,
) -> None:
    """Posterior ``mu`` and ``sigma`` (updated in place) of players sorted best first; ``w`` is work space."""
    n = len(mu)
    m = n - 1
    beta2 = math.pow(beta, two)
    tau2 = math.pow(tau, two)
    w[:, :n] = 0.0
    for i in range(n):
        p0 = sigma[i] ** -2.0
        t0 = p0 * mu[i]
        sd = math.sqrt(math.pow(math.sqrt(1.0 / p0), two) + tau2)
        pp = sd**-2.0
        pt = pp * (t0 / p0)
        w[PRIOR_P, i] = pp
        w[PRIOR_T, i] = pt
        a = 1.0 / (1.0 + beta2 * pp)
        lp = a * pp
        lt = a * pt
        w[LIKE_P, i] = lp
        w[LIKE_T, i] = lt
        q = 1.0 / (1.0 / lp)
        w[DN_P, i] = w[TV_P, i] = q
        w[DN_T, i] = w[TV_T, i] = q * (lt / lp)
    # Index 0 as a computed integer: a literal 0 makes numba compile _down, _truncate and _to_previous a second
    # time, specialised for the constant (a second or more of first-call compile).
    first = m - m
    for _ in range(max_sweeps):
        if m == 1:
            _down(w, first)
            delta = _truncate(w, first, tied_with_next[first], margin, two)
        else:
            delta = 0.0
            for k in range(m - 1):
                _down(w, k)
                d = _truncate(w, k, tied_with_next[k], margin, two)
                delta = d if d > delta else delta
                _to_next(w, k)
            for k in range(m - 1, 0, -1):
                _down(w, k)
                d = _truncate(w, k, tied_with_next[k], margin, two)
                delta = d if d > delta else delta
                _to_previous(w, k)
        if delta <= min_delta:
            break
    _to_previous(w, first)
    _to_next(w, m - 1)
    for i in range(n):
        cp = w[TV_P, i] - w[DN_P, i]
        ct = w[TV_T, i] - w[DN_T, i]
        gp = 1.0 / _inverse(cp)
        gt = gp * _mean(cp, ct)
        hp = w[LIKE_P, i] + gp - w[LIKE_P, i]
        ht = w[LIKE_T, i] + gt - w[LIKE_T, i]
        a = 1.0 / (1.0 + beta2 * hp)
        sp = w[PRIOR_P, i] + a * hp
        st = w[PRIOR_T, i] + a * ht
        mu[i] = _mean(sp, st)
        sigma[i] = math.sqrt(1.0 / sp)


@entry
def replay_trueskill(
    theta: np.ndarray,
    games: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    mu_s: np.ndarray,
    sigma_s: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    series_before: tuple[np.ndarray, np.ndarray],
    series_after: tuple[np.ndarray, np.ndarray],
) -> None:
    """Replay every game; ``theta = (beta, tau, margin, display_k, min_delta, max_sweeps, 2.0)``.

    Players are sorted best first by a stable sort of their ranks (tied players keep their entry
    order, as the package's), and the displayed rating is ``mu - display_k sigma``.
    """
    offsets, players, ranks, _ = games
    beta, tau, margin, k_display, min_delta = theta[0], theta[1], theta[2], theta[3], theta[4]
    max_sweeps = int(theta[5])
    two = theta[6]
    largest = largest_game(offsets)
    work = np.empty((ROWS, largest))
    order = np.empty(largest, dtype=np.int64)
    mu = np.empty(largest)
    sigma = np.empty(largest)
    tied = np.empty(largest, dtype=np.bool_)
    for game in range(len(offsets) - 1):
        s = offsets[game]
        n = offsets[game + 1] - s
        for i in range(n):
            p = players[s + i]
            before[s + i] = mu_s[p] - k_display * sigma_s[p]
            series_before[0][s + i] = mu_s[p]
            series_before[1][s + i] = sigma_s[p]
        if n >= 2:
            for i in range(n):  # stable insertion sort by rank, best first
                j = i
                while j > 0 and ranks[s + order[j - 1]] > ranks[s + i]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = i
            for i in range(n):
                p = players[s + order[i]]
                mu[i] = mu_s[p]
                sigma[i] = sigma_s[p]
                if i + 1 < n:
                    tied[i] = ranks[s + order[i]] == ranks[s + order[i + 1]]
            free_for_all(mu[:n], sigma[:n], tied[: n - 1], beta, tau, margin, min_delta, max_sweeps, work, two)
            for i in range(n):
                p = players[s + order[i]]
                mu_s[p] = mu[i]
                sigma_s[p] = sigma[i]
        for i in range(n):
            p = players[s + i]
            after[s + i] = mu_s[p] - k_display * sigma_s[p]
            series_after[0][s + i] = mu_s[p]
            series_after[1][s + i] = sigma_s[p]
