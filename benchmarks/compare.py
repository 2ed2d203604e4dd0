"""Replay benchmark of every system against its peers, side by side in one run; writes BENCHMARKS.md.

Histories (seeded):

- S: 12 players, 500 games of 3-8 players;
- M: the bundled racing sample (``ratings.samples``);
- L: 500 players, 20,000 games of 4-10 players, 10% of games with one tie (about 140,000 results).

For each system and size: the median wall-clock replay time (``rate``, which runs the compiled kernel where
the system has one), the peak of Python and numpy allocations during a replay (tracemalloc: every per-entry and
per-player array; the kernels' few per-game work arrays are not seen), and player-updates per second (results
replayed per second).  The peers (benchmarks/peers.py) replay the same histories in the same run; every
ratio is ours / theirs, so below 1 means ours is faster.  The kernels' compile time is measured in a fresh
process with an empty cache, and their load time with a warm one.

    python benchmarks/compare.py                   # or: make bench (installs requirements-bench.txt)
    python benchmarks/compare.py --quick           # S and M only, for a smoke run

Nothing here is asserted: on a shared machine the figures are for comparing within one run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from peers import PEERS, Peer  # noqa: E402

from ratings import SYSTEM_NAMES, Entry, Game, GameHistory, create  # noqa: E402
from ratings.samples import load_sample  # noqa: E402

#: Which peer each system is compared with (besides the numba reference loop).
COUNTERPARTS = {
    "multielo": ["naive-elo"],
    "pairwise-elo": ["naive-elo"],
    "plackett-luce": ["openskill-pl"],
    "thurstonian": ["openskill-tm"],
    "trueskill": ["trueskill"],
    "elo-mmr": ["elo-mmr-py"],
}


def seeded_history(
    n_games: int, n_players: int, min_size: int, max_size: int, *, tie_rate: float, seed: int
) -> GameHistory:
    """Games of a uniform size between ``min_size`` and ``max_size``; places by skill plus noise.

    A fraction ``tie_rate`` of games has exactly one tie: two neighbouring finishers share a place.
    """
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, n_players)
    names = [f"p{i:05d}" for i in range(n_players)]
    start = dt.date(2024, 1, 1)
    games = []
    for g in range(n_games):
        size = int(rng.integers(min_size, max_size + 1))
        players = rng.choice(n_players, size=size, replace=False)
        order = np.argsort(-(skill[players] + rng.normal(0.0, 1.0, size)))
        places = np.empty(size, dtype=int)
        places[order] = np.arange(1, size + 1)
        if rng.random() < tie_rate:
            k = int(rng.integers(1, size))  # the finisher in place k+1 shares place k
            places[places == k + 1] = k
            places[places > k + 1] -= 1
        entries = tuple(Entry(names[p], int(pl)) for p, pl in zip(players, places, strict=True))
        games.append(Game(f"g{g + 1}", entries, start + dt.timedelta(days=g // 10)))
    return GameHistory(games)


def sizes(quick: bool) -> dict[str, GameHistory]:
    out = {
        "S": seeded_history(500, 12, 3, 8, tie_rate=0.1, seed=1),
        "M": load_sample("racing"),
    }
    if not quick:
        out["L"] = seeded_history(20_000, 500, 4, 10, tie_rate=0.1, seed=3)
    return out


def measure(work: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Median seconds of ``repeat`` calls (after one untimed call) and the peak traced allocation in MB."""
    work()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak / 1e6


def compile_times() -> tuple[dict[str, float], dict[str, float]]:
    """Seconds of each system's first kernel call with an empty cache, then with the cache it left."""
    script = "import json; from ratings.kernels import warm_up; print(json.dumps(warm_up()))"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        results = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=ROOT
            )
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results[0], results[1]


