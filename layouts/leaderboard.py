"""The leaderboard panel and the table it shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import html

from layouts.busy import busy
from layouts.ids import Standings

__all__ = ["leaderboard_panel", "leaderboard_table"]


def leaderboard_panel() -> html.Div:
    """An empty panel; the standings callback fills it."""
    return html.Div(
        [
            html.H2("Leaderboard", className="h6 mb-1"),
            busy(html.Div(id=Standings.LEADERBOARD, className="leaderboard")),
        ],
        className="mb-3",
    )


def _number(digits: int) -> dict[str, str]:
    return {"function": f"params.value == null ? '' : d3.format(',.{digits}f')(params.value)"}


SIGNED = {"function": "params.value == null ? '' : d3.format('+.3~r')(params.value)"}
SHIFT = {
    "function": "params.value == null ? 'new' : params.value > 0 ? '▲' + params.value : "
    "params.value < 0 ? '▼' + (-params.value) : '='"
}
UP_DOWN = {"text-success fw-semibold": "params.value > 0", "text-danger fw-semibold": "params.value < 0"}


def leaderboard_table(rows: Sequence[dict[str, Any]], unit: str, *, with_shift: bool = False) -> Any:
    """The leaderboard rows (see :func:`figures.leaderboard_rows`) in a sortable grid.

    One grid component with plain row data (not a component per cell) keeps a long leaderboard quick
    to redraw; rows outside the visible area are not drawn.
    """
    if not rows:
        return dbc.Alert("No player has played enough games for the current filter.", color="light", className="small")
    digits = 0 if max(abs(r["rating"]) for r in rows) >= 100 else 3
    columns: list[dict[str, Any]] = [{"field": "rank", "headerName": "#", "width": 56, "pinned": "left"}]
    if with_shift:
        columns.append(
            {
                "field": "shift",
                "headerName": "±",
                "width": 64,
                "valueFormatter": SHIFT,
                "cellClassRules": UP_DOWN,
                "headerTooltip": "places moved up (▲) or down (▼) compared with the pinned baseline",
            }
        )
    columns += [
        {"field": "player", "minWidth": 110, "flex": 2, "cellClass": "fw-semibold", "pinned": "left"},
        {
            "field": "rating",
            "headerName": f"rating ({unit})",
            "headerTooltip": f"rating in {unit}",
            "valueFormatter": _number(digits),
            "minWidth": 110,
            "flex": 2,
            "sort": "desc",
        },
        {"field": "games", "width": 80},
        {"field": "wins", "width": 72},
        {"field": "average_place", "headerName": "avg place", "valueFormatter": _number(2), "width": 96},
        {
            "field": "last_change",
            "headerName": "last change",
            "valueFormatter": SIGNED,
            "cellClassRules": UP_DOWN,
            "width": 106,
        },
        {
            "field": "trend",
            "sortable": False,
            "width": 136,
            "cellClass": "trend",
            "headerTooltip": "the last ten ratings, low ▁ to high █",
        },
    ]
    height = min(540, 64 + 33 * len(rows))
    return dag.AgGrid(
        rowData=list(rows),
        columnDefs=columns,
        getRowId="params.data.player",
        defaultColDef={
            "sortable": True,
            "resizable": True,
            "suppressMovable": True,
            "wrapHeaderText": True,
            "autoHeaderHeight": True,
        },
        dashGridOptions={"rowHeight": 32, "animateRows": False, "tooltipShowDelay": 300},
        style={"height": f"{height}px", "width": "100%"},
        className="ag-theme-quartz",
    )
