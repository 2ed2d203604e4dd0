"""The current view against the pinned baseline: rows for the grid, and the same as a formula-safe CSV.

Computed only while the Compare tab is open (the download whenever its button is pressed).
"""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, dcc
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import baseline_run, current_run, describe_source
from layouts.compare import comparison_columns
from layouts.ids import Baseline, Compare, Data, Page, Params, Standings, Tab, tab_gate
from ratings.io import csv_text  # the one CSV writer (formula-safe text, numbers as numbers)

__all__ = ["comparison", "comparison_csv"]

CSV_FIELDS = ("player", "rank", "base_rank", "rank_change", "rating", "base_rating", "rating_change")


def comparison(
    source: Any, current: Any, pinned: Any, offset: Any, factor: Any
) -> tuple[list[dict[str, Any]], str, str, str]:
    """``(rows, status, unit, baseline unit)``; no rows and a plain status when nothing is pinned."""
    run = current_run(source, current)
    base = baseline_run(pinned)
    scale = figures.scale_of(run, offset, factor)
    if base is None:
        return [], "Pin a baseline (What if, in the controls) to compare the current view with it.", scale.unit, ""
    bscale = figures.scale_of(base, offset, factor)
    rows = figures.comparison_rows(run, base, scale, bscale)
    label = pinned.get("label", "baseline") if isinstance(pinned, dict) else "baseline"
    status = f"Now: {describe_source(source)}. Before: the baseline {label} on {describe_source(pinned.get('source'))}."
    if scale.unit != bscale.unit:
        status += " The two use different scales, so only ranks are compared."
    return rows, status, scale.unit, bscale.unit


def comparison_csv(rows: list[dict[str, Any]], unit: str, base_unit: str) -> str:
    """The comparison as CSV (units in the headers); no cell can start a spreadsheet formula."""
    header = [
        "player",
        "rank now",
        "rank before",
        "places moved",
        f"rating now ({unit})",
        f"rating before ({base_unit})",
        "rating change",
    ]
    return csv_text([header, *([r[k] for k in CSV_FIELDS] for r in rows)])


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
    rows, status, unit, base_unit = comparison(source, current, pinned, offset, factor)
    return rows, comparison_columns(unit, base_unit or unit), status


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
    rows, _, unit, base_unit = comparison(source, current, pinned, offset, factor)
    if not rows:
        raise PreventUpdate
    return dcc.send_string(comparison_csv(rows, unit, base_unit), "comparison.csv")
