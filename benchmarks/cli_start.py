"""Command-line start (issue 28 item 4): CPU seconds of ``python -m ratings rate sample:racing --system multielo`` in
a fresh process with a warm kernel cache, beside ``openskill`` (6.2.0, Plackett-Luce) rating the same races from a
fresh interpreter (reading the CSV with the standard library, rating race by race, printing the final ordinals).

Runs each ``--rounds`` times (default 5), alternating, after one untimed run of ours (which builds the kernel cache
if it is cold); prints every run's CPU (user + system, of the child process) and the medians::

    .venv/bin/python benchmarks/cli_start.py
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RACING = ROOT / "ratings" / "samples" / "racing.csv"

_OPENSKILL = r"""
import csv, sys
from openskill.models import PlackettLuce
model = PlackettLuce()
races, order = {}, []
with open(sys.argv[1], newline="", encoding="utf-8") as handle:
    for row in csv.DictReader(handle):
        if row["game"] not in races:
            races[row["game"]] = []
            order.append(row["game"])
        races[row["game"]].append((row["player"], row["place"]))
ratings = {}
for game in order:
    entrants = races[game]
    teams = [[ratings.get(p) or model.rating(name=p)] for p, _ in entrants]
    places = [int(x) if x.isdigit() else 10**6 for _, x in entrants]
    rated = model.rate(teams, ranks=places)
    for (p, _), team in zip(entrants, rated):
        ratings[p] = team[0]
for name, rating in sorted(ratings.items(), key=lambda kv: -kv[1].ordinal()):
    print(f"{name},{rating.ordinal():.6f}")
"""


def cpu_of(command: list[str]) -> float:
    """CPU seconds (user + system) of one child process running ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ours = [sys.executable, "-m", "ratings", "rate", "sample:racing", "--system", "multielo"]
    peer = [sys.executable, "-c", _OPENSKILL, str(RACING)]
    cpu_of(ours)  # the kernel cache built, if cold
    mine, theirs = [], []
    for _ in range(args.rounds):
        mine.append(cpu_of(ours))
        theirs.append(cpu_of(peer))
        print(f"ratings multielo {mine[-1]:.2f} s CPU   openskill Plackett-Luce {theirs[-1]:.2f} s CPU")
    print(
        f"median of {args.rounds}: ratings multielo {statistics.median(mine):.2f} s, "
        f"openskill {statistics.median(theirs):.2f} s"
    )


if __name__ == "__main__":
    main()
