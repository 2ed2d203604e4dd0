"""What the season rule costs a replay: every system's ``rate`` on a generated 20,000-race history with seasons off
(the default), with 90-day seasons and a full reset, and with 90-day seasons shrinking halfway; CPU seconds, best of
``--repeat`` (after a warm-up run), all in one process so the ratios compare like with like.

    .venv/bin/python benchmarks/seasons.py --games 20000 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generated import community_history
from ratings import SYSTEM_NAMES, create
from ratings.kernels import warm_up
from ratings.seasons import season_starts

RULES = {
    "off": {},
    "90 d, reset": {"season_days": 90.0},
    "90 d, shrink 0.5": {"season_days": 90.0, "season_shrink": 0.5},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warm_up()
    history = community_history(args.games, args.players)
    import numpy as np

    seasons = len(season_starts(np.array([d.toordinal() for d in history.dates]), 90.0)) + 1
    print(f"{history.n_games} games, {history.n_players} players, {seasons} seasons of 90 days")
    print(f"{'system':14s}" + "".join(f"{name:>20s}" for name in RULES) + "   ratio reset/off")
    for system in SYSTEM_NAMES:
        best = {}
        for name, rule in RULES.items():
            rater = create(system, **rule)
            rater.rate(history)  # warm-up
            times = []
            for _ in range(args.repeat):
                started = time.process_time()
                rater.rate(history)
                times.append(time.process_time() - started)
            best[name] = min(times)
        row = "".join(f"{best[name]:19.3f}s" for name in RULES)
        print(f"{system:14s}{row}   {best['90 d, reset'] / best['off']:.2f}")


if __name__ == "__main__":
    main()
