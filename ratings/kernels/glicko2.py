"""Compiled replay of Glicko-2 with one rating period per game, the twin of
:class:`ratings.systems.glicko2.Glicko2` (Glickman, "Example of the Glicko-2 system", steps
3-8, with the Illinois iteration for the volatility; bounds, inactivity and player-facing
Rank Points as that module's docstring describes).  Team games: each player against one virtual opponent per
other team (the composite team or composite opponent of design document 002), as
:meth:`ratings.systems.glicko2.Glicko2._matches` computes them.

Why a game of n players costs n^2: every other participant is one match (INVERSUS Deluxe's rating period per
game), and steps 3-4 sum ``g(phi_j)^2 E_j (1 - E_j)`` and ``g(phi_j) (s_j - E_j)`` over the opponents, with
``E_j = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))``: a logistic of the rating difference scaled by each opponent's own
deviation, which no sorting or prefix sum separates (see :mod:`ratings.kernels.elo`), so the sums are exact and
quadratic.  Measured: 12 ms a game at 1,000 players, 165 ms at 4,096 (benchmarks/contests_replay.py, BENCHMARKS.md).
"""

from __future__ import annotations

import math

import numpy as np

from ratings.base import NO_DATE
from ratings.kernels.elo import pair_score
from ratings.kernels.jit import raising_entry, raising_helper
from ratings.kernels.numerics import largest_game, team_means
from ratings.systems.glicko2 import (
    CONFIDENCE_SIGMAS,
    GLICKO_SCALE,
    MAX_ITERATIONS,
    RANK_POINTS_APPROACH,
    RANK_POINTS_MAX,
    RANK_POINTS_MAX_STEP,
    RANK_POINTS_MIN_STEP,
    TOLERANCE,
)

__all__ = ["replay_glicko2"]

# Positions in ``theta``.
TAU, INITIAL_RATING, INITIAL_DEVIATION, MIN_RATING, MAX_RATING = 0, 1, 2, 3, 4
MIN_DEVIATION, MIN_VOLATILITY, MAX_VOLATILITY, PERIOD_DAYS, RANK_POINTS = 5, 6, 7, 8, 9


@raising_helper
def _volatility_f(x: float, a: float, phi2: float, v: float, delta2: float, tau2: float) -> float:
    ex = math.exp(x)
    denom = phi2 + v + ex
    return ex * (delta2 - phi2 - v - ex) / (2.0 * denom * denom) - (x - a) / tau2


