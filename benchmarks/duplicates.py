"""Likely-duplicates benchmark: how long ``ratings.aliases.likely_duplicates`` takes as the players grow.

Builds seeded synthetic histories (regulars in 6-player games, plus as many one-game names, each beside one
regular), then prints the best of several times of ``likely_duplicates`` and, in the same run, of a plain peer:
every pair of names measured with rapidfuzz's Damerau-Levenshtein in a Python loop (the obvious way to write it),
with their ratio.  The page runs it on every change of data.  Run from the repository root::

    python benchmarks/duplicates.py [--players 1000 3000] [--repeat 3]

Timings are wall-clock on whatever else the machine is doing; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratings import Entry, Game, GameHistory
from ratings.aliases import fold, likely_duplicates


def history(players: int, games: int, seed: int = 1) -> GameHistory:
    """``players / 2`` regulars in ``games`` 6-player games, and ``players / 2`` one-game names."""
    rng = random.Random(seed)

    def name() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9))).title()

    regulars = [name() for _ in range(players // 2)]
    ones = [name() for _ in range(players // 2)]
    played = [
        Game(f"g{g}", tuple(Entry(p, i + 1) for i, p in enumerate(rng.sample(regulars, 6)))) for g in range(games)
    ]
    played += [Game(f"o{i}", (Entry(o, 1), Entry(regulars[i], 2))) for i, o in enumerate(ones)]
    return GameHistory(played)


def all_pairs(h: GameHistory) -> int:
    """The peer: every pair of folded names measured once in Python (distance <= 2 counted)."""
    from rapidfuzz.distance import DamerauLevenshtein

    keys = sorted({fold(p) for p in h.players})
    found = 0
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            found += DamerauLevenshtein.distance(a, b, score_cutoff=2) <= 2
    return found


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[300, 1000, 3000])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'players':>8} {'games':>7} {'likely_duplicates s':>20} {'all pairs s':>12} {'ratio':>6}")
    for players in args.players:
        h = history(players, args.games)
        ours = best(lambda h=h: likely_duplicates(h), args.repeat)
        peer = best(lambda h=h: all_pairs(h), max(1, args.repeat // 2))
        print(f"{h.n_players:>8} {h.n_games:>7} {ours:>20.3f} {peer:>12.3f} {ours / peer:>6.2f}")


if __name__ == "__main__":
    main()
