"""Replay time of Kerby's single-rating models (pairwise Elo, Plackett-Luce, Thurstonian).

A small tuning aid for those three systems (benchmarks/replay.py times every system).
Builds seeded synthetic histories of 20,000 games (sizes 2-30, and a second one of about
8 players per game, the dashboard's typical case) with ties and DNFs, and prints the replay
time of each configuration.  Run from the repository root::

    python benchmarks/kerby.py [--games 20000] [--system thurstonian] [--small-only]
    python benchmarks/kerby.py --compile [--root /work/main] [--repeat 2]
    python benchmarks/kerby.py --sizes [--root /work/main] [--repeat 2]

Prints wall-clock and CPU time (the CPU time is steadier on a shared machine).  ``--compile``
measures instead the first call of the shared single-rating loop's kernels (multielo,
pairwise-elo, plackett-luce, thurstonian, in that order, as ``ratings.kernels.warm_up`` calls
them) in a fresh process with an empty numba cache, for this checkout and for every ``--root``
given (another checkout, e.g. main), alternating, so that the figures share the machine's load.
``--sizes`` likewise prints the median replay time of those systems on benchmarks/compare.py's
histories S and M (kernels compiled beforehand, in each checkout's own cache) and the ratios.
``--ratio`` prints issue 9's Thurstonian / Plackett-Luce target on compare.py's history L: the two
replays alternate ``--repeat`` times (default 21) in one process per checkout, and the medians of
their CPU seconds and the ratio are printed for each checkout (run in turn, so compare across the
checkouts only what one line shows against another measured minutes apart).  ``--every`` prints the median
replay CPU of every system with a kernel on L, checkouts alternating ``--rounds`` times, and each one's ratio
to this checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratings import GameHistory, create  # noqa: E402

CONFIGS = [
    ("pairwise-elo", {"model": "logistic"}),
    ("pairwise-elo", {"model": "gaussian"}),
    ("plackett-luce", {}),
    ("thurstonian", {}),
    # The tuned Thurstonian settings of Kerby, "Multiplayer generalizations of Elo rating system" (2025),
    # section 5.2 (dummy, initial rating, eta schedule).
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


#: The systems of the shared single-rating loop, in warm_up's order.
SINGLE = ("multielo", "pairwise-elo", "plackett-luce", "thurstonian")
_COMPILE = """
import json, sys, time
from ratings.kernels import _tiny_history
from ratings.systems import create
out = {}
for name in sys.argv[1:]:
    cpu, wall = time.process_time(), time.perf_counter()
    create(name).rate(_tiny_history())
    out[name] = (time.process_time() - cpu, time.perf_counter() - wall)
