"""A parameter change on a 20,000-game history (issue 28 item 3): each system's whole ``rate()`` on
benchmarks/compare.py's history L (20,000 games of 4-10 from 500 players, 10% with a tie), against the issue's
target of 0.5 s of server CPU.

A parameter change is a fresh replay with other settings (a run is memoised per settings, so nothing is resumed):
each system is first warmed (its kernels loaded, one untimed ``rate()`` on the racing sample), then ``rate()`` on L
with its default settings is timed ``--repeat`` times (CPU of this process) and the best and the median printed.
Run from the repository root::

    .venv/bin/python benchmarks/param_change.py --repeat 3

Nothing is asserted about speed (a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from compare import seeded_history  # noqa: E402

from ratings import SYSTEM_NAMES, create  # noqa: E402
from ratings.samples import load_sample  # noqa: E402

#: The issue's target: server CPU for a parameter change on a 20,000-game history.
TARGET_SECONDS = 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--systems", nargs="+", default=None)
    args = parser.parse_args()
    history = seeded_history(20_000, 500, 4, 10, tie_rate=0.1, seed=3)
    warm = load_sample("racing")
    for name in args.systems or SYSTEM_NAMES:
        system = create(name)
        system.rate(warm)
        times = []
        for _ in range(args.repeat):
            started = time.process_time()
            system.rate(history)
            times.append(time.process_time() - started)
        best, median = min(times), statistics.median(times)
        verdict = "within" if median <= TARGET_SECONDS else "OVER"
        print(
            f"{name}: best {best:.3f} s, median {median:.3f} s of {args.repeat}; {verdict} {TARGET_SECONDS} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
