"""The replays a user could pick instead of ours, each over the same history, for benchmarks/compare.py.

Every peer takes a :class:`ratings.GameHistory` already converted to its own input shape (conversion is
not timed) and replays it with default settings:

- the ``trueskill`` package (0.4.5): one free-for-all ``TrueSkill.rate`` per game, ranks as given;
- openskill (6.2.0) Plackett-Luce and Thurstone-Mosteller (full pairing): ``model.rate`` per game;
- Elo-MMR-Py (2.0.0, the Elo-MMR authors' Rust through Python bindings): one ``rate`` call over all
  contests, on one thread (``RAYON_NUM_THREADS=1``, set before it is imported);
- a naive pure-Python multiplayer Elo loop and the same loop compiled with numba over the flat arrays
  (the near-limit reference): Cunningham's multiplayer Elo with the linear score function, K = 32,
  D = 400, tied players sharing the mean score of their positions, as our ``multielo`` defaults.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np
from numba import njit

from ratings import GameHistory

__all__ = ["PEERS", "Peer", "naive_elo", "numba_elo"]

K = 32.0
D = 400.0
INITIAL = 1000.0


def _games(history: GameHistory) -> list[tuple[list[int], list[int]]]:
    """Each game as (players, dense ranks), plain Python lists."""
    offsets = history.offsets.tolist()
    players = history.flat_player.tolist()
    ranks = history.flat_rank.tolist()
    return [(players[s:e], ranks[s:e]) for s, e in zip(offsets[:-1], offsets[1:], strict=True)]


def naive_elo(games: list[tuple[list[int], list[int]]], n_players: int) -> list[float]:
    """Multiplayer Elo as a first Python version would be written: lists and loops."""
    rating = [INITIAL] * n_players
    for players, ranks in games:
        n = len(players)
        if n < 2:
            continue
        pairs = n * (n - 1) / 2
        current = [rating[p] for p in players]
        for i, p in enumerate(players):
            ahead = sum(1 for r in ranks if r < ranks[i])
            tied = sum(1 for r in ranks if r == ranks[i])
            actual = (n - ahead - (tied + 1) / 2) / pairs
            expected = sum(1.0 / (1.0 + 10.0 ** ((current[j] - current[i]) / D)) for j in range(n) if j != i) / pairs
            rating[p] = current[i] + K * (n - 1) * (actual - expected)
    return rating


@njit(cache=True)
def _numba_elo(offsets: np.ndarray, players: np.ndarray, ranks: np.ndarray, rating: np.ndarray) -> None:
    current = np.empty(1024)
    for g in range(len(offsets) - 1):
        s = offsets[g]
        n = offsets[g + 1] - s
        if n < 2:
            continue
        pairs = n * (n - 1) / 2
        for i in range(n):
            current[i] = rating[players[s + i]]
        for i in range(n):
            ahead = 0
            tied = 0
            for j in range(n):
                if ranks[s + j] < ranks[s + i]:
                    ahead += 1
                elif ranks[s + j] == ranks[s + i]:
                    tied += 1
            actual = (n - ahead - (tied + 1) / 2) / pairs
            expected = 0.0
            for j in range(n):
                if j != i:
                    expected += 1.0 / (1.0 + 10.0 ** ((current[j] - current[i]) / D))
            rating[players[s + i]] = current[i] + K * (n - 1) * (actual - expected / pairs)


def numba_elo(history: GameHistory) -> np.ndarray:
    """The naive loop compiled with numba over the flat arrays (games of at most 1024 players)."""
    rating = np.full(history.n_players, INITIAL)
    _numba_elo(history.offsets, history.flat_player, history.flat_rank, rating)
    return rating


class Peer:
    """A peer replay: ``prepare(history)`` builds its input (untimed), ``run(prepared)`` replays (timed)."""

    def __init__(self, name: str, version: str, prepare: Callable[[GameHistory], Any], run: Callable[[Any], Any]):
        self.name = name
        self.version = version
        self.prepare = prepare
        self.run = run


def _trueskill_peer() -> Peer:
    import trueskill

    def run(games: list[tuple[list[int], list[int]]]) -> dict[int, Any]:
        env = trueskill.TrueSkill()
        ratings: dict[int, Any] = {}
        for players, ranks in games:
            if len(players) < 2:
                continue
            teams = [(ratings.get(p) or env.create_rating(),) for p in players]
            for p, (new,) in zip(players, env.rate(teams, ranks=ranks), strict=True):
                ratings[p] = new
        return ratings

    return Peer("trueskill package", f"trueskill {trueskill.__version__}", _games, run)


def _openskill_peer(model_name: str, label: str) -> Peer:
    from importlib.metadata import version

    from openskill import models

    def run(games: list[tuple[list[int], list[int]]]) -> dict[int, Any]:
        model = getattr(models, model_name)()
        ratings: dict[int, Any] = {}
        for players, ranks in games:
            if len(players) < 2:
                continue
            teams = [[ratings.get(p) or model.rating()] for p in players]
            for p, (new,) in zip(players, model.rate(teams, ranks=ranks), strict=True):
                ratings[p] = new
        return ratings

    return Peer(label, f"openskill {version('openskill')}", _games, run)


def _elo_mmr_peer() -> Peer:
    import elo_mmr_py

    def prepare(history: GameHistory) -> list[Any]:
        contests = []
        for players, ranks in _games(history):
            if len(players) < 2:
                continue
            # Zero-based inclusive rank intervals: a tie group spans the positions it covers.
            start = {}
            for r in sorted(set(ranks)):
                start[r] = sum(1 for x in ranks if x < r)
            size = {r: ranks.count(r) for r in set(ranks)}
            standings = [(str(p), start[r], start[r] + size[r] - 1) for p, r in zip(players, ranks, strict=True)]
            contests.append(elo_mmr_py.Contest(sorted(standings, key=lambda s: s[1])))
        return contests

    def run(contests: list[Any]) -> Any:
        return elo_mmr_py.rate(contests, system="mmr")

    return Peer("Elo-MMR-Py (1 thread)", f"Elo-MMR-Py {elo_mmr_py.__version__}", prepare, run)


def _naive_peer() -> Peer:
    return Peer(
        "naive Python multiplayer Elo", "this file", lambda h: (_games(h), h.n_players), lambda a: naive_elo(*a)
    )


def _numba_peer() -> Peer:
    return Peer("numba multiplayer Elo loop", "this file", lambda h: h, numba_elo)


#: name -> factory (a missing package skips that peer).
PEERS: dict[str, Callable[[], Peer]] = {
    "trueskill": _trueskill_peer,
    "openskill-pl": lambda: _openskill_peer("PlackettLuce", "openskill Plackett-Luce"),
    "openskill-tm": lambda: _openskill_peer("ThurstoneMostellerFull", "openskill Thurstone-Mosteller full"),
    "elo-mmr-py": _elo_mmr_peer,
    "naive-elo": _naive_peer,
    "numba-elo": _numba_peer,
}
