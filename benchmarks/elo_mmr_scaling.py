"""Elo-MMR scaling benchmark: time of one game against the field size, and a long replay.

For each variant (rho, chi) and field size (100, 500, 1000, 2000, 5000 by default) it times one game
of new-ish players (seeded ratings, about 1 tie in 4) and prints the best of ``--repeat`` times and the
growth exponent fitted by least squares on log(time) against log(size) over the sizes of at least 500
(the all-pairs performance solve is O(n^2) per Newton step, section 5.3 of Ebtekar and Liu,
"An Elo-like System for Massive Multiplayer Competitions", WWW 2021).  Then it replays
the shared seeded 20,000-game history of benchmarks/replay.py (games of 2-30 players) and a bundled
sample (the racing sample by default: about 2,000 races of 2-27 entrants, best of ``--repeat``).  Run
from the repository root::

    python benchmarks/elo_mmr_scaling.py
    python benchmarks/elo_mmr_scaling.py --sizes 100 1000 --games 2000 --variant rho --sample none

Timings are wall-clock on whatever else the machine is doing.
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

from replay import synthetic_history  # noqa: E402  (the shared benchmark history)

from ratings import create  # noqa: E402
from ratings.base import GameView  # noqa: E402
from ratings.samples import load_sample  # noqa: E402


def time_one_game(variant: str, n: int, repeat: int) -> float:
    """Best wall-clock time of one ``n``-player game from a seeded varied state."""
    system = create("elo-mmr", variant=variant)
    rng = np.random.default_rng(n)
    base = system.initial_state(n)
    base["mu"][:] = rng.normal(1500.0, 300.0, n)
    base["sigma"][:] = rng.uniform(80.0, 350.0, n)
    ranks = np.unique(rng.integers(0, max(2, (3 * n) // 4), size=n), return_inverse=True)[1]
    view = GameView(0, np.arange(n), ranks, np.zeros(n, dtype=bool), None)
    best = float("inf")
    for _ in range(repeat):
        state = {k: v.copy() for k, v in base.items()}
        started = time.perf_counter()
        system._play(state, view)
        best = min(best, time.perf_counter() - started)
    return best


def growth_exponent(sizes: list[int], seconds: list[float], smallest: int = 500) -> float:
    """Slope of log(time) against log(size), fitted on the sizes >= ``smallest``."""
    pairs = [(s, t) for s, t in zip(sizes, seconds, strict=True) if s >= smallest]
    if len(pairs) < 2:
        pairs = list(zip(sizes, seconds, strict=True))
    x = np.log([s for s, _ in pairs])
    y = np.log([t for _, t in pairs])
    return float(np.polyfit(x, y, 1)[0])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000, 2000, 5000])
    parser.add_argument("--variant", choices=["rho", "chi"], action="append")
    parser.add_argument("--repeat", type=int, default=3, help="timings per size (best is kept)")
    parser.add_argument("--games", type=int, default=20_000, help="games in the replay (0 skips it)")
    parser.add_argument("--sample", default="racing", help="bundled sample to replay ('none' skips it)")
    args = parser.parse_args(argv)
    variants = args.variant or ["rho", "chi"]

    for variant in variants:
        print(f"elo-mmr variant={variant}: one game")
        seconds = []
        for n in args.sizes:
            t = time_one_game(variant, n, args.repeat if n <= 2000 else 1)
            seconds.append(t)
            print(f"  {n:>6} players  {t * 1000:>10.1f} ms")
        print(f"  fitted growth exponent (sizes >= 500): {growth_exponent(args.sizes, seconds):.2f}")

    if args.games:
        history = synthetic_history(args.games)
        entries = int(history.offsets[-1])
        print(f"replay: {history.n_games} games, {history.n_players} players, {entries} entries (sizes 2-30)")
        for variant in variants:
            system = create("elo-mmr", variant=variant)
            started = time.perf_counter()
            system.rate(history)
            elapsed = time.perf_counter() - started
            print(f"  {variant}: {elapsed:.1f} s  ({elapsed / history.n_games * 1000:.2f} ms per game)")

    if args.sample != "none":
        sample = load_sample(args.sample)
        print(f"replay of the {args.sample!r} sample: {sample.n_games} games, {sample.n_players} players")
        for variant in variants:
            system = create("elo-mmr", variant=variant)
            best = float("inf")
            for _ in range(args.repeat):
                started = time.perf_counter()
                system.rate(sample)
                best = min(best, time.perf_counter() - started)
            print(f"  {variant}: {best * 1000:.0f} ms  ({best / max(sample.n_games, 1) * 1e6:.0f} us per game)")


if __name__ == "__main__":
    main()