@raising_helper
def _new_volatility(sigma: float, phi2: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the root of f(x) = 0, x = ln(sigma'^2), by the Illinois variant of regula falsi."""
    a = math.log(sigma * sigma)
    delta2 = delta * delta
    tau2 = tau * tau
    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        found = False
        k = 1
        for k in range(1, MAX_ITERATIONS):  # Glickman's bracket search, bounded as the reference's
            if _volatility_f(a - k * tau, a, phi2, v, delta2, tau2) >= 0.0:
                found = True
                break
        if not found:
            return math.nan  # no bracket: the per-game replay reports it
        big_b = a - k * tau
    f_a = _volatility_f(big_a, a, phi2, v, delta2, tau2)
    f_b = _volatility_f(big_b, a, phi2, v, delta2, tau2)
    for _ in range(MAX_ITERATIONS):
        if not abs(big_b - big_a) > TOLERANCE:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = _volatility_f(big_c, a, phi2, v, delta2, tau2)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


@raising_helper
def _rank_points_step(points: float, target: float, ceiling: float, result: float) -> float:
    """The player-facing Rank Points step: halfway to the target, capped, never against the result."""
    step = RANK_POINTS_APPROACH * (target - points)
    step = min(max(step, -RANK_POINTS_MAX_STEP), RANK_POINTS_MAX_STEP)
    if result > 0:
        step = max(step, RANK_POINTS_MIN_STEP)
        limit = max(points, min(ceiling, RANK_POINTS_MAX))
        return min(points + step, limit)
    if result < 0:
        step = min(step, -RANK_POINTS_MIN_STEP)
        return max(points + step, 0.0)
    return min(max(points + step, 0.0), RANK_POINTS_MAX)


@raising_helper
def _clip(x: float, low: float, high: float) -> float:
    """``numpy.clip`` of one value: NaN stays NaN (a failed update must reach the finiteness check)."""
    if math.isnan(x):
        return x
    return min(max(x, low), high)


@raising_helper
def _points_of(internal: float, theta: np.ndarray) -> float:
    span = theta[MAX_RATING] - theta[MIN_RATING]
    return _clip((internal - theta[MIN_RATING]) / span * RANK_POINTS_MAX, 0.0, RANK_POINTS_MAX)


@raising_helper
def _record(
    state: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    p: int,
    k: int,
    display: np.ndarray,
    series: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    rank_points: bool,
) -> None:
    for j in range(4):
        series[j][k] = state[j][p]
    display[k] = state[3][p] if rank_points else state[0][p]


@raising_entry
def replay_glicko2(
    theta: np.ndarray,
    games: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    days: np.ndarray,
    state: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    last_day: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    series_before: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    series_after: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    teams: tuple[np.ndarray, np.ndarray, np.ndarray, bool],
) -> None:
    """Replay every game; ``state`` and both series are ``(mu, sigma, volatility, points)``.

    ``mu`` and ``sigma`` are on the Glicko scale, as the system stores them; ``last_day``
    holds each player's last dated game (NaN before the first).  ``teams`` is ``(team_game, team, weight,
    composite_opponent)``: per game whether it is a team game, per entry its team and weight, and the method.
    """
    offsets, players, ranks, dnf = games
    team_game, team, weight, composite_opponent = teams
    mu_s, sigma_s, vol_s, points_s = state
    tau = theta[TAU]
    rank_points = theta[RANK_POINTS] == 1.0
    largest = largest_game(offsets)
    mu = np.empty(largest)
    phi = np.empty(largest)
    new_mu = np.empty(largest)
    new_phi = np.empty(largest)
    new_vol = np.empty(largest)
    results = np.empty(largest)
    # Team games: each team's weighted mean rating and deviation, its rank and DNF state; the opponents a
    # player meets (one per other team, or every other player) as ratings, deviations and scores.
    t_mu = np.empty(largest)
    t_phi = np.empty(largest)
    t_weight = np.empty(largest)
    t_rank = np.empty(largest, dtype=np.int64)
    t_dnf = np.empty(largest, dtype=np.bool_)
    o_mu = np.empty(largest)
    o_phi = np.empty(largest)
    o_score = np.empty(largest)
    for game in range(len(offsets) - 1):
        s = offsets[game]
        n = offsets[game + 1] - s
        if days[game] != NO_DATE:
            today = float(days[game])
            for i in range(n):
                p = players[s + i]
                last = last_day[p]
                elapsed = 0.0 if np.isnan(last) else max(today - last, 0.0)
                ph = sigma_s[p] / GLICKO_SCALE
                grown = math.sqrt(ph * ph + elapsed / theta[PERIOD_DAYS] * vol_s[p] * vol_s[p])
                sigma_s[p] = _clip(grown, theta[MIN_DEVIATION], theta[INITIAL_DEVIATION]) * GLICKO_SCALE
                last_day[p] = today
        for i in range(n):
            _record(state, players[s + i], s + i, before, series_before, rank_points)
        if n >= 2:
            for i in range(n):
                p = players[s + i]
                mu[i] = (mu_s[p] - theta[INITIAL_RATING]) / GLICKO_SCALE
                phi[i] = sigma_s[p] / GLICKO_SCALE
            count = 0
            if team_game[game]:
                count = team_means(s, n, team, weight, ranks, dnf, mu, phi, t_mu, t_phi, t_weight, t_rank, t_dnf)
            for i in range(n):
                sigma = vol_s[players[s + i]]
                inv_v = 0.0
                gain = 0.0
                matches = 0
                total = 0.0
                opponents = 0
                if team_game[game]:
                    own = team[s + i]
                    for t in range(count):
                        if t == own or (t_dnf[own] and t_dnf[t]):
                            continue
                        o_mu[opponents] = t_mu[t] if composite_opponent else t_mu[t] + (mu[i] - t_mu[own])
                        o_phi[opponents] = t_phi[t]
                        o_score[opponents] = pair_score(t_rank[own], t_rank[t])
                        opponents += 1
                else:
                    for j in range(n):
                        if j == i or (dnf[s + i] and dnf[s + j]):
                            continue
                        o_mu[opponents] = mu[j]
                        o_phi[opponents] = phi[j]
                        o_score[opponents] = pair_score(ranks[s + i], ranks[s + j])
                        opponents += 1
                for j in range(opponents):
                    score = o_score[j]
                    g = 1.0 / math.sqrt(1.0 + 3.0 * o_phi[j] * o_phi[j] / (math.pi * math.pi))
                    e = 1.0 / (1.0 + math.exp(-g * (mu[i] - o_mu[j])))
                    inv_v += g * g * e * (1.0 - e)
                    gain += g * (score - e)
                    matches += 1
                    total += score
                if matches == 0:
                    new_mu[i] = mu[i]
                    new_phi[i] = math.sqrt(phi[i] * phi[i] + sigma * sigma)
                    new_vol[i] = sigma
                    results[i] = np.nan
                    continue
                v = 1.0 / inv_v
                phi2 = phi[i] * phi[i]
                new_vol[i] = _new_volatility(sigma, phi2, v, v * gain, tau)
                phi_star2 = phi2 + new_vol[i] * new_vol[i]
                new_phi[i] = 1.0 / math.sqrt(1.0 / phi_star2 + 1.0 / v)
                new_mu[i] = mu[i] + new_phi[i] * new_phi[i] * gain
                results[i] = total - 0.5 * matches
            for i in range(n):
                p = players[s + i]
                mu_s[p] = _clip(new_mu[i], theta[MIN_RATING], theta[MAX_RATING]) * GLICKO_SCALE + theta[INITIAL_RATING]
                sigma_s[p] = _clip(new_phi[i], theta[MIN_DEVIATION], theta[INITIAL_DEVIATION]) * GLICKO_SCALE
                vol_s[p] = _clip(new_vol[i], theta[MIN_VOLATILITY], theta[MAX_VOLATILITY])
            for i in range(n):
                p = players[s + i]
                if np.isnan(results[i]):
                    continue
                internal = (mu_s[p] - theta[INITIAL_RATING]) / GLICKO_SCALE
                spread = CONFIDENCE_SIGMAS * (sigma_s[p] / GLICKO_SCALE)
                lower = _points_of(internal - spread, theta)
                upper = _points_of(internal + spread, theta)
                points_s[p] = _rank_points_step(points_s[p], lower, upper, results[i])
        for i in range(n):
            _record(state, players[s + i], s + i, after, series_after, rank_points)
