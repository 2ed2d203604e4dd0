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
  Points, which ``rate()`` keeps as a series at the default display too).

Each must give ``rate()``'s displayed ratings (and, for Glicko-2, its deviation, volatility and Rank Points series)
to 1e-12 relative (checked here before anything is timed).  Then, on a seeded 20,000-game history
(benchmarks/compare.py's L: 500 players, games of 4-10, 10% with a tie) and the bundled racing sample, it prints the
CPU time of

- ``rate()``: the whole public call (building the replay, checkpoints, the kernel, the run);
- the kernel alone (``_replay`` over the whole history into a fresh state);
- the loop (its arrays allocated inside the timing);

each the best of ``--repeat`` after an untimed call, and ``rate()`` / loop and kernel / loop.  Run from the
repository root::

    .venv/bin/python benchmarks/loops.py
    .venv/bin/python benchmarks/loops.py --repeat 20 --systems glicko2
    .venv/bin/python benchmarks/loops.py --systems trueskill elo-mmr  # rate() against the kernel alone only

Nothing is asserted about speed: on a shared machine the figures are for comparing within one run.
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
from ratings.systems.glicko2 import GLICKO_SCALE  # noqa: E402


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
    entries = offsets[-1]
    before = np.empty(entries)
    after = np.empty(entries)
    largest = 0
    for g in range(len(offsets) - 1):
        largest = max(largest, offsets[g + 1] - offsets[g])
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
    entries = offsets[-1]
    before = np.empty(entries)
    after = np.empty(entries)
    largest = 0
    for g in range(len(offsets) - 1):
        largest = max(largest, offsets[g + 1] - offsets[g])
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
                if ranks[s + i] < ranks[s + j]:
                    score = 1.0
                elif ranks[s + i] == ranks[s + j]:
                    score = 0.5
                else:
                    score = 0.0
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
    entries = offsets[-1]
    before = np.empty(entries)
    after = np.empty(entries)
    largest = 0
    for g in range(len(offsets) - 1):
        largest = max(largest, offsets[g + 1] - offsets[g])
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
                    if ranks[s + i] < ranks[s + j]:
                        score = 1.0
                    elif ranks[s + i] == ranks[s + j]:
                        score = 0.5
                    else:
                        score = 0.0
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
    raise SystemExit(f"no loop for {name}")


def worst_difference(name: str, run: Any, values: tuple[np.ndarray, ...]) -> float:
    """The largest relative difference (to 1 where a value is below 1) between the loop's values and ``run``'s."""
    pairs = [(values[0], run.before), (values[1], run.after), (values[2], run.final)]
    if name == "glicko2":
        pairs += [(values[3], run.final_extras["sigma"]), (values[4], run.final_extras["volatility"])]
        pairs += [(values[5], run.final_extras["points"])]
    return max(float(np.max(np.abs(x - y) / np.maximum(np.abs(y), 1.0))) for x, y in pairs)


def measure(label: str, history: GameHistory, name: str, repeat: int) -> None:
    system = create(name)
    loop = loop_of(name, system, history)

    def kernel() -> None:
        system._replay(system.initial_state(history.n_players), Replay.of(history, system.extra_series))

    worst = worst_difference(name, system.rate(history), loop())
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


SYSTEMS = ("multielo", "pairwise-elo", "glicko2")
#: The systems with a kernel and no loop here: only ``rate()`` against their kernel alone is printed.
WITHOUT_LOOPS = ("plackett-luce", "thurstonian", "trueskill", "elo-mmr")


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
    for name in args.systems:
        for label, history in histories.items():
            if name in WITHOUT_LOOPS:
                measure_overhead(label, history, name, args.repeat)
            else:
                measure(label, history, name, args.repeat)


if __name__ == "__main__":
    main()
