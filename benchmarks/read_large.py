"""Reading a large plain long CSV from a trusted local path (issue 28 item 1): rows per second and the memory the
read holds beyond the history's own arrays.

Generates a long CSV (``game,date,player,place``) of ``--rows`` rows (default 3 million) in a temporary directory:
contests of 2 to 2,000 entrants (sizes drawn from a heavy-tailed law), 200,000 players who return at random, one
contest a day, about 1 in 50 entrants tied with the one before and 1 in 100 not finishing.  Then reads it
``--repeat`` times, each in a fresh process (``ratings.io.read_file(path)``), and prints for each read the CPU seconds,
rows per second, the rise of the peak resident memory over the process's memory before the read (``VmHWM`` minus
``VmRSS``), the history's arrays in bytes, and what the read held beyond them per row::

    .venv/bin/python benchmarks/read_large.py            # 3 million rows
    .venv/bin/python benchmarks/read_large.py --rows 300000

Timings are CPU of the reading process on whatever else the machine is doing.
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
import json, sys, time
from pathlib import Path
from ratings.io import read_file

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)

small = Path(sys.argv[2])
read_file(small)  # the modules imported and warm: what is measured is the read
base = status("VmRSS")
started = time.process_time()
history = read_file(Path(sys.argv[1])).history
cpu = time.process_time() - started
peak = status("VmHWM")
arrays = sum(a.nbytes for a in (history.offsets, history.flat_player, history.flat_rank, history.flat_dnf,
    history.flat_place, history.flat_position, history.flat_game, history.flat_team, history.flat_weight,
    history.team_game))
rows = int(history.offsets[-1])
print(json.dumps({"rows": rows, "games": history.n_games, "players": history.n_players, "cpu": cpu,
                  "rise": peak - base, "arrays": arrays}))
"""


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.csv"
        small = Path(tmp) / "small.csv"
        rows = generate(path, args.rows)
        generate(small, 100, seed=1)
        print(f"file: {rows:,} rows, {path.stat().st_size / 1e6:.1f} MB")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        results = []
        for _ in range(args.repeat):
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, str(path), str(small)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(done.stdout.strip().splitlines()[-1])
            beyond = (r["rise"] - r["arrays"]) / r["rows"]
            results.append((r["cpu"], r["rows"] / r["cpu"], r["rise"], beyond))
            print(
                f"read {r['rows']:,} rows ({r['games']:,} games, {r['players']:,} players): {r['cpu']:.2f} s CPU, "
                f"{r['rows'] / r['cpu'] / 1e6:.2f} M rows/s; peak memory +{r['rise'] / 1e6:.0f} MB, arrays "
                f"{r['arrays'] / 1e6:.0f} MB, beyond the arrays {beyond:.1f} bytes/row"
            )
        print(
            f"median of {len(results)}: {statistics.median(r[1] for r in results) / 1e6:.2f} M rows/s, "
            f"{statistics.median(r[3] for r in results):.1f} bytes/row beyond the arrays"
        )


if __name__ == "__main__":
    main()
