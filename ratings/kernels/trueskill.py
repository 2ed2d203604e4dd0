"""Compiled replay of TrueSkill free-for-all and team games, the twin of
:func:`ratings.systems._factor_graph.free_for_all` and :func:`~ratings.systems._factor_graph.team_game`
(Herbrich, Minka and Graepel 2006, with the
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

from ratings.base import NO_DATE
from ratings.kernels.jit import entry, helper
from ratings.kernels.numerics import SQRT2, erfcx_tail, idle_days, largest_game

__all__ = ["free_for_all", "replay_trueskill", "team_game"]

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
# In a team game, per player: the message its team's sum factor sent it (the package's order of updates).
MSG_P, MSG_T = 18, 19
ROWS = 20


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
    margins: np.ndarray,
    min_delta: float,
    max_sweeps: int,
    w: np.ndarray,
    two: float,
) -> None:
    """Posterior ``mu`` and ``sigma`` (updated in place) of players sorted best first; ``w`` is work space;
    ``margins[k]`` is the draw margin of players ``k`` and ``k + 1`` (one value for a free-for-all game)."""
    n = len(mu)
    beta2 = math.pow(beta, two)
    w[:, :n] = 0.0
    _priors(mu, sigma, beta2, math.pow(tau, two), w, two)
    for i in range(n):
        lp = w[LIKE_P, i]
        q = 1.0 / (1.0 / lp)
        w[DN_P, i] = w[TV_P, i] = q
        w[DN_T, i] = w[TV_T, i] = q * (w[LIKE_T, i] / lp)
    _sweep(w, n, tied_with_next, margins, min_delta, max_sweeps, two)
    for i in range(n):
        cp = w[TV_P, i] - w[DN_P, i]
        ct = w[TV_T, i] - w[DN_T, i]
        gp = 1.0 / _inverse(cp)
        gt = gp * _mean(cp, ct)
        mu[i], sigma[i] = _posterior(w, i, gp, gt, beta2)


@helper
def _priors(mu: np.ndarray, sigma: np.ndarray, beta2: float, tau2: float, w: np.ndarray, two: float) -> None:
    """Each player's skill prior with the dynamics and its likelihood message (rows PRIOR_* and LIKE_*)."""
    for i in range(len(mu)):
        p0 = sigma[i] ** -2.0
        t0 = p0 * mu[i]
        sd = math.sqrt(math.pow(math.sqrt(1.0 / p0), two) + tau2)
        pp = sd**-2.0
        pt = pp * (t0 / p0)
        w[PRIOR_P, i] = pp
        w[PRIOR_T, i] = pt
        a = 1.0 / (1.0 + beta2 * pp)
        w[LIKE_P, i] = a * pp
        w[LIKE_T, i] = a * pt


@helper
def _posterior(w: np.ndarray, i: int, gp: float, gt: float, beta2: float) -> tuple[float, float]:
    """Player ``i``'s posterior (mu, sigma) from the game's message ``(gp, gt)`` to its performance."""
    hp = w[LIKE_P, i] + gp - w[LIKE_P, i]
    ht = w[LIKE_T, i] + gt - w[LIKE_T, i]
    a = 1.0 / (1.0 + beta2 * hp)
    sp = w[PRIOR_P, i] + a * hp
    st = w[PRIOR_T, i] + a * ht
    return _mean(sp, st), math.sqrt(1.0 / sp)


@helper
def _sweep(
    w: np.ndarray,
    n: int,
    tied_with_next: np.ndarray,
    margins: np.ndarray,
    min_delta: float,
    max_sweeps: int,
    two: float,
) -> None:
    """Expectation propagation along the chain of differences between ``n`` team performances (best first)."""
    m = n - 1
    # Index 0 as a computed integer: a literal 0 makes numba compile _down, _truncate and _to_previous a second
    # time, specialised for the constant (a second or more of first-call compile).
    first = m - m
    for _ in range(max_sweeps):
        if m == 1:
            _down(w, first)
            delta = _truncate(w, first, tied_with_next[first], margins[first], two)
        else:
            delta = 0.0
            for k in range(m - 1):
                _down(w, k)
                d = _truncate(w, k, tied_with_next[k], margins[k], two)
                delta = d if d > delta else delta
                _to_next(w, k)
            for k in range(m - 1, 0, -1):
                _down(w, k)
                d = _truncate(w, k, tied_with_next[k], margins[k], two)
                delta = d if d > delta else delta
                _to_previous(w, k)
        if delta <= min_delta:
            break
    _to_previous(w, first)
    _to_next(w, m - 1)


