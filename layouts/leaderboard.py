"""The leaderboard panel and the table it shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

import figures
from figures.leaderboard import LeaderboardSort, leaderboard_page, leaderboard_sort
from layouts.busy import busy
from layouts.cells import UP_DOWN, signed_change
from layouts.ids import Standings
from layouts.labels import labelled
from layouts.paging import page_picker
from ratings import RatingRun

__all__ = [
    "EMPTY_NOTE",
    "GRID_OPTIONS",
    "NOBODY_NOTE",
    "PHONE_COLUMNS",
    "LeaderboardView",
    "leaderboard_panel",
    "leaderboard_table",
    "leaderboard_view",
]

#: Shown instead of the grid when the filter leaves nobody.
EMPTY_NOTE = "No player has played enough games for the current filter."

#: Shown instead of the grid when no player's name holds the search text.
NOBODY_NOTE = "No player's name holds “{}”."

#: The leaderboard grid's options.  The grid holds one page of rows, cut, searched and sorted on the server; a click
#: on a header sorts that page at once and asks the server for the first page in that order.
#: No "No Rows To Show" overlay: the page says in its own words when the filter leaves nobody (EMPTY_NOTE).  New rows
#: (a changed parameter) keep the scroll position: the grid does not scroll to the top, which also spares it a forced
#: layout on every change.
GRID_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {
        "rowHeight": 32,
        "animateRows": False,
        "tooltipShowDelay": 300,
        "suppressNoRowsOverlay": True,
        "suppressScrollOnNewData": True,
    }
)


def _grid() -> Any:
    """The leaderboard grid: built once with the page; each result sets its rows (and, when they change, its
    columns and height), so the grid keeps its sort, filter and scroll and nothing in it is rebuilt."""
    return dag.AgGrid(
        id=Standings.LEADERBOARD,
        rowData=[],
        columnDefs=[],
        getRowId="params.data.player",
        defaultColDef={
            "sortable": True,
            "resizable": True,
            "suppressMovable": True,
            "wrapHeaderText": True,
            "autoHeaderHeight": True,
        },
        dashGridOptions=dict(GRID_OPTIONS),
        style={"height": "360px", "width": "100%"},
        className="ag-theme-quartz",
    )


def leaderboard_panel() -> html.Div:
    """A search box, an empty grid and its page picker; the standings callback fills them.  A click on a row draws
    that player."""
    search = labelled(
        "Find a player in the leaderboard",
        dbc.Input(
            id=Standings.LEADERBOARD_SEARCH,
            type="search",
            placeholder="find a player",
            size="sm",
            debounce=0.3,
            autocomplete="off",
            className="leaderboard-search",
        ),
    )
    return html.Div(
        [
            html.Div(
                [html.H2("Leaderboard", className="h6 mb-0 me-2"), search],
                className="d-flex align-items-center justify-content-between mb-1 gap-2",
            ),
            html.Div(
                # the note is written with the grid's rows and carries Dash's busy mark, which the grid does not
                busy(
                    dbc.Alert(
                        EMPTY_NOTE,
                        id=Standings.LEADERBOARD_EMPTY,
                        color="light",
                        className="small",
                        style={"display": "none"},
                    ),
                    _grid(),
                ),
                className="leaderboard",
            ),
            html.Div(
                [
                    html.Div(id=Standings.LEADERBOARD_COUNT, className="small text-muted"),
                    page_picker(Standings.LEADERBOARD_PAGES, "mt-1 mb-1"),
                ],
                id=Standings.LEADERBOARD_PAGER,
                style={"display": "none"},
            ),
            html.Div("Click a player to draw their line in the chart.", className="small text-muted"),
            dcc.Store(id=Standings.LEADERBOARD_SORT),
            dcc.Store(id=Standings.NARROW),
            # what the trajectories and game charts show (data, system, players, options), so that a change of
            # parameters alone can send only the new values
            dcc.Store(id=Standings.DRAWN),
            # this page's id and the number of its latest parameter change (a newer change supersedes older work)
            dcc.Store(id=Standings.GENERATION),
        ],
        className="mb-3",
    )


def _number(digits: int) -> dict[str, str]:
    return {"function": f"params.value == null ? '' : d3.format(',.{digits}f')(params.value)"}


SHIFT = {
    "function": "params.value == null ? 'new' : params.value > 0 ? '▲' + params.value : "
    "params.value < 0 ? '▼' + (-params.value) : '='"
}


#: The widest a phone's leaderboard may be: a 360 px screen (the narrowest common phone) less the page's margins
#: (17 px a side) and the grid's borders, measured in tests/browser/test_phone_fit.py.
PHONE_WIDTH = 324

#: The phone's column widths (5 px cell padding, assets/app.css): a 3-digit rank, "▲12" or "new", "10,000" or
#: "rating ↓", "−24.6" under "last change" on two lines; the player takes the rest, at least 80 px (less only when
#: the ratings are wider than the rating column: a number cut short reads as another number, a name does not).
_PHONE_WIDTHS = {"rank": 40, "shift": 48, "rating": 76, "last_change": 76}
_PHONE_PLAYER = 80
#: Pixels per character of a rating as the grid draws it (14 px digits are about 7.8 px wide) and the padding.
_DIGIT_PX, _PADDING_PX = 8, 10


def _phone(column: dict[str, Any], rating_text: str) -> dict[str, Any]:
    """``column`` as a phone shows it; ``rating_text`` is the widest rating as the grid writes it."""
    out = {k: v for k, v in column.items() if k not in ("pinned", "width", "minWidth", "flex")}
    widths = {**_PHONE_WIDTHS, "rating": max(_PHONE_WIDTHS["rating"], _PADDING_PX + _DIGIT_PX * len(rating_text))}
    if column["field"] in widths:
        out["width"] = widths[column["field"]]
    else:
        spare = PHONE_WIDTH - sum(widths.values())
        out.update(flex=1, minWidth=max(56, min(_PHONE_PLAYER, spare)))
    if column["field"] == "rating":
        out["headerName"] = "rating"  # the unit stays in the header's tooltip (a long header wraps letter by letter)
    return out


#: The columns kept on a phone (a screen narrower than 576 px), where 8 columns do not fit: who, where, how much.
PHONE_COLUMNS = ("rank", "shift", "player", "rating", "last_change")


@dataclass(frozen=True)
class LeaderboardView:
    """What the leaderboard grid shows for one result: one page of rows, the columns and height (``rows`` empty:
    the note), and the page picker."""

    rows: list[dict[str, Any]]
    columns: list[dict[str, Any]]
    style: dict[str, str]
    note: str = EMPTY_NOTE  #: said instead of the grid when ``rows`` is empty
    summary: str = ""  #: how many players match and which are shown ("" when one page shows them all)
    page: int = 1  #: the page shown
    pages: int = 1  #: how many pages the matching players fill

    @property
    def empty(self) -> bool:
        return not self.rows


def leaderboard_table(
    rows: Sequence[dict[str, Any]],
    unit: str,
    *,
    with_shift: bool = False,
    narrow: bool = False,
    order: LeaderboardSort | None = None,
) -> LeaderboardView:
    """The leaderboard rows (see :func:`figures.leaderboard_rows`) as the sortable grid shows them.

    One grid component with plain row data (not a component per cell) keeps a long leaderboard quick
    to redraw; rows outside the visible area are not drawn.  ``narrow`` (a phone) keeps
    :data:`PHONE_COLUMNS`, narrower and unpinned, so they fit the screen without scrolling sideways.  The column
    of ``order`` carries the sort mark (the rows come sorted that way).
    """
    if not rows:
        return LeaderboardView([], [], {"display": "none"})
    digits = 0 if max(abs(r["rating"]) for r in rows) >= 100 else 3
    columns: list[dict[str, Any]] = [
        {"field": "rank", "headerName": "#", "width": 56, "pinned": "left"},
        # always there, hidden without a baseline, so that pinning one only shows it where it belongs
        {
            "field": "shift",
            "headerName": "±",
            "width": 64,
            "valueFormatter": SHIFT,
            "cellClassRules": UP_DOWN,
            "headerTooltip": "places moved up (▲) or down (▼) compared with the pinned baseline",
            "hide": not with_shift,
        },
    ]
    columns += [
        {"field": "player", "minWidth": 110, "flex": 2, "cellClass": "fw-semibold", "pinned": "left"},
        {
            "field": "rating",
            "headerName": f"rating ({unit})",
            "headerTooltip": f"rating in {unit}",
            "valueFormatter": _number(digits),
            "minWidth": 110,
            "flex": 2,
        },
        # counts thousands-separated as the ratings are; "Games" and its sort mark on one line
        {"field": "games", "valueFormatter": _number(0), "width": 112},
        {"field": "wins", "valueFormatter": _number(0), "width": 100},
        {"field": "average_place", "headerName": "avg place", "valueFormatter": _number(2), "width": 96},
        {
            "field": "last_change",
            "headerName": "last change",
            "valueFormatter": signed_change(3),
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
    order = order or LeaderboardSort()
    for column in columns:
        if column["field"] == order.column:
            column["sort"] = "desc" if order.descending else "asc"
    if narrow:
        widest = max((r["rating"] for r in rows), key=abs)
        rating_text = f"{widest:,.{digits}f}"  # as _number(digits) writes it ("-" for the grid's "−")
        columns = [_phone(c, rating_text) for c in columns if c["field"] in PHONE_COLUMNS]
    height = min(540, 64 + 33 * len(rows))
    return LeaderboardView([_shown(r) for r in rows], columns, {"height": f"{height}px", "width": "100%"})


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the grid gets it: numbers to 7 significant digits (the columns show at most 3 decimals; the
    grid sorts by these values), which makes a 1,000-player leaderboard about a third shorter to send."""
    return {k: float(f"{v:.7g}") if isinstance(v, float) else v for k, v in row.items()}


def leaderboard_view(
    run: RatingRun,
    *,
    min_games: Any,
    offset: Any,
    factor: Any,
    baseline: RatingRun | None,
    baseline_scale: Any = None,
    narrow: bool = False,
    order: Any = None,
    search: Any = None,
    page: Any = 1,
) -> LeaderboardView:
    """One page of the leaderboard for ``run`` (with rank shifts against ``baseline`` when pinned): the players
    whose name holds ``search``, sorted by ``order`` (:func:`figures.leaderboard.leaderboard_sort`), page ``page``
    (untrusted values: no search, the best first, page 1)."""
    scale = figures.scale_of(run, offset, factor)
    everyone = figures.leaderboard_rows(
        run, min_games=figures.min_games_of(min_games), scale=scale, baseline=baseline, trends=False
    )
    sort = leaderboard_sort(order)
    cut = leaderboard_page(run, everyone, order=sort, search=search, page=page)
    table = leaderboard_table(cut.rows, scale.unit, with_shift=baseline is not None, narrow=narrow, order=sort)
    note = NOBODY_NOTE.format(cut.search) if everyone and cut.search else EMPTY_NOTE
    return LeaderboardView(table.rows, table.columns, table.style, note, cut.summary, cut.shown, cut.pages)
