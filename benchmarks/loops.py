"""Plain compiled reference loops (issue 28 item 3): how close ``rate()`` comes to a hand-written numba loop of the
same maths.

Each loop below is one system at its defaults, written as one function over the history's flat arrays and nothing
else:

- multiplayer Elo (Cunningham 2021, eqs. 4, 6 and 7: linear score function, no dummy, no floor, tied players sharing
  the mean of their positions' scores, DNFs tied below the finishers);
- pairwise Elo (Kerby 2025, section 3.2.1: every pair a logistic two-player game on the natural scale, a shared
  place scoring 1/2, two DNFs not compared, the pair updates summed, learning rate 0.07);
- Glicko-2 with every game a rating period (Glickman, "Example of the Glicko-2 system", steps 2-8, the volatility by
  the Illinois method; the INVERSUS Deluxe article's bounds, its deviation growth over idle days and its Rank
  Points, which ``rate()`` keeps as a series at the default display too);
- TrueSkill's free-for-all (Herbrich, Minka and Graepel 2006) with the ``trueskill`` package's schedule, stopping
  rule and normal arithmetic (its Chebyshev erfc, its squares through ``pow``), as the system follows them;
- Plackett-Luce (Kerby 2025, section 3.2.2, and the system's docstring: learning rate 0.32, no dummy, the finishers'
  order likelihood with each tie group averaged over its orderings, the DNFs censored jointly by the trapezoid rule
  in log y);
- Elo-MMR(rho) (Ebtekar and Liu 2021: pseudodiffusion, performances from Theorem 3.2, the robust average of
  equation 10 by Newton in a sure bracket, the history folded at 100 terms or below 1e-10 of the weight);
- Thurstonian for games without tied finishers (Kerby 2025, section 3.2.3, and the system's docstring: its grid,
  Euler-Maclaurin cumulative sums and scaled forward and backward messages), run on L generated without ties.

Each must give ``rate()``'s displayed ratings (and, for Glicko-2, its deviation, volatility and Rank Points series;
for TrueSkill and Elo-MMR their mu and sigma) to 1e-12 relative (checked here before anything is timed).  Then, on a
seeded 20,000-game history (benchmarks/compare.py's L: 500 players, games of 4-10, 10% with a tie) and the bundled
racing sample, it prints the CPU time of

- ``rate()``: the whole public call (building the replay, checkpoints, the kernel, the run);
- the kernel alone (``_replay`` over the whole history into a fresh state);
- the loop (its arrays allocated inside the timing);

each the best of ``--repeat`` after an untimed call, and ``rate()`` / loop and kernel / loop.  Run from the
repository root::

    .venv/bin/python benchmarks/loops.py
    .venv/bin/python benchmarks/loops.py --repeat 20 --systems glicko2
    .venv/bin/python benchmarks/loops.py --systems plackett-luce elo-mmr thurstonian

Nothing is asserted about speed: on a shared machine the figures are for comparing within one run.  One run
(``--repeat 3``, 2026-11-28, load 3-4; BENCHMARKS.md), ``rate()`` / loop on L and on the racing sample: multielo
1.63x and 1.33x, pairwise Elo 1.53x and 1.49x, Glicko-2 1.47x and 1.33x, TrueSkill 1.08x and 1.08x, Plackett-Luce
4.20x and 1.07x (1.78-1.90x and 1.03-1.04x after its order terms were summed directly: BENCHMARKS.md), Elo-MMR 0.49x
and 0.50x, Thurstonian (L without ties) 0.35x and 0.49x.  The last two loops are plain forms slower than their
kernels, so they bound them only loosely.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from compare import seeded_history  # noqa: E402

from ratings import GameHistory, RatingSystem, create  # noqa: E402
from ratings.base import Replay  # noqa: E402
from ratings.samples import load_sample  # noqa: E402
from ratings.systems.elo_mmr import FOLD_SHARE  # noqa: E402
from ratings.systems.glicko2 import GLICKO_SCALE  # noqa: E402
from ratings.systems.plackett_luce import T_STEP  # noqa: E402


@njit
def _outputs(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Empty ratings before and after every entry, and the size of the largest game (each loop's work space)."""
    largest = 0
    for g in range(len(offsets) - 1):
        largest = max(largest, offsets[g + 1] - offsets[g])
    return np.empty(offsets[-1]), np.empty(offsets[-1]), largest


