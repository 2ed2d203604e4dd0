"""The games list: one row of plain text per game (finishing order, rating changes), newest first, a page at a time.

Rows go to an AG Grid, which shows text as text (names are data and never become markup there), so the
strings here are raw, not :func:`figures.text.plain`.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from figures.games import game_sides
from figures.players import is_placeholder
from figures.scale import Scale
from ratings import GameHistory, RatingRun
from ratings.numerics import signed
from ratings.stats import filter_games

__all__ = [
    "PAGE_SIZE",
    "GamesPage",
    "clicked_game",
    "finishing_order",
    "game_rows",
    "games_page",
    "parse_day",
    "player_options",
    "sides_in_game",
]

#: Games per page of the list (pages are cut on the server, so a 20,000-game history sends 25 rows at a time).
PAGE_SIZE = 25


def finishing_order(history: GameHistory, g: int) -> str:
    """Game ``g``'s result at a glance: ``"1. Ann  2. Bob / Cid (tie)  DNF: Dee"``.

    Places are competition style (a tie for 2nd is followed by 4th); players of a tie keep their entry order.
    A team takes one place, named by its members: ``"1. Ann & Bob  2. Cid & Dee"``.
    """
    groups: dict[int, list[str]] = {}
    dropped: list[str] = []
    for side in game_sides(history, g):
        if side.dnf:
            dropped.append(side.label)
        else:
            groups.setdefault(side.position, []).append(side.label)
    parts = [f"{pos}. {' / '.join(group)}{' (tie)' if len(group) > 1 else ''}" for pos, group in sorted(groups.items())]
    if dropped:
        parts.append("DNF: " + ", ".join(dropped))
    return "  ".join(parts)


def sides_in_game(history: GameHistory, g: int) -> int:
    """How many places game ``g`` hands out: its players, or in a team game its teams."""
    s = history.game_slice(g)
    return int(history.flat_team[s].max()) + 1 if s.stop > s.start else 0


def _changes(run: RatingRun, g: int, scale: Scale) -> str:
    """Each participant's change, best place first: ``"Ann +16, Bob −16"``."""
    h = run.history
    s = h.game_slice(g)
    order = np.argsort(h.flat_position[s], kind="stable")
    names = [h.players[p] for p in h.flat_player[s][order]]
    change = scale.change_between(run.before[s], run.after[s])[order]
    return ", ".join(f"{name} {signed(float(c))}" for name, c in zip(names, change, strict=True))


def game_rows(
    run: RatingRun, games: Sequence[int] | np.ndarray, scale: Scale, player: str | None = None
) -> list[dict[str, Any]]:
    """One row per game in ``games`` (in the order given): game index, number, id, date, order, changes.

    With ``player`` (who took part in every listed game), also their ``place`` (``"2 of 5"``, ``"DNF of 5"``)
    and ``change``.
    """
    h = run.history
    index = h.player_index.get(player) if player else None
    rows: list[dict[str, Any]] = []
    for g in (int(x) for x in games):
        game = h.games[g]
        row: dict[str, Any] = {
            "index": g,
            "number": g + 1,
            "game": game.id,
            "date": game.date.isoformat() if game.date is not None else "",
            "order": finishing_order(h, g),
            "changes": _changes(run, g, scale),
        }
        if index is not None:
            s = h.game_slice(g)
            at = np.flatnonzero(h.flat_player[s] == index)
            if len(at):
                k = s.start + int(at[0])
                size = sides_in_game(h, g)
                row["place"] = f"DNF of {size}" if h.flat_dnf[k] else f"{int(h.flat_position[k])} of {size}"
                row["change"] = float(scale.change_between(run.before[k], run.after[k]))
        rows.append(row)
    return rows


def parse_day(value: Any) -> dt.date | None:
    """A date picker's value (``"2024-03-01"``, possibly with a time) as a date; anything else is no date."""
    if not isinstance(value, str):
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def player_options(history: GameHistory) -> list[dict[str, str]]:
    """Every player but placeholders, by name."""
    names = sorted((p for p in history.players if not is_placeholder(p)), key=str.casefold)
    return [{"label": p, "value": p} for p in names]


class GamesPage(NamedTuple):
    """One page of the games list."""

    rows: list[dict[str, Any]]
    summary: str  #: how many games match and which are shown, in words
    shown: int  #: the page shown (1 when the one asked for is not there)
    pages: int  #: how many pages the matching games fill


def games_page(
    run: RatingRun,
    scale: Scale,
    *,
    player: Any = None,
    start: Any = None,
    end: Any = None,
    page: Any = 1,
) -> GamesPage:
    """The page of the games that match (a player, a date range; untrusted values are no filter), newest first."""
    who = player if isinstance(player, str) and player in run.history.player_index else None
    games = filter_games(run.history, player=who, start=parse_day(start), end=parse_day(end))
    pages = max(1, math.ceil(len(games) / PAGE_SIZE))
    shown = page if isinstance(page, int) and not isinstance(page, bool) and 1 <= page <= pages else 1
    chunk = games[(shown - 1) * PAGE_SIZE : shown * PAGE_SIZE]
    total = run.history.n_games
    count = f"{len(games):,} of {total:,} games" if len(games) != total else f"{total:,} games"
    if len(games):
        first = (shown - 1) * PAGE_SIZE + 1
        count += f", newest first; showing {first:,}-{first + len(chunk) - 1:,}. Click a game to see it."
    return GamesPage(game_rows(run, chunk, scale, who), count, shown, pages)


def clicked_game(run: RatingRun, click: Any) -> int | None:
    """The game index of a grid click (its row id), when it names a game of ``run``."""
    row = click.get("rowId") if isinstance(click, dict) else None
    try:
        g = int(str(row))
    except ValueError:
        return None
    return g if 0 <= g < run.history.n_games else None
