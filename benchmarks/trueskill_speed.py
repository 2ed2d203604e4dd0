"""TrueSkill speed: our free-for-all update against the ``trueskill`` package (0.4.5) on the same games.

Draws seeded random games of 2-30 players (ratings mu ~ N(25, 5), sigma ~ U(1, 25/3), places from
noisy performances rounded to 0.1, so that some finishers share a place, about 5% DNFs tied for
last), rates each one with the package and with ``ratings``' TrueSkill (through the system's
per-game hook, sorting and state writes included), and prints the time per game of both, their
ratio and the largest relative difference of the results.  Then it replays the shared seeded
20,000-game history of benchmarks/replay.py with our system.  Run from the repository root::

    python benchmarks/trueskill_speed.py
    python benchmarks/trueskill_speed.py --games 500 --replay-games 2000

Timings are wall-clock on whatever else the machine is doing; compare the ratio within one run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import trueskill

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from replay import best_of, synthetic_history  # noqa: E402  (the shared benchmark history)

from ratings import create  # noqa: E402
from ratings.base import GameView  # noqa: E402

Game = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # mu, sigma, ranks, dnf


def random_games(count: int, seed: int, min_size: int = 2, max_size: int = 30) -> list[Game]:
    """Seeded games: starting ratings, dense ranks (0 = best, DNFs share the rank after the finishers), DNF flags."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        n = int(rng.integers(min_size, max_size + 1))
        mu = rng.normal(25.0, 5.0, n)
        sigma = rng.uniform(1.0, 25.0 / 3.0, n)
        performance = np.round(mu + rng.normal(0.0, 5.0, n), 1)
        dnf = rng.random(n) < 0.05
        finished = np.unique(performance[~dnf])[::-1]  # best first
        ranks = np.array(
            [
                len(finished) if out else int(np.searchsorted(-finished, -perf))
                for perf, out in zip(performance, dnf, strict=True)
            ]
        )
        games.append((mu, sigma, ranks, dnf))
    return games


def run_ours(games: list[Game]) -> list[tuple[np.ndarray, np.ndarray]]:
    system = create("trueskill")
    out = []
    for g, (mu, sigma, ranks, dnf) in enumerate(games):
        state = {"mu": mu.copy(), "sigma": sigma.copy()}
        system._play(state, GameView(g, np.arange(len(mu)), ranks, dnf, None))
        out.append((state["mu"], state["sigma"]))
    return out


def run_package(games: list[Game]) -> list[tuple[np.ndarray, np.ndarray]]:
    env = trueskill.TrueSkill(backend=None)  # defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300, draw 10%
    out = []
    for mu, sigma, ranks, _ in games:
        rated = env.rate([(env.create_rating(m, s),) for m, s in zip(mu, sigma, strict=True)], ranks=ranks.tolist())
        out.append((np.array([r.mu for (r,) in rated]), np.array([r.sigma for (r,) in rated])))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=2000, help="random games rated by both (default 2000)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the random games")
    parser.add_argument("--repeat", type=int, default=3, help="timings per measurement; the best is kept")
    parser.add_argument("--replay-games", type=int, default=20_000, help="games in the replayed history")
    args = parser.parse_args(argv)

    games = random_games(args.games, args.seed)
    sizes = np.array([len(g[0]) for g in games])
    tied = sum(int((np.sort(g[2])[1:] == np.sort(g[2])[:-1]).sum()) for g in games) / int((sizes - 1).sum())
    print(
        f"{len(games)} random games, sizes {sizes.min()}-{sizes.max()} (mean {sizes.mean():.1f}), "
        f"{tied:.0%} of adjacent pairs tied; best of {args.repeat}"
    )
    ours_s, ours = best_of(args.repeat, lambda: run_ours(games))
    pkg_s, pkg = best_of(args.repeat, lambda: run_package(games))
    worst = max(
        max(np.max(np.abs(a - b) / np.abs(b)), np.max(np.abs(s - t) / t))
        for (a, s), (b, t) in zip(ours, pkg, strict=True)
    )
    print(f"{'':<24}{'us/game':>10}")
    print(f"{'trueskill package':<24}{1e6 * pkg_s / len(games):>10.0f}")
    print(f"{'ratings TrueSkill':<24}{1e6 * ours_s / len(games):>10.0f}")
    print(f"speed-up: {pkg_s / ours_s:.1f}x; largest relative difference of mu or sigma: {worst:.1e}")

    print()
    print("by game size (us/game, best of the repeats):")
    print(f"{'size':>6}{'package':>10}{'ours':>10}{'ratio':>8}")
    for size in (2, 5, 10, 20, 30):
        subset = [g for g in games if len(g[0]) == size] or random_games(20, size, size, size)
        p, _ = best_of(args.repeat, lambda subset=subset: run_package(subset))
        o, _ = best_of(args.repeat, lambda subset=subset: run_ours(subset))
        print(f"{size:>6}{1e6 * p / len(subset):>10.0f}{1e6 * o / len(subset):>10.0f}{p / o:>8.1f}")

    print()
    started = time.perf_counter()
    history = synthetic_history(args.replay_games)
    built = time.perf_counter() - started
    system = create("trueskill")
    seconds, _ = best_of(args.repeat, lambda: system.rate(history))
    entries = int(history.offsets[-1])
    print(
        f"replay of {len(history)} games ({entries} entries, built in {built:.1f} s) with ratings TrueSkill: "
        f"{seconds:.2f} s ({1e6 * seconds / len(history):.0f} us/game)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