print(json.dumps(out))
"""


def compile_seconds(root: Path) -> dict[str, tuple[float, float]]:
    """(cpu, wall) seconds of each system's first replay in a fresh process with an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(root)}
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE, *SINGLE], env=env, cwd=root, capture_output=True, text=True, check=True
        )
    return {k: (v[0], v[1]) for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


_SIZES = """
import json, statistics, sys, time
sys.path.insert(0, "benchmarks")
from compare import sizes
from ratings.systems import create
out = {}
for size, history in sizes(quick=True).items():
    for name in sys.argv[2:]:
        system = create(name)
        system.rate(history)
        times = []
        for _ in range(int(sys.argv[1])):
            started = time.perf_counter()
            system.rate(history)
            times.append(time.perf_counter() - started)
        out[f"{name} {size}"] = statistics.median(times)
print(json.dumps(out))
"""


def _run_in(root: Path, script: str, *args: str) -> dict[str, float]:
    """Run ``script`` on ``root``'s code, in its own kernel cache; the JSON object it prints last."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "kerby-bench-cache"))
    env["NUMBA_CACHE_DIR"] = str(Path(env["NUMBA_CACHE_DIR"]) / str(root).strip("/").replace("/", "-"))
    done = subprocess.run([sys.executable, "-c", script, *args], env=env, cwd=root, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def replay_seconds(root: Path, repeat: int) -> dict[str, float]:
    """Median replay seconds of the shared loop's systems on S and M, in ``root``'s own kernel cache."""
    return _run_in(root, _SIZES, str(repeat), *SINGLE)


def compare_sizes(roots: list[Path], repeat: int) -> None:
    """Median replay times of every checkout, side by side, and each one's ratio to the first."""
    results = [replay_seconds(root, repeat) for root in roots]
    print(f"{'system size':22s}" + "".join(f"{str(r)[-20:]:>22s}" for r in roots) + "   ratio to the first")
    for key in results[0]:
        times = [r[key] for r in results]
        ratios = " ".join(f"{t / times[0]:5.2f}" for t in times[1:])
        print(f"{key:22s}" + "".join(f"{1000 * t:19.2f} ms" for t in times) + f"   {ratios}")


_RATIO = """
import json, statistics, sys, time
sys.path.insert(0, "benchmarks")
from compare import seeded_history
from ratings.systems import create
history = seeded_history(20_000, 500, 4, 10, tie_rate=0.1, seed=3)  # compare.py's L
systems = {name: create(name) for name in sys.argv[2:]}
cpu = {name: [] for name in systems}
for system in systems.values():
    system.rate(history)
for _ in range(int(sys.argv[1])):
    for name, system in systems.items():
        used = time.process_time()
        system.rate(history)
        cpu[name].append(time.process_time() - used)
print(json.dumps({name: statistics.median(v) for name, v in cpu.items()}))
"""


def l_replay_cpu(root: Path, repeat: int, names: tuple[str, ...]) -> dict[str, float]:
    """Median CPU seconds of each system's replay of L in ``root`` (its own kernel cache), replays alternating."""
    return _run_in(root, _RATIO, str(repeat), *names)


#: Every system with a kernel (``--every``), as ``ratings.kernels.SYSTEMS_WITH_KERNELS`` lists them.
EVERY = ("multielo", "pairwise-elo", "plackett-luce", "glicko2", "trueskill", "elo-mmr", "thurstonian")


def compare_every(roots: list[Path], repeat: int, rounds: int) -> None:
    """Median replay CPU of every system on L in every checkout, checkouts alternating ``rounds`` times."""
    for r in range(rounds):
        first = None
        for root in roots:
            cpu = l_replay_cpu(root, repeat, EVERY)
            first = first or cpu
            load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"round {r + 1} {str(root):26s} (load {load}, {time.strftime('%H:%M:%S')} UTC)", flush=True)
            for name in EVERY:
                print(f"  {name:14s} {1000 * cpu[name]:9.2f} ms CPU   / first checkout {cpu[name] / first[name]:5.2f}")


def compare_ratio(roots: list[Path], repeat: int) -> None:
    """Thurstonian / Plackett-Luce CPU seconds on L in every checkout (each in its own kernel cache)."""
    for root in roots:
        cpu = l_replay_cpu(root, repeat, ("plackett-luce", "thurstonian"))
        pl, th = cpu["plackett-luce"], cpu["thurstonian"]
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"{str(root):28s} plackett-luce {1000 * pl:7.2f} ms  thurstonian {1000 * th:7.2f} ms  "
            f"ratio {th / pl:5.2f}  (median CPU of {repeat}; load {load})",
            flush=True,
        )


def compare_compile(roots: list[Path], repeat: int) -> None:
    """Print the compile seconds of every checkout, alternating between them ``repeat`` times."""
    for r in range(repeat):
        for root in roots:
            seconds = compile_seconds(root)
            cpu = sum(c for c, _ in seconds.values())
            wall = sum(w for _, w in seconds.values())
            parts = "  ".join(f"{k} {c:5.2f}" for k, (c, _) in seconds.items())
            print(f"round {r + 1} {str(root):28s} cpu {cpu:6.2f} s  wall {wall:6.2f} s  (cpu: {parts})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--system", action="append", help="only this system (repeatable)")
    parser.add_argument("--small-only", action="store_true", help="only the 6-10 player history")
    parser.add_argument("--compile", action="store_true", help="compile seconds of the shared loop's kernels")
    parser.add_argument("--root", action="append", type=Path, default=[], help="another checkout to compare")
    parser.add_argument("--sizes", action="store_true", help="replay times on S and M against --root")
    parser.add_argument("--ratio", action="store_true", help="Thurstonian / Plackett-Luce on L against --root")
    parser.add_argument("--every", action="store_true", help="every kernel's replay CPU on L against --root")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the checkouts for --every")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if args.compile:
        compare_compile([ROOT, *args.root], args.repeat)
        return
    if args.ratio:
        compare_ratio([ROOT, *args.root], args.repeat if args.repeat > 1 else 21)
        return
    if args.every:
        compare_every([ROOT, *args.root], max(args.repeat, 5), args.rounds)
        return
    if args.sizes:
        compare_sizes([ROOT, *args.root], max(args.repeat, 5))
        return
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
