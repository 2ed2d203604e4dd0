"""Leaderboard rows (for the grid and the CSV download, so names stay raw text here) and their trend sparklines."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from figures.players import is_placeholder
from figures.scale import Scale
from ratings import RatingRun
from ratings.numerics import without_noise

__all__ = [
    "LEADERBOARD_PAGE",
    "SORTABLE",
    "SPARK_CHARS",
    "LeaderboardPage",
    "LeaderboardSort",
    "leaderboard_page",
    "leaderboard_rows",
    "leaderboard_sort",
    "sparkline",
]

SPARK_CHARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float] | np.ndarray, width: int = 10) -> str:
    """The last ``width`` values as block characters, lowest ▁ to highest █ (relative to themselves)."""
    data = np.asarray(values, dtype=float)[-width:]
    if len(data) == 0:
        return ""
    low, high = float(data.min()), float(data.max())
    if high - low < 1e-12:
        return SPARK_CHARS[3] * len(data)
    steps = np.round((data - low) / (high - low) * (len(SPARK_CHARS) - 1)).astype(int)
    return "".join(SPARK_CHARS[i] for i in steps)


def _recent_after(run: RatingRun, players: Sequence[int], width: int = 10) -> dict[int, np.ndarray]:
    """The last ``width`` ratings (after their games, in play order) of each of ``players`` (indices): one stable
    sort of the flat entries instead of a scan of the whole history per player."""
    h = run.history
    order = np.argsort(h.flat_player, kind="stable")  # by player, in play order within a player
    counts = np.bincount(h.flat_player, minlength=h.n_players)
    ends = np.cumsum(counts)
    after = run.after
    return {p: after[order[max(int(ends[p] - counts[p]), int(ends[p]) - width) : int(ends[p])]] for p in players}


def leaderboard_rows(
    run: RatingRun,
    *,
    min_games: int = 0,
    scale: Scale | None = None,
    baseline: RatingRun | None = None,
    trends: bool = True,
) -> list[dict[str, Any]]:
    """Leaderboard rows, best first: rank, player, rating, games, wins, average place, last change, trend.

    ``trends=False`` leaves the trend out (:func:`leaderboard_page` draws it for the rows of its page only).

    Placeholder players are left out and ranks count only the players shown.  With a ``baseline``,
    ``shift`` is how many places a player moved up (positive) or down among the players both rankings hold,
    matched by name (``None`` for a player the baseline does not know).  On the same data that is the whole
    ranking; a baseline pinned on other data is compared only where both have the player.
    """
    scale = scale or Scale(unit=run.scale)
    table = run.leaderboard()
    table = table[[not is_placeholder(p) for p in table["player"]]]
    table = table[table["games"] >= min_games]
    base_rank: dict[str, int] = {}
    if baseline is not None:
        base = baseline.leaderboard()
        base = base[[not is_placeholder(p) for p in base["player"]]]
        base = base[base["games"] >= min_games]
        shown = {str(p) for p in table["player"]}
        common = [str(p) for p in base["player"] if str(p) in shown]
        base_rank = {p: i + 1 for i, p in enumerate(common)}
    both = [str(p) for p in table["player"] if str(p) in base_rank]
    common_rank = {p: i + 1 for i, p in enumerate(both)}
    rows: list[dict[str, Any]] = []
    for rank, record in enumerate(table.to_dict("records"), start=1):
        player = str(record["player"])
        after, last = float(record["rating"]), float(record["last_change"])  # rounding of the last change is 0
        row = {
            "rank": rank,
            "player": player,
            "rating": float(scale.value(record["rating"])),
            "games": int(record["games"]),
            "wins": int(record["wins"]),
            "average_place": float(record["average_place"]),
            "last_change": float(scale.change(without_noise(last, max(abs(after), abs(after - last))))),
        }
        if baseline is not None:
            before = base_rank.get(player)
            row["shift"] = None if before is None else before - common_rank[player]
        rows.append(row)
    return _with_trends(run, rows) if trends else rows


def _with_trends(run: RatingRun, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with each player's trend sparkline (``trend``) added, in place."""
    index = run.history.player_index
    recent = _recent_after(run, [index[r["player"]] for r in rows if r["player"] in index])
    for row in rows:
        player = row["player"]
        row["trend"] = sparkline(recent[index[player]]) if player in index else ""
    return rows


