"""What the time-aware dynamics cost a replay (issue 27 item 1): every system's ``rate`` with each dynamic off (the
default) and on, on the bundled racing sample and on a generated racing history (default 20,000 races); CPU seconds,
best of ``--repeat`` after a warm-up run, all in one process so the ratios compare like with like.

Glicko-2's growth over rating periods is always on with dates: its "off" is the same games without their dates.

    .venv/bin/python benchmarks/dynamics.py --games 20000 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generated import community_history
from ratings import SYSTEM_NAMES, GameHistory, create
from ratings.kernels import warm_up
from ratings.samples import load_sample

SINGLE = ("multielo", "pairwise-elo", "plackett-luce", "thurstonian")

#: (system, name of the dynamic, its settings): each dynamic on its own, and the single-rating systems' all at once.
DYNAMICS: list[tuple[str, str, dict[str, Any]]] = [
    *(
        (system, name, settings)
        for system in SINGLE
        for name, settings in (
            ("boost", {"boost": 1.0}),
            ("boost + forget", {"boost": 1.0, "forget_per_day": 0.01}),
            ("pull", {"pull_per_day": 0.01}),
            ("all", {"boost": 1.0, "forget_per_day": 0.01, "pull_per_day": 0.01}),
        )
    ),
    ("trueskill", "tau_day", {"tau_day": 0.3}),
    ("elo-mmr", "drift_per_day", {"drift_per_day": 0.1}),
    ("elo-mmr", "drift_per_day (chi)", {"drift_per_day": 0.1, "variant": "chi"}),
    ("glicko2", "period growth", {}),
]


def undated(history: GameHistory) -> GameHistory:
    """The same games without their dates."""
    return GameHistory.from_records(
        [{"game": g.id, "player": e.player, "place": e.place} for g in history.games for e in g.entries]
    )


def best_seconds(system: str, settings: dict[str, Any], history: GameHistory, repeat: int) -> float:
    rater = create(system, **settings)
    rater.rate(history)  # warm-up (and the day numbers' first computation is part of every later run too)
    times = []
    for _ in range(repeat):
        started = time.process_time()
        rater.rate(history)
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warm_up()
    histories = {
        "racing sample": load_sample("racing"),
        f"generated {args.games:,}": community_history(args.games, args.players),
    }
    assert {s for s, _, _ in DYNAMICS} == set(SYSTEM_NAMES)
    for label, history in histories.items():
        plain = undated(history)
        print(f"\n{label}: {history.n_games} games, {history.n_players} players")
        print(f"{'system':14s}{'dynamic':22s}{'off':>10s}{'on':>10s}   on/off")
        for system, name, settings in DYNAMICS:
            base = {"variant": settings["variant"]} if "variant" in settings else {}
            if system == "glicko2":
                off = best_seconds(system, base, plain, args.repeat)
            else:
                off = best_seconds(system, base, history, args.repeat)
            on = best_seconds(system, settings, history, args.repeat)
            print(f"{system:14s}{name:22s}{off:9.4f}s{on:9.4f}s   {on / off:.2f}")


if __name__ == "__main__":
    main()
