"""Seeded racing-community histories of any size, for the benchmarks that upload or edit a large history.

Built from the pieces of the bundled samples' generator (:mod:`ratings.samples.generate`): the same racer handles,
skills that drift as a small random walk, fields of 2-30 entrants drawn by activity, finishing orders from the
Plackett-Luce model (Gumbel-max) and a did-not-finish chance of about 5-30% that is higher for weaker racers.  The
bundled ``racing`` sample is this with 2,000 races, 150 racers and four scripted story racers; here the size and
the number of racers are parameters and there is no script.

``python benchmarks/generated.py GAMES PLAYERS PATH`` writes one as a long-shape CSV (``game,date,player,place``).
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import Entry, Game, GameHistory
from ratings.io import write_csv
from ratings.samples import generate as gen

__all__ = ["community_history", "write_community_csv"]


def community_history(n_games: int, n_players: int, *, seed: int = 20261123) -> GameHistory:
    """A racing community of ``n_players`` racers and ``n_games`` races (about 8 entrants a race), seeded."""
    rng = np.random.default_rng(seed)
    players = []
    for i, name in enumerate(gen._handles(rng, n_players)):
        joins = 0.0 if i < n_players * 0.4 else float(rng.uniform(0.0, 0.85))
        leaves = 1.0 if rng.random() < 0.75 else float(rng.uniform(joins + 0.1, 1.0))
        activity = float(rng.pareto(1.5) + 0.2)  # a few racers enter almost everything
        players.append(gen._Player(name, float(rng.normal(0.0, 1.0)), joins, min(leaves, 1.0), activity))
    start = dt.date(2021, 1, 1)
    days = max(1, n_games // 3)  # about three races a day
    games = []
    for i in range(n_games):
        t = i / max(1, n_games - 1)
        if i % 10 == 0:
            gen._drift(rng, players, 0.05)
        size = 2 + int(28 * rng.beta(1.1, 3.5))
        field = gen._pick(rng, players, t, size)
        order = [field[j] for j in gen._order(rng, np.array([p.skill(t) for p in field]), 1.0)]
        dnf = [rng.random() < 0.05 + 0.25 / (1.0 + np.exp(2.0 * p.skill(t))) for p in order]
        places = iter(range(1, len(order) + 1))  # finishers renumbered 1, 2, ... in order
        entries = tuple(Entry(p.name, None if out else next(places)) for p, out in zip(order, dnf, strict=True))
        games.append(Game(f"race {i + 1:05d}", entries, start + dt.timedelta(days=int(t * days))))
    return GameHistory(games)


def write_community_csv(path: Path, n_games: int, n_players: int, *, seed: int = 20261123) -> GameHistory:
    """Write :func:`community_history` to ``path`` in the long shape (DNF as the word) and return it."""
    history = community_history(n_games, n_players, seed=seed)
    path.write_text(write_csv(history, "long"), encoding="utf-8", newline="")
    return history


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit("usage: python benchmarks/generated.py GAMES PLAYERS PATH")
    out = Path(sys.argv[3])
    made = write_community_csv(out, int(sys.argv[1]), int(sys.argv[2]))
    rows = int(made.offsets[-1])
    print(f"wrote {out}: {made.n_games} games, {made.n_players} players, {rows} rows, {out.stat().st_size:,} bytes")
