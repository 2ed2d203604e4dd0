"""Per-game changes: a chosen game's bars, and the players x games overview."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from figures import graph_config
from layouts.busy import busy
from layouts.ids import Standings, Tab
from layouts.labels import labelled

__all__ = ["game_panel", "overview_panel", "tab"]


def game_panel() -> html.Div:
    """Game picker and the bar chart of each participant's change."""
    return html.Div(
        [
            html.H2("One game", className="h6 mb-1"),
            labelled(
                "Game to show",
                dcc.Dropdown(id=Standings.GAME, clearable=False, placeholder="pick a game", className="mb-1"),
            ),
            busy(dcc.Graph(id=Standings.GAME_CHANGES, config=graph_config("game-changes"), style={"height": "340px"})),
        ],
        className="mb-3",
    )


def overview_panel() -> html.Div:
    """Heatmap of changes for the drawn players across all games."""
    return html.Div(
        [
            html.Div(
                "Rows are the players drawn in the trajectories; a cross marks a last place (or DNF) that gained "
                "points or a winner that lost points.",
                className="small text-muted mb-1",
            ),
            dcc.Graph(
                id=Standings.HEATMAP,
                config=graph_config("changes-overview"),
                responsive=True,  # drawn after its tab opens: take the full width
                style={"height": "440px"},
            ),
        ]
    )


def tab() -> dbc.Tab:
    """The "All games" tab: the overview heatmap."""
    return dbc.Tab(html.Div(overview_panel(), className="pt-2"), label="All games", tab_id=Tab.OVERVIEW)
