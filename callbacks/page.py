"""The page frame: the Settings button folds the control column on narrow screens; name suggestions."""

from __future__ import annotations

import json

from dash import Input, Output, State, callback, clientside_callback

from layouts.ids import Aliases, Page, Record


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