#: Leaderboard rows per page: the page is cut on the server, so a 20,000-player history sends 100 rows at a time.
LEADERBOARD_PAGE = 100

#: The columns the leaderboard sorts by (the trend is a picture, not a value).
SORTABLE = ("rank", "shift", "player", "rating", "games", "wins", "average_place", "last_change")

#: Longest search text the leaderboard matches (a longer one is cut there).
SEARCH_CHARS = 100


class LeaderboardSort(NamedTuple):
    """The order of the leaderboard: a column of :data:`SORTABLE`, descending or not."""

    column: str = "rating"
    descending: bool = True


def leaderboard_sort(value: Any) -> LeaderboardSort:
    """The sort the page asks for (``{"column": "games", "descending": false}``, untrusted); anything else is the
    best rating first."""
    if isinstance(value, dict) and value.get("column") in SORTABLE and isinstance(value.get("descending"), bool):
        return LeaderboardSort(str(value["column"]), value["descending"])
    return LeaderboardSort()


class LeaderboardPage(NamedTuple):
    """One page of the leaderboard."""

    rows: list[dict[str, Any]]
    summary: str  #: how many players match and which are shown, in words ("" when one page shows them all)
    shown: int  #: the page shown (1 when the one asked for is not there)
    pages: int  #: how many pages the matching players fill
    search: str  #: the search text as matched ("" for none)


def _sorted(rows: list[dict[str, Any]], order: LeaderboardSort) -> list[dict[str, Any]]:
    """``rows`` in ``order``, as the grid itself sorts a column (so the page it holds reads the same when it sorts
    it again): a missing value (a player new to the baseline) before every number, names by code point, equal
    values in rank order."""
    column = order.column
    if column == "rank" and not order.descending:
        return rows
    return sorted(rows, key=lambda r: (r.get(column) is not None, r.get(column) or 0), reverse=order.descending)


def leaderboard_page(
    run: RatingRun, rows: list[dict[str, Any]], *, order: Any = None, search: Any = None, page: Any = 1
) -> LeaderboardPage:
    """The page of ``rows`` (from :func:`leaderboard_rows` with ``trends=False``; ranks stay those of the whole
    ranking) whose player's name holds ``search`` (ignoring case), sorted by ``order``
    (:func:`leaderboard_sort`), with their trends drawn.  Untrusted values are no search, the default order, page 1.
    """
    text = search.strip()[:SEARCH_CHARS] if isinstance(search, str) else ""
    if text:
        wanted = text.casefold()
        rows = [r for r in rows if wanted in r["player"].casefold()]
    rows = _sorted(rows, order if isinstance(order, LeaderboardSort) else leaderboard_sort(order))
    pages = max(1, math.ceil(len(rows) / LEADERBOARD_PAGE))
    shown = page if isinstance(page, int) and not isinstance(page, bool) and 1 <= page <= pages else 1
    chunk = [dict(r) for r in rows[(shown - 1) * LEADERBOARD_PAGE : shown * LEADERBOARD_PAGE]]
    summary = ""
    if pages > 1 or text:
        first = (shown - 1) * LEADERBOARD_PAGE + 1
        summary = f"{len(rows):,} player{'' if len(rows) == 1 else 's'}"
        if text:
            summary += f" whose name holds “{text}”"
        if pages > 1:
            summary += f"; showing {first:,}-{first + len(chunk) - 1:,}"
    return LeaderboardPage(_with_trends(run, chunk), summary, shown, pages, text)
