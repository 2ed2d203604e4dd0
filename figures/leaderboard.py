"""Leaderboard rows (for the grid and the CSV download, so names stay raw text here) and their trend sparklines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from figures.players import is_placeholder
from figures.scale import Scale
from ratings import RatingRun
from ratings.numerics import without_noise

__all__ = ["SPARK_CHARS", "leaderboard_rows", "sparkline"]

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


def _recent_after(run: RatingRun, width: int = 10) -> dict[int, np.ndarray]:
    """Each player's last ``width`` ratings (after their games, in play order), by player index: one stable sort
    of the flat entries instead of a scan of the whole history per player."""
    h = run.history
    order = np.argsort(h.flat_player, kind="stable")  # by player, in play order within a player
    counts = np.bincount(h.flat_player, minlength=h.n_players)
    ends = np.cumsum(counts)
    after = run.after[order]
    return {p: after[max(int(ends[p] - counts[p]), int(ends[p]) - width) : int(ends[p])] for p in range(h.n_players)}


def leaderboard_rows(
    run: RatingRun,
    *,
    min_games: int = 0,
    scale: Scale | None = None,
    baseline: RatingRun | None = None,
) -> list[dict[str, Any]]:
    """Leaderboard rows, best first: rank, player, rating, games, wins, average place, last change, trend.

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
    recent = _recent_after(run)
    index = run.history.player_index
    for rank, record in enumerate(table.to_dict("records"), start=1):
        player = str(record["player"])
        trend = sparkline(recent[index[player]]) if player in index else ""
        after, last = float(record["rating"]), float(record["last_change"])  # rounding of the last change is 0
        row = {
            "rank": rank,
            "player": player,
            "rating": float(scale.value(record["rating"])),
            "games": int(record["games"]),
            "wins": int(record["wins"]),
            "average_place": float(record["average_place"]),
            "last_change": float(scale.change(without_noise(last, max(abs(after), abs(after - last))))),
            "trend": trend,
        }
        if baseline is not None:
            before = base_rank.get(player)
            row["shift"] = None if before is None else before - common_rank[player]
        rows.append(row)
    return rows
