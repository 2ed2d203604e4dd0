"""Replay time of Kerby's single-rating models (pairwise Elo, Plackett-Luce, Thurstonian).

A small tuning aid for those three systems (benchmarks/replay.py times every system).
Builds seeded synthetic histories of 20,000 games (sizes 2-30, and a second one of about
8 players per game, the dashboard's typical case) with ties and DNFs, and prints the replay
time of each configuration.  Run from the repository root::

    python benchmarks/kerby.py [--games 20000] [--system thurstonian] [--small-only]

Prints wall-clock and CPU time (the CPU time is steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import GameHistory, create

CONFIGS = [
    ("pairwise-elo", {"model": "logistic"}),
    ("pairwise-elo", {"model": "gaussian"}),
    ("plackett-luce", {}),
    ("thurstonian", {}),
    # Seed 000, section 5.2's tuned Thurstonian settings (dummy, initial rating, eta schedule).
    ("thurstonian", {"dummy": 0.9, "initial": 0.3, "eta_knots": (0, 1, 2), "eta_values": (0.65, 0.09, 0.07)}),
]


def synthetic(n_games: int, sizes: tuple[int, int], seed: int = 7, n_players: int = 400) -> GameHistory:
    """Seeded games: players drawn at random, places from noisy skills, some ties and DNFs."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n_players)
    records = []
    for g in range(n_games):
        size = int(rng.integers(sizes[0], sizes[1] + 1))
        players = rng.choice(n_players, size, replace=False)
        performance = skill[players] + rng.normal(0, 1, size)
        place = np.argsort(np.argsort(-performance)) + 1
        place = np.where(rng.random(size) < 0.05, place - 1, place).clip(1)  # occasional ties
        dnf = rng.random(size) < 0.1
        for p, pl, d in zip(players, place, dnf, strict=True):
            records.append({"game": f"g{g}", "player": f"p{p}", "place": None if d else int(pl)})
    return GameHistory.from_records(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--system", action="append", help="only this system (repeatable)")
    parser.add_argument("--small-only", action="store_true", help="only the 6-10 player history")
    args = parser.parse_args()
    histories = [("sizes 6-10", (6, 10))] if args.small_only else [("sizes 2-30", (2, 30)), ("sizes 6-10", (6, 10))]
    for label, sizes in histories:
        history = synthetic(args.games, sizes)
        entries = int(history.offsets[-1])
        print(f"{label}: {history.n_games} games, {entries} entries, {history.n_players} players")
        for name, params in CONFIGS:
            if args.system and name not in args.system:
                continue
            system = create(name, **params)
            start, cpu = time.perf_counter(), time.process_time()
            system.rate(history)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            extra = ",".join(f"{k}={v}" for k, v in params.items())
            print(
                f"  {name:14s} {extra:44s} wall {elapsed:6.2f} s  cpu {cpu:6.2f} s"
                f"  ({1e6 * cpu / history.n_games:5.0f} us cpu/game)"
            )


if __name__ == "__main__":
    main()
