"""Statistics read from a history or a rating run: which games match a filter, and one player's record.

Pure functions over :class:`~ratings.GameHistory` and :class:`~ratings.RatingRun` (no Dash, no plotly).
Conventions follow the history model: a *win* is the best place of a game (a shared first counts), a *podium*
a competition-style position of 3 or better by a finisher, a *last place* the worst rank of a game (every DNF
shares it; so does a player tied for last).  Head-to-head: of two players in the same game, the one with the
better rank finished ahead; equal ranks (a shared place, or both did not finish, whose order is unknown) are
a tie.  Teammates are not opponents: head-to-head counts only players of other teams; partners
(:func:`partners`) are the players of the same team, with the games and wins they had together.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from ratings.base import RatingRun
from ratings.history import GameHistory

__all__ = [
    "PARTNER_MIN_GAMES",
    "HeadToHead",
    "Partner",
    "PlayerStats",
    "Streak",
    "filter_games",
    "head_to_head",
    "partners",
    "player_games",
    "player_stats",
    "rank_after_games",
    "streak",
]


def player_games(history: GameHistory, player: str) -> np.ndarray:
    """Indices of the games ``player`` took part in, in play order (empty for an unknown player)."""
    index = history.player_index.get(player)
    if index is None:
        return np.empty(0, dtype=np.int64)
    return history.flat_game[history.flat_player == index].astype(np.int64)


def filter_games(
    history: GameHistory,
    *,
    player: str | None = None,
    start: dt.date | None = None,
    end: dt.date | None = None,
) -> np.ndarray:
    """Indices of the games that match, **newest first**.

    ``player``: only games they took part in (an unknown player matches nothing).  ``start``/``end``: only
    games dated within the closed range; an undated game is outside any date range.  ``None`` means no filter.
    """
    keep = np.ones(history.n_games, dtype=bool)
    if player:
        mine = np.zeros(history.n_games, dtype=bool)
        mine[player_games(history, player)] = True
        keep &= mine
    if start is not None or end is not None:
        lo = start.toordinal() if start is not None else -1
        hi = end.toordinal() if end is not None else 10**9
        days = np.array([g.date.toordinal() if g.date is not None else -2 for g in history.games], dtype=np.int64)
        keep &= (days >= lo) & (days <= hi) & (days != -2)
    return np.flatnonzero(keep)[::-1]


@dataclass(frozen=True)
class Streak:
    """The longest run of consecutive games with some result, and the run still going after the last game."""

    longest: int
    current: int


def streak(flags: np.ndarray) -> Streak:
    """:class:`Streak` of the ``True`` values in ``flags`` (a player's games in play order)."""
    longest = current = 0
    for flag in np.asarray(flags, dtype=bool):
        current = current + 1 if flag else 0
        longest = max(longest, current)
    return Streak(longest, current)


@dataclass(frozen=True)
class HeadToHead:
    """One opponent: games played together, and in how many the player finished ahead, behind or level."""

    opponent: str
    games: int
    ahead: int
    behind: int
    ties: int


@dataclass(frozen=True)
class PlayerStats:
    """One player's record in a run.

    Arrays are aligned with ``games`` (the player's games in play order): ``position`` is the
    competition-style position (DNFs: the position after the last finisher), ``dnf``, ``size`` the number of
    participants, ``before``/``after`` the ratings and ``rank`` the player's place on the leaderboard right
    after each game (among players who had played by then; a shared rating shares the better rank).
    """

    player: str
    games: np.ndarray
    position: np.ndarray
    dnf: np.ndarray
    size: np.ndarray
    before: np.ndarray
    after: np.ndarray
    rank: np.ndarray
    wins: int
    podiums: int
    lasts: int
    dnfs: int
    average_place: float
    best: int
    worst: int
    win_streak: Streak
    podium_streak: Streak
    last_streak: Streak
    recent: np.ndarray  # positions of the last (at most) 10 games, oldest first; 0 for a DNF

    @property
    def n_games(self) -> int:
        return len(self.games)


def rank_after_games(run: RatingRun, games: np.ndarray, player: str) -> np.ndarray:
    """``player``'s leaderboard rank right after each game in ``games`` (their own games, in play order).

    The rank is 1 + the number of players who had played by then with a strictly higher rating.
    """
    h = run.history
    index = h.player_index[player]
    current = np.full(h.n_players, -np.inf)  # -inf: not yet played, never ahead
    wanted = set(int(g) for g in games)
    out = np.empty(len(games), dtype=np.int64)
    k = 0
    offsets = h.offsets
    for g in range(int(games[-1]) + 1 if len(games) else 0):
        s, e = int(offsets[g]), int(offsets[g + 1])
        current[h.flat_player[s:e]] = run.after[s:e]
        if g in wanted:
            out[k] = 1 + int(np.count_nonzero(current > current[index]))
            k += 1
    return out


def player_stats(run: RatingRun, player: str) -> PlayerStats | None:
    """The record of ``player`` in ``run``; ``None`` when the player is not in its history."""
    h = run.history
    index = h.player_index.get(player)
    if index is None:
        return None
    mask = h.flat_player == index
    games = h.flat_game[mask].astype(np.int64)
    position = h.flat_position[mask].astype(np.int64)
    rank = h.flat_rank[mask]
    dnf = h.flat_dnf[mask]
    # places a game hands out: one per player, or in a team game one per team (flat_team numbers them from 0)
    sides = np.zeros(h.n_games, dtype=np.int64)
    np.maximum.at(sides, h.flat_game, h.flat_team.astype(np.int64) + 1)
    sizes = sides[games]
    worst_rank = np.full(h.n_games, -1, dtype=np.int64)  # the worst dense rank of each game: its last place
    np.maximum.at(worst_rank, h.flat_game, h.flat_rank)
    won = (rank == 0) & ~dnf
    podium = (position <= 3) & ~dnf
    last = (rank == worst_rank[games]) & (sizes > 1)
    finished = position[~dnf]
    return PlayerStats(
        player=player,
        games=games,
        position=position,
        dnf=dnf,
        size=sizes,
        before=run.before[mask],
        after=run.after[mask],
        rank=rank_after_games(run, games, player),
        wins=int(won.sum()),
        podiums=int(podium.sum()),
        lasts=int(last.sum()),
        dnfs=int(dnf.sum()),
        average_place=float(position.mean()) if len(position) else float("nan"),
        best=int(finished.min()) if len(finished) else 0,
        worst=int(position.max()) if len(position) else 0,
        win_streak=streak(won),
        podium_streak=streak(podium),
        last_streak=streak(last),
        recent=np.where(dnf, 0, position)[-10:],
    )


def head_to_head(history: GameHistory, player: str) -> list[HeadToHead]:
    """``player``'s record against every opponent they met, most games together first (then by name)."""
    index = history.player_index.get(player)
    if index is None:
        return []
    mine = history.flat_player == index
    my_rank = np.full(history.n_games, -1, dtype=np.int64)
    my_rank[history.flat_game[mine]] = history.flat_rank[mine]
    my_team = np.full(history.n_games, -1, dtype=np.int64)
    my_team[history.flat_game[mine]] = history.flat_team[mine]
    # entries of the other teams in the player's games (the player's own entry is its own team's)
    theirs = (my_rank[history.flat_game] >= 0) & (history.flat_team != my_team[history.flat_game])
    opponents = history.flat_player[theirs]
    mine_vs = my_rank[history.flat_game[theirs]]
    other = history.flat_rank[theirs]
    n = history.n_players
    together = np.bincount(opponents, minlength=n)
    ahead = np.bincount(opponents, weights=mine_vs < other, minlength=n).astype(np.int64)
    behind = np.bincount(opponents, weights=mine_vs > other, minlength=n).astype(np.int64)
    rows = [
        HeadToHead(
            history.players[o], int(together[o]), int(ahead[o]), int(behind[o]), int(together[o] - ahead[o] - behind[o])
        )
        for o in np.flatnonzero(together)
    ]
    return sorted(rows, key=lambda r: (-r.games, r.opponent))


#: Fewest games together for a partner to be named best or worst (fewer say little about the pair).
PARTNER_MIN_GAMES = 3


@dataclass(frozen=True)
class Partner:
    """One teammate: games played on the same team, how many of them the team won (a shared first counts), and
    the player's own summed rating change in those games (``change / games`` is the measure of best and worst)."""

    partner: str
    games: int
    wins: int
    change: float

    @property
    def change_per_game(self) -> float:
        return self.change / self.games


def partners(run: RatingRun, player: str) -> list[Partner]:
    """``player``'s teammates in team games, most games together first (then by name); empty for none."""
    history = run.history
    index = history.player_index.get(player)
    if index is None or not history.has_teams:
        return []
    mine = history.flat_player == index
    my_team = np.full(history.n_games, -1, dtype=np.int64)
    my_team[history.flat_game[mine]] = history.flat_team[mine]
    gain = np.zeros(history.n_games)
    gain[history.flat_game[mine]] = (run.after - run.before)[mine]
    won = np.zeros(history.n_games, dtype=bool)
    won[history.flat_game[mine]] = (history.flat_rank[mine] == 0) & ~history.flat_dnf[mine]
    games = history.flat_game
    mates = (my_team[games] == history.flat_team) & ~mine & history.team_game[games]
    who, where = history.flat_player[mates], games[mates]
    n = history.n_players
    together = np.bincount(who, minlength=n)
    wins = np.bincount(who, weights=won[where], minlength=n)
    change = np.bincount(who, weights=gain[where], minlength=n)
    rows = [
        Partner(history.players[o], int(together[o]), int(wins[o]), float(change[o])) for o in np.flatnonzero(together)
    ]
    return sorted(rows, key=lambda r: (-r.games, r.partner))
