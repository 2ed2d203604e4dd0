"""The "Predictions" tab: win probabilities for an upcoming game, how well the settings predict the group's own
results, and the multiplayer Elo score function."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from figures import graph_config
from layouts.ids import Evaluate, Predict, ScoreFn, Tab
from layouts.labels import labelled

__all__ = ["metrics_panel", "probability_panel", "score_panel", "tab"]


def probability_panel() -> html.Div:
    """Player picker, the chance-of-each-place heatmap and the same numbers as a table."""
    return html.Div(
        [
            html.H2("Win probabilities for an upcoming game", className="h6 mb-1"),
            labelled(
                "Players in the game",
                dcc.Dropdown(
                    id=Predict.PLAYERS, multi=True, placeholder="players in the game (2 to 10)", className="mb-1"
                ),
            ),
            html.Div(id=Predict.NOTE, className="small text-muted mb-1"),
            dcc.Graph(id=Predict.FIGURE, config=graph_config("win-probabilities", responsive=True)),
            html.Div(id=Predict.TABLE, className="small"),
        ],
        className="mb-3",
    )


def metrics_panel() -> html.Div:
    """The three accuracy metrics (filled by the evaluate callback)."""
    return html.Div(
        [
            html.H2("How well these settings predict the group's own results", className="h6 mb-1"),
            html.Div(id=Evaluate.PANEL, className="small"),
        ],
        className="mb-3",
    )


def score_panel() -> html.Div:
    """Game-size slider and the score-function chart."""
    return html.Div(
        [
            html.H2("Multiplayer Elo: what the score base means", className="h6 mb-1"),
            html.Label("players in the game", htmlFor=ScoreFn.SIZE, className="small"),
            labelled(
                "Players in the game (score function)",
                dcc.Slider(id=ScoreFn.SIZE, min=2, max=12, step=1, value=6, marks={n: str(n) for n in range(2, 13)}),
            ),
            dcc.Graph(
                id=ScoreFn.FIGURE, config=graph_config("score-function", responsive=True), style={"height": "320px"}
            ),
            html.Div(id=ScoreFn.NOTE, className="small text-muted"),
        ],
        className="mb-3",
    )


def tab() -> dbc.Tab:
    """Probabilities (left on wide screens), metrics and the score function (right); stacked on a phone."""
    return dbc.Tab(
        dbc.Row(
            [dbc.Col(probability_panel(), xl=7, xs=12), dbc.Col([metrics_panel(), score_panel()], xl=5, xs=12)],
            className="g-3 pt-2",
        ),
        label="Predictions",
        tab_id=Tab.PREDICTIONS,
    )
