"""The current view against the pinned baseline: each player's rating and rank under both, and the differences."""

from __future__ import annotations

from typing import Any

from figures.leaderboard import leaderboard_rows
from figures.scale import Scale
from ratings import RatingRun

__all__ = ["comparison_rows"]


def comparison_rows(
    current: RatingRun, baseline: RatingRun, scale: Scale, baseline_scale: Scale
) -> list[dict[str, Any]]:
    """One row per player of either run (by name), current rank first, then players only the baseline has.

    ``rank``/``rating`` are the current view's, ``base_rank``/``base_rating`` the baseline's (``None`` where a run
    does not have the player); ``rank_change`` is places moved up (positive) since the baseline; ``rating_change``
    is current minus baseline, given only when both are shown in the same unit (two systems' numbers do not
    subtract).  Ranks are the leaderboards' (placeholders left out).
    """
    now = leaderboard_rows(current, scale=scale)
    before = {r["player"]: r for r in leaderboard_rows(baseline, scale=baseline_scale)}
    same_unit = scale.unit == baseline_scale.unit
    rows: list[dict[str, Any]] = []
    for r in now:
        b = before.pop(r["player"], None)
        rows.append(
            {
                "player": r["player"],
                "rank": r["rank"],
                "rating": r["rating"],
                "base_rank": b["rank"] if b else None,
                "base_rating": b["rating"] if b else None,
                "rank_change": b["rank"] - r["rank"] if b else None,
                "rating_change": r["rating"] - b["rating"] if b and same_unit else None,
            }
        )
    for b in before.values():
        rows.append(
            {
                "player": b["player"],
                "rank": None,
                "rating": None,
                "base_rank": b["rank"],
                "base_rating": b["rating"],
                "rank_change": None,
                "rating_change": None,
            }
        )
    return rows
