"""Plain compiled reference loops (issue 28 item 3): how close ``rate()`` comes to a hand-written numba loop of the
same maths.

The loop below is multiplayer Elo at its defaults (Cunningham 2021, eqs. 4, 6 and 7: linear score function, no
dummy, no floor, tied players sharing the mean of their positions' scores, DNFs tied below the finishers): one
function over the history's flat arrays, nothing else.  It must give ``rate()``'s ratings to 1e-13 (checked here
before anything is timed).  Then, on a seeded 20,000-game history (benchmarks/compare.py's L: 500 players, games
of 4-10, 10% with a tie) and the bundled racing sample, it prints the CPU time of

- ``rate()``: the whole public call (building the replay, checkpoints, the kernel, the run);
- the kernel alone (``_replay`` over the whole history into a fresh state);
- the loop (its arrays allocated inside the timing);

each the best of ``--repeat`` after an untimed call, and ``rate()`` / loop and kernel / loop.  Run from the
repository root::

    .venv/bin/python benchmarks/loops.py
    .venv/bin/python benchmarks/loops.py --repeat 20

Nothing is asserted about speed: on a shared machine the figures are for comparing within one run.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from compare import seeded_history  # noqa: E402

from ratings import GameHistory, create  # noqa: E402
from ratings.base import Replay  # noqa: E402
from ratings.samples import load_sample  # noqa: E402


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


def best_cpu(work: Callable[[], object], repeat: int) -> float:
    work()  # untimed: loads, compiles, warms
    best = math.inf
    for _ in range(repeat):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def measure(label: str, history: GameHistory, repeat: int) -> None:
    system = create("multielo")
    p = system.params
    offsets = np.asarray(history.offsets, dtype=np.int64)
    players, ranks = history.flat_player, history.flat_rank

    def loop() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return multielo_loop(offsets, players, ranks, history.n_players, p.initial, p.k, p.d)

    def kernel() -> None:
        system._replay(system.initial_state(history.n_players), Replay.of(history, system.extra_series))

    run = system.rate(history)
    before, after, final = loop()
    worst = max(
        float(np.max(np.abs(x - y) / np.maximum(np.abs(y), 1.0)))
        for x, y in ((before, run.before), (after, run.after), (final, run.final))
    )
    if worst > 1e-13:
        raise SystemExit(f"{label}: the loop differs from rate() by {worst:.3g} (relative): not the same maths")
    t_rate = best_cpu(lambda: system.rate(history), repeat)
    t_kernel = best_cpu(kernel, repeat)
    t_loop = best_cpu(loop, repeat)
    print(
        f"{label}: {history.n_games:,} games, {int(history.offsets[-1]):,} results; loop equal to rate() within "
        f"{worst:.1e}; CPU ms: rate() {t_rate * 1e3:.2f}, kernel {t_kernel * 1e3:.2f}, loop {t_loop * 1e3:.2f}; "
        f"rate()/loop {t_rate / t_loop:.2f}x, kernel/loop {t_kernel / t_loop:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    measure("L (20,000 games)", seeded_history(20_000, 500, 4, 10, tie_rate=0.1, seed=3), args.repeat)
    measure("racing sample", load_sample("racing"), args.repeat)


if __name__ == "__main__":
    main()
