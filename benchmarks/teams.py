"""Team games beside free-for-all: every system's replay of 20,000 games of 2v2 and 3v3 (issue 25).

The team history has 20,000 games among 500 players: 60% are two pairs, 40% two teams of three, a few (5%) are
drawn, and one game in twenty has a player who played half of it (weight 0.5).  The free-for-all twin is the same
games with the teams removed: every player on their own, placed where their team was (so a 2v2 is a four-player
game with two tied for first).  Both have the same entries, so time per entry compares like with like.

Each system replays both with default settings through ``rate`` (the compiled kernels where a system has them;
a kernel that does not rate team games hands each to the per-game hooks, which these figures show), best of
``--repeat`` runs after one warm-up run.  Beside them, the peers that rate teams: the ``trueskill`` package
(0.4.5, ``rate`` with ``weights``) and openskill (6.2.0) Plackett-Luce and Thurstone-Mosteller full, one call per
game on the team history (once: they take seconds).

    .venv/bin/python benchmarks/teams.py            # prints a Markdown section for BENCHMARKS.md
    .venv/bin/python benchmarks/teams.py --quick    # 2,000 games, to try it
    .venv/bin/python benchmarks/teams.py --no-peers --systems multielo glicko2 --repeat 9
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ratings import Entry, Game, GameHistory
from ratings.systems import SYSTEM_NAMES, create


def histories(n_games: int, n_players: int = 500, seed: int = 25) -> tuple[GameHistory, GameHistory]:
    """(team history, its free-for-all twin): the same entries, with and without teams."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, n_players)
    names = [f"p{i:03d}" for i in range(n_players)]
    teams, free = [], []
    for g in range(n_games):
        size = 2 if rng.random() < 0.6 else 3
        chosen = rng.choice(n_players, size=2 * size, replace=False)
        sides = [chosen[:size], chosen[size:]]
        weights = [np.ones(size), np.ones(size)]
        if rng.random() < 0.05:
            weights[int(rng.integers(2))][int(rng.integers(size))] = 0.5
        strength = [float(np.dot(w, skill[s])) for s, w in zip(sides, weights, strict=True)]
        if rng.random() < 0.05:
            places = (1, 1)
        else:
            first = rng.random() < 1.0 / (1.0 + np.exp(strength[1] - strength[0]))
            places = (1, 2) if first else (2, 1)
        team_entries, free_entries = [], []
        for t, (side, ws) in enumerate(zip(sides, weights, strict=True)):
            for p, w in zip(side, ws, strict=True):
                team_entries.append(Entry(names[p], places[t], f"team {t + 1}", float(w)))
                free_entries.append(Entry(names[p], places[t]))
        teams.append(Game(f"g{g}", tuple(team_entries)))
        free.append(Game(f"g{g}", tuple(free_entries)))
    return GameHistory(teams), GameHistory(free)


def best_of(run: Callable[[], Any], repeat: int) -> float:
    """Seconds of the fastest of ``repeat`` runs, after one untimed warm-up run."""
    run()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def once(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def trueskill_package(history: GameHistory) -> Callable[[], Any]:
    import trueskill

    games = [
        (
            [[e.player for e in g.entries if e.team == t] for t in dict.fromkeys(e.team for e in g.entries)],
            [[e.weight for e in g.entries if e.team == t] for t in dict.fromkeys(e.team for e in g.entries)],
            [min(e.place for e in g.entries if e.team == t) for t in dict.fromkeys(e.team for e in g.entries)],
        )
        for g in history.games
    ]

    def run() -> None:
        env = trueskill.TrueSkill()
        ratings: dict[str, Any] = {}
        for teams, weights, ranks in games:
            groups = [[ratings.get(p) or env.create_rating() for p in t] for t in teams]
            rated = env.rate(groups, ranks=ranks, weights=weights)
            for t, group in zip(teams, rated, strict=True):
                ratings.update(zip(t, group, strict=True))

    return run


def openskill_model(history: GameHistory, model_name: str) -> Callable[[], Any]:
    from openskill import models

    games = [
        (
            [[e.player for e in g.entries if e.team == t] for t in dict.fromkeys(e.team for e in g.entries)],
            [min(e.place for e in g.entries if e.team == t) for t in dict.fromkeys(e.team for e in g.entries)],
        )
        for g in history.games
    ]

    def run() -> None:
        model = getattr(models, model_name)()
        ratings: dict[str, Any] = {}
        for teams, ranks in games:
            groups = [[ratings.get(p) or model.rating(name=p) for p in t] for t in teams]
            rated = model.rate(groups, ranks=ranks)
            for t, group in zip(teams, rated, strict=True):
                ratings.update(zip(t, group, strict=True))

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2,000 games instead of 20,000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true", help="leave out the trueskill package and openskill")
    parser.add_argument("--systems", nargs="*", default=list(SYSTEM_NAMES), help="the systems to time (default: all)")
    args = parser.parse_args()
    n_games = 2_000 if args.quick else 20_000
    team, free = histories(n_games)
    entries = int(team.offsets[-1])
    print(f"## Team games (`benchmarks/teams.py`): {n_games} games of 2v2 and 3v3, {team.n_players} players")
    print()
    print(
        f"{entries:,} entries in both histories; {int((team.flat_weight < 1).sum())} partial-play entries; "
        f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"best of {args.repeat} after a warm-up run."
    )
    print()
    print("| system | team games (ms) | free-for-all (ms) | µs per entry, teams | µs per entry, free | teams / free |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in args.systems:
        system = create(name)
        t_team = best_of(lambda s=system: s.rate(team), args.repeat)
        t_free = best_of(lambda s=system: s.rate(free), args.repeat)
        print(
            f"| {name} | {1e3 * t_team:.1f} | {1e3 * t_free:.1f} | {1e6 * t_team / entries:.2f} | "
            f"{1e6 * t_free / entries:.2f} | {t_team / t_free:.2f} |"
        )
    if not args.no_peers:
        print()
        print("| peer, on the team history (one run) | seconds | µs per entry |")
        print("|---|---:|---:|")
        for label, run in (
            ("trueskill package 0.4.5 (`rate` with weights)", trueskill_package(team)),
            ("openskill 6.2.0 PlackettLuce", openskill_model(team, "PlackettLuce")),
            ("openskill 6.2.0 ThurstoneMostellerFull", openskill_model(team, "ThurstoneMostellerFull")),
        ):
            seconds = once(run)
            print(f"| {label} | {seconds:.2f} | {1e6 * seconds / entries:.1f} |")


if __name__ == "__main__":
    main()
