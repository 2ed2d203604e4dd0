"""A closed tab costs no request: its callbacks wait on a gate that the browser opens only while the tab shows.

The Games, Player, Predictions and Compare tabs read the current run.  Their callbacks used to take the data source,
the settings, the pinned baseline and the display scale as inputs and answer PreventUpdate while their tab was
closed, yet every change still sent each of them a request (about 11 of the 16 per parameter change), and on a busy
server those requests queue behind the one that matters.  Now those values are their *states*, and their one input
is the tab's gate (``layouts.ids.tab_gate``): a store that a clientside callback bumps when one of the values
changes while the tab is open, or when the tab opens.  A change made on another tab is picked up when the tab opens.

The gate's value says why it opened: ``{"n": count, "why": [ids that changed]}`` (the tab's own id when it opened),
since the gated callbacks see only the gate as their trigger: :func:`callbacks.runs.opened_by` reads it (the Games
tab keeps its page through a parameter change and returns to the newest game for new data).
"""

from __future__ import annotations

import json

from dash import Input, Output, State, clientside_callback

from layouts.clientside import JOIN_QUERY_JS
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

# What a change wakes in the browser, in ONE callback (each callback a change wakes costs the page a round of
# bookkeeping over every component, so three small ones cost three rounds):
# - the open tab, the values its views read, the gates' counts -> the open tab's gate plus one, the others as they
#   are;
# - settings or data -> on a phone, the open Settings panel folded away so the result of the change shows (the panel
#   is about 1,600 px tall there; wide screens always show it, by CSS, whatever is_open says);
# - the shareable query's two parts (the settings'; the data's and display's), each with one writer -> joined, the
#   address bar (no reload, no history entry), the Share card's link box and its "open this view" link.
clientside_callback(
    """
    function(tab) {
        JOIN_QUERY
        var nu = window.dash_clientside.no_update;
        var tabs = TABS;
        var n = arguments.length;
        var counts = Array.prototype.slice.call(arguments, n - tabs.length, n);
        var changed = (window.dash_clientside.callback_context.triggered || []).map(function (t) {
            return t.prop_id.split(".")[0];
        });
        var query = joinQuery(arguments[QUERY_AT], arguments[QUERY_AT + 1]);
        var isPart = function (c) { return c === PARAMS_PART || c === VIEW_PART; };
        var onlyQuery = changed.length > 0 && changed.every(isPart);
        var queryChanged = changed.some(isPart);
        var link = nu, href = nu;
        if (queryChanged && query !== null) {
            var target = window.location.pathname + query;
            if (window.location.pathname + window.location.search !== target) {
                window.history.replaceState(window.history.state, "", target);
            }
            link = window.location.origin + target;
            href = query || "?";
        }
        var gates = tabs.map(function (name, i) {
            if (tab !== name || onlyQuery) { return nu; }
            var before = counts[i] && typeof counts[i].n === "number" ? counts[i].n : 0;
            return {n: before + 1, why: changed.filter(function (c) { return !isPart(c); })};
        });
        var fold = nu;
        if ((changed.indexOf(SETTINGS) >= 0 || changed.indexOf(SOURCE) >= 0) && window.innerWidth < 992) {
            window.scrollTo({top: 0});
            fold = false;
        }
        return gates.concat([fold, link, href]);
    }
    """.replace("TABS", json.dumps([str(t) for t in GATED_TABS]))
    .replace("QUERY_AT", str(1 + len(GATE_SOURCES)))
    .replace("PARAMS_PART", json.dumps(str(Page.SHARE_PARAMS)))
    .replace("VIEW_PART", json.dumps(str(Page.SHARE_VIEW)))
    .replace("SETTINGS", json.dumps(str(Params.SETTINGS)))
    .replace("SOURCE", json.dumps(str(Data.SOURCE)))
    .replace("JOIN_QUERY", JOIN_QUERY_JS),
    *[Output(tab_gate(tab), "data") for tab in GATED_TABS],
    Output(Page.CONTROLS_COLLAPSE, "is_open", allow_duplicate=True),
    Output(Page.SHARE_URL, "value"),
    Output(Page.SHARE_LINK, "href"),
    Input(Page.TABS, "active_tab"),
    *[Input(ident, prop) for ident, prop in GATE_SOURCES],
    Input(Page.SHARE_PARAMS, "data"),
    Input(Page.SHARE_VIEW, "data"),
    *[State(tab_gate(tab), "data") for tab in GATED_TABS],
    prevent_initial_call=True,
)
