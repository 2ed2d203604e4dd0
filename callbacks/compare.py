"""The current view against the pinned baseline: rows for the grid, and the same as a formula-safe CSV.

Computed only while the Compare tab is open (the download whenever its button is pressed).
"""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, dcc
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import baseline_run, current_run
from layouts.compare import Comparison, comparison, comparison_columns
from layouts.ids import Baseline, Compare, Data, Page, Params, Standings, Tab, tab_gate


# source, settings, pinned baseline, scale, visible tab -> the side-by-side grid
@callback(
    Output(Compare.GRID, "rowData"),
    Output(Compare.GRID, "columnDefs"),
    Output(Compare.STATUS, "children"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Baseline.STORE, "data"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.COMPARE), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_compare(source, current, pinned, offset, factor, tab, _gate=None):
    if tab != Tab.COMPARE:
        raise PreventUpdate  # computed when the tab opens
    view = _comparison(source, current, pinned, offset, factor)
    return view.rows, comparison_columns(view.unit, view.base_unit or view.unit), view.status


# "Comparison CSV" button -> the same rows as a CSV download
@callback(
    Output(Compare.CSV, "data"),
    Input(Compare.CSV_BUTTON, "n_clicks"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Baseline.STORE, "data"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    prevent_initial_call=True,
)
def on_compare_csv(_clicks, source, current, pinned, offset, factor):
    view = _comparison(source, current, pinned, offset, factor)
    if not view.rows:
        raise PreventUpdate
    return dcc.send_string(figures.comparison_csv(view.rows, view.unit, view.base_unit), "comparison.csv")


def _comparison(source: Any, current: Any, pinned: Any, offset: Any, factor: Any) -> Comparison:
    """The current run against the pinned baseline's (``PreventUpdate`` while the stores are not ready)."""
    run = current_run(source, current)
    return comparison(run, baseline_run(pinned), source=source, pinned=pinned, offset=offset, factor=factor)