def machine() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    packages = []
    for name in ("numpy", "scipy", "numba", "llvmlite", "trueskill", "openskill", "elo-mmr-py"):
        try:
            packages.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            packages.append(f"{name} (not installed)")
    return [
        f"- date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"- machine: {platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} logical CPUs, "
        f"load average at start {load} (shared with other work: compare ratios within this run)",
        f"- Python {platform.python_version()}; {', '.join(packages)}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="S and M only")
    parser.add_argument("--repeat", type=int, default=5, help="timed replays per figure on S and M (default 5)")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"), help="where to write the report")
    args = parser.parse_args(argv)

    lines = ["# Replay benchmarks", "", "Written by `make bench` (benchmarks/compare.py). Figures, not tests.", ""]
    lines += machine()
    cold, warm = compile_times()
    print("compile (cold cache):", {k: round(v, 2) for k, v in cold.items()}, flush=True)
    lines += [
        "",
        "## Kernel compile time",
        "",
        "First call of each system's kernel in a fresh process (`ratings.kernels.warm_up()`); systems sharing",
        "a kernel are listed in warm-up order and the first pays for the shared loop.",
        "",
        "| system | empty cache, s | warm cache, s |",
        "|---|---:|---:|",
    ]
    lines += [f"| {k} | {cold[k]:.2f} | {warm[k]:.3f} |" for k in cold]
    lines.append(f"| **total** | **{sum(cold.values()):.1f}** | **{sum(warm.values()):.2f}** |")

    peers: dict[str, Peer] = {}
    for key, factory in PEERS.items():
        try:
            peers[key] = factory()
        except ImportError as exc:
            print(f"peer {key} skipped: {exc}", file=sys.stderr)

    for label, history in sizes(args.quick).items():
        entries = int(history.offsets[-1])
        repeat = args.repeat if label != "L" else 3
        summary = history.summary()
        print(f"\n{label}: {summary['games']} games, {summary['players']} players, {entries} results", flush=True)
        lines += [
            "",
            f"## {label}: {summary['games']} games, {summary['players']} players, {entries} results",
            "",
            f"Median of {repeat} replays after a warm-up replay (peers that take over 10 s: one replay).",
            "",
            "| replay | median s | peak MB | updates/s | ours / peer | ours / numba loop |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        peer_times: dict[str, float] = {}
        rows: list[str] = []
        for key, peer in peers.items():
            prepared = peer.prepare(history)
            started = time.perf_counter()
            peer.run(prepared)
            once = time.perf_counter() - started
            seconds, peak = (once, float("nan")) if once > 10 else measure(partial(peer.run, prepared), repeat)
            peer_times[key] = seconds
            print(f"  {peer.name:<40}{seconds:>10.4f} s", flush=True)
            memory = "n/a" if peak != peak else f"{peak:.1f}"  # NaN: timed once, not traced
            rows.append(f"| {peer.name} ({peer.version}) | {seconds:.4f} | {memory} | {entries / seconds:,.0f} | | |")
        reference = peer_times.get("numba-elo")
        for name in SYSTEM_NAMES:
            system = create(name)
            seconds, peak = measure(partial(system.rate, history), repeat if name != "thurstonian" else 1)
            ratios = [
                f"{seconds / peer_times[k]:.3g} ({peers[k].name})"
                for k in COUNTERPARTS.get(name, [])
                if k in peer_times
            ]
            versus = f"{seconds / reference:.3g}" if reference else ""
            print(f"  ours {name:<35}{seconds:>10.4f} s  {'; '.join(ratios)}", flush=True)
            rows.append(
                f"| ours: `{name}` | {seconds:.4f} | {peak:.1f} | {entries / seconds:,.0f} | "
                f"{'; '.join(ratios)} | {versus} |"
            )
        lines += rows
    lines += [
        "",
        "Not measured here: XL (1,000 contests of up to 4,000 players) and the growth exponents of the issue;",
        "`benchmarks/elo_mmr_scaling.py` times Elo-MMR's scaling in game size.",
    ]
    Path(args.output).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
