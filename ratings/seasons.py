"""A season: the part of a history that is rated and shown, by dates (from, to) and/or the last N games.

Ratings start afresh at the season's first game: a season is rated as if its games were the whole history (the
way a group's "this season" table starts everyone level).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ratings.history import GameHistory

__all__ = ["MAX_LAST", "Season", "SeasonError", "restrict"]

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
