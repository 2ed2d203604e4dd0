"""Fit to our games / Compare all systems: background jobs with progress and Cancel, and applying a result."""

from __future__ import annotations

import time
from typing import Any

import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate
from flask import request

from callbacks.runs import settings_of
from layouts.fit import compare_view, failed_view, fit_view, waiting_label
from layouts.ids import Baseline, Data, Fit, FitType, Page, Params
from ratings import tune
from sources.baselines import use_fitted
from sources.fitting import compare_systems, fit_system
from sources.jobs import NO_WORKER, JobRefused, board, failed_result, workers_ready

#: Longest search a visitor may ask for (the slider's top), so one click cannot hold a worker longer.
MAX_BUDGET = 120.0


def _budget(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and 1 <= value <= MAX_BUDGET else 20.0


def _refused(message: str) -> tuple[Any, Any]:
    return no_update, dbc.Alert(message, color="warning", className="small py-1")


# Fit / Compare buttons -> the job's request (which search, and its ticket on the job board), or, with no worker to
# run it or past the visitor's or the server's share of searches, a message at once
@callback(
    Output(Fit.REQUEST, "data"),
    Output(Fit.VIEW, "children", allow_duplicate=True),
    Input(Fit.RUN, "n_clicks"),
    Input(Fit.COMPARE, "n_clicks"),
    prevent_initial_call=True,
)
def on_fit_asked(_run: Any, _compare: Any) -> tuple[Any, Any]:
    if ctx.triggered_id not in (Fit.RUN, Fit.COMPARE):
        raise PreventUpdate
    if not workers_ready():
        return _refused(NO_WORKER)
    try:
        ticket = board().enter(request.remote_addr or "unknown")
    except JobRefused as exc:
        return _refused(str(exc))
    kind = "compare" if ctx.triggered_id == Fit.COMPARE else "fit"
    return {"kind": kind, "at": time.time(), "ticket": ticket}, no_update


# the job's request (with the data, settings, budget and measure) -> the result store, in the background, once the
# job board gives it a slot (the progress bar says how many jobs are ahead meanwhile)
@callback(
    Output(Fit.RESULT, "data"),
    Input(Fit.REQUEST, "data"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Fit.BUDGET, "value"),
    State(Fit.METRIC, "value"),
    State(Fit.SEASONS, "value"),
    State(Fit.DYNAMICS, "value"),
    State(Fit.FRESH, "value"),
    background=True,
    progress=[Output(Fit.PROGRESS, "value"), Output(Fit.PROGRESS, "label")],
    running=[
        (Output(Fit.RUN, "disabled"), True, False),
        (Output(Fit.COMPARE, "disabled"), True, False),
        (Output(Fit.CANCEL, "disabled"), False, True),
        (Output(Fit.PROGRESS, "animated"), True, False),
    ],
    cancel=[Input(Fit.CANCEL, "n_clicks")],
    prevent_initial_call=True,
)
def on_fit(set_progress, asked, source, current, budget, metric, seasons, dynamics, fresh):
    settings = settings_of(current)
    if not isinstance(asked, dict) or source is None or settings is None or metric not in tune.METRICS:
        raise PreventUpdate
    seconds = _budget(budget)
    options: dict[str, Any] = {
        "seasons": seasons is True,
        "dynamics": dynamics is True,
        "held_out_start": "fresh" if fresh is True else "carried",
    }

    def progress(share: float, label: str) -> None:
        set_progress((share, label))

    def waiting(ahead: int, running: int) -> None:
        set_progress((0, waiting_label(ahead, running)))

    try:
        with board().slot(asked.get("ticket"), waiting):
            if asked.get("kind") == "compare":
                result = compare_systems(source, budget=seconds, metric=metric, progress=progress, **options)
            else:
                result = fit_system(source, *settings, budget=seconds, metric=metric, progress=progress, **options)
    except JobRefused as exc:
        return failed_result(str(exc))
    set_progress((100, "done"))
    return result


# the result store -> the result view
@callback(Output(Fit.VIEW, "children"), Input(Fit.RESULT, "data"), prevent_initial_call=True)
def on_result(result: Any) -> Any:
    if not isinstance(result, dict):
        raise PreventUpdate
    if result.get("kind") == "failed":
        return failed_view(result)
    return compare_view(result) if result.get("kind") == "compare" else fit_view(result)


# a "use" button -> current settings pinned as the baseline; the system and its fitted values in the controls
@callback(
    Output(Baseline.STORE, "data", allow_duplicate=True),
    Output(Params.SYSTEM, "value", allow_duplicate=True),
    Output(Page.URL_STATE, "data", allow_duplicate=True),
    Input({"type": FitType.APPLY, "index": ALL}, "n_clicks"),
    State(Fit.RESULT, "data"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    prevent_initial_call=True,
)
def on_apply(clicks: list[Any], result: Any, source: Any, current: Any) -> tuple[Any, Any, Any]:
    trigger = ctx.triggered_id
    if not any(clicks) or not isinstance(trigger, dict):
        raise PreventUpdate
    outcome = use_fitted(trigger.get("index"), result, source, current)
    if outcome is None:
        return no_update, no_update, no_update
    return outcome
