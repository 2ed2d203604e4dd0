"""Replay benchmark of every system against its peers, side by side in one run; writes BENCHMARKS.md.

Histories (seeded):

- S: 12 players, 500 games of 3-8 players;
- M: the bundled racing sample (``ratings.samples``);
- L: 500 players, 20,000 games of 4-10 players, 10% of games with one tie (about 140,000 results);
- XL: 1,000 contests of 2 to 4,000 players drawn from 10,000 (about 2 million results), for ``elo-mmr`` and
  ``trueskill`` and their peers (Elo-MMR-Py, the ``trueskill`` package).  Every replay is timed on the first
  :data:`XL_TIMED` contests (real replays, wall and CPU); ours are also timed on the whole history, the
  peers' whole-history time is estimated from them by each replay's cost model (Elo-MMR-Py: the sum of
  squared contest sizes, its performance solver being quadratic in a contest's size; the trueskill package:
  the number of results).

Growth exponents: the replay time of every system over history length (1,000 to 64,000 games of 4-10
players from 500) and over game size (400 games of exactly 4 to 256 players from 2,000), and the least-squares
slope of log time against log size: 1 is linear.

For each system and size: the median wall-clock replay time and the CPU time of the same replays (the machine
is shared: a replay preempted by other work takes longer wall time, not more CPU) of ``rate``, which runs the
compiled kernel where the system has one, the peak of Python and numpy allocations during a replay
(tracemalloc: every per-entry and per-player array; the kernels' few per-game work arrays are not seen), and
player-updates per second (results replayed per second). The peers (benchmarks/peers.py) replay the same
histories in the same run; every ratio is ours / theirs, so below 1 means ours is faster. The kernels' compile
time is measured in a fresh process with an empty cache, and their load time with a warm one.

    python benchmarks/compare.py                   # or: make bench (installs requirements-bench.txt)
    python benchmarks/compare.py --quick           # S and M only, for a smoke run
    python benchmarks/compare.py --only compile,xl,growth   # those sections only, merged into BENCHMARKS.md
    python benchmarks/compare.py --only compile --compile-peer /work/main   # compile timed beside another checkout

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
from ratings.kernels import WARM_UP_GROUPS  # noqa: E402
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


#: XL replays are timed on this many first contests (see the module docstring).
XL_TIMED = 100
GROWTH_LENGTHS = (1_000, 4_000, 16_000, 64_000)
GROWTH_SIZES = (4, 16, 64, 256)


def xl_history() -> GameHistory:
    return seeded_history(1_000, 10_000, 2, 4_000, tie_rate=0.1, seed=4)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def measure(work: Callable[[], Any], repeat: int) -> tuple[float, float, float]:
    """Median wall seconds and median CPU seconds of ``repeat`` calls (after one untimed call), and the peak
    traced allocation in MB."""
    work()
    times = []
    cpu = []
    for _ in range(repeat):
        started, used = time.perf_counter(), time.process_time()
        work()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), statistics.median(cpu), peak / 1e6


def timed_once(work: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    started, used = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - started, time.process_time() - used


def compile_times(root: Path = ROOT) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds of each system's first kernel call with an empty cache, then with the cache it left, with the
    whole warm-up's wall (``wall``) and CPU (``cpu``) seconds (of the checkout at ``root``)."""
    script = (
        "import json, time; started = time.perf_counter(); from ratings.kernels import warm_up; "
        "seconds = warm_up(); seconds['wall'] = time.perf_counter() - started; print(json.dumps(seconds))"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(root)}
        results = []
        for _ in range(2):
            before = os.times()
            done = subprocess.run(
                [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=root
            )
            after = os.times()
            seconds = json.loads(done.stdout.strip().splitlines()[-1])
            # CPU of the process and of every process it waited for (warm_up's child).
            seconds["cpu"] = (after.children_user + after.children_system) - (
                before.children_user + before.children_system
            )
            results.append(seconds)
    return results[0], results[1]


#: Run in a fresh process with an empty cache: every system's first call in this one process (no warm-up child),
#: with numba's compile events recorded; prints each compiled function's own compile CPU seconds (the compiles
#: of the functions it calls excluded) and the process's CPU seconds for the whole.
_PROFILE_SCRIPT = """
import json, time
from numba.core import event

own, stack = {}, []


class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        started, nested = stack.pop()
        spent = time.process_time() - started
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        name = f"{func.__module__}.{func.__qualname__}" if func is not None else "other"
        own[name] = own.get(name, 0.0) + spent - nested
        if stack:
            stack[-1][1] += spent


event.register("numba:compile", Listener())
started = time.process_time()
from ratings.kernels import SYSTEMS_WITH_KERNELS, _first_calls

_first_calls(SYSTEMS_WITH_KERNELS)
print(json.dumps({"own": own, "cpu": time.process_time() - started}))
"""


def compile_profile() -> dict[str, Any]:
    """Own compile CPU seconds of every compiled function, from one process compiling every kernel (see
    :data:`_PROFILE_SCRIPT`), and that process's CPU seconds (``cpu``)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", _PROFILE_SCRIPT], env=env, capture_output=True, text=True, check=True, cwd=ROOT
        )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def load_average() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def machine() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = load_average()
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


def compile_section(peer: Path | None = None) -> list[str]:
    load_before = load_average()
    peer_times = compile_times(peer) if peer is not None else None
    cold, warm = compile_times()
    profile = compile_profile()
    load_after = load_average()
    print("compile (cold cache):", {k: round(v, 2) for k, v in cold.items()}, flush=True)
    lines = [
        "## Kernel compile time",
        "",
        "First call of each system's kernel in a fresh process (`ratings.kernels.warm_up()`), in seconds; systems",
        "sharing compiled code are listed in warm-up order and the first pays for it.  With an empty cache,",
        f"`warm_up` compiles {' and '.join(WARM_UP_GROUPS[0])} in one child process while the calling process",
        "compiles the others; the wall time is the whole `warm_up()`, the CPU time that of both processes.",
        f"Load average {load_before} before, {load_after} after.",
        "",
        "| system | empty cache, s | warm cache, s |",
        "|---|---:|---:|",
    ]
    lines += [f"| {k} | {cold[k]:.2f} | {warm[k]:.3f} |" for k in cold if k not in ("wall", "cpu")]
    lines.append(
        f"| **sum** | **{sum(v for k, v in cold.items() if k not in ('wall', 'cpu')):.1f}** | "
        f"**{sum(v for k, v in warm.items() if k not in ('wall', 'cpu')):.2f}** |"
    )
    lines.append(f"| **wall time of warm_up()** | **{cold['wall']:.1f}** | **{warm['wall']:.2f}** |")
    lines.append(f"| **CPU time of warm_up() (with its child)** | **{cold['cpu']:.1f}** | **{warm['cpu']:.2f}** |")
    if peer is not None and peer_times is not None:
        peer_cold, peer_warm = peer_times
        lines += [
            "",
            f"Side by side in this run (measured just before, its own empty cache): the checkout at `{peer}`, "
            f"empty cache {peer_cold['wall']:.1f} s wall and {peer_cold['cpu']:.1f} s CPU, warm cache "
            f"{peer_warm['wall']:.2f} s wall and {peer_warm['cpu']:.2f} s CPU.",
        ]
    lines += [
        "",
        "The warm column is what the app's start-up costs once the cache is built: `python -m ratings.kernels`",
        "run as a build step (the same sources, the same kind of CPU: numba keys each entry by the CPU's name",
        "and features) compiles it, and `warm_up()` at start-up then only loads machine code.  The cache is named",
        "by a digest of the sources and does not depend on the checkout's path or its files' time stamps",
        "(`tests/test_warm_up.py` moves a warm cache with a copy of the package: nothing compiles).",
    ]
    own: dict[str, float] = profile["own"]
    counted = sum(own.values())
    lines += [
        "",
        f"Where the compile goes: every kernel compiled in one process with an empty cache ({profile['cpu']:.1f} s",
        "CPU in all), each compiled function's own compile (numba's `numba:compile` events, the compiles of the",
        "functions it calls excluded; numba's own numpy implementations under their names), CPU seconds, costliest",
        f"first; the remaining {profile['cpu'] - counted:.1f} s are outside those events (the `cfunc` wrappers of",
        "the gradients, importing, the cache's files, the replays).",
        "",
        "| compiled function | own compile, CPU s |",
        "|---|---:|",
    ]
    ranked = sorted(own.items(), key=lambda item: -item[1])
    lines += [f"| `{name}` | {seconds:.2f} |" for name, seconds in ranked[:15]]
    lines.append(f"| {len(ranked) - 15} others | {sum(seconds for _, seconds in ranked[15:]):.2f} |")
    return lines


def size_sections(peers: dict[str, Peer], quick: bool, repeat_default: int) -> list[str]:
    lines: list[str] = []
    for label, history in sizes(quick).items():
        entries = int(history.offsets[-1])
        repeat = repeat_default if label != "L" else 3
        summary = history.summary()
        print(f"\n{label}: {summary['games']} games, {summary['players']} players, {entries} results", flush=True)
        lines += [
            "",
            f"## {label}: {summary['games']} games, {summary['players']} players, {entries} results",
            "",
            f"Median of {repeat} replays after a warm-up replay (peers that take over 10 s: one replay). The ratios",
            "are of CPU seconds (the machine is shared: a preempted replay takes longer wall time, not more CPU).",
            "",
            "| replay | median s | CPU s | peak MB | updates/s | ours / peer | ours / numba loop |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        peer_times: dict[str, float] = {}
        rows: list[str] = []
        for key, peer in peers.items():
            prepared = peer.prepare(history)
            once, once_cpu = timed_once(partial(peer.run, prepared))
            if once > 10:
                seconds, cpu, peak = once, once_cpu, float("nan")
            else:
                seconds, cpu, peak = measure(partial(peer.run, prepared), repeat)
            peer_times[key] = cpu
            print(f"  {peer.name:<40}{seconds:>10.4f} s  CPU {cpu:.4f} s", flush=True)
            memory = "n/a" if peak != peak else f"{peak:.1f}"  # NaN: timed once, not traced
            rows.append(
                f"| {peer.name} ({peer.version}) | {seconds:.4f} | {cpu:.4f} | {memory} "
                f"| {entries / seconds:,.0f} | | |"
            )
        reference = peer_times.get("numba-elo")
        for name in SYSTEM_NAMES:
            system = create(name)
            seconds, cpu, peak = measure(partial(system.rate, history), repeat)
            ratios = [
                f"{cpu / peer_times[k]:.3g} ({peers[k].name})" for k in COUNTERPARTS.get(name, []) if k in peer_times
            ]
            versus = f"{cpu / reference:.3g}" if reference else ""
            print(f"  ours {name:<35}{seconds:>10.4f} s  CPU {cpu:.4f} s  {'; '.join(ratios)}", flush=True)
            rows.append(
                f"| ours: `{name}` | {seconds:.4f} | {cpu:.4f} | {peak:.1f} | {entries / seconds:,.0f} | "
                f"{'; '.join(ratios)} | {versus} |"
            )
        lines += rows
    return lines[1:]


def xl_section(peers: dict[str, Peer]) -> list[str]:
    history = xl_history()
    entries = int(history.offsets[-1])
    print(f"\nXL: {history.n_games} contests, {history.n_players} players, {entries} results", flush=True)
    part = GameHistory(history.games[:XL_TIMED])
    part_entries = int(part.offsets[-1])
    sizes = np.diff(history.offsets).astype(float)
    cost = {"quadratic": lambda x: float(np.sum(x**2)), "linear": lambda x: float(np.sum(x))}
    scale = {k: f(sizes) / f(sizes[:XL_TIMED]) for k, f in cost.items()}
    create("elo-mmr").rate(GameHistory(history.games[:8]))  # kernels loaded before timing
    create("trueskill").rate(GameHistory(history.games[:8]))
    # Ours: also the whole XL, timed for real; the peers: estimated from the first contests by their cost model.
    items: list[tuple[str, Callable[[GameHistory], Any], str | None]] = [
        ("ours: `elo-mmr`", create("elo-mmr").rate, None),
        ("ours: `trueskill`", create("trueskill").rate, None),
    ]
    for key, model in (("elo-mmr-py", "quadratic"), ("trueskill", "linear")):
        if key in peers:
            peer = peers[key]
            items.append((f"{peer.name} ({peer.version})", lambda h, peer=peer: peer.run(peer.prepare(h)), model))
    lines = [
        f"## XL: {history.n_games} contests of 2-4,000 players, {history.n_players} players, {entries} results",
        "",
        f"One replay each (one thread) of the first {XL_TIMED} contests ({part_entries:,} results), timed for real;",
        "ours are also timed on the whole XL (wall and CPU seconds), the peers' whole XL is estimated from their",
        "first contests by the replay's cost model (Elo-MMR-Py: the sum of squared contest sizes, its performance",
        f"solver being quadratic in a contest's size, x{scale['quadratic']:.2f} here; the trueskill package: the",
        f"results, x{scale['linear']:.2f}).",
        "",
        f"| replay | {XL_TIMED} contests, s | CPU s | updates/s | whole XL, s |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, replay, model in items:
        try:
            seconds, cpu = timed_once(partial(replay, part))
        except (ArithmeticError, ValueError) as exc:  # the trueskill package gives up on very large games
            print(f"  {label:<45} failed: {type(exc).__name__}: {exc}", flush=True)
            lines.append(f"| {label} | failed: {type(exc).__name__}: {exc} | | | |")
            continue
        if model is None:
            whole, whole_cpu = timed_once(partial(replay, history))
            total = f"**{whole:.1f}** (CPU {whole_cpu:.1f})"
        else:
            total = f"{seconds * scale[model]:.0f}, estimated"
        print(f"  {label:<45}{seconds:>10.2f} s  CPU {cpu:.2f} s  (whole XL: {total})", flush=True)
        lines.append(f"| {label} | {seconds:.2f} | {cpu:.2f} | {part_entries / seconds:,.0f} | {total} |")
    return lines


def growth_section() -> list[str]:
    lengths = {n: seeded_history(n, 500, 4, 10, tie_rate=0.1, seed=5) for n in GROWTH_LENGTHS}
    game_sizes = {k: seeded_history(400, 2_000, k, k, tie_rate=0.1, seed=6) for k in GROWTH_SIZES}
    lines = [
        "## Growth exponents",
        "",
        "Least-squares slope of log(replay seconds) against log(games), for 1,000-64,000 games of 4-10 players",
        "from 500, and against log(players per game), for 400 games of exactly 4-256 players from 2,000",
        "(CPU seconds of the process, best of 3 replays below 1 s, else one: wall-clock time on a busy machine",
        "penalises long replays, which are preempted more often).  1 is linear.  Per game, the Elo family and",
        "Glicko-2 compare every pair and Elo-MMR's performance solver sums over every player for each rank (below",
        "512 ranks; larger contests interpolate that sum), so their time grows about as size^2 (with 400 games of",
        "that size: a slope near 2 in game size).",
        "",
        "| system | "
        + " | ".join(f"{n // 1000}k games, s" for n in GROWTH_LENGTHS)
        + " | slope in games | "
        + " | ".join(f"{k} players, s" for k in GROWTH_SIZES)
        + " | slope in game size |",
        "|---|" + "---:|" * (2 * len(GROWTH_LENGTHS) + 2),
    ]
    for name in SYSTEM_NAMES:
        system = create(name)

        def timed(history: GameHistory, system: Any = system) -> float:
            best = float("inf")
            for _ in range(3):
                started = time.process_time()  # CPU seconds: a preempted replay on a busy machine is not slower
                system.rate(history)
                best = min(best, time.process_time() - started)
                if best > 1.0:
                    break
            return best

        by_length = [timed(h) for h in lengths.values()]
        by_size = [timed(h) for h in game_sizes.values()]
        a = slope(list(map(float, GROWTH_LENGTHS)), by_length)
        b = slope(list(map(float, GROWTH_SIZES)), by_size)
        print(f"  {name:<15} games {a:.2f}  size {b:.2f}", flush=True)
        lines.append(
            f"| `{name}` | "
            + " | ".join(f"{t:.3f}" for t in by_length)
            + f" | **{a:.2f}** | "
            + " | ".join(f"{t:.3f}" for t in by_size)
            + f" | **{b:.2f}** |"
        )
    return lines


SECTIONS = ("compile", "sizes", "xl", "growth")


def merge(old: str, new_sections: dict[str, list[str]], header: list[str]) -> str:
    """``old`` with its ``## `` sections named like new ones (up to a colon) replaced, new ones added."""
    blocks: list[list[str]] = [[]]
    for line in old.splitlines():
        if line.startswith("## "):
            blocks.append([])
        blocks[-1].append(line)
    replaced: set[str] = set()
    out: list[str] = header
    for block in blocks[1:]:
        heading = block[0]
        match = next(
            (
                key
                for key, lines in new_sections.items()
                if any(line.split(":")[0] == heading.split(":")[0] for line in lines if line.startswith("## "))
            ),
            None,
        )
        if match is None:
            out += block
        elif match not in replaced:
            out += [*new_sections[match], ""]
            replaced.add(match)
    for key, lines in new_sections.items():
        if key not in replaced:
            out += [*lines, ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="S and M only (and no XL or growth)")
    parser.add_argument("--repeat", type=int, default=5, help="timed replays per figure on S and M (default 5)")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"), help="where to write the report")
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections among {', '.join(SECTIONS)}; the others are kept from --output",
    )
    parser.add_argument(
        "--compile-peer", type=Path, help="another checkout (e.g. main) whose warm_up is timed beside this one's"
    )
    args = parser.parse_args(argv)
    only = [part.strip() for part in args.only.split(",") if part.strip()]
    if unknown := set(only) - set(SECTIONS):
        parser.error(f"unknown sections {sorted(unknown)}; choose among {', '.join(SECTIONS)}")
    if args.quick:
        only = [k for k in only if k in ("compile", "sizes")]

    header = ["# Replay benchmarks", "", "Written by `make bench` (benchmarks/compare.py). Figures, not tests.", ""]
    header += machine()
    if set(only) != set(SECTIONS):
        header.append(
            f"- this run wrote only the sections {', '.join(only)} (`--only`); the others are from an earlier run"
        )
    header.append("")
    peers: dict[str, Peer] = {}
    if "sizes" in only or "xl" in only:
        for key, factory in PEERS.items():
            try:
                peers[key] = factory()
            except ImportError as exc:
                print(f"peer {key} skipped: {exc}", file=sys.stderr)
    sections: dict[str, list[str]] = {}
    if "compile" in only:
        sections["compile"] = compile_section(args.compile_peer)
    if "sizes" in only:
        sections["sizes"] = size_sections(peers, args.quick, args.repeat)
    if "xl" in only:
        sections["xl"] = xl_section(peers)
    if "growth" in only:
        sections["growth"] = growth_section()
    output = Path(args.output)
    # Merged into the existing file: its other sections (page latency, incremental replay, load) are other
    # benchmarks' and stay.
    old = output.read_text(encoding="utf-8") if output.exists() else ""
    if old:
        text = merge(old, sections, header)
    else:
        text = "\n".join(header + [line for lines in sections.values() for line in [*lines, ""]]).rstrip() + "\n"
    output.write_text(text, encoding="utf-8")
    print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
