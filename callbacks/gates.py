"""A closed tab costs no request: its callbacks wait on a gate that the browser opens only while the tab shows.

The Games, Player, Predictions and Compare tabs read the current run.  Their callbacks used to take the data source,
the settings, the pinned baseline and the display scale as inputs and answer PreventUpdate while their tab was
closed, yet every change still sent each of them a request (about 11 of the 16 per parameter change), and on a busy
server those requests queue behind the one that matters.  Now those values are their *states*, and their one input
is the tab's gate (``layouts.ids.tab_gate``): a store that a clientside callback bumps when one of the values
changes while the tab is open, or when the tab opens.  A change made on another tab is picked up when the tab opens.
"""

from __future__ import annotations

import json

from dash import Input, Output, State, clientside_callback

from layouts.ids import GATED_TABS, Baseline, Data, Page, Params, Standings, tab_gate

__all__ = ["GATE_SOURCES"]

#: What a gated tab's views are computed from: a change to any of them, while the tab is open, opens the gate.
GATE_SOURCES = (
    (Data.SOURCE, "data"),
    (Params.SETTINGS, "data"),
    (Baseline.STORE, "data"),
    (Standings.SCALE_OFFSET, "value"),
    (Standings.SCALE_FACTOR, "value"),
)

# the open tab, the values its views read, the gates' counts -> the open tab's count plus one, the others as they
# are (one callback for all the gates: each callback a change wakes costs the page a round of bookkeeping)
clientside_callback(
    """
    function(tab) {
        var tabs = TABS;
        var counts = Array.prototype.slice.call(arguments, arguments.length - tabs.length);
        return tabs.map(function (name, i) {
            if (tab !== name) { return window.dash_clientside.no_update; }
            return (typeof counts[i] === "number" ? counts[i] : 0) + 1;
        });
    }
    """.replace("TABS", json.dumps([str(t) for t in GATED_TABS])),
    *[Output(tab_gate(tab), "data") for tab in GATED_TABS],
    Input(Page.TABS, "active_tab"),
    *[Input(ident, prop) for ident, prop in GATE_SOURCES],
    *[State(tab_gate(tab), "data") for tab in GATED_TABS],
    prevent_initial_call=True,
)
