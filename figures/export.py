"""How a chart or a table leaves the page: the ``dcc.Graph`` config of a chart's PNG download button, and the
leaderboard and the comparison as CSV text, written by the project's one CSV writer (:func:`ratings.io.csv_text`: a
text cell a spreadsheet would run as a formula gets a leading apostrophe, numbers stay numbers)."""

from __future__ import annotations

import re
from typing import Any

from figures.leaderboard import leaderboard_rows
from figures.scale import Scale
from ratings import RatingRun
from ratings.io import csv_text  # the one CSV writer (formula-safe text, numbers as numbers)

__all__ = ["COMPARISON_FIELDS", "comparison_csv", "graph_config", "ratings_csv"]

#: The comparison rows' fields, in the CSV's column order (:func:`figures.compare.comparison_rows`).
COMPARISON_FIELDS = ("player", "rank", "base_rank", "rank_change", "rating", "base_rating", "rating_change")


def graph_config(filename: str, **extra: Any) -> Any:
    """A ``dcc.Graph`` config whose modebar camera button saves a PNG named ``filename`` (2x for sharp text).

    No button sends a group's data off the page (plotly's cloud and Chart Studio links are off).  Typed ``Any``:
    Dash declares the config as a TypedDict local to ``dcc.Graph``.
    """
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", filename).strip("-") or "chart"
    return {
        "displaylogo": False,
        "showSendToCloud": False,
        "showEditInChartStudio": False,
        "toImageButtonOptions": {"format": "png", "filename": safe, "scale": 2},
        **extra,
    }


def ratings_csv(run: RatingRun, *, min_games: int = 0, scale: Scale | None = None) -> str:
    """The leaderboard as CSV: rank, player, rating (with its scale in the header), games, wins, average place,
    last change.  Placeholder players are left out, as on screen; no cell can start a formula.
    """
    scale = scale or Scale(unit=run.scale)
    rows = leaderboard_rows(run, min_games=min_games, scale=scale)
    header = ["rank", "player", f"rating ({scale.unit})", "games", "wins", "average place", "last change"]
    fields = ("rank", "player", "rating", "games", "wins", "average_place", "last_change")
    return csv_text([header, *([r[k] for k in fields] for r in rows)])


def comparison_csv(rows: list[dict[str, Any]], unit: str, base_unit: str) -> str:
    """The comparison as CSV (units in the headers); no cell can start a spreadsheet formula."""
    header = [
        "player",
        "rank now",
        "rank before",
        "places moved",
        f"rating now ({unit})",
        f"rating before ({base_unit})",
        "rating change",
    ]
    return csv_text([header, *([r[k] for k in COMPARISON_FIELDS] for r in rows)])