@njit(nogil=True)
def multielo_loop(
    offsets: np.ndarray, players: np.ndarray, ranks: np.ndarray, n_players: int, initial: float, k: float, d: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every rating before and after every game, and the final ratings (Cunningham 2021's update at its defaults).

    ``E_a = sum_{b != a} 1 / (1 + 10^((R_b - R_a) / D)) / (n (n - 1) / 2)`` (eq. 4); the linear score of position
    ``p`` is ``(n - p) / (n (n - 1) / 2)`` (eq. 6), a tie group spanning positions ``q + 1 .. q + c`` sharing their
    mean ``(n - q - (c + 1) / 2) / (n (n - 1) / 2)``; ``R' = R + K (n - 1) (S - E)`` (eq. 7).  Ranks are dense
    (0 = best), so a group's first position is the count of players in better ranks.
    """
    rating = np.full(n_players, initial)
    before, after, largest = _outputs(offsets)
    count = np.zeros(largest + 1, dtype=np.int64)
    ln10_d = math.log(10.0) / d
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        for i in range(n):
            before[s + i] = rating[players[s + i]]
        if n >= 2:
            for i in range(n + 1):
                count[i] = 0
            for i in range(n):
                count[ranks[s + i] + 1] += 1
            for i in range(1, n + 1):  # count[r]: players in ranks better than r
                count[i] += count[i - 1]
            pairs = n * (n - 1) / 2.0
            for a in range(n):
                ra = before[s + a]
                expected = 0.0
                for b in range(n):
                    if b != a:
                        expected += 1.0 / (1.0 + math.exp((before[s + b] - ra) * ln10_d))
                r = ranks[s + a]
                ahead = count[r]
                tied = count[r + 1] - ahead
                actual = (n - ahead - (tied + 1) / 2.0) / pairs
                rating[players[s + a]] = ra + k * (n - 1) * (actual - expected / pairs)
        for i in range(n):
            after[s + i] = rating[players[s + i]]
    return before, after, rating


@njit
def _pair_score(rank_i: int, rank_j: int) -> float:
    """1, 1/2 or 0 as a player of dense rank ``rank_i`` finished ahead of, level with or behind one of ``rank_j``."""
    if rank_i < rank_j:
        return 1.0
    return 0.5 if rank_i == rank_j else 0.0


@njit(nogil=True)
def pairwise_loop(
    offsets: np.ndarray,
    players: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    n_players: int,
    initial: float,
    eta: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairwise Elo at its defaults (Kerby 2025, section 3.2.1): for each pair ``i, j`` of a game, ``S_ij -
    1 / (1 + e^(r_j - r_i))`` with ``S_ij`` 1, 1/2 or 0 as ``i`` finished ahead, level or behind, added to ``i``'s
    direction and taken from ``j``'s (two DNFs are not compared); then ``r' = r + eta * direction``."""
    rating = np.full(n_players, initial)
    before, after, largest = _outputs(offsets)
    direction = np.empty(largest)
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        for i in range(n):
            before[s + i] = rating[players[s + i]]
            direction[i] = 0.0
        for i in range(n):
            for j in range(i + 1, n):
                if dnf[s + i] and dnf[s + j]:
                    continue
                score = _pair_score(ranks[s + i], ranks[s + j])
                update = score - 1.0 / (1.0 + math.exp(before[s + j] - before[s + i]))
                direction[i] += update
                direction[j] -= update
        if n >= 2:
            for i in range(n):
                rating[players[s + i]] = before[s + i] + eta * direction[i]
        for i in range(n):
            after[s + i] = rating[players[s + i]]
    return before, after, rating


@njit
def _glicko2_f(x: float, a: float, phi2: float, v: float, delta2: float, tau2: float) -> float:
    """Glickman's step 5 function of ``x = ln(sigma'^2)``."""
    ex = math.exp(x)
    d = phi2 + v + ex
    return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / tau2


@njit
def _bounded(x: float, low: float, high: float) -> float:
    return min(max(x, low), high)


@njit(nogil=True)
def glicko2_loop(
    offsets: np.ndarray,
    players: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    days: np.ndarray,
    n_players: int,
    q: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Glicko-2 at its defaults, every game one rating period for each participant against every other (two DNFs
    play no match), ratings kept on the Glicko scale as the system keeps them.

    ``q`` = (tau, initial rating, initial deviation, initial volatility, lowest and highest rating, lowest deviation,
    lowest and highest volatility, period days), deviations and rating bounds on the Glicko-2 scale.  Per game:
    each participant's deviation grows over the idle days, ``sqrt(phi^2 + days / period * sigma^2)`` within the
    deviation bounds; then, from the ratings before the game, Glickman's steps 3-8 (g, E, v, Delta, the volatility
    as the root of f by the Illinois method to 1e-6 with his bracket, phi*, phi', mu'); then the bounds; then the
    Rank Points step toward the lower end of the 99.7% interval (halfway, at most 500, at least 1 point with the
    result, a win or a loss being the score against the field above or below one half).  Returns the displayed
    rating before and after every entry and the final rating, deviation (Glicko scale), volatility and points.
    """
    tau, r0, phi0, vol0, low_mu, high_mu, low_phi, low_vol, high_vol, period = (
        q[0],
        q[1],
        q[2],
        q[3],
        q[4],
        q[5],
        q[6],
        q[7],
        q[8],
        q[9],
    )
    rating = np.full(n_players, r0)
    deviation = np.full(n_players, phi0 * GLICKO_SCALE)
    volatility = np.full(n_players, vol0)
    points = np.zeros(n_players)
    last = np.full(n_players, np.nan)
    before, after, largest = _outputs(offsets)
    mu = np.empty(largest)
    phi = np.empty(largest)
    new_mu = np.empty(largest)
    new_phi = np.empty(largest)
    new_vol = np.empty(largest)
    result = np.empty(largest)
    tau2 = tau * tau
    span = high_mu - low_mu
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        today = float(days[g])
        for i in range(n):
            p = players[s + i]
            idle = 0.0 if np.isnan(last[p]) else max(today - last[p], 0.0)
            x = deviation[p] / GLICKO_SCALE
            grown = math.sqrt(x * x + idle / period * volatility[p] * volatility[p])
            deviation[p] = _bounded(grown, low_phi, phi0) * GLICKO_SCALE
            last[p] = today
            before[s + i] = rating[p]
        if n >= 2:
            for i in range(n):
                p = players[s + i]
                mu[i] = (rating[p] - r0) / GLICKO_SCALE
                phi[i] = deviation[p] / GLICKO_SCALE
            for i in range(n):
                inv_v = 0.0
                gain = 0.0
                matches = 0
                score_total = 0.0
                for j in range(n):
                    if j == i or (dnf[s + i] and dnf[s + j]):
                        continue
                    score = _pair_score(ranks[s + i], ranks[s + j])
                    gj = 1.0 / math.sqrt(1.0 + 3.0 * phi[j] * phi[j] / (math.pi * math.pi))
                    e = 1.0 / (1.0 + math.exp(-gj * (mu[i] - mu[j])))
                    inv_v += gj * gj * e * (1.0 - e)
                    gain += gj * (score - e)
                    matches += 1
                    score_total += score
                sigma = volatility[players[s + i]]
                if matches == 0:  # an empty rating period
                    new_mu[i] = mu[i]
                    new_phi[i] = math.sqrt(phi[i] * phi[i] + sigma * sigma)
                    new_vol[i] = sigma
                    result[i] = np.nan
                    continue
                v = 1.0 / inv_v
                delta = v * gain
                phi2 = phi[i] * phi[i]
                delta2 = delta * delta
                a = math.log(sigma * sigma)
                big_a = a
                if delta2 > phi2 + v:
                    big_b = math.log(delta2 - phi2 - v)
                else:
                    k = 1
                    while _glicko2_f(a - k * tau, a, phi2, v, delta2, tau2) < 0.0:
                        k += 1
                    big_b = a - k * tau
                f_a = _glicko2_f(big_a, a, phi2, v, delta2, tau2)
                f_b = _glicko2_f(big_b, a, phi2, v, delta2, tau2)
                while abs(big_b - big_a) > 1e-6:
                    big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
                    f_c = _glicko2_f(big_c, a, phi2, v, delta2, tau2)
                    if f_c * f_b <= 0.0:
                        big_a, f_a = big_b, f_b
                    else:
                        f_a /= 2.0
                    big_b, f_b = big_c, f_c
                new_vol[i] = math.exp(big_a / 2.0)
                phi_star2 = phi2 + new_vol[i] * new_vol[i]
                new_phi[i] = 1.0 / math.sqrt(1.0 / phi_star2 + 1.0 / v)
                new_mu[i] = mu[i] + new_phi[i] * new_phi[i] * gain
                result[i] = score_total - 0.5 * matches
            for i in range(n):
                p = players[s + i]
                rating[p] = _bounded(new_mu[i], low_mu, high_mu) * GLICKO_SCALE + r0
                deviation[p] = _bounded(new_phi[i], low_phi, phi0) * GLICKO_SCALE
                volatility[p] = _bounded(new_vol[i], low_vol, high_vol)
                if np.isnan(result[i]):
                    continue
                centre = (rating[p] - r0) / GLICKO_SCALE
                spread = 3.0 * (deviation[p] / GLICKO_SCALE)
                target = _bounded((centre - spread - low_mu) / span * 10000.0, 0.0, 10000.0)
                ceiling = _bounded((centre + spread - low_mu) / span * 10000.0, 0.0, 10000.0)
                step = _bounded(0.5 * (target - points[p]), -500.0, 500.0)
                if result[i] > 0.0:
                    points[p] = min(points[p] + max(step, 1.0), max(points[p], min(ceiling, 10000.0)))
                elif result[i] < 0.0:
                    points[p] = max(points[p] + min(step, -1.0), 0.0)
                else:
                    points[p] = _bounded(points[p] + step, 0.0, 10000.0)
        for i in range(n):
            after[s + i] = rating[players[s + i]]
    return before, after, rating, deviation, volatility, points


@njit
def _ts_erfc(x: float) -> float:
    """erfc by the Chebyshev fit of Numerical Recipes (section 6.2, ``erfcc``), Horner's rule nested as the
    ``trueskill`` package nests it."""
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


@njit
def _ts_cdf(x: float) -> float:
    return 0.5 * _ts_erfc(-x / math.sqrt(2.0))


@njit
def _ts_pdf(x: float, two: float) -> float:
    return 1.0 / math.sqrt(2.0 * math.pi) * math.exp(-(math.pow(x, two) / 2.0))


@njit
def _ts_message(ap: float, at: float, bp: float, bt: float, sign: float) -> tuple[float, float]:
    """The message of a difference (``sign`` -1) or sum (+1) factor from two cavities in natural parameters:
    variance 1/ap + 1/bp, mean at/ap + sign bt/bp (a flat cavity, precision 0, counts as variance inf, mean 0)."""
    p = 1.0 / ((1.0 / ap if ap else math.inf) + (1.0 / bp if bp else math.inf))
    return p, p * ((at / ap if ap else 0.0) + sign * (bt / bp if bp else 0.0))


@njit(nogil=True)
def trueskill_loop(
    offsets: np.ndarray,
    players: np.ndarray,
    ranks: np.ndarray,
    n_players: int,
    q: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """TrueSkill's free-for-all at its defaults (Herbrich, Minka and Graepel 2006), each player a team of one, with
    the ``trueskill`` package's schedule: the players sorted best first (stable), prior N(mu, sigma^2 + tau^2),
    performance N(s, beta^2), a chain of differences d_k = t_k - t_k+1 truncated to d > eps (or |d| <= eps for a
    shared place: every DNF shares the last rank) by moment matching (the paper's v and w), swept forward then
    backward until no truncation moves its variable by more than 1e-4 (at most ten sweeps), and the game's evidence
    taken back to each skill.  ``q`` = (mu, sigma, beta, tau, eps, k): the displayed rating is mu - k sigma.
    Returns the displayed rating before and after every entry, the final display, and the final mu and sigma.
    The system's scaled forms beyond 37.5 standard deviations (where the fitted Phi underflows) are left out: no game
    of these histories reaches them, and the check against ``rate()`` would show one that did.
    """
    mu0, sigma0, beta, tau, eps, k_display, two = q[0], q[1], q[2], q[3], q[4], q[5], q[6]
    mu_s = np.full(n_players, mu0)
    sigma_s = np.full(n_players, sigma0)
    before, after, largest = _outputs(offsets)
    order = np.empty(largest, dtype=np.int64)
    prior_p, prior_t = np.empty(largest), np.empty(largest)
    like_p, like_t = np.empty(largest), np.empty(largest)
    dn_p, dn_t = np.empty(largest), np.empty(largest)
    tv_p, tv_t = np.empty(largest), np.empty(largest)
    up_p, up_t = np.empty(largest), np.empty(largest)
    lo_p, lo_t = np.empty(largest), np.empty(largest)
    dv_p, dv_t = np.empty(largest), np.empty(largest)
    f_p, f_t = np.empty(largest), np.empty(largest)
    tr_p, tr_t = np.empty(largest), np.empty(largest)
    tied = np.empty(largest, dtype=np.bool_)
    beta2 = math.pow(beta, two)
    tau2 = math.pow(tau, two)
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        for i in range(n):
            p = players[s + i]
            before[s + i] = mu_s[p] - k_display * sigma_s[p]
        if n >= 2:
            for i in range(n):  # stable insertion sort by rank, best first
                j = i
                while j > 0 and ranks[s + order[j - 1]] > ranks[s + i]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = i
            for i in range(n):
                p = players[s + order[i]]
                p0 = sigma_s[p] ** -2.0
                t0 = p0 * mu_s[p]
                sd = math.sqrt(math.pow(math.sqrt(1.0 / p0), two) + tau2)
                pp = sd**-2.0
                prior_p[i] = pp
                prior_t[i] = pp * (t0 / p0)
                a = 1.0 / (1.0 + beta2 * pp)
                like_p[i] = a * pp
                like_t[i] = a * prior_t[i]
                dn_p[i] = 1.0 / (1.0 / like_p[i])
                dn_t[i] = dn_p[i] * (like_t[i] / like_p[i])
                tv_p[i], tv_t[i] = dn_p[i], dn_t[i]
                up_p[i] = up_t[i] = lo_p[i] = lo_t[i] = 0.0
                if i < n - 1:
                    tied[i] = ranks[s + order[i]] == ranks[s + order[i + 1]]
                    dv_p[i] = dv_t[i] = f_p[i] = f_t[i] = tr_p[i] = tr_t[i] = 0.0
            m = n - 1
            for _ in range(10):
                delta = 0.0
                for step in range(2 * m - 2 if m > 1 else 1):
                    kk = step if step < m - 1 or m == 1 else 2 * m - 2 - step  # forward 0..m-2, back m-1..1
                    # down: the difference's message from the two performance cavities
                    p_, t_ = _ts_message(
                        tv_p[kk] - lo_p[kk],
                        tv_t[kk] - lo_t[kk],
                        tv_p[kk + 1] - up_p[kk + 1],
                        tv_t[kk + 1] - up_t[kk + 1],
                        -1.0,
                    )
                    dv_p[kk] = dv_p[kk] - f_p[kk] + p_
                    dv_t[kk] = dv_t[kk] - f_t[kk] + t_
                    f_p[kk], f_t[kk] = p_, t_
                    # truncate: moment matching of the cavity
                    cp = dv_p[kk] - tr_p[kk]
                    ct = dv_t[kk] - tr_t[kk]
                    root = math.sqrt(cp)
                    x = ct / root
                    e = eps * root
                    if tied[kk]:
                        sx = abs(x)
                        lo = e - sx
                        hi = -e - sx
                        z = _ts_cdf(lo) - _ts_cdf(hi)
                        pa, pb = _ts_pdf(lo, two), _ts_pdf(hi, two)
                        if z <= 0.0:
                            v, w = (-lo if x < 0 else lo), 1.0 - 1e-15
                        else:
                            v = (pb - pa) / z
                            w = math.pow(v, two) + (lo * pa - hi * pb) / z
                            v = -v if x < 0 else v
                            w = 1.0 - 1e-15 if w == 1.0 else w
                    else:
                        xm = x - e
                        v = _ts_pdf(xm, two) / _ts_cdf(xm)
                        w = min(max(v * (v + xm), 1e-300), 1.0 - 1e-15)
                    new_p = cp / (1.0 - w)
                    new_t = (ct + root * v) / (1.0 - w)
                    old_p, old_t = dv_p[kk], dv_t[kk]
                    tr_p[kk] = new_p + tr_p[kk] - old_p
                    tr_t[kk] = new_t + tr_t[kk] - old_t
                    dv_p[kk], dv_t[kk] = new_p, new_t
                    change = abs(old_p - new_p)
                    d = 0.0 if change == math.inf else max(abs(old_t - new_t), math.sqrt(change))
                    delta = max(delta, d)
                    if m == 1:
                        break
                    if step < m - 1:  # to the next performance down the chain
                        p_, t_ = _ts_message(
                            tv_p[kk] - lo_p[kk], tv_t[kk] - lo_t[kk], dv_p[kk] - f_p[kk], dv_t[kk] - f_t[kk], -1.0
                        )
                        tv_p[kk + 1] = tv_p[kk + 1] - up_p[kk + 1] + p_
                        tv_t[kk + 1] = tv_t[kk + 1] - up_t[kk + 1] + t_
                        up_p[kk + 1], up_t[kk + 1] = p_, t_
                    else:  # to the previous performance up the chain
                        p_, t_ = _ts_message(
                            dv_p[kk] - f_p[kk],
                            dv_t[kk] - f_t[kk],
                            tv_p[kk + 1] - up_p[kk + 1],
                            tv_t[kk + 1] - up_t[kk + 1],
                            1.0,
                        )
                        tv_p[kk] = tv_p[kk] - lo_p[kk] + p_
                        tv_t[kk] = tv_t[kk] - lo_t[kk] + t_
                        lo_p[kk], lo_t[kk] = p_, t_
                if delta <= 1e-4:
                    break
            # The last messages: up from the first difference, down from the last.
            p_, t_ = _ts_message(dv_p[0] - f_p[0], dv_t[0] - f_t[0], tv_p[1] - up_p[1], tv_t[1] - up_t[1], 1.0)
            tv_p[0] = tv_p[0] - lo_p[0] + p_
            tv_t[0] = tv_t[0] - lo_t[0] + t_
            lo_p[0], lo_t[0] = p_, t_
            kk = m - 1
            p_, t_ = _ts_message(tv_p[kk] - lo_p[kk], tv_t[kk] - lo_t[kk], dv_p[kk] - f_p[kk], dv_t[kk] - f_t[kk], -1.0)
            tv_p[kk + 1] = tv_p[kk + 1] - up_p[kk + 1] + p_
            tv_t[kk + 1] = tv_t[kk + 1] - up_t[kk + 1] + t_
            up_p[kk + 1], up_t[kk + 1] = p_, t_
            for i in range(n):  # the evidence on each performance back to its skill
                cp = tv_p[i] - dn_p[i]
                ct = tv_t[i] - dn_t[i]
                gp = 1.0 / (1.0 / cp if cp else math.inf)
                gt = gp * (ct / cp if cp else 0.0)
                hp = like_p[i] + gp - like_p[i]
                ht = like_t[i] + gt - like_t[i]
                a = 1.0 / (1.0 + beta2 * hp)
                sp = prior_p[i] + a * hp
                st = prior_t[i] + a * ht
                p = players[s + order[i]]
                mu_s[p] = st / sp if sp else 0.0
                sigma_s[p] = math.sqrt(1.0 / sp)
        for i in range(n):
            p = players[s + i]
            after[s + i] = mu_s[p] - k_display * sigma_s[p]
    return before, after, mu_s - k_display * sigma_s, mu_s, sigma_s


@njit
def _subset_terms(lam: np.ndarray, m: int, above: float, own: np.ndarray) -> float:
    """A tie group's positional terms averaged over its m! orderings (Kerby 2025, section 3.2.2, the system's
    docstring): the players in play at the group's ``t``-th place are a uniform random subset of size ``m - t``,
    so each non-empty subset ``S`` weighs ``w(S) = 1 / (C(m, |S|) (lambda(S) + above))``.  Sets ``own[b]`` to
    ``sum_{S containing b} w(S)`` and returns ``sum_S w(S)`` (what each higher player's lambda is multiplied by)."""
    choose = np.empty(m + 1)
    choose[0] = 1.0
    for k in range(1, m + 1):
        choose[k] = choose[k - 1] * (m - k + 1) / k
    for b in range(m):
        own[b] = 0.0
    total = 0.0
    for mask in range(1, 1 << m):
        size = 0
        held = 0.0
        for b in range(m):
            if mask >> b & 1:
                size += 1
                held += lam[b]
        w = 1.0 / (choose[size] * (held + above))
        total += w
        for b in range(m):
            if mask >> b & 1:
                own[b] += w
    return total


@njit(nogil=True)
def plackett_luce_loop(
    offsets: np.ndarray,
    players: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    n_players: int,
    initial: float,
    eta: float,
    t_step: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Plackett-Luce at its defaults (Kerby 2025, section 3.2.2; no dummy, no floor, DNFs censored jointly):
    ``r' = r + eta g`` with, for the finishers read worst first (``lambda = e^-r``, ``Lambda_i`` the rate of the
    players at place ``i`` and above), ``g_k = -1 + lambda_k sum_{i <= k} 1 / Lambda_i``; a tie group's places
    averaged over its orderings (:func:`_subset_terms`); and the DNFs' factor ``C = P(every DNF below every
    finisher) = int Lambda e^(-Lambda y) prod_d (1 - e^(-lambda_d y)) dy`` by the trapezoid rule in ``t = log y``
    (step ``t_step``, the system's bounds), whose gradient is ``-E[lambda_d y / (e^(lambda_d y) - 1)]`` for a DNF
    and ``lambda_f (E[y] - 1 / Lambda)`` for a finisher."""
    rating = np.full(n_players, initial)
    before, after, largest = _outputs(offsets)
    order = np.empty(largest, dtype=np.int64)  # finishers, worst first (stable within a rank)
    lam = np.empty(largest)
    grad = np.empty(largest)
    own = np.empty(largest)
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        for i in range(n):
            before[s + i] = rating[players[s + i]]
        if n >= 2:
            f = 0
            for i in range(n):
                grad[i] = 0.0
                if not dnf[s + i]:
                    j = f
                    while j > 0 and ranks[s + order[j - 1]] < ranks[s + i]:  # insertion: worse ranks first
                        order[j] = order[j - 1]
                        j -= 1
                    order[j] = i
                    f += 1
            if f > 0:
                top = -math.inf
                for a in range(f):
                    top = max(top, before[s + order[a]])
                everyone = 0.0
                for a in range(f):
                    lam[a] = math.exp(-(before[s + order[a]] - top))
                    everyone += lam[a]
                running = 0.0  # sum of 1 / Lambda_i over the places below
                done = 0.0  # lambda of the groups below
                a = 0
                while a < f:
                    b = a
                    while b + 1 < f and ranks[s + order[b + 1]] == ranks[s + order[a]]:
                        b += 1
                    m = b - a + 1
                    held = 0.0
                    for c in range(a, b + 1):
                        held += lam[c]
                    above = everyone - done - held
                    if m == 1:
                        running += 1.0 / (held + above)
                        grad[order[a]] = -1.0 + lam[a] * running
                    else:
                        factor = _subset_terms(lam[a : b + 1], m, above, own)
                        for c in range(m):
                            grad[order[a + c]] = -1.0 + lam[a + c] * (running + own[c])
                        running += factor
                    done += held
                    a = b + 1
                if f < n:  # the DNFs' factor, on the scale centred at the mean rating
                    centre = 0.0
                    for i in range(n):
                        centre += before[s + i]
                    centre /= n
                    big = -math.inf  # log Lambda
                    for i in range(n):
                        if not dnf[s + i]:
                            big = max(big, -(before[s + i] - centre))
                    acc = 0.0
                    for i in range(n):
                        if not dnf[s + i]:
                            acc += math.exp(-(before[s + i] - centre) - big)
                    log_big = big + math.log(acc)
                    d = n - f
                    lowest = -log_big
                    for i in range(n):
                        if dnf[s + i]:
                            lowest = min(lowest, before[s + i] - centre)  # -log lambda_d
                    t_hi = -log_big + math.log(2.0 * (d + 1) + 60.0)
                    t_lo = lowest - 50.0 / (d + 1) - 2.0
                    nodes = int(math.ceil((t_hi + t_step - t_lo) / t_step))
                    w = np.empty(nodes)
                    peak = -math.inf
                    for k in range(nodes):
                        t = t_lo + k * t_step
                        value = log_big + t - math.exp(log_big + t)
                        for i in range(n):
                            if dnf[s + i]:
                                value += math.log(-math.expm1(-math.exp(-(before[s + i] - centre) + t)))
                        w[k] = value
                        peak = max(peak, value)
                    mass = 0.0
                    for k in range(nodes):
                        mass += math.exp(w[k] - peak)
                    log_mass = peak + math.log(mass)
                    for k in range(nodes):
                        w[k] = math.exp(w[k] - log_mass)  # the normalised weights
                    for i in range(n):
                        log_lam = -(before[s + i] - centre)
                        total = 0.0
                        for k in range(nodes):
                            z = math.exp(log_lam + t_lo + k * t_step)
                            if dnf[s + i]:
                                total += (1.0 - 0.5 * z if z < 1e-8 else z / math.expm1(z)) * w[k]
                            else:
                                total += z * w[k]
                        if dnf[s + i]:
                            grad[i] -= total
                        else:
                            grad[i] += total - math.exp(log_lam - log_big)
            for i in range(n):
                rating[players[s + i]] = before[s + i] + eta * grad[i]
        for i in range(n):
            after[s + i] = rating[players[s + i]]
    return before, after, rating


@njit
def _newton_step(x: float, value: float, slope: float, lo: float, hi: float) -> tuple[float, float, float, bool]:
    """One step toward the zero of a decreasing function whose value and slope at ``x`` are given, inside the sure
    bracket ``[lo, hi]``: the bracket shrinks to ``x`` on the side it lies, then Newton where it stays inside, else
    bisection.  Returns the next point, the bracket, and whether the zero is found (an exact zero, a Newton step
    or a bracket of 1e-11 at most: then the point returned is the answer)."""
    if value == 0.0:
        return x, lo, hi, True
    if value > 0.0:
        lo = x
    else:
        hi = x
    newton = x - value / slope
    if abs(newton - x) <= 1e-11:
        return newton, lo, hi, True
    x = newton if lo < newton < hi else 0.5 * (lo + hi)
    return x, lo, hi, hi - lo <= 1e-11


@njit
def _mmr_performance(mu: np.ndarray, inv_s: np.ndarray, ranks: np.ndarray, s: int, n: int, i: int) -> float:
    """Player ``i``'s performance in Elo-MMR(rho) (Ebtekar and Liu 2021, Theorem 3.2, logistic performances of
    scale ``s_j = sqrt(3) delta_j / pi``): the zero of the decreasing
    ``2 Q(p) = sum_{j worse} 1/s_j - sum_{j better} 1/s_j - sum_j t_j / s_j - sum_{j tied} t_j / s_j``,
    ``t_j = tanh((p - mu_j) / (2 s_j))`` (a tie a win plus a loss, ``i`` tied with itself), by Newton kept inside a
    sure bracket (bisection where Newton leaves it): beyond ``K = ln(8 n s_max / s_min) / 2 + 1`` doubled scales
    from every mean, the player's own tie term outweighs the others' tails."""
    lo, hi = math.inf, -math.inf
    big, small = 0.0, math.inf
    for j in range(n):
        big = max(big, 1.0 / inv_s[j])
        small = min(small, 1.0 / inv_s[j])
    k = 0.5 * math.log(8.0 * n * big / small) + 1.0
    for j in range(n):
        lo = min(lo, mu[j] - 2.0 * k / inv_s[j])
        hi = max(hi, mu[j] + 2.0 * k / inv_s[j])
    mine = ranks[s + i]
    x = min(max(mu[i], lo), hi)
    for _ in range(200):
        value = 0.0
        slope = 0.0
        for j in range(n):
            t = math.tanh((x - mu[j]) * 0.5 * inv_s[j])
            twice = 2.0 if ranks[s + j] == mine else 1.0
            if ranks[s + j] > mine:
                value += inv_s[j]
            elif ranks[s + j] < mine:
                value -= inv_s[j]
            value -= twice * t * inv_s[j]
            slope -= twice * (1.0 - t * t) * 0.5 * inv_s[j] * inv_s[j]
        x, lo, hi, done = _newton_step(x, value, slope, lo, hi)
        if done:
            break
    return x


@njit
def _mmr_average(p0: float, w0: float, hp: np.ndarray, hw: np.ndarray, terms: int, beta: float, x: float) -> float:
    """Elo-MMR(rho)'s rating (equation 10): the zero of the increasing
    ``L'(s) = w0 (s - p0) + sum_k w_k beta (pi / sqrt 3) tanh(pi (s - p_k) / (beta sqrt 12))``, by Newton from
    ``x`` inside the bracket of the centres widened by 1 (every term has one sign beyond them)."""
    lo, hi = p0, p0
    for k in range(terms):
        lo = min(lo, hp[k])
        hi = max(hi, hp[k])
    lo -= 1.0
    hi += 1.0
    scale = beta * math.pi / math.sqrt(3.0)
    arg = math.pi / (beta * math.sqrt(12.0))
    x = min(max(x, lo), hi)
    for _ in range(200):
        value = w0 * (x - p0)
        slope = w0
        for k in range(terms):
            t = math.tanh((x - hp[k]) * arg)
            value += hw[k] * scale * t
            slope += hw[k] * scale * (1.0 - t * t) * arg
        x, lo, hi, done = _newton_step(x, -value, -slope, lo, hi)  # -L' decreases
        if done:
            break
    return x


@njit(nogil=True)
def elo_mmr_loop(
    offsets: np.ndarray, players: np.ndarray, ranks: np.ndarray, n_players: int, q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Elo-MMR(rho) at its defaults (Ebtekar and Liu 2021), every player alone (DNFs share the last rank).

    ``q`` = (mu, sigma, beta, gamma^2, rho, max_history, fold share).  Per game, for each participant: the
    pseudodiffusion of Algorithm 2 (``kappa = sigma^2 / (sigma^2 + gamma^2)``; the Gaussian term keeps
    ``kappa^rho`` of its weight, the rest of the total weight moves onto it at the current rating, then the Gaussian
    weight is multiplied by ``kappa`` and every logistic term's by ``kappa^(1 + rho)``); ``sigma^2 += gamma^2``;
    the performance from the whole field (:func:`_mmr_performance`, ``delta^2 = sigma^2 + beta^2``); the
    performance added as a logistic term of weight ``1 / beta^2`` after the oldest terms are folded into the
    Gaussian one while the player has ``max_history`` or the oldest holds less than the fold share of the total
    (section 5.3, the system's bound by weight); the rating the zero of equation (10) (:func:`_mmr_average`); and
    ``1 / sigma^2 += 1 / beta^2`` (equation 8).  Returns mu before and after every entry, and the final mu (twice:
    the display at ``display_k = 0``) and sigma."""
    mu0, sigma0, beta, gamma2, rho, limit, fold = q[0], q[1], q[2], q[3], q[4], int(q[5]), q[6]
    mu_s = np.full(n_players, mu0)
    sigma_s = np.full(n_players, sigma0)
    p0 = np.full(n_players, mu0)
    w0 = np.full(n_players, 1.0 / (sigma0 * sigma0))
    hp = np.zeros((n_players, limit))
    hw = np.zeros((n_players, limit))
    hl = np.zeros(n_players, dtype=np.int64)
    before, after, largest = _outputs(offsets)
    mu = np.empty(largest)
    var = np.empty(largest)
    inv_s = np.empty(largest)
    perf = np.empty(largest)
    beta2 = beta * beta
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        for i in range(n):
            before[s + i] = mu_s[players[s + i]]
        if n >= 2:
            for i in range(n):
                p = players[s + i]
                sig2 = sigma_s[p] * sigma_s[p]
                kappa = sig2 / (sig2 + gamma2)
                keep = kappa**rho
                total = w0[p]
                for k in range(hl[p]):
                    total += hw[p, k]
                w_gauss = keep * w0[p]
                w_moved = (1.0 - keep) * total
                p0[p] = (w_gauss * p0[p] + w_moved * mu_s[p]) / (w_gauss + w_moved)
                w0[p] = kappa * (w_gauss + w_moved)
                for k in range(hl[p]):
                    hw[p, k] *= kappa * keep
                var[i] = sig2 + gamma2
                mu[i] = mu_s[p]
                inv_s[i] = math.pi / (math.sqrt(3.0) * math.sqrt(var[i] + beta2))
            for i in range(n):
                perf[i] = _mmr_performance(mu, inv_s, ranks, s, n, i)
            for i in range(n):
                p = players[s + i]
                total = w0[p]
                for k in range(hl[p]):
                    total += hw[p, k]
                while hl[p] >= limit or (hl[p] > 0 and hw[p, 0] < fold * total):
                    p0[p] = (w0[p] * p0[p] + hw[p, 0] * hp[p, 0]) / (w0[p] + hw[p, 0])
                    w0[p] += hw[p, 0]
                    for k in range(hl[p] - 1):
                        hp[p, k] = hp[p, k + 1]
                        hw[p, k] = hw[p, k + 1]
                    hl[p] -= 1
                hp[p, hl[p]] = perf[i]
                hw[p, hl[p]] = 1.0 / beta2
                hl[p] += 1
                mu_s[p] = _mmr_average(p0[p], w0[p], hp[p], hw[p], hl[p], beta, mu_s[p])
                sigma_s[p] = 1.0 / math.sqrt(1.0 / var[i] + 1.0 / beta2)
        for i in range(n):
            after[s + i] = mu_s[players[s + i]]
    return before, after, mu_s.copy(), mu_s, sigma_s


_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@njit
def _log_phi(z: float) -> float:
    """log Phi(z): by erfc down to z = -37 (erfc is accurate to the last bits in its tail, and Phi(-37) is about
    1e-300), below by the asymptotic series of the Mills ratio (Abramowitz and Stegun 26.2.12)."""
    if z > -37.0:
        return math.log(0.5 * math.erfc(-z / math.sqrt(2.0)))
    x = 1.0 / (z * z)
    series = 1.0 - x * (1.0 - 3.0 * x * (1.0 - 5.0 * x * (1.0 - 7.0 * x)))
    return -0.5 * z * z - _LOG_SQRT_2PI - math.log(-z) + math.log(series)


@njit
def _cumulate(v: np.ndarray, step: float, out: np.ndarray, backward: bool, pad: np.ndarray) -> None:
    """``out_j = int_{-inf}^{x_j} v`` (or ``int_{x_j}^{inf}``, ``backward``) on the grid, ``v`` zero beyond it:
    the running sum corrected by the Euler-Maclaurin formula through centred differences, five each side
    (``h (S_j - v_j / 2 - sum_k w_k (v_{j+k} - v_{j-k}))``, ``w_k`` solving the formula's first five terms; the
    system's docstring).  ``pad`` is work space of ``len(v) + 10``."""
    g = len(v)
    for j in range(5):
        pad[j] = 0.0
        pad[g + 5 + j] = 0.0
    for j in range(g):
        pad[j + 5] = v[g - 1 - j] if backward else v[j]
    total = 0.0
    for j in range(g):
        c = j + 5
        total += pad[c]
        value = total - 0.5 * pad[c]
        for k in range(1, 6):
            value -= _EM[k - 1] * (pad[c + k] - pad[c - k])
        out[g - 1 - j if backward else j] = value * step


_EM = np.array([11639731 / 159667200, -299093 / 13305600, 203257 / 35481600, -230371 / 239500800, 14797 / 191600640])


@njit
def _scale_row(row: np.ndarray) -> float:
    """Divide ``row`` by its largest magnitude in place; the logarithm of that magnitude."""
    top = 0.0
    for j in range(len(row)):
        top = max(top, abs(row[j]))
    for j in range(len(row)):
        row[j] /= top
    return math.log(top)


@njit
def _thurstonian_grid(
    r: np.ndarray, chain: np.ndarray, m: int, bottom: np.ndarray, nb: int
) -> tuple[float, float, int]:
    """``(lo, step)`` of the grid for ``max X[bottom] < X[chain[0]] < ... < X[chain[m-1]]``, the rule of the system's
    docstring: the projection of the ratings onto the order (pool-adjacent-violators along the chain, then each
    bottom player above the lowest block pooled into it, highest first), widened by 6 on each side; the step
    ``0.7 / (n^(2/3) + 1.2 max C_k + 0.5 max(n - 30, 0))``, ``C_k`` the sums of (block value - rating) from the top
    of each block down; never wider than the cost bound ``(hi - lo) n / 10^6`` or the crowd's limit asks."""
    value = np.empty(m)
    size = np.empty(m)
    count = np.empty(m, dtype=np.int64)
    blocks = 0
    for k in range(m):
        value[blocks], size[blocks], count[blocks] = r[chain[k]], 1.0, 1
        blocks += 1
        while blocks > 1 and value[blocks - 2] > value[blocks - 1]:
            merged = value[blocks - 2] * size[blocks - 2] + value[blocks - 1] * size[blocks - 1]
            size[blocks - 2] += size[blocks - 1]
            count[blocks - 2] += count[blocks - 1]
            value[blocks - 2] = merged / size[blocks - 2]
            blocks -= 1
    high_first = np.sort(np.array([r[bottom[d]] for d in range(nb)]))[::-1]
    level = high_first[0]
    for d in range(nb):
        if high_first[d] <= value[0]:
            break
        value[0] = (value[0] * size[0] + high_first[d]) / (size[0] + 1.0)
        size[0] += 1.0
        level = value[0]
        while blocks > 1 and value[0] > value[1]:
            value[0] = (value[0] * size[0] + value[1] * size[1]) / (size[0] + size[1])
            size[0] += size[1]
            count[0] += count[1]
            for b in range(1, blocks - 1):
                value[b], size[b], count[b] = value[b + 1], size[b + 1], count[b + 1]
            blocks -= 1
            level = value[0]
    pressure = 0.0
    k = m
    for block in range(blocks - 1, -1, -1):
        total = 0.0
        for _ in range(count[block]):
            k -= 1
            total += value[block] - r[chain[k]]
            pressure = max(pressure, total)
    lo = min(level, value[0]) - 6.0
    hi = value[blocks - 1] + 6.0
    n = m + nb
    crowd = 0.5 * max(n - 30, 0)
    step = 0.7 / (n ** (2.0 / 3.0) + 1.2 * pressure + crowd)
    step = max(step, min((hi - lo) * n / 1e6, 0.7 / crowd if crowd > 0.0 else math.inf))
    return lo, step, int(math.ceil((hi - lo) / step)) + 1


@njit
def _dot3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    total = 0.0
    for j in range(len(a)):
        total += a[j] * b[j] * c[j]
    return total


@njit
def _thurstonian_gradient(
    r: np.ndarray, chain: np.ndarray, m: int, bottom: np.ndarray, nb: int, grad: np.ndarray, rows: np.ndarray
) -> bool:
    """Add to ``grad`` the gradient of log P(max X[bottom] < X[chain[0]] < ... < X[chain[m-1]]) for unit normal
    performances about ``r`` (Kerby 2025, section 3.2.3; the system's docstring): forward messages ``f_k`` (the
    bottom's distribution function, then ``f_k = int f_{k-1} u_k``), backward ``b_{k-1} = int_x^inf u_k b_k``,
    each row held divided by its largest value with the logarithm beside it, and ``d log L / d r`` from the
    coincidences of neighbours ``c_k = int f_{k-1} u_k u_{k+1} b_{k+1} / L`` (a bottom player's with the first of
    the chain through its density times the others' distribution functions).  ``rows`` is work space of at least
    ``3 m + 2 nb + 3`` rows of the grid's points + 10 (:func:`_thurstonian_rows`).  False where the scaled rows lose
    the likelihood's mass (the system then computes in logarithms: not this loop)."""
    lo, step, points = _thurstonian_grid(r, chain, m, bottom, nb)
    u = rows[0:m, :points]
    t = rows[m : 2 * m, :points]
    b = rows[2 * m : 3 * m, :points]
    sides = rows[3 * m : 3 * m + nb, :points]
    logs = rows[3 * m + nb : 3 * m + 2 * nb, :points]
    f = rows[3 * m + 2 * nb, :points]
    work = rows[3 * m + 2 * nb + 1, :points]
    pad = rows[3 * m + 2 * nb + 2]
    u_scale = np.empty(m)
    for k in range(m):
        top = -math.inf
        for j in range(points):
            z = lo + step * j - r[chain[k]]
            u[k, j] = -0.5 * z * z - _LOG_SQRT_2PI
            top = max(top, u[k, j])
        for j in range(points):
            u[k, j] = math.exp(u[k, j] - top)
        u_scale[k] = top
    side_scale = np.empty(nb)
    if nb == 1:  # the bottom's distribution function: the exact Phi at lo plus the integral of its density
        top = -math.inf
        for j in range(points):
            z = lo + step * j - r[bottom[0]]
            sides[0, j] = -0.5 * z * z - _LOG_SQRT_2PI
            top = max(top, sides[0, j])
        for j in range(points):
            sides[0, j] = math.exp(sides[0, j] - top)
        side_scale[0] = top
        _cumulate(sides[0], step, work, False, pad)
        start = _log_phi(lo - r[bottom[0]])
        f_scale = max(top + math.log(work.max()), start)
        for j in range(points):
            f[j] = work[j] * math.exp(top - f_scale) + math.exp(start - f_scale)
    else:  # several DNFs: the product of their Phi, and each one's density over its own Phi
        top = -math.inf
        for j in range(points):
            total = 0.0
            for d in range(nb):
                logs[d, j] = _log_phi(lo + step * j - r[bottom[d]])
                total += logs[d, j]
            f[j] = total
            top = max(top, total)
        for j in range(points):
            f[j] = math.exp(f[j] - top)
        f_scale = top
        for d in range(nb):
            side_scale[d] = f_scale
            for j in range(points):
                z = lo + step * j - r[bottom[d]]
                sides[d, j] = math.exp(-0.5 * z * z - _LOG_SQRT_2PI - logs[d, j]) * f[j]
    t_scale = np.empty(m)
    for k in range(m):
        for j in range(points):
            t[k, j] = f[j] * u[k, j]
        t_scale[k] = f_scale + u_scale[k]
        if k < m - 1:
            _cumulate(t[k], step, f, False, pad)
            f_scale = t_scale[k] + _scale_row(f)
    last = step * t[m - 1].sum()
    if not last > 0.0:
        return False
    log_lik = t_scale[m - 1] + math.log(last)
    b_scale = np.empty(m)
    b[m - 1] = 1.0
    b_scale[m - 1] = 0.0
    for k in range(m - 1, 0, -1):
        for j in range(points):
            work[j] = u[k, j] * b[k, j]
        _cumulate(work, step, b[k - 1], True, pad)
        b_scale[k - 1] = b_scale[k] + u_scale[k] + _scale_row(b[k - 1])
    good = True
    for k in range(m - 1):
        stage = 0.0
        for j in range(points):
            stage += t[k, j] * b[k, j]
        stage *= step
        good &= stage > 0.0 and abs(math.log(stage) + t_scale[k] + b_scale[k] - log_lik) <= 1e-9
    for k in range(m - 1):  # chain[k] and chain[k + 1] coinciding
        total = step * _dot3(t[k], u[k + 1], b[k + 1])
        good &= total >= 1e-200 or total == 0.0
        c = 0.0 if total == 0.0 else total * math.exp(t_scale[k] + u_scale[k + 1] + b_scale[k + 1] - log_lik)
        grad[chain[k]] -= c
        grad[chain[k + 1]] += c
    for d in range(nb):  # a bottom player and chain[0]
        total = step * _dot3(sides[d], u[0], b[0])
        good &= total >= 1e-200 or total == 0.0
        c = 0.0 if total == 0.0 else total * math.exp(side_scale[d] + u_scale[0] + b_scale[0] - log_lik)
        grad[bottom[d]] -= c
        grad[chain[0]] += c
    return good


@njit
def _thurstonian_rows(rows: np.ndarray, n: int, points: int) -> np.ndarray:
    """Work space of :func:`_thurstonian_gradient` for a game of ``n`` players on ``points`` points: ``rows`` if it
    is large enough, else a larger one (kept by the caller)."""
    if rows.shape[0] >= 3 * n + 3 and rows.shape[1] >= points + 10:
        return rows
    return np.empty((max(rows.shape[0], 3 * n + 3), max(rows.shape[1], 2 * points + 10)))


@njit(nogil=True)
def thurstonian_loop(
    offsets: np.ndarray,
    players: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    n_players: int,
    initial: float,
    eta: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Thurstonian at its defaults (Kerby 2025, section 3.2.3; no dummy, no floor), for games without tied
    finishers: ``r' = r + eta d log L / d r`` with ``L = P(max of the DNFs < last finisher < ... < winner)`` (no
    DNF: the last finisher is the bottom), computed on the grid chain of :func:`_thurstonian_gradient`; two
    players without a DNF by the closed form ``P = Phi((r_w - r_l) / sqrt 2)``.  Returns the ratings before and after
    every entry, the final ratings, and the number of games this loop does not compute (tied finishers, or rows
    the scaled chain cannot hold): 0 for its figures to count."""
    rating = np.full(n_players, initial)
    before, after, largest = _outputs(offsets)
    chain = np.empty(largest, dtype=np.int64)
    bottom = np.empty(largest, dtype=np.int64)
    grad = np.empty(largest)
    rows = np.empty((3 * largest + 3, 256))
    left_out = 0
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        for i in range(n):
            before[s + i] = rating[players[s + i]]
        if n >= 2:
            m = 0
            nb = 0
            for i in range(n):
                grad[i] = 0.0
                if dnf[s + i]:
                    bottom[nb] = i
                    nb += 1
                    continue
                j = m
                while j > 0 and ranks[s + chain[j - 1]] < ranks[s + i]:  # worst first
                    chain[j] = chain[j - 1]
                    j -= 1
                chain[j] = i
                m += 1
            tied = False
            for k in range(m - 1):
                tied |= ranks[s + chain[k]] == ranks[s + chain[k + 1]]
            if tied:
                left_out += 1
            elif m > 0:
                r = before[s : s + n]
                if nb == 0 and n == 2:
                    d = (r[chain[1]] - r[chain[0]]) / math.sqrt(2.0)
                    c = math.exp(-0.5 * d * d - _LOG_SQRT_2PI - _log_phi(d)) / math.sqrt(2.0)
                    grad[chain[1]] = c
                    grad[chain[0]] = -c
                elif nb == 0:
                    bottom[0] = chain[0]
                    rows = _thurstonian_rows(rows, n, _thurstonian_grid(r, chain[1:m], m - 1, bottom, 1)[2])
                    if not _thurstonian_gradient(r, chain[1:m], m - 1, bottom, 1, grad, rows):
                        left_out += 1
                else:
                    rows = _thurstonian_rows(rows, n, _thurstonian_grid(r, chain, m, bottom, nb)[2])
                    if not _thurstonian_gradient(r, chain, m, bottom, nb, grad, rows):
                        left_out += 1
                for i in range(n):
                    rating[players[s + i]] = before[s + i] + eta * grad[i]
        for i in range(n):
            after[s + i] = rating[players[s + i]]
    return before, after, rating, left_out


def best_cpu(work: Callable[[], object], repeat: int) -> float:
    work()  # untimed: loads, compiles, warms
    best = math.inf
    for _ in range(repeat):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def loop_of(name: str, system: RatingSystem, history: GameHistory) -> Callable[[], tuple[np.ndarray, ...]]:
    """The plain loop of system ``name`` over ``history``: a call returns ``(before, after, final, ...)`` (Glicko-2
    also its final deviation, volatility and points)."""
    p: Any = system.params
    offsets = np.asarray(history.offsets, dtype=np.int64)
    players, ranks, dnf = history.flat_player, history.flat_rank, history.flat_dnf
    n = history.n_players
    if name == "multielo":
        return lambda: multielo_loop(offsets, players, ranks, n, p.initial, p.k, p.d)
    if name == "pairwise-elo":
        return lambda: pairwise_loop(offsets, players, ranks, dnf, n, p.initial, p.eta)
    if name == "glicko2":
        days = Replay.of(history, ()).days  # day numbers as the replay reads them (the histories here are dated)
        q = np.array(
            [
                p.tau,
                p.initial_rating,
                p.initial_deviation,
                p.initial_volatility,
                p.min_rating,
                p.max_rating,
                p.min_deviation,
                p.min_volatility,
                p.max_volatility,
                p.period_days,
            ]
        )
        return lambda: glicko2_loop(offsets, players, ranks, dnf, days, n, q)
    if name == "trueskill":
        q = np.array([p.mu, p.sigma, p.beta, p.tau, system.margin, p.display_k, 2.0])  # type: ignore[attr-defined]
        return lambda: trueskill_loop(offsets, players, ranks, n, q)
    if name == "plackett-luce":
        return lambda: plackett_luce_loop(offsets, players, ranks, dnf, n, p.initial, p.eta, T_STEP)
    if name == "thurstonian":
        return lambda: thurstonian_loop(offsets, players, ranks, dnf, n, p.initial, p.eta)
    if name == "elo-mmr":
        q = np.array([p.mu, p.sigma, p.beta_game, p.gamma**2, p.rho, p.max_history, FOLD_SHARE])
        return lambda: elo_mmr_loop(offsets, players, ranks, n, q)
    raise SystemExit(f"no loop for {name}")


def worst_difference(name: str, run: Any, values: tuple[np.ndarray, ...]) -> float:
    """The largest relative difference (to 1 where a value is below 1) between the loop's values and ``run``'s."""
    pairs = [(values[0], run.before), (values[1], run.after), (values[2], run.final)]
    if name in ("trueskill", "elo-mmr"):
        pairs += [(values[3], run.final_extras["mu"]), (values[4], run.final_extras["sigma"])]
    if name == "glicko2":
        pairs += [(values[3], run.final_extras["sigma"]), (values[4], run.final_extras["volatility"])]
        pairs += [(values[5], run.final_extras["points"])]
    return max(float(np.max(np.abs(x - y) / np.maximum(np.abs(y), 1.0))) for x, y in pairs)


def measure(label: str, history: GameHistory, name: str, repeat: int) -> None:
    system = create(name)
    loop = loop_of(name, system, history)

    def kernel() -> None:
        system._replay(system.initial_state(history.n_players), Replay.of(history, system.extra_series))

    values = loop()
    if name == "thurstonian" and values[3]:
        raise SystemExit(f"{name} on {label}: the loop leaves out {values[3]} games (tied finishers)")
    worst = worst_difference(name, system.rate(history), values)
    if not worst <= 1e-12:
        raise SystemExit(f"{name} on {label}: the loop differs from rate() by {worst:.3g} (relative)")
    t_rate = best_cpu(lambda: system.rate(history), repeat)
    t_kernel = best_cpu(kernel, repeat)
    t_loop = best_cpu(loop, repeat)
    print(
        f"{name} on {label}: {history.n_games:,} games, {int(history.offsets[-1]):,} results; loop equal to rate() "
        f"within {worst:.1e}; CPU ms: rate() {t_rate * 1e3:.2f}, kernel {t_kernel * 1e3:.2f}, loop "
        f"{t_loop * 1e3:.2f}; rate()/loop {t_rate / t_loop:.2f}x, kernel/loop {t_kernel / t_loop:.2f}x",
        flush=True,
    )


SYSTEMS = ("multielo", "pairwise-elo", "glicko2", "trueskill", "plackett-luce", "elo-mmr", "thurstonian")
#: The systems with a kernel and no loop here: only ``rate()`` against their kernel alone is printed.
WITHOUT_LOOPS: tuple[str, ...] = ()


def measure_overhead(label: str, history: GameHistory, name: str, repeat: int) -> None:
    """``rate()`` against the kernel alone (what the public call adds around it), for a system with no loop here."""
    system = create(name)

    def kernel() -> None:
        system._replay(system.initial_state(history.n_players), Replay.of(history, system.extra_series))

    t_rate = best_cpu(lambda: system.rate(history), repeat)
    t_kernel = best_cpu(kernel, repeat)
    print(
        f"{name} on {label}: CPU ms: rate() {t_rate * 1e3:.2f}, kernel {t_kernel * 1e3:.2f}; rate()/kernel "
        f"{t_rate / t_kernel:.2f}x (no loop here)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS + WITHOUT_LOOPS)
    args = parser.parse_args()
    histories = {
        "L (20,000 games)": seeded_history(20_000, 500, 4, 10, tie_rate=0.1, seed=3),
        "racing sample": load_sample("racing"),
    }
    untied = {  # Thurstonian's loop computes no tie (the system averages a tie group over its orderings)
        "L without ties (20,000 games)": seeded_history(20_000, 500, 4, 10, tie_rate=0.0, seed=3),
        "racing sample": histories["racing sample"],
    }
    for name in args.systems:
        for label, history in (untied if name == "thurstonian" else histories).items():
            if name in WITHOUT_LOOPS:
                measure_overhead(label, history, name, args.repeat)
            else:
                measure(label, history, name, args.repeat)


if __name__ == "__main__":
    main()
