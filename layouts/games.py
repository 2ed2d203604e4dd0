"""The "Games" tab: every game with its date and finishing order, filterable, newest first; a click shows it."""

from __future__ import annotations

from typing import Any

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

from figures import graph_config
from layouts.busy import busy
from layouts.cells import UP_DOWN, signed_change
from layouts.ids import GamesList, Tab
from layouts.paging import page_picker

__all__ = ["games_grid", "grid_columns", "tab"]


def _filters() -> dbc.Row:
    return dbc.Row(
        [
            dbc.Col(
                [
                    html.Label("player", htmlFor=GamesList.PLAYER, className="small mb-0"),
                    dcc.Dropdown(id=GamesList.PLAYER, placeholder="every player"),
                ],
                md=6,
                xs=12,
            ),
            dbc.Col(
                [
                    # the browser's own date fields (a calendar on click, typing on a keyboard, the phone's
                    # picker): no date-picker library on the page
                    dbc.Row(
                        [
                            dbc.Col(
                                [
                                    dbc.Label("from", html_for=GamesList.DATE_FROM, className="small mb-0"),
                                    dbc.Input(id=GamesList.DATE_FROM, type="date", size="sm", debounce=400),
                                ]
                            ),
                            dbc.Col(
                                [
                                    dbc.Label("to", html_for=GamesList.DATE_TO, className="small mb-0"),
                                    dbc.Input(id=GamesList.DATE_TO, type="date", size="sm", debounce=400),
                                ]
                            ),
                        ],
                        className="g-2 games-dates",
                    ),
                ],
                md=6,
                xs=12,
            ),
        ],
        className="g-2 mb-2",
    )


CELL = {"lineHeight": "1.35", "paddingTop": "4px", "paddingBottom": "4px"}


def grid_columns(*, with_player: bool) -> list[dict[str, Any]]:
    """The grid's columns; with a player filter, also that player's place and change."""
    columns: list[dict[str, Any]] = [
        {"field": "number", "headerName": "#", "width": 70, "pinned": "left", "headerTooltip": "game number"},
        {"field": "date", "headerName": "date", "width": 110},
    ]
    if with_player:
        columns += [
            {"field": "place", "headerName": "place", "width": 90},
            {
                "field": "change",
                "headerName": "change",
                "width": 90,
                "valueFormatter": signed_change(3),
                "cellClassRules": UP_DOWN,
            },
        ]
    columns += [
        {
            "field": "order",
            "headerName": "finishing order",
            "flex": 3,
            "minWidth": 220,
            "wrapText": True,
            "cellStyle": {**CELL, "whiteSpace": "pre-wrap"},  # keep the two spaces between places
        },
        {"field": "changes", "headerName": "rating changes", "flex": 3, "minWidth": 220, "wrapText": True},
        {"field": "game", "headerName": "game id", "width": 100},
    ]
    return columns


def games_grid() -> dag.AgGrid:
    """The grid that shows one page of :func:`figures.game_rows`; a click on a row shows that game."""
    return dag.AgGrid(
        id=GamesList.GRID,
        rowData=[],
        columnDefs=grid_columns(with_player=False),
        getRowId="'' + params.data.index",  # AG Grid row ids are text (a number draws its warning #25)
        defaultColDef={
            "sortable": False,
            "resizable": True,
            "suppressMovable": True,
            "autoHeight": True,
            "cellStyle": CELL,
        },
        dashGridOptions={
            "rowSelection": {"mode": "singleRow", "checkboxes": False, "enableClickSelection": True},
            "animateRows": False,
            "tooltipShowDelay": 300,
            "domLayout": "autoHeight",
        },
        style={"width": "100%"},
        className="ag-theme-quartz games-grid",
    )


def list_panel() -> html.Div:
    """Filters, the count, the grid (one page) and the page picker."""
    return html.Div(
        [
            html.H2("Games", className="h6 mb-1"),
            _filters(),
            html.Div(id=GamesList.COUNT, className="small text-muted mb-1"),
            busy(games_grid()),
            page_picker(GamesList.PAGES, "mt-2"),
        ],
        className="mb-3",
    )


def game_panel() -> html.Div:
    """The clicked game's change bars."""
    return html.Div(
        [
            html.H2("The game", className="h6 mb-1"),
            html.Div(id=GamesList.GAME, className="small text-muted mb-1", children="Click a game in the list."),
            busy(dcc.Graph(id=GamesList.GAME_CHART, config=graph_config("game"), style={"height": "340px"})),
        ],
        className="mb-3",
    )


def tab() -> dbc.Tab:
    """The list (left on wide screens) beside the clicked game; stacked on a phone."""
    return dbc.Tab(
        dbc.Row(
            [dbc.Col(list_panel(), xxl=8, xs=12), dbc.Col(game_panel(), xxl=4, xs=12)],
            className="g-3 pt-2",
        ),
        label="Games",
        tab_id=Tab.GAMES,
    )
