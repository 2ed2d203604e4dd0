"""The page frame: the Settings button folds the control column on narrow screens; the phone's page menu."""

from __future__ import annotations

from dash import Input, Output, State, callback, clientside_callback

from layouts.ids import Nav, Page


# Settings button -> control column open or closed (wide screens always show it, by CSS)
@callback(
    Output(Page.CONTROLS_COLLAPSE, "is_open"),
    Input(Page.CONTROLS_TOGGLE, "n_clicks"),
    State(Page.CONTROLS_COLLAPSE, "is_open"),
    prevent_initial_call=True,
)
def toggle_controls(_clicks: int | None, is_open: bool | None) -> bool:
    return not is_open


# phone page menu <-> tabs: choosing a page in one shows it in the other (in the browser, no round trip)
clientside_callback(
    """
    function(menu, tab) {
        var trigger = (window.dash_clientside.callback_context.triggered[0] || {}).prop_id || "";
        var chosen = trigger.indexOf(".value") >= 0 ? menu : tab;
        if (!chosen) { return [window.dash_clientside.no_update, window.dash_clientside.no_update]; }
        return [chosen, chosen];
    }
    """,
    Output(Nav.MENU, "value"),
    Output(Page.TABS, "active_tab"),
    Input(Nav.MENU, "value"),
    Input(Page.TABS, "active_tab"),
    prevent_initial_call=True,
)
