"""The downloads bar: the leaderboard and the history in use as CSV files."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from layouts.ids import Downloads

__all__ = ["bar"]


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
