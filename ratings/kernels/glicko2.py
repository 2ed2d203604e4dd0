"""Compiled replay of Glicko-2 with one rating period per game, the twin of
:class:`ratings.systems.glicko2.Glicko2` (Glickman, "Example of the Glicko-2 system", steps
3-8, with the Illinois iteration for the volatility; bounds, inactivity and player-facing
Rank Points as that module's docstring describes).  Team games: each player against one virtual opponent per
other team (the composite team or composite opponent of design document 002), as
:meth:`ratings.systems.glicko2.Glicko2._matches` computes them.

Large games.  Every other participant is one match (INVERSUS Deluxe's rating period per game), so steps 3-4 sum
``g(phi_j)^2 E_j (1 - E_j)`` and ``g(phi_j) (s_j - E_j)`` over the opponents, with ``E_j = 1 / (1 + exp(-g(phi_j)
(mu - mu_j)))``: pair by pair, ``n^2`` terms a game.  Each opponent's term has its own scale ``g(phi_j)``, yet for one
game the sums over the whole field are still one smooth function of the player's rating each, so from
:data:`FIELD_PANEL_MIN` players a game without teams takes them from Chebyshev interpolants on panels
(:func:`glicko_field_sums`, within ``1.1e-15 n``) and the scores from sums per rank (:func:`_field_matches`): about
``n`` per panel.  One game's replay (benchmarks/contests_replay.py ``--glicko-fields``, BENCHMARKS.md): 12.4 ->
0.56 ms at 1,000 players, 205 -> 2.4 ms at 4,096, 4.8 s -> 12.6 ms at 20,000.  Smaller games and team games (one
virtual opponent per other team) sum every match as before.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.base import NO_DATE
from ratings.kernels.elo import pair_score
from ratings.kernels.jit import raising_entry, raising_helper
from ratings.kernels.numerics import CHEBYSHEV_NODES, PANEL_DEGREE, chebyshev_interpolate, largest_game, team_means
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

__all__ = ["FIELD_PANEL_MIN", "glicko_field_sums", "replay_glicko2"]

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


#: From this many players a game without teams sums its matches with :func:`glicko_field_sums` (below, every pair,
#: bit for bit as before); the panels already halve a game of 64 (``benchmarks/contests_replay.py
#: --glicko-fields``: 0.070 against 0.035 ms), and the smaller games of a group's history keep their exact sums.
FIELD_PANEL_MIN = 64
#: Width of a panel of :func:`glicko_field_sums` (rating units of the Glicko-2 scale): ``pi / 2``, the logistic's at
#: scale 1, which bounds every ``g(phi_j)``.
PANEL_WIDTH = 0.5 * math.pi
#: A panel is interpolated when it holds this many points (building it costs about ``PANEL_DEGREE + 1`` divisions
#: per opponent, against one exponential and one division per opponent and point summed directly).
PANEL_COST = 8


@raising_helper
def glicko_field_sums(points: np.ndarray, mu: np.ndarray, g: np.ndarray, a_out: np.ndarray, b_out: np.ndarray) -> int:
    """``a_out[i] = A(points[i])`` and ``b_out[i] = B(points[i])`` for the field ``(mu_j, g_j)``, every source summed
    (a point that is a source counts its own terms ``g^2 / 4`` and ``g / 2``); returns the panels interpolated.

    ``A(x) = sum_j g_j^2 E_j(x) (1 - E_j(x))`` and ``B(x) = sum_j g_j E_j(x)`` with ``E_j(x) = 1 / (1 + exp(-g_j
    (x - mu_j)))`` are Glickman's step-3 and step-4 sums over a game's opponents.  Each is one function of ``x`` for
    the whole game, analytic in a strip: with ``z = g_j (x - mu_j)`` and ``|Im x| <= pi / 2``, ``|Im z| <= pi / 2``
    (``g_j <= 1``), so ``exp(-z)`` has a real part ``>= 0``, ``|E_j| = 1 / |1 + exp(-z)| <= 1`` and likewise
    ``|1 - E_j| = 1 / |1 + exp(z)| <= 1``: each term of ``A`` is at most ``g_j^2 <= 1`` and of ``B`` at most ``g_j <=
    1`` there.  That is the geometry of :func:`ratings.kernels.elo.logistic_field_sums` at scale 1 (panels of width
    :data:`PANEL_WIDTH`, the strip twice the panel's half-width high), so the interpolant of degree
    :data:`~ratings.kernels.numerics.PANEL_DEGREE` in Chebyshev points errs by at most ``1.1e-15 n`` (the bound
    stated with :func:`~ratings.kernels.numerics.chebyshev_interpolate`), the size of the roundings of the term by
    term sums.  Ratings are clamped to ``[min_rating, max_rating]`` (at most 30 wide), so every panel sums every
    source: no far field is summarised.  A panel's node sums share, per source, one exponential for the panel and
    the source's own ``exp(-g_j a t_k)`` at the 25 nodes ``c + a t_k``.  Points of a panel holding fewer than
    :data:`PANEL_COST` sum their terms one by one; ratings not finite, or spread over more panels than four times
    the values, sum every pair (tests/test_glicko2_fields.py checks every case against ``math.fsum`` of the terms).
    """
    m = len(points)
    n = len(mu)
    lo = math.inf
    hi = -math.inf
    finite = True
    for i in range(m):
        finite = finite and math.isfinite(points[i])
        lo = min(lo, points[i])
        hi = max(hi, points[i])
    for j in range(n):
        finite = finite and math.isfinite(mu[j]) and math.isfinite(g[j])
        lo = min(lo, mu[j])
        hi = max(hi, mu[j])
    n_panels = 0
    if finite and m > 0 and (hi - lo) / PANEL_WIDTH <= 4 * (m + n):
        n_panels = int((hi - lo) / PANEL_WIDTH) + 1
    crowd = np.zeros(n_panels, dtype=np.int64)
    for i in range(m if n_panels > 0 else 0):
        crowd[min(int((points[i] - lo) / PANEL_WIDTH), n_panels - 1)] += 1
    slot = np.full(n_panels, -1, dtype=np.int64)
    built = 0
    for q in range(n_panels):
        if crowd[q] >= PANEL_COST:
            slot[q] = built
            built += 1
    half = 0.5 * PANEL_WIDTH
    values_a = np.empty((built, PANEL_DEGREE + 1))
    values_b = np.empty((built, PANEL_DEGREE + 1))
    if built > 0:
        factor = np.empty((n, PANEL_DEGREE + 1))  # exp(-g_j a t_k): a source's factor at each node
        for j in range(n):
            for k in range(PANEL_DEGREE + 1):
                factor[j, k] = math.exp(-g[j] * half * CHEBYSHEV_NODES[k])
        row_a = np.empty(PANEL_DEGREE + 1)
        row_b = np.empty(PANEL_DEGREE + 1)
        for q in range(n_panels):
            if slot[q] < 0:
                continue
            centre = lo + (q + 0.5) * PANEL_WIDTH
            row_a[:] = 0.0
            row_b[:] = 0.0
            for j in range(n):
                shift = math.exp(-g[j] * (centre - mu[j]))
                g2 = g[j] * g[j]
                for k in range(PANEL_DEGREE + 1):
                    u = shift * factor[j, k]  # exp(-g_j (node - mu_j))
                    e = 1.0 / (1.0 + u)
                    row_a[k] += g2 * u * e * e  # g^2 E (1 - E), 1 - E = u E
                    row_b[k] += g[j] * e
            values_a[slot[q], :] = row_a
            values_b[slot[q], :] = row_b
    for i in range(m):
        q = min(int((points[i] - lo) / PANEL_WIDTH), n_panels - 1) if n_panels > 0 else -1
        if q >= 0 and slot[q] >= 0:
            u_at = (points[i] - (lo + (q + 0.5) * PANEL_WIDTH)) / half
            a_out[i] = chebyshev_interpolate(u_at, values_a, slot[q])
            b_out[i] = chebyshev_interpolate(u_at, values_b, slot[q])
            continue
        total_a = 0.0
        total_b = 0.0
        for j in range(n):
            z = g[j] * (points[i] - mu[j])
            w = math.exp(-abs(z))  # E (1 - E) = w / (1 + w)^2 either side, with no overflow however far
            total_a += g[j] * g[j] * w / ((1.0 + w) * (1.0 + w))
            total_b += g[j] / (1.0 + w) if z >= 0.0 else g[j] * w / (1.0 + w)
        a_out[i] = total_a
        b_out[i] = total_b
    return built


@raising_helper
def _field_matches(
    ranks: np.ndarray,
    dnf: np.ndarray,
    mu: np.ndarray,
    phi: np.ndarray,
    inv_v: np.ndarray,
    gain: np.ndarray,
    matches: np.ndarray,
    total: np.ndarray,
) -> bool:
    """Every player's step-3 and step-4 sums over its matches in a game without teams (every other player, two
    DNFs not compared), in about ``n`` per panel; ``False`` (nothing written) when the ranks span more than ``2 n``
    values (never from the replay, whose ranks are dense): the caller then sums every pair.

    ``inv_v`` is ``A(mu_i)`` of :func:`glicko_field_sums` less the player's own term, and for a DNF less the DNFs'
    own ``A_D(mu_i)`` (which holds that term); ``gain`` is ``sum_j g_j s_ij - B(mu_i)`` likewise, the scores summed
    per rank: ``g_j`` of each player ranked below, half of each tied other.  ``matches`` and ``total`` count the
    opponents and the scores the same way.
    """
    n = len(mu)
    best = ranks[0]
    worst = ranks[0]
    for i in range(n):
        best = min(best, ranks[i])
        worst = max(worst, ranks[i])
    if worst - best >= 2 * n:
        return False
    size = worst - best + 2
    at_g = np.zeros(size)  # at_g[k]: sum of g over rank best + k; below_g[k]: over the ranks worse than it
    at_n = np.zeros(size)
    dnf_g = np.zeros(size)
    dnf_n = np.zeros(size)
    g = np.empty(n)
    n_dnf = 0
    for i in range(n):
        g[i] = 1.0 / math.sqrt(1.0 + 3.0 * phi[i] * phi[i] / (math.pi * math.pi))
        k = ranks[i] - best
        at_g[k] += g[i]
        at_n[k] += 1.0
        if dnf[i]:
            dnf_g[k] += g[i]
            dnf_n[k] += 1.0
            n_dnf += 1
    below_g = np.zeros(size)
    below_n = np.zeros(size)
    dnf_below_g = np.zeros(size)
    dnf_below_n = np.zeros(size)
    for k in range(size - 2, -1, -1):
        below_g[k] = below_g[k + 1] + at_g[k + 1]
        below_n[k] = below_n[k + 1] + at_n[k + 1]
        dnf_below_g[k] = dnf_below_g[k + 1] + dnf_g[k + 1]
        dnf_below_n[k] = dnf_below_n[k + 1] + dnf_n[k + 1]
    field_b = np.empty(n)
    glicko_field_sums(mu, mu, g, inv_v, field_b)
    among_mu = np.empty(n_dnf)
    among_g = np.empty(n_dnf)
    d = 0
    for i in range(n):
        if dnf[i]:
            among_mu[d] = mu[i]
            among_g[d] = g[i]
            d += 1
    among_a = np.empty(n_dnf)
    among_b = np.empty(n_dnf)
    glicko_field_sums(among_mu, among_mu, among_g, among_a, among_b)
    d = 0
    for i in range(n):
        k = ranks[i] - best
        scored = below_g[k] + 0.5 * (at_g[k] - g[i])
        total[i] = below_n[k] + 0.5 * (at_n[k] - 1.0)
        matches[i] = n - 1
        if dnf[i]:
            scored -= dnf_below_g[k] + 0.5 * (dnf_g[k] - g[i])
            total[i] -= dnf_below_n[k] + 0.5 * (dnf_n[k] - 1.0)
            matches[i] -= n_dnf - 1
            inv_v[i] -= among_a[d]
            gain[i] = scored - (field_b[i] - among_b[d])
            d += 1
        else:
            inv_v[i] -= 0.25 * g[i] * g[i]
            gain[i] = scored - (field_b[i] - 0.5 * g[i])
    return True


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
    # A large game without teams: every player's sums from _field_matches.
    f_inv_v = np.empty(largest)
    f_gain = np.empty(largest)
    f_matches = np.empty(largest)
    f_total = np.empty(largest)
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
            fields = (
                not team_game[game]
                and n >= FIELD_PANEL_MIN
                and _field_matches(
                    ranks[s : s + n],
                    dnf[s : s + n],
                    mu[:n],
                    phi[:n],
                    f_inv_v[:n],
                    f_gain[:n],
                    f_matches[:n],
                    f_total[:n],
                )
            )
            for i in range(n):
                sigma = vol_s[players[s + i]]
                inv_v = 0.0
                gain = 0.0
                matches = 0
                total = 0.0
                opponents = 0
                if fields:
                    inv_v = f_inv_v[i]
                    gain = f_gain[i]
                    matches = int(f_matches[i])
                    total = f_total[i]
                elif team_game[game]:
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
