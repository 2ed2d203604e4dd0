"""The shareable address: the page's address -> its state on load, the view -> the view's part of the address.

What the query string holds, and reading and writing it, is the link codec (:mod:`sources.links`).
"""

from __future__ import annotations

from typing import Any

from dash import Input, Output, callback, no_update

from layouts.ids import TAB_NAMES, Baseline, Data, Page, Params, Standings
from sources.baselines import from_view
from sources.links import share_text, unused_line, url_state, view_part


# page address (on load) -> url state store, system dropdown, display settings, pinned baseline, the open tab
@callback(
    Output(Page.URL_STATE, "data"),
    Output(Params.SYSTEM, "value"),
    Output(Standings.MIN_GAMES, "value"),
    Output(Standings.X_AXIS, "value"),
    Output(Baseline.STORE, "data", allow_duplicate=True),
    Output(Page.TABS, "active_tab"),
    Input(Page.LOCATION, "search"),
    prevent_initial_call="initial_duplicate",
)
def read_address(search: str | None) -> tuple[Any, ...]:
    state, system = url_state(search, tabs=TAB_NAMES)
    pinned = from_view(state["pin"]) if state["pin"] else None
    if state["pin"] and pinned is None:
        reason = "that pinned baseline is not on this server (a pin is kept 30 days after its last use); pin it again"
        state["unused"].append(unused_line("pin", state["pin"], reason))
    return (
        state,
        system,
        state["min_games"] if state["min_games"] is not None else no_update,
        state["x"] or no_update,
        pinned if pinned is not None else no_update,
        state["tab"] or no_update,
    )


# data source, display settings, pinned baseline, open tab -> the view's part of the shareable query and what a link
# holds (the one writer of that part; the settings' part is written with the settings, callbacks/params.py, and the
# browser joins the two, callbacks/gates.py: a parameter change costs no request of its own for the address)
@callback(
    Output(Page.SHARE_VIEW, "data"),
    Output(Page.SHARE_TEXT, "children"),
    Input(Data.SOURCE, "data"),
    Input(Standings.MIN_GAMES, "value"),
    Input(Standings.X_AXIS, "value"),
    Input(Baseline.STORE, "data"),
    Input(Page.TABS, "active_tab"),
    prevent_initial_call=True,
)
def write_address(source: Any, min_games: Any, x_axis: Any, pinned: Any, tab: Any = None) -> tuple[dict[str, str], str]:
    return view_part(source, min_games, x_axis, pinned, tab, tabs=TAB_NAMES), share_text(source)
