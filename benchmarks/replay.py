"""Replay benchmark: how long every registered rating system takes on a large history.

Builds a seeded synthetic history (by default 20,000 games of 2-30 players drawn from
about 500 players, with ties and did-not-finish results), then for each system in the
registry prints the best of several replay times, its ratio to a baseline system timed
in the same run (multiplayer Elo by default), and the time to compute the accuracy
metrics of its run.  Run from the repository root::

    python benchmarks/replay.py            # or: make bench
    python benchmarks/replay.py --games 2000 --repeat 1 --system multielo --system glicko2

Timings are wall-clock on whatever else the machine is doing; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import SYSTEM_NAMES, Entry, Game, GameHistory, create
from ratings.metrics import evaluate

T = TypeVar("T")


def synthetic_history(
    n_games: int = 20_000,
    n_players: int = 500,
    *,
    min_size: int = 2,
    max_size: int = 30,
    dnf_rate: float = 0.05,
    seed: int = 2021,
) -> GameHistory:
    """A seeded history in which players have a hidden skill that drifts slowly.

    Each game draws its size uniformly from ``min_size..max_size`` and its players at
    random (active players more often); a player's performance is skill plus noise,
    rounded so that close performances tie; each entrant fails to finish with
    probability ``dnf_rate`` (more often when weaker).
    """
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, n_players)
    activity = rng.pareto(1.5, n_players) + 0.2
    activity /= activity.sum()
    names = [f"player{p:03d}" for p in range(n_players)]
    start = np.datetime64("2020-01-01")
    games = []
    for g in range(n_games):
        skill += rng.normal(0.0, 0.01, n_players)
        size = int(rng.integers(min_size, max_size + 1))
        players = rng.choice(n_players, size=size, replace=False, p=activity)
        performance = np.round(skill[players] + rng.normal(0.0, 1.0, size), 2)
        dnf = rng.random(size) < dnf_rate * (1.0 + (skill[players] < 0))
        # Competition-style places from the performances: 1 + the number of finishers ahead.
        finished = performance[~dnf]
        entries = tuple(
            Entry(names[p], None if out else 1 + int((finished > perf).sum()))
            for p, perf, out in zip(players, performance, dnf, strict=True)
        )
        date = (start + np.timedelta64(g // 20, "D")).astype(object)
        games.append(Game(f"game {g + 1}", entries, date))
    return GameHistory(games)


def best_of(repeat: int, work: Callable[[], T]) -> tuple[float, T]:
    """The shortest wall-clock time of ``repeat`` calls (at least one), and the last call's result."""
    started = time.perf_counter()
    result = work()
    best = time.perf_counter() - started
    for _ in range(repeat - 1):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one line per system."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=20_000, help="games in the synthetic history (default 20000)")
    parser.add_argument("--players", type=int, default=500, help="players in the pool (default 500)")
    parser.add_argument("--repeat", type=int, default=3, help="replays per system; the best is kept (default 3)")
    parser.add_argument("--seed", type=int, default=2021, help="seed of the synthetic history")
    parser.add_argument("--baseline", default="multielo", help="system the others are compared with")
    parser.add_argument("--system", action="append", default=None, help="only this system (repeatable)")
    args = parser.parse_args(argv)

    names = list(args.system or SYSTEM_NAMES)
    unknown = [n for n in names + [args.baseline] if n not in SYSTEM_NAMES]
    if unknown:
        parser.error(f"unknown system {unknown[0]!r}; registered: {', '.join(SYSTEM_NAMES)}")
    if args.baseline in names:
        names.remove(args.baseline)
    names.insert(0, args.baseline)

    started = time.perf_counter()
    history = synthetic_history(args.games, args.players, seed=args.seed)
    built = time.perf_counter() - started
    summary = history.summary()
    sizes = np.diff(history.offsets)
    finisher = ~history.flat_dnf
    keys = history.game_of_entry()[finisher] * (sizes.max() + 1) + history.flat_rank[finisher]
    _, counts = np.unique(keys, return_counts=True)
    tied = int(counts[counts > 1].sum())
    print(
        f"history: {summary['games']} games, {summary['players']} players, {summary['entries']} entries "
        f"(sizes {sizes.min()}-{sizes.max()}, mean {sizes.mean():.1f}), {summary['dnfs']} DNFs, "
        f"{tied} finishers sharing a place; built in {built:.2f} s"
    )
    print(f"registered systems: {', '.join(SYSTEM_NAMES)}; best of {args.repeat} replays each")
    print()
    header = f"{'system':<16}{'replay s':>10}{'us/game':>10}{'x ' + args.baseline:>14}{'evaluate s':>12}"
    print(header + "   Kendall tau  pair inv.  rank dev.")
    print("-" * (len(header) + 35))
    baseline_time = None
    for name in names:
        system = create(name)
        seconds, run = best_of(args.repeat, partial(system.rate, history))
        eval_seconds, e = best_of(args.repeat, partial(evaluate, run))
        if baseline_time is None:
            baseline_time = seconds
        print(
            f"{name:<16}{seconds:>10.2f}{1e6 * seconds / max(len(history), 1):>10.0f}"
            f"{seconds / baseline_time:>14.2f}{eval_seconds:>12.3f}"
            f"   {e.kendall_tau:>11.4f}  {e.pair_inversion:>9.4f}  {e.rank_deviation:>9.4f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
