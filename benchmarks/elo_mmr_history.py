"""Elo-MMR's replay time against the history's length: the slope of log(CPU) on log(games).

The histories are compare.py's growth histories (games of 4-10 players from 500 players, 10% of games with a tie),
of 5,000, 10,000, 20,000 and 40,000 games by default (each a prefix of the longest, so that a longer history only
adds games).  Each is replayed ``--repeat`` times (CPU seconds of this process, the best kept) after one untimed
replay that loads the kernel; then the least-squares slope of log(time) against log(games) is printed (1 is
linear), and the mean number of logistic terms an entrant's robust average summed (its history length, at most
``max_history``).  Run from the repository root::

    python benchmarks/elo_mmr_history.py
    python benchmarks/elo_mmr_history.py --games 5000 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from compare import seeded_history, slope  # noqa: E402

from ratings import create  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[5_000, 10_000, 20_000, 40_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variant", default="rho", choices=["rho", "chi"])
    args = parser.parse_args()
    longest = seeded_history(max(args.games), 500, 4, 10, tie_rate=0.1, seed=5)
    system = create("elo-mmr", variant=args.variant)
    system.rate(longest.with_games(longest.games[: min(args.games)]))
    seconds = []
    for n in args.games:
        history = longest.with_games(longest.games[:n])
        best = float("inf")
        for _ in range(args.repeat):
            started = time.process_time()
            run = system.rate(history)
            best = min(best, time.process_time() - started)
        seconds.append(best)
        terms = run.state.get("hist_len")
        mean_terms = f"   final history length: mean {np.mean(terms):.1f} terms" if terms is not None else ""
        print(f"  {n:>7,} games  {best:8.3f} s CPU  {1e6 * best / n:7.1f} us/game{mean_terms}", flush=True)
    print(f"  slope of log(CPU) on log(games): {slope([float(n) for n in args.games], seconds):.3f}")


if __name__ == "__main__":
    main()
