"""Seasons, in two senses.

A season as a VIEW (:class:`Season`, :func:`restrict`): the part of a history that is rated and shown, by dates
(from, to) and/or the last N games.  Ratings start afresh at the season's first game: a season is rated as if its
games were the whole history (the way a group's "this season" table starts everyone level).

A season as a RATING RULE (:func:`season_starts`, the parameters ``season_days`` and ``season_shrink`` every system
declares through :class:`ratings.params.Declared`): the whole history is rated, and at the first game of each
season of ``season_days`` days (counted from the first dated game) every player's state moves the share
``season_shrink`` of the way back to a newcomer's (1: a reset, as racetime.gg starts each season's leaderboard
afresh; between 0 and 1: a shrink toward the initial rating, the regression to the mean between seasons that
FiveThirtyEight's NFL Elo ratings apply, a third of the way back, in "How Our NFL Predictions Work").  A group
can then ask the Fit tab whether its resets help predict its games.  Which state moves is each system's
:attr:`ratings.base.RatingSystem.season_state` (ratings and uncertainties, never dates).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from ratings.history import GameHistory

__all__ = ["MAX_LAST", "SEASON_PARAMS", "Season", "SeasonError", "restrict", "season_starts"]

#: The parameters of the season rule, declared once for every system (:class:`ratings.params.Declared`).
SEASON_PARAMS = ("season_days", "season_shrink")
#: Day number of an undated game in a replay's ``days`` (:data:`ratings.base.NO_DATE`).
_NO_DATE = -1

#: Largest "last N games" accepted.
MAX_LAST = 10_000_000


class SeasonError(ValueError):
    """A season that selects no game, or cannot be applied to the history; ``str()`` says why."""


@dataclass(frozen=True)
class Season:
    """Games played from ``start`` to ``end`` (both included, either open), then only the ``last`` N of them."""

    start: dt.date | None = None
    end: dt.date | None = None
    last: int | None = None

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise SeasonError(f"the season starts ({self.start}) after it ends ({self.end})")
        if self.last is not None and not 1 <= self.last <= MAX_LAST:
            raise SeasonError(f"the last number of games must be a whole number from 1 to {MAX_LAST:,}")

    @property
    def whole(self) -> bool:
        """True when the season is the whole history."""
        return self.start is None and self.end is None and self.last is None

    def __str__(self) -> str:
        parts = []
        if self.start is not None and self.end is not None:
            parts.append(f"games from {self.start} to {self.end}")
        elif self.start is not None:
            parts.append(f"games from {self.start}")
        elif self.end is not None:
            parts.append(f"games until {self.end}")
        if self.last is not None:
            parts.append(f"the last {self.last} game" + ("s" if self.last != 1 else ""))
        return ", ".join(parts) if parts else "all games"


def restrict(history: GameHistory, season: Season) -> GameHistory:
    """The games of ``history`` in ``season``, in their order; :class:`SeasonError` when none is.

    A date range on a history whose games have no dates is an error (games without a date cannot be placed in it).
    """
    if season.whole:
        return history
    games = list(history.games)
    if season.start is not None or season.end is not None:
        undated = sum(1 for g in games if g.date is None)
        if undated == len(games):
            raise SeasonError("the games have no dates, so a date range selects none; choose the last N games instead")
        if undated:
            raise SeasonError(
                f"{undated} of {len(games)} games have no date, so a date range cannot place them; "
                "choose the last N games instead"
            )
        games = [
            g
            for g in games
            if (season.start is None or g.date >= season.start)  # type: ignore[operator]
            and (season.end is None or g.date <= season.end)  # type: ignore[operator]
        ]
        if not games:
            info = history.summary()
            raise SeasonError(
                f"no game was played in the range ({season}); the games run from {info['first_date']} to "
                f"{info['last_date']}"
            )
    if season.last is not None:
        games = games[-season.last :]
    if len(games) == len(history.games):
        return history
    return GameHistory(games, history.warnings)


def season_starts(days: np.ndarray, length: float | None) -> np.ndarray:
    """Indices of the games that open a new season of ``length`` days (none when ``length`` is None).

    ``days`` holds one day number per game in replay order (``date.toordinal()``; -1 for an undated game).  Season
    ``k`` covers the days from ``d0 + k * length`` (``d0``: the first dated game's day) up to the next; a game
    opens a season when it is the first game of a later season than every game before it.  An undated game stays
    in the season of the games before it, and a history without dates has one season.
    """
    days = np.asarray(days, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    if length is None or not len(days):
        return none
    dated = days != _NO_DATE
    if not dated.any():
        return none
    first = int(days[np.argmax(dated)])
    season = np.where(dated, np.floor((days - first) / float(length)), -np.inf)
    reached = np.maximum.accumulate(season)
    return (np.flatnonzero(reached[1:] > reached[:-1]) + 1).astype(np.int64)
