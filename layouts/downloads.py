"""The downloads bar (the leaderboard and the history in use as CSV files) and the PNG file names of the charts."""

from __future__ import annotations

import re
from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

import figures
from layouts.ids import Downloads, Predict, ScoreFn, Standings
from ratings import SYSTEM_NAMES, get_system
from sources.reading import file_stem

__all__ = ["PNG_CHARTS", "bar", "png_configs"]


def bar() -> html.Div:
    """Two small buttons and their ``dcc.Download`` targets (charts save as PNG from their camera button)."""
    return html.Div(
        [
            html.Span("Download:", className="small text-muted me-1"),
            dbc.Button(
                "Ratings CSV",
                id=Downloads.RATINGS_BUTTON,
                color="secondary",
                outline=True,
                size="sm",
                title="The leaderboard as shown (filter and scale), safe to open in a spreadsheet",
            ),
            dbc.Button(
                "History CSV",
                id=Downloads.HISTORY_BUTTON,
                color="secondary",
                outline=True,
                size="sm",
                title="The games in use, your edits and recorded games included",
            ),
            html.Span("Charts: the camera button above each chart saves a PNG.", className="small text-muted ms-1"),
            dcc.Download(id=Downloads.RATINGS),
            dcc.Download(id=Downloads.HISTORY),
        ],
        className="d-flex flex-wrap align-items-center gap-1 mb-2 downloads",
    )


#: The charts whose camera button saves a PNG: (graph id, name, whether the graph is responsive).
PNG_CHARTS = (
    (Standings.TRAJECTORIES, "rating-trajectories", True),
    (Standings.GAME_CHANGES, "game-changes", False),
    (Standings.HEATMAP, "changes-overview", False),
    (Predict.FIGURE, "win-probabilities", True),
    (ScoreFn.FIGURE, "score-function", True),
)


def png_configs(source: dict[str, Any] | None, system: Any) -> list[Any]:
    """Each chart's config with a PNG file name that says the data set and the system, e.g.
    ``rating-trajectories-sample-poker-Multiplayer-Elo``.

    The parameters are left out on purpose: a chart's config cannot change without the browser drawing the chart
    again from scratch, and five charts redrawn on every parameter move cost more than the name is worth.
    """
    title = get_system(system).title if system in SYSTEM_NAMES else ""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", f"{file_stem(source)} {title}").strip("-")
    return [
        figures.graph_config(f"{name}-{stem}"[:150], **({"responsive": True} if responsive else {}))
        for _, name, responsive in PNG_CHARTS
    ]
