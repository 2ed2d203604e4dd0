"""The trajectories panel: player picker and the rating-over-time chart."""

from __future__ import annotations

from dash import dcc, html

from figures import graph_config
from layouts.busy import busy
from layouts.ids import Standings
from layouts.labels import labelled

__all__ = ["trajectories_panel"]


def trajectories_panel() -> html.Div:
    """Player picker (default: the most active) and the chart; a click on a point picks that game."""
    return html.Div(
        [
            html.H2("Rating over time", className="h6 mb-1"),
            labelled(
                "Players to draw",
                dcc.Dropdown(id=Standings.PLAYERS, multi=True, placeholder="players to draw", className="mb-1"),
            ),
            busy(
                dcc.Graph(
                    id=Standings.TRAJECTORIES,
                    config=graph_config("rating-trajectories", responsive=True),
                    style={"height": "420px"},
                )
            ),
            html.Div("Click a point to see that game below.", className="small text-muted"),
        ],
        className="mb-3",
    )