@helper
def _add_term(pi_inv: float, mean: float, c: float, p: float, t: float, two: float) -> tuple[float, float]:
    """One term ``c u`` of a sum factor's message (``_factor_graph._sum_message``, in its order)."""
    mean += c * (t / p if p else 0.0)
    if pi_inv != math.inf:
        pi_inv = math.inf if p == 0.0 else pi_inv + math.pow(c, two) / p
    return pi_inv, mean


@helper
def team_game(
    mu: np.ndarray,
    sigma: np.ndarray,
    sizes: np.ndarray,
    weights: np.ndarray,
    tied_with_next: np.ndarray,
    beta: float,
    tau: float,
    margins: np.ndarray,
    min_delta: float,
    max_sweeps: int,
    w: np.ndarray,
    two: float,
) -> None:
    """Posterior ``mu`` and ``sigma`` (in place) of players team by team, the teams best first (``sizes``
    players each); a team's performance is the ``weights``-weighted sum of its players' performances."""
    n = len(mu)
    teams = len(sizes)
    beta2 = math.pow(beta, two)
    w[:, :n] = 0.0
    _priors(mu, sigma, beta2, math.pow(tau, two), w, two)
    start = 0
    for k in range(teams):
        pi_inv = 0.0
        mean = 0.0
        for i in range(start, start + sizes[k]):
            pi_inv, mean = _add_term(pi_inv, mean, weights[i], w[LIKE_P, i] - 0.0, w[LIKE_T, i] - 0.0, two)
        precision = 1.0 / pi_inv
        w[DN_P, k] = w[TV_P, k] = precision
        w[DN_T, k] = w[TV_T, k] = precision * mean
        start += sizes[k]
    _sweep(w, teams, tied_with_next, margins, min_delta, max_sweeps, two)
    start = 0
    for k in range(teams):
        cav_p = w[TV_P, k] - w[DN_P, k]
        cav_t = w[TV_T, k] - w[DN_T, k]
        stop = start + sizes[k]
        for x in range(start, stop):
            pi_inv = 0.0
            mean = 0.0
            for y in range(start, stop):
                if y == x:
                    pi_inv, mean = _add_term(pi_inv, mean, 1.0 / weights[x], cav_p, cav_t, two)
                else:
                    mp = w[LIKE_P, y] + w[MSG_P, y] - w[MSG_P, y]
                    mt = w[LIKE_T, y] + w[MSG_T, y] - w[MSG_T, y]
                    pi_inv, mean = _add_term(pi_inv, mean, -weights[y] / weights[x], mp, mt, two)
            precision = 1.0 / pi_inv
            w[MSG_P, x] = precision
            w[MSG_T, x] = precision * mean
            mu[x], sigma[x] = _posterior(w, x, w[MSG_P, x], w[MSG_T, x], beta2)
        start = stop


