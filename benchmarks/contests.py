"""Seeded programming-contest histories at the scale of the Elo-MMR paper's data set, for the large-field benchmarks.

Ebtekar and Liu ("Elo-MMR: A Rating System for Massive Multiplayer Competitions", WWW 2021, section 6) rate
about 1,000 Codeforces contests with about 3 million results, in fields from a few hundred to tens of thousands.
This module draws a history of that shape (not that data):

- **Field sizes** follow a Pareto (power-law) tail: ``size = 450 (1 + X)`` with ``X`` Lomax-distributed of
  shape 0.8, cut at ``max_size`` (20,000).  The median is about 1,100 and the mean, with the cut, about 3,000, so
  1,000 contests make about 3 million results; about 8% of the contests have 10,000 entrants or more.
- **Players return with realistic frequency**: a pool of about one player per ten results, each with an
  activity weight drawn from a Pareto law of shape 1.2 (a few players enter almost everything, most a handful of
  times) and a joining time (40% from the start, the rest uniformly later).  A contest's field is drawn without
  replacement in proportion to activity among the players who have joined (Gumbel top-k).
- **Results**: skills drift as a random walk; a performance is skill plus logistic noise.  A score is the
  number of problems solved (performance thresholds) and, for those who solved some, a penalty time rounded to
  whole minutes (up to 2,000 a problem), so ties happen among equal scores: most tie groups are two or three
  players (about 16% of results are tied), and
  everyone who solved nothing (about ``zero_share`` of the field, 3% by default) shares the last place.

``--scale`` multiplies the number of contests (and the pool) while keeping the size law, so small versions still
contain large fields: ``--scale 0.01`` is 10 contests.  Run from the repository root::

    python benchmarks/contests.py --scale 0.01                 # print the summary
    python benchmarks/contests.py --scale 0.1 --csv c.csv     # and write the long CSV (game,date,player,place)
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import Entry, Game, GameHistory

__all__ = ["Contests", "contests", "contests_history", "write_contests_csv"]

#: The paper's data set: about 1,000 contests.
FULL_CONTESTS = 1000


@dataclass(frozen=True)
class Contests:
    """A drawn history in flat arrays: contest ``c`` is ``players[offsets[c]:offsets[c + 1]]`` with its ``places``
    (competition style: 1 + the number of players with a better score), best first."""

    offsets: np.ndarray
    players: np.ndarray
    places: np.ndarray
    days: np.ndarray

    @property
    def n_contests(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_results(self) -> int:
        return int(self.offsets[-1])

    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def tie_groups(self) -> np.ndarray:
        """The size of every tie group of two or more players."""
        out = []
        for c in range(self.n_contests):
            places = self.places[self.offsets[c] : self.offsets[c + 1]]
            counts = np.bincount(places)
            out.append(counts[counts >= 2])
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def contests(scale: float = 1.0, *, seed: int = 20261127, max_size: int = 20_000, zero_share: float = 0.03) -> Contests:
    """Draw ``round(1000 scale)`` contests (at least one) as described in the module docstring."""
    rng = np.random.default_rng(seed)
    n_contests = max(1, round(FULL_CONTESTS * scale))
    sizes = np.minimum(max_size, (450.0 * (1.0 + rng.pareto(0.8, n_contests))).astype(np.int64))
    pool = max(int(sizes.max()) + 1, int(sizes.sum()) // 10)
    activity = rng.pareto(1.2, pool) + 0.05
    joins = np.where(rng.random(pool) < 0.4, 0.0, rng.random(pool))
    skill = rng.normal(0.0, 1.0, pool)
    offsets = np.zeros(n_contests + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    players = np.empty(offsets[-1], dtype=np.int64)
    places = np.empty(offsets[-1], dtype=np.int64)
    log_activity = np.log(activity)
    for c in range(n_contests):
        t = c / max(1, n_contests - 1)
        skill += rng.normal(0.0, 0.02, pool)  # drift between contests
        n = int(sizes[c])
        keys = np.where(joins <= t, log_activity + rng.gumbel(size=pool), -np.inf)
        if np.isfinite(keys).sum() < n:  # too few have joined yet: the earliest joiners fill the field
            keys = np.where(np.isfinite(keys), keys, -joins)
        field = np.argpartition(-keys, n - 1)[:n]
        performance = skill[field] + rng.logistic(0.0, 0.5, n)
        # Problems solved: thresholds spaced so that about zero_share solve none; penalty minutes break most ties.
        cut = np.quantile(performance, zero_share) if zero_share > 0 else -np.inf
        solved = np.where(performance <= cut, 0, 1 + np.floor((performance - cut) / 0.6).astype(np.int64))
        # Penalty minutes: the later in its level, the more time spent (up to 2,000 minutes a problem).
        frac = ((performance - cut) % 0.6) / 0.6
        penalty = np.where(solved > 0, np.round(2000.0 * solved * (1.0 - frac)), 0)
        score = solved * 10_000_000 - penalty  # higher is better
        order = np.argsort(-score, kind="stable")
        sorted_score = score[order]
        better = np.searchsorted(-sorted_score, -sorted_score, side="left")  # players strictly ahead
        s = offsets[c]
        players[s : s + n] = field[order]
        places[s : s + n] = better + 1
    start = dt.date(2010, 1, 1).toordinal()
    days = start + np.round(np.linspace(0, 3650 * max(scale, 0.01), n_contests)).astype(np.int64)
    return Contests(offsets, players, places, days)


def contests_history(scale: float = 1.0, *, seed: int = 20261127, **options: float) -> GameHistory:
    """:func:`contests` as a :class:`~ratings.GameHistory` (players ``p000001``..., contests ``c0001``...)."""
    drawn = contests(scale, seed=seed, **options)  # type: ignore[arg-type]
    names = [f"p{i:06d}" for i in range(int(drawn.players.max()) + 1)]
    games = []
    for c in range(drawn.n_contests):
        s, e = drawn.offsets[c], drawn.offsets[c + 1]
        entries = tuple(
            Entry(names[p], int(place))
            for p, place in zip(drawn.players[s:e].tolist(), drawn.places[s:e].tolist(), strict=True)
        )
        games.append(Game(f"c{c + 1:04d}", entries, dt.date.fromordinal(int(drawn.days[c]))))
    return GameHistory(games)


def write_contests_csv(path: Path, drawn: Contests) -> None:
    """Write the long shape ``game,date,player,place`` (one row per result) without building per-row objects."""
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("game,date,player,place\n")
        for c in range(drawn.n_contests):
            s, e = drawn.offsets[c], drawn.offsets[c + 1]
            prefix = f"c{c + 1:04d},{dt.date.fromordinal(int(drawn.days[c])).isoformat()},p"
            out.writelines(
                f"{prefix}{p:06d},{place}\n"
                for p, place in zip(drawn.players[s:e].tolist(), drawn.places[s:e].tolist(), strict=True)
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="share of the 1,000 contests (default 1)")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--csv", type=Path, help="also write the long CSV here")
    args = parser.parse_args()
    drawn = contests(args.scale, seed=args.seed)
    sizes = drawn.sizes()
    ties = drawn.tie_groups()
    per_player = np.bincount(drawn.players)
    per_player = per_player[per_player > 0]
    print(f"contests {drawn.n_contests}, results {drawn.n_results:,}, players {len(per_player):,}")
    print(f"field sizes: median {int(np.median(sizes))}, mean {sizes.mean():.0f}, max {sizes.max()}, "
          f">=1,000: {(sizes >= 1000).sum()}, >=10,000: {(sizes >= 10_000).sum()}")  # fmt: skip
    print(f"contests per player: median {int(np.median(per_player))}, mean {per_player.mean():.1f}, "
          f"max {per_player.max()}")  # fmt: skip
    if len(ties):
        print(f"tie groups: {len(ties):,}, median {int(np.median(ties))}, largest {ties.max()}, "
              f"share of results tied {ties.sum() / drawn.n_results:.1%}")  # fmt: skip
    if args.csv:
        write_contests_csv(args.csv, drawn)
        print(f"wrote {args.csv}: {args.csv.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
