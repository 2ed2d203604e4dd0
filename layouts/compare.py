"""The "Compare" tab: each player's rating and rank now and under the pinned baseline, sortable, as CSV."""

from __future__ import annotations

from typing import Any

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

from layouts.busy import busy
from layouts.cells import UP_DOWN, signed_change
from layouts.ids import Compare, Tab

__all__ = ["comparison_columns", "tab"]

NUMBER = {"function": "params.value == null ? '' : d3.format(',.4~r')(params.value)"}
PLACES = {
    "function": "params.value == null ? '' : params.value > 0 ? '+' + params.value : "
    "params.value < 0 ? '−' + (-params.value) : '0'"
}


def comparison_columns(unit: str, base_unit: str) -> list[dict[str, Any]]:
    """Columns of :func:`figures.comparison_rows`; headers name each side's unit."""
    narrow = {"flex": 1, "minWidth": 84}
    return [
        {"field": "player", "headerName": "player", "pinned": "left", "width": 110, "cellClass": "fw-semibold"},
        {"field": "rank", "headerName": "rank now", **narrow, "sort": "asc"},
        {"field": "base_rank", "headerName": "rank before", **narrow},
        {
            "field": "rank_change",
            "headerName": "places moved",
            "valueFormatter": PLACES,
            "cellClassRules": UP_DOWN,
            "headerTooltip": "places moved up (+) or down (-) since the baseline",
            **narrow,
        },
        {"field": "rating", "headerName": f"rating now ({unit})", "valueFormatter": NUMBER, **narrow},
        {"field": "base_rating", "headerName": f"rating before ({base_unit})", "valueFormatter": NUMBER, **narrow},
        {
            "field": "rating_change",
            "headerName": "rating change",
            "valueFormatter": signed_change(4),
            "cellClassRules": UP_DOWN,
            "headerTooltip": "now minus before (blank when the two are on different scales)",
            **narrow,
        },
    ]


def tab() -> dbc.Tab:
    """Status line, the download button and the grid."""
    return dbc.Tab(
        html.Div(
            [
                html.Div(
                    [
                        html.Div(id=Compare.STATUS, className="small text-muted me-2 flex-grow-1"),
                        dbc.Button("Comparison CSV", id=Compare.CSV_BUTTON, size="sm", outline=True, color="secondary"),
                    ],
                    className="d-flex align-items-start gap-2 mb-2",
                ),
                dcc.Download(id=Compare.CSV),
                busy(
                    dag.AgGrid(
                        id=Compare.GRID,
                        rowData=[],
                        columnDefs=comparison_columns("rating", "rating"),
                        getRowId="params.data.player",
                        defaultColDef={
                            "sortable": True,
                            "resizable": True,
                            "suppressMovable": True,
                            "wrapHeaderText": True,
                            "autoHeaderHeight": True,
                        },
                        dashGridOptions={"animateRows": False, "tooltipShowDelay": 300, "domLayout": "autoHeight"},
                        style={"width": "100%"},
                        className="ag-theme-quartz",
                    )
                ),
            ],
            className="pt-2",
        ),
        label="Compare",
        tab_id=Tab.COMPARE,
    )
