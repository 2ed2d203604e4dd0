"""Reading a large plain long CSV from a trusted local path (issue 28 item 1): rows per second and the memory the
read holds beyond the history's own arrays, for the column reader's byte-level path and its pandas path.

Generates a long CSV (``game,date,player,place``) of ``--rows`` rows (default 3 million) in a temporary directory:
contests of 2 to 2,000 entrants (sizes drawn from a heavy-tailed law), 200,000 players who return at random, one
contest a day, about 1 in 50 entrants tied with the one before and 1 in 100 not finishing.  Then reads it
``--repeat`` times with each path, alternating, each read in a fresh process (``ratings.io.read_file(path)``; for
the pandas path the byte-level one is switched off, as for a file it does not take), and prints for each read the
CPU seconds, rows per second, the rise of the peak resident memory over the process's memory before the read
(``VmHWM`` minus ``VmRSS``), the history's arrays in bytes, and what the read held beyond them per row.  Before the
read each process reads a small file by the same path, so that what is measured is the read, not the import of
numba or pandas.  With ``--base DIR`` each round also reads with the reader of another checkout (an earlier
commit), in the same run.  With ``--trace`` each process also traces Python's allocations (``tracemalloc``, slower) and
reports their peak beyond the arrays.  With ``--bad`` the file's middle row gets a non-numeric place, and what is
measured is the read that reports it (the message printed; a history's figures are then zero)::

    .venv/bin/python benchmarks/read_large.py            # 3 million rows
    .venv/bin/python benchmarks/read_large.py --rows 300000 --repeat 1 --trace
    .venv/bin/python benchmarks/read_large.py --rows 300000 --repeat 1 --bad --modes bytes --base /tmp/before
    git archive 9c4ccfd | tar -x -C /tmp/before && .venv/bin/python benchmarks/read_large.py --base /tmp/before

Timings are CPU of the reading process on whatever else the machine is doing: compare the paths by their ratio in
one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, sys, time, tracemalloc
from pathlib import Path
import ratings.io.columns as columns
from ratings.history import HistoryError
from ratings.io import read_file

path, small, mode, trace = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"

def not_taken(*args):
    raise columns._NotTaken

if mode == "pandas":
    columns._parse_bytes = not_taken

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)

# the path's modules imported and warm (numba and the compiled loop, or pandas): what is measured is the read
assert columns.read_long_columns(small.read_bytes(), "small.csv", None) is not None
base = status("VmRSS")
if trace:
    tracemalloc.start()
started = time.process_time()
try:
    history = read_file(path).history
except HistoryError as error:  # --bad: what is measured is the report
    cpu = time.process_time() - started
    traced = tracemalloc.get_traced_memory()[1] if trace else 0
    peak = status("VmHWM")
    print(json.dumps({"rows": int(sys.argv[5]), "games": 0, "players": 0, "cpu": cpu, "rise": peak - base,
                      "arrays": 0, "traced": traced, "error": str(error)}))
    sys.exit(0)
cpu = time.process_time() - started
traced = tracemalloc.get_traced_memory()[1] if trace else 0
peak = status("VmHWM")
arrays = sum(a.nbytes for a in (history.offsets, history.flat_player, history.flat_rank, history.flat_dnf,
    history.flat_place, history.flat_position, history.flat_game, history.flat_team, history.flat_weight,
    history.team_game))
rows = int(history.offsets[-1])
print(json.dumps({"rows": rows, "games": history.n_games, "players": history.n_players, "cpu": cpu,
                  "rise": peak - base, "arrays": arrays, "traced": traced}))
"""

#: The column reader's two paths, in the order each round runs them.
MODES = ("bytes", "pandas")


def generate(path: Path, rows: int, seed: int = 0) -> int:
    """Write the long CSV; returns its number of data rows."""
    rng = np.random.default_rng(seed)
    written = 0
    game = 0
    day = np.datetime64("2000-01-01")
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("game,date,player,place\n")
        while written < rows:
            size = int(min(2000, max(2, rng.pareto(1.2) * 20)))
            size = min(size, rows - written) if rows - written >= 2 else 2
            who = rng.choice(200_000, size=size, replace=False)
            places = np.arange(1, size + 1)
            tied = rng.random(size) < 0.02
            tied[0] = False
            for i in np.flatnonzero(tied):
                places[i] = places[i - 1]
            dnf = rng.random(size) < 0.01
            date = str(day + game)
            lines = [
                f"contest {game},{date},player {w},{'DNF' if d else p}\n"
                for w, p, d in zip(who.tolist(), places.tolist(), dnf.tolist(), strict=True)
            ]
            out.writelines(lines)
            written += size
            game += 1
    return written


