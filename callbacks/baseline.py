"""What if: pin the current source, system and parameters as a baseline; unpin it (:mod:`sources.baselines`)."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, ctx

from layouts.ids import Baseline, Data, Params
from sources.baselines import pin, status


# pin / unpin buttons (with the current source and settings) -> baseline store
@callback(
    Output(Baseline.STORE, "data"),
    Input(Baseline.PIN, "n_clicks"),
    Input(Baseline.UNPIN, "n_clicks"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    prevent_initial_call=True,
)
def on_pin(_pin: int | None, _unpin: int | None, source: Any, current: Any) -> Any:
    return pin(source, current) if ctx.triggered_id == Baseline.PIN else None


# baseline store (pinned, restored from the address, or cleared), data in use -> unpin button, status line
@callback(
    Output(Baseline.UNPIN, "disabled"),
    Output(Baseline.STATUS, "children"),
    Input(Baseline.STORE, "data"),
    Input(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_baseline(pinned: Any, source: Any) -> tuple[bool, str]:
    return status(pinned, source)
