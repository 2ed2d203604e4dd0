"""Win probabilities: each picked player's chance of each place in an upcoming game, under the current settings."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
import numpy as np
from dash import Input, Output, State, callback, html
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import current_run, typed_params
from layouts.ids import Data, Page, Params, Predict, Tab, tab_gate
from ratings import RatingRun, create, get_system

__all__ = ["MAX_PLAYERS", "default_pick", "player_options", "probability_table", "win_probabilities"]

#: Most players in one predicted game (exact place probabilities grow quickly with the field).
MAX_PLAYERS = 10


def player_options(run: RatingRun) -> list[dict[str, str]]:
    """The rated players (no placeholders), best first."""
    return [{"label": r["player"], "value": r["player"]} for r in figures.leaderboard_rows(run)]


def default_pick(run: RatingRun, chosen: list[str] | None, count: int = 4) -> list[str]:
    """The previous pick where its players still exist, else the top ``count`` of the leaderboard."""
    known = set(run.players)
    kept = [p for p in (chosen or []) if p in known]
    return kept or [r["player"] for r in figures.leaderboard_rows(run)[:count]]


def win_probabilities(
    run: RatingRun, system: str, params: dict[str, Any], players: list[str]
) -> tuple[list[str], np.ndarray]:
    """``(players, P)`` with ``P[i, j]`` the chance that ``players[i]`` finishes place ``j + 1``.

    The system's own ``place_probabilities`` on the run's final state does the work; raises ``ValueError``
    for fewer than two players, more than :data:`MAX_PLAYERS`, or an unknown player.
    """
    unique = list(dict.fromkeys(players))
    if len(unique) < 2:
        raise ValueError("pick at least two players")
    if len(unique) > MAX_PLAYERS:
        raise ValueError(f"pick at most {MAX_PLAYERS} players")
    missing = [p for p in unique if p not in run.history.player_index]
    if missing:
        raise ValueError(f"not in this history: {', '.join(missing)}")
    rater = create(system, **typed_params(system, params))
    indices = np.array([run.history.player_index[p] for p in unique], dtype=np.int64)
    return unique, np.asarray(rater.place_probabilities(dict(run.state), indices), dtype=float)


def probability_table(players: list[str], probabilities: np.ndarray) -> Any:
    """The chances as a table in percent, with the expected place and each row's total."""
    rows = figures.probability_rows(players, probabilities)
    places = [figures.place_name(k) for k in range(1, probabilities.shape[1] + 1)]
    head = html.Thead(
        html.Tr([html.Th("player"), *[html.Th(p) for p in places], html.Th("expected place"), html.Th("total")])
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


# source, settings -> player options and the pick (kept where possible)
@callback(
    Output(Predict.PLAYERS, "options"),
    Output(Predict.PLAYERS, "value"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Page.TABS, "active_tab"),
    State(Predict.PLAYERS, "value"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_predict_players(source, current, tab, chosen, _gate=None):
    if tab != Tab.PREDICTIONS:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    return player_options(run), default_pick(run, chosen)


# source, settings, picked players -> probability heatmap, table, note
@callback(
    Output(Predict.FIGURE, "figure"),
    Output(Predict.TABLE, "children"),
    Output(Predict.NOTE, "children"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    Input(Predict.PLAYERS, "value"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_predict(source, current, players, tab, _gate=None):
    if tab != Tab.PREDICTIONS:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    try:
        picked, probs = win_probabilities(run, current["system"], current.get("params") or {}, players or [])
    except (ValueError, NotImplementedError) as exc:
        return figures.empty_figure(str(exc).capitalize()), None, ""
    title = get_system(current["system"]).title
    note = f"Under {title} with the current parameters, from the ratings after the last game."
    return figures.probability_figure(picked, probs, system_title=title), probability_table(picked, probs), note