@helper
def _best_first(ranks: np.ndarray, s: int, n: int, order: np.ndarray, counts: np.ndarray) -> None:
    """``order[:n]``: the entries ``s .. s+n-1`` by rank, best first, tied entries in entry order (a stable
    counting sort: dense ranks lie in 0..n-1; linear in the field, where an insertion sort was quadratic)."""
    counts[: n + 1] = 0
    for i in range(n):
        counts[min(max(ranks[s + i], 0), n - 1) + 1] += 1
    for r in range(n):
        counts[r + 1] += counts[r]
    for i in range(n):
        key = min(max(ranks[s + i], 0), n - 1)
        order[counts[key]] = i
        counts[key] += 1


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
    teams: tuple[np.ndarray, np.ndarray, np.ndarray],
    idle: tuple[np.ndarray, np.ndarray],
) -> None:
    """Replay every game; ``theta = (beta, tau, margin, display_k, min_delta, max_sweeps, 2.0, unit, tau_day,
    sigma0)``, where ``unit`` is the draw margin of one player (a pair of teams of ``k`` players has ``unit sqrt(k)
    beta``), ``tau_day`` the dynamics per idle day and ``sigma0`` a newcomer's sigma, which idle growth never passes.
    ``idle`` is ``(days, last_day)``: each game's day number and each player's last dated game (NaN before the
    first), both read only when ``tau_day > 0`` (:meth:`ratings.systems.trueskill.TrueSkill._prepare`).

    Players are sorted best first by a stable sort of their ranks (tied players keep their entry
    order, as the package's), and the displayed rating is ``mu - display_k sigma``.  ``teams`` is
    ``(team_game, team, weight)``: a team game's teams are sorted so, their players in entry order.
    """
    offsets, players, ranks, _ = games
    team_game_, team, weight = teams
    beta, tau, margin, k_display, min_delta = theta[0], theta[1], theta[2], theta[3], theta[4]
    max_sweeps = int(theta[5])
    two = theta[6]
    unit = theta[7]
    tau_day = theta[8]
    sigma0 = theta[9]
    days, last_day = idle
    largest = largest_game(offsets)
    work = np.empty((ROWS, largest))
    order = np.empty(largest, dtype=np.int64)
    mu = np.empty(largest)
    sigma = np.empty(largest)
    tied = np.empty(largest, dtype=np.bool_)
    team_rank = np.empty(largest, dtype=np.int64)
    sizes = np.empty(largest, dtype=np.int64)
    weights = np.empty(largest)
    margins = np.empty(largest)
    same = np.full(largest, margin)  # a free-for-all game's margins: one pair of one-player teams each
    counts = np.empty(largest + 1, dtype=np.int64)
    for game in range(len(offsets) - 1):
        s = offsets[game]
        n = offsets[game + 1] - s
        if tau_day > 0.0 and days[game] != NO_DATE:  # growth over the idle days, as the reference's _prepare
            today = float(days[game])
            for i in range(n):
                p = players[s + i]
                elapsed = idle_days(last_day, p, today)
                sd = sigma_s[p]
                grown = math.sqrt(sd * sd + elapsed * (tau_day * tau_day))
                sigma_s[p] = min(grown, max(sd, sigma0))
        for i in range(n):
            p = players[s + i]
            before[s + i] = mu_s[p] - k_display * sigma_s[p]
            series_before[0][s + i] = mu_s[p]
            series_before[1][s + i] = sigma_s[p]
        if n >= 2 and team_game_[game]:
            count = 0
            for i in range(n):
                count = max(count, team[s + i] + 1)
                team_rank[team[s + i]] = ranks[s + i]
            for t in range(count):  # stable insertion sort of the teams by rank, best first
                j = t
                while j > 0 and team_rank[order[j - 1]] > team_rank[t]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = t
            k = 0
            for j in range(count):
                sizes[j] = 0
                for i in range(n):
                    if team[s + i] == order[j]:
                        p = players[s + i]
                        mu[k] = mu_s[p]
                        sigma[k] = sigma_s[p]
                        weights[k] = max(min_delta, weight[s + i])
                        k += 1
                        sizes[j] += 1
                if j + 1 < count:
                    tied[j] = team_rank[order[j]] == team_rank[order[j + 1]]
            for j in range(count - 1):
                margins[j] = unit * math.sqrt(sizes[j] + sizes[j + 1]) * beta
            team_game(
                mu[:n], sigma[:n], sizes[:count], weights[:n], tied[: count - 1], beta, tau, margins[: count - 1],
                min_delta, max_sweeps, work, two,
            )  # fmt: skip
            k = 0
            for j in range(count):
                for i in range(n):
                    if team[s + i] == order[j]:
                        p = players[s + i]
                        mu_s[p] = mu[k]
                        sigma_s[p] = sigma[k]
                        k += 1
        elif n >= 2:
            _best_first(ranks, s, n, order, counts)
            for i in range(n):
                p = players[s + order[i]]
                mu[i] = mu_s[p]
                sigma[i] = sigma_s[p]
                if i + 1 < n:
                    tied[i] = ranks[s + order[i]] == ranks[s + order[i + 1]]
            free_for_all(mu[:n], sigma[:n], tied[: n - 1], beta, tau, same, min_delta, max_sweeps, work, two)
            for i in range(n):
                p = players[s + order[i]]
                mu_s[p] = mu[i]
                sigma_s[p] = sigma[i]
        for i in range(n):
            p = players[s + i]
            after[s + i] = mu_s[p] - k_display * sigma_s[p]
            series_after[0][s + i] = mu_s[p]
            series_after[1][s + i] = sigma_s[p]