def spoil(path: Path) -> int:
    """Write ``abc`` for the place of the file's middle data row (a non-numeric place: the general reader reports
    it on its row); returns that row's number as the general reader counts rows (the header is row 1)."""
    data = path.read_bytes()
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    row = len(ends) // 2 + 1  # data rows are lines 2 .. len(ends)
    at, end = int(ends[row - 2]) + 1, int(ends[row - 1])
    cells = data[at:end].split(b",")
    cells[3] = b"abc"
    path.write_bytes(data[:at] + b",".join(cells) + data[end:])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trace", action="store_true", help="also trace Python's allocations (tracemalloc)")
    parser.add_argument("--modes", default=",".join(MODES), help="paths to run, of: " + ", ".join(MODES))
    parser.add_argument(
        "--bad",
        action="store_true",
        help="one non-numeric place in the middle row: measure the read that reports it (its message printed)",
    )
    parser.add_argument(
        "--base",
        type=Path,
        help="also read with the reader of this directory (a checkout of an earlier commit, e.g. made by "
        "`git archive COMMIT | tar -x -C DIR`), as it stands there",
    )
    args = parser.parse_args()
    modes = args.modes.split(",") + (["base"] if args.base else [])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.csv"
        small = Path(tmp) / "small.csv"
        rows = generate(path, args.rows)
        generate(small, 2_000, seed=1)
        print(f"file: {rows:,} rows, {path.stat().st_size / 1e6:.1f} MB")
        if args.bad:
            print(f"a non-numeric place on row {spoil(path):,}")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        results: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
        for _ in range(args.repeat):
            for mode in modes:
                done = subprocess.run(
                    [sys.executable, "-c", _CHILD, str(path), str(small), mode, "1" if args.trace else "0", str(rows)],
                    env={**env, "PYTHONPATH": str(args.base.resolve())} if mode == "base" else env,
                    cwd=args.base if mode == "base" else ROOT,  # `python -c` imports from its directory first
                    capture_output=True,
                    text=True,
                    check=True,
                )
                r = json.loads(done.stdout.strip().splitlines()[-1])
                if "error" in r:
                    print(f"{mode:>6}: {r['error'].splitlines()[-1]}")
                r["beyond"] = (r["rise"] - r["arrays"]) / r["rows"]
                r["traced_beyond"] = (r["traced"] - r["arrays"]) / r["rows"]
                results[mode].append(r)
                traced = f", traced peak beyond the arrays {r['traced_beyond']:.1f} bytes/row" if args.trace else ""
                print(
                    f"{mode:>6}: {r['rows']:,} rows ({r['games']:,} games, {r['players']:,} players): "
                    f"{r['cpu']:.2f} s CPU, {r['rows'] / r['cpu'] / 1e6:.2f} M rows/s; peak memory "
                    f"+{r['rise'] / 1e6:.0f} MB, arrays {r['arrays'] / 1e6:.0f} MB, beyond the arrays "
                    f"{r['beyond']:.1f} bytes/row{traced}"
                )
        medians = {}
        for mode, runs in results.items():
            cpu = statistics.median(r["cpu"] for r in runs)
            medians[mode] = cpu
            traced = (
                f", traced {statistics.median(r['traced_beyond'] for r in runs):.1f} bytes/row" if args.trace else ""
            )
            print(
                f"median of {len(runs)}, {mode}: {cpu:.2f} s CPU, {runs[0]['rows'] / cpu / 1e6:.2f} M rows/s, "
                f"{statistics.median(r['beyond'] for r in runs):.1f} bytes/row beyond the arrays{traced}"
            )
        first = modes[0]
        for other in modes[1:]:
            print(f"CPU {first} / {other}: {medians[first] / medians[other]:.2f}")


if __name__ == "__main__":
    main()
