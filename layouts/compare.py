"""The "Compare" tab: each player's rating and rank now and under the pinned baseline, sortable, as CSV."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

import figures
from layouts.busy import busy
from layouts.cells import UP_DOWN, signed_change
from layouts.ids import Compare, Tab
from ratings import RatingRun
from sources.reading import describe_source

__all__ = ["Comparison", "comparison", "comparison_columns", "tab"]

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


@dataclass(frozen=True)
class Comparison:
    """The current view against the pinned baseline: the grid's rows, the status line and the two runs' units."""

    rows: list[dict[str, Any]]
    status: str
    unit: str
    base_unit: str


def comparison(
    run: RatingRun, base: RatingRun | None, *, source: Any, pinned: Any, offset: Any, factor: Any
) -> Comparison:
    """``run`` (of ``source``) against ``base``, the run of the ``pinned`` baseline; no rows and a plain status when
    nothing is pinned (``base`` is ``None``)."""
    scale = figures.scale_of(run, offset, factor)
    if base is None:
        return Comparison(
            [], "Pin a baseline (What if, in the controls) to compare the current view with it.", scale.unit, ""
        )
    bscale = figures.scale_of(base, offset, factor)
    rows = figures.comparison_rows(run, base, scale, bscale)
    label = pinned.get("label", "baseline") if isinstance(pinned, dict) else "baseline"
    before = describe_source(pinned.get("source")) if isinstance(pinned, dict) else "unknown source"
    status = f"Now: {describe_source(source)}. Before: the baseline {label} on {before}."
    if scale.unit != bscale.unit:
        status += " The two use different scales, so only ranks are compared."
    return Comparison(rows, status, scale.unit, bscale.unit)
