"""The "Predictions" tab: win probabilities for an upcoming game, how well the settings predict the group's own
results, and the multiplayer Elo score function."""

from __future__ import annotations

import math
from typing import Any

import dash_bootstrap_components as dbc
import numpy as np
from dash import dcc, html

import figures
from figures import graph_config
from figures.metrics import BETTER
from layouts.ids import Evaluate, Predict, PredictTeams, ScoreFn, Tab
from layouts.labels import labelled
from sources.predictions import CALIBRATION_GAMES

__all__ = [
    "calibration_chart",
    "metrics_panel",
    "metrics_table",
    "probability_panel",
    "probability_table",
    "score_panel",
    "tab",
    "team_panel",
]


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


def team_panel() -> html.Div:
    """Two team pickers, each team's chance of winning as a heatmap and a table (the same parts as for players)."""
    return html.Div(
        [
            html.H2("Win probabilities for two teams", className="h6 mb-1"),
            dbc.Row(
                [
                    dbc.Col(
                        labelled(
                            "First team",
                            dcc.Dropdown(id=PredictTeams.FIRST, multi=True, placeholder="first team's players"),
                        ),
                        sm=6,
                        xs=12,
                    ),
                    dbc.Col(
                        labelled(
                            "Second team",
                            dcc.Dropdown(id=PredictTeams.SECOND, multi=True, placeholder="second team's players"),
                        ),
                        sm=6,
                        xs=12,
                    ),
                ],
                className="g-1 mb-1",
            ),
            html.Div(id=PredictTeams.NOTE, className="small text-muted mb-1"),
            dcc.Graph(id=PredictTeams.FIGURE, config=graph_config("team-win-probabilities", responsive=True)),
            html.Div(id=PredictTeams.TABLE, className="small"),
        ],
        className="mb-3",
    )


def metrics_panel() -> html.Div:
    """The three accuracy metrics (filled by the evaluate callback), and the calibration check, asked for with a
    button (it predicts each of the latest games again, a second or two of server time) and then kept up to date."""
    return html.Div(
        [
            html.H2("How well these settings predict the group's own results", className="h6 mb-1"),
            html.Div(id=Evaluate.PANEL, className="small"),
            dbc.Button(
                f"Check the predicted chances on the latest {CALIBRATION_GAMES} games",
                id=Evaluate.CALIBRATION_ASK,
                size="sm",
                color="outline-primary",
                className="mt-2 mb-1",
            ),
            html.Div(id=Evaluate.CALIBRATION_NOTE, className="small text-muted"),
            html.Div(id=Evaluate.CALIBRATION),
        ],
        className="mb-3",
    )


def calibration_chart(figure: Any) -> dcc.Graph:
    """The reliability chart, made when first drawn (a chart drawn while hidden keeps a desktop width on a phone)."""
    return dcc.Graph(figure=figure, config=graph_config("calibration", responsive=True), style={"height": "300px"})


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
            [
                dbc.Col([probability_panel(), team_panel()], xl=7, xs=12),
                dbc.Col([metrics_panel(), score_panel()], xl=5, xs=12),
            ],
            className="g-3 pt-2",
        ),
        label="Predictions",
        tab_id=Tab.PREDICTIONS,
    )


def probability_table(players: list[str], probabilities: np.ndarray, who: str = "player") -> Any:
    """The chances as a table in percent, with the expected place and each row's total (a row per player or team)."""
    rows = figures.probability_rows(players, probabilities)
    places = [figures.place_name(k) for k in range(1, probabilities.shape[1] + 1)]
    head = html.Thead(
        html.Tr([html.Th(who), *[html.Th(p) for p in places], html.Th("expected place"), html.Th("total")])
    )
    body = html.Tbody(
        [
            html.Tr(
                [html.Td(r["player"])]
                + [html.Td(f"{r[p]:.1f}%", className="num") for p in places]
                + [
                    html.Td(f"{r['expected place']:.2f}", className="num"),
                    html.Td(f"{r['total']:.0f}%", className="num"),
                ]
            )
            for r in rows
        ]
    )
    return html.Div(dbc.Table([head, body], size="sm", striped=True, className="mb-0"), className="table-responsive")


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def metrics_table(rows: list[dict[str, Any]], *, games: int, pairs: int, baseline_label: str | None) -> Any:
    """The metrics as a small table with a line saying what they count and which way is better."""
    head = ["metric", "current"] + (["baseline", ""] if baseline_label else []) + ["better when"]
    body = []
    for r in rows:
        cells = [html.Td(r["metric"], title=r["meaning"]), html.Td(_fmt(r["now"]), className="num")]
        if baseline_label:
            tone = {"better": "text-success", "worse": "text-danger"}.get(r["verdict"] or "", "text-muted")
            cells += [html.Td(_fmt(r["baseline"]), className="num"), html.Td(r["verdict"] or "", className=tone)]
        cells.append(html.Td(BETTER[r["better"]]))
        body.append(html.Tr(cells))
    note = (
        "Each game is judged by the ratings held before it "
        f"({figures.counted(games, 'game')}, {figures.counted(pairs, 'pair')}). "
        "Fewer pairs called wrong and fewer places off is better; more opponents called right is better."
    )
    parts: list[Any] = [
        dbc.Table([html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)], size="sm", className="mb-1"),
        html.Div(note, className="small text-muted"),
    ]
    if baseline_label:
        parts.append(html.Div(f"Baseline: {baseline_label}.", className="small text-muted"))
    else:
        parts.append(html.Div("Pin a baseline (in the controls) to compare.", className="small text-muted"))
    return html.Div(parts)
