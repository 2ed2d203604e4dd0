"""How well the settings predict the group's own results (beside the pinned baseline), and the score function."""

from __future__ import annotations

from dash import Input, Output, State, callback
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import baseline_run, current_run
from layouts.ids import Baseline, Data, Evaluate, Page, Params, ScoreFn, Tab, tab_gate
from layouts.predict import metrics_table
from ratings.metrics import evaluate


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
