"""Elo-MMR's replay time against the history's length: the slope of log(CPU) on log(games).

The histories are compare.py's growth histories (games of 4-10 players from 500 players, 10% of games with a tie),
of 5,000, 10,000, 20,000 and 40,000 games by default (each a prefix of the longest, so that a longer history only
adds games).  Each is replayed ``--repeat`` times (CPU seconds of a process's ``rate()``, the best kept) after one
untimed replay that loads the kernel; then the least-squares slope of log(time) on log(games) is printed (1 is
linear), and the mean number of logistic terms a player's robust average sums at the end (its history length, at
most ``max_history``).

``--against DIR`` times another checkout (the previous commit: ``git archive HEAD | tar -x -C DIR``) in the same
run: each round runs one process per checkout, alternating which goes first, each timing every length once, so
that both see the same load; the best of the rounds is kept per checkout and length.  Run from the repository
root::

    python benchmarks/elo_mmr_history.py
    python benchmarks/elo_mmr_history.py --against /tmp/base --repeat 3
    python benchmarks/elo_mmr_history.py --games 5000 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(root: Path, games: list[int], variant: str) -> dict[str, list[float]]:
    """One process's figures with ``root``'s ``ratings`` and history generator: each length's CPU seconds of one
    ``rate()`` and the players' mean history length at its end."""
    sys.path.insert(0, str(root))
    sys.path.insert(0, str(root / "benchmarks"))
    import numpy as np
    from compare import seeded_history

    from ratings import create

    longest = seeded_history(max(games), 500, 4, 10, tie_rate=0.1, seed=5)
    system = create("elo-mmr", variant=variant)
    system.rate(longest.with_games(longest.games[: min(games)]))  # loads the kernel
    seconds, terms = [], []
    for n in games:
        history = longest.with_games(longest.games[:n])
        started = time.process_time()
        run = system.rate(history)
        seconds.append(time.process_time() - started)
        lengths = run.state.get("hist_len")
        terms.append(float(np.mean(lengths)) if lengths is not None else math.nan)
    return {"seconds": seconds, "terms": terms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[5_000, 10_000, 20_000, 40_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variant", default="rho", choices=["rho", "chi"])
    parser.add_argument("--against", type=Path, help="another checkout's root, timed in the same run")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)  # one process's round: print JSON
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(measure(args.worker, args.games, args.variant)))
        return
    roots = [ROOT] + ([args.against.resolve()] if args.against is not None else [])
    best = {root: [math.inf] * len(args.games) for root in roots}
    terms: dict[Path, list[float]] = {}
    for round_ in range(args.repeat):
        for root in roots if round_ % 2 == 0 else roots[::-1]:
            command = [sys.executable, __file__, "--worker", str(root), "--variant", args.variant, "--games"]
            done = subprocess.run(command + [str(n) for n in args.games], capture_output=True, text=True, check=True)
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            best[root] = [min(a, b) for a, b in zip(best[root], figures["seconds"], strict=True)]
            terms[root] = figures["terms"]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from compare import slope

    for root in roots:
        print(f"{'this checkout' if root == ROOT else root}:")
        for n, seconds, mean_terms in zip(args.games, best[root], terms[root], strict=True):
            print(
                f"  {n:>7,} games  {seconds:8.3f} s CPU  {1e6 * seconds / n:7.1f} us/game"
                f"   final history length: mean {mean_terms:.1f} terms",
                flush=True,
            )
        print(f"  slope of log(CPU) on log(games): {slope([float(n) for n in args.games], best[root]):.3f}")


if __name__ == "__main__":
    main()
