"""The page frame: the Settings button folds the control column on narrow screens."""

from __future__ import annotations

from dash import Input, Output, State, callback

from layouts.ids import Page


# Settings button -> control column open or closed (wide screens always show it, by CSS)
@callback(
    Output(Page.CONTROLS_COLLAPSE, "is_open"),
    Input(Page.CONTROLS_TOGGLE, "n_clicks"),
    State(Page.CONTROLS_COLLAPSE, "is_open"),
    prevent_initial_call=True,
)
def toggle_controls(_clicks: int | None, is_open: bool | None) -> bool:
    return not is_open
