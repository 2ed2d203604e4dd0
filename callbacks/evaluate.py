"""How well the settings predict the group's own results (beside the pinned baseline), and the score function."""

from __future__ import annotations

from dash import Input, Output, State, callback
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import baseline_run, current_run
from layouts.ids import Baseline, Data, Evaluate, Page, Params, ScoreFn, Tab, tab_gate
from layouts.predict import calibration_chart, metrics_table
from ratings.metrics import evaluate
from sources.predictions import recent_calibration


# source, settings, pinned baseline -> metrics table
@callback(
    Output(Evaluate.PANEL, "children"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Baseline.STORE, "data"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_metrics(source, current, pinned, tab, _gate=None):
    if tab != Tab.PREDICTIONS:
        raise PreventUpdate  # computed when the tab opens
    now = evaluate(current_run(source, current))
    pinned_run = baseline_run(pinned)
    base = evaluate(pinned_run) if pinned_run is not None else None
    rows = figures.metrics_rows(now, base)
    return metrics_table(rows, games=now.games, pairs=now.pairs, baseline_label=pinned.get("label") if base else None)


# the calibration button (once pressed, also the tab's gate: source, settings) -> the reliability chart of the latest
# games' predicted chances to win and its sentence (a prediction per game, so only once asked for)
@callback(
    Output(Evaluate.CALIBRATION, "children"),
    Output(Evaluate.CALIBRATION_NOTE, "children"),
    Input(Evaluate.CALIBRATION_ASK, "n_clicks"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Page.TABS, "active_tab"),
    prevent_initial_call=True,
)
def on_calibration(asked, _gate, source, current, tab):
    if not asked or tab != Tab.PREDICTIONS:
        raise PreventUpdate  # not asked for yet, or computed when the tab opens again
    check = recent_calibration(current_run(source, current))
    words = figures.calibration_words(check.calibration, check.log_loss, check.games)
    return calibration_chart(figures.calibration_figure(check.calibration)), words


# settings (system and base), game size -> score-function figure and note
@callback(
    Output(ScoreFn.FIGURE, "figure"),
    Output(ScoreFn.NOTE, "children"),
    State(Params.SETTINGS, "data"),
    Input(ScoreFn.SIZE, "value"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_score_function(current, size, _gate=None):
    current = current or {}
    return figures.score_view(current.get("system"), current.get("params"), size)
