"""Win probabilities: each picked player's chance of each place in an upcoming game, under the current settings, and
each of two picked teams' chance under the system's own team model."""

from __future__ import annotations

from dash import Input, Output, State, callback
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import current_run
from layouts.ids import Data, Page, Params, Predict, PredictTeams, Tab, tab_gate
from layouts.predict import probability_table
from ratings import get_system
from sources.predictions import team_win_probabilities, win_probabilities


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
    return figures.prediction_options(run), figures.default_pick(run, chosen)


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
        # a short chart: a responsive graph with no height of its own drew 450 px over the panel below it (on a
        # phone, the metrics and the calibration check)
        return figures.empty_figure(str(exc).capitalize(), height=120), None, ""
    title = get_system(current["system"]).title
    note = f"Under {title} with the current parameters, from the ratings after the last game."
    return figures.probability_figure(picked, probs, system_title=title), probability_table(picked, probs), note


# source, settings -> both team pickers' options and picks (kept where possible, else the latest team game's teams)
@callback(
    Output(PredictTeams.FIRST, "options"),
    Output(PredictTeams.FIRST, "value"),
    Output(PredictTeams.SECOND, "options"),
    Output(PredictTeams.SECOND, "value"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Page.TABS, "active_tab"),
    State(PredictTeams.FIRST, "value"),
    State(PredictTeams.SECOND, "value"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_predict_teams(source, current, tab, first, second, _gate=None):
    if tab != Tab.PREDICTIONS:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    options = figures.prediction_options(run)
    first, second = figures.default_teams(run, first, second)
    return options, first, options, second


# source, settings, picked teams -> each team's chance of each place: heatmap, table, note
@callback(
    Output(PredictTeams.FIGURE, "figure"),
    Output(PredictTeams.TABLE, "children"),
    Output(PredictTeams.NOTE, "children"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    Input(PredictTeams.FIRST, "value"),
    Input(PredictTeams.SECOND, "value"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_predict_team_game(source, current, first, second, tab, _gate=None):
    if tab != Tab.PREDICTIONS:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    try:
        teams, probs = team_win_probabilities(
            run, current["system"], current.get("params") or {}, first or [], second or []
        )
    except (ValueError, NotImplementedError) as exc:
        # a short chart: a responsive graph with no height of its own drew 450 px over the panel below it (on a
        # phone, the metrics and the calibration check)
        return figures.empty_figure(str(exc).capitalize(), height=120), None, ""
    title = get_system(current["system"]).title
    note = f"Under {title}'s own team model with the current parameters, from the ratings after the last game."
    return figures.probability_figure(teams, probs, system_title=title), probability_table(teams, probs, "team"), note
