"""The page frame: the lazy tabs' content mounted on first opening; the Settings button folds the control column on
narrow screens; name suggestions."""

from __future__ import annotations

import json
from typing import Any

from dash import Input, Output, State, callback, clientside_callback, no_update
from dash.exceptions import PreventUpdate

from layouts.ids import LAZY_TABS, Aliases, Page, Record, Tab, tab_body
from layouts.page import tab_content


def mount(tab: Any, mounted: Any) -> tuple[Any, ...]:
    """Each lazy tab's box (its content for ``tab`` when not yet in place, else unchanged) and the mounted list."""
    done = [t for t in mounted if t in LAZY_TABS] if isinstance(mounted, list) else []
    if tab not in LAZY_TABS or tab in done:
        raise PreventUpdate  # the Standings and All games tabs are always in place; a mounted tab stays as it is
    boxes = [tab_content(Tab(tab)) if t == tab else no_update for t in LAZY_TABS]
    return (*boxes, [*done, tab])


# the tab opened (a click, or a link naming it) -> its content, the first time (it stays mounted afterwards)
@callback(
    *[Output(tab_body(t), "children") for t in LAZY_TABS],
    Output(Page.MOUNTED, "data"),
    Input(Page.TABS, "active_tab"),
    State(Page.MOUNTED, "data"),
    prevent_initial_call=True,
)
def on_tab(tab: Any, mounted: Any) -> tuple[Any, ...]:
    return mount(tab, mounted)


# Settings button -> control column open or closed (wide screens always show it, by CSS)
@callback(
    Output(Page.CONTROLS_COLLAPSE, "is_open"),
    Input(Page.CONTROLS_TOGGLE, "n_clicks"),
    State(Page.CONTROLS_COLLAPSE, "is_open"),
    prevent_initial_call=True,
)
def toggle_controls(_clicks: int | None, is_open: bool | None) -> bool:
    return not is_open


# a list of names -> the options of its datalist, written by the browser as text (layouts.datalist says why they
# are not components)
for _list, _data in ((Record.NAMES, Record.NAMES_DATA), (Aliases.NAMES, Aliases.NAMES_DATA)):
    clientside_callback(
        """function(names) {
            var list = document.getElementById(LIST);
            if (list) {
                var options = document.createDocumentFragment();
                (Array.isArray(names) ? names : []).forEach(function (name) {
                    var option = document.createElement("option");
                    option.value = String(name);
                    options.appendChild(option);
                });
                list.replaceChildren(options);
            }
            return window.dash_clientside.no_update;
        }""".replace("LIST", json.dumps(str(_list))),
        Output(_list, "title"),
        Input(_data, "data"),
        prevent_initial_call=True,
    )
