"""The "Edit history" tab: a what-if grid of the games (applied on demand) and the form to record a real game."""

from __future__ import annotations

from typing import Any

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import dcc, html

from layouts.datalist import name_list
from layouts.ids import Edit, Record, RecordType, Tab
from layouts.labels import labelled
from sources.access import Rights
from sources.edits import EditOutcome
from sources.sheets import SheetSettings

__all__ = [
    "FORM_ROWS",
    "access_line",
    "edit_panel",
    "grid_columns",
    "record_alert",
    "record_panel",
    "status_lines",
    "tab",
]

#: Player lines in the new-game form.
FORM_ROWS = 8

_COLUMNS: list[dict[str, Any]] = [
    {"field": "game", "headerName": "game", "minWidth": 62, "filter": True},
    {
        "field": "date",
        "headerName": "date",
        "minWidth": 72,
        "filter": True,
        # plain text, read by the file readers' date parser (the browser's date field lost typed ISO dates)
        "cellDataType": "text",
        "headerTooltip": "2024-03-31, 31/03/2024 or 31 March 2024. A game has one date: "
        "changing it on one row moves the whole game.",
    },
    {"field": "player", "headerName": "player", "minWidth": 64, "filter": True},
    {
        "field": "place",
        "headerName": "place",
        "minWidth": 40,
        "flex": 0.6,
        "headerTooltip": "1 = best (2 or 2nd); DNF, DQ, DNS or empty = did not finish",
    },
    {
        "field": "team",
        "headerName": "team",
        "minWidth": 150,  # a doubles team named by its players ("Kemal & Greta") whole
        "flex": 1.2,
        "filter": True,
        "headerTooltip": "Players of a game with the same team are teammates and share its place; empty = alone. "
        "Change it to move a player to another team.",
    },
    {
        "field": "weight",
        "headerName": "weight",
        "minWidth": 80,
        "flex": 0.5,
        "headerTooltip": "The share of the game played (0.5 or 50%); empty = the whole game.",
    },
    {
        "field": "exclude",
        # narrow enough for a phone (the grid and its last column fit 360 px)
        "headerName": "exclude game",
        "wrapHeaderText": True,
        "autoHeaderHeight": True,
        "cellDataType": "boolean",
        "minWidth": 54,
        "flex": 0.6,
        "headerTooltip": "Tick to leave this game out (every row of the game); untick to bring it back.",
    },
]


#: Columns shown only for a history that uses them (a phone has room for the other five alone).
_TEAM_COLUMNS = ("team", "weight")


def grid_columns(*, teams: bool = False, weights: bool = False) -> list[dict[str, Any]]:
    """The grid's columns: the team column when the history has teams, the weight column when it has partial play."""
    shown = {"team": teams, "weight": weights}
    # Seven columns do not fit a phone nor the desktop's grid (650 px) whole: beside the team columns every column
    # keeps what its text needs at the desktop's padding, and the grid scrolls sideways inside itself.
    wider = {"game": 84, "date": 108, "player": 100, "place": 66} if teams or weights else {}
    return [
        {**c, "hide": not shown[c["field"]]}
        if c["field"] in _TEAM_COLUMNS
        else {**c, "minWidth": wider[c["field"]]}
        if c["field"] in wider
        else c
        for c in _COLUMNS
    ]


def edit_panel() -> html.Div:
    """The editable grid with its buttons and the status line."""
    buttons = html.Div(
        [
            dbc.Button("Apply", id=Edit.APPLY, color="primary", size="sm", title="Rate the edited table"),
            dbc.Button(
                "New game",
                id=Edit.ADD_ROW,
                color="secondary",
                outline=True,
                size="sm",
                title="Add a row that starts a new game (a fresh game id)",
            ),
            dbc.Button(
                "Add player to last game",
                id=Edit.ADD_PLAYER,
                color="secondary",
                outline=True,
                size="sm",
                title="Add a row in the last row's game and date",
            ),
            dbc.Button("Delete selected", id=Edit.DELETE_ROWS, color="secondary", outline=True, size="sm"),
            dbc.Button("Undo", id=Edit.UNDO, color="secondary", outline=True, size="sm", title="Undo the last Apply"),
            dbc.Button("Revert to source", id=Edit.REVERT, color="secondary", outline=True, size="sm"),
        ],
        className="d-flex flex-wrap gap-1 mb-1",
    )
    return html.Div(
        [
            html.H2("Edit the history (what if)", className="h6 mb-1"),
            html.Div(
                "Change a game, date, player or place (1 or 1st is best; DNF, DQ or empty for did not finish), a "
                "team (players of a game with the same team are teammates and share a place), add or delete rows, "
                "tick 'exclude game' to leave a game out. A game has one date: change it on any one row and Apply "
                "moves the whole game (dates as 2024-03-31, 31/03/2024 or 31 March 2024). Nothing changes until you "
                "press Apply; the edits stay in this browser session only (download them with 'History CSV').",
                className="small text-muted mb-1",
            ),
            buttons,
            html.Div(id=Edit.STATUS),
            dag.AgGrid(
                id=Edit.GRID,
                columnDefs=grid_columns(),
                rowData=[],
                defaultColDef={"editable": True, "sortable": True, "resizable": True, "flex": 1},
                getRowId="params.data._id",
                # No columnSize: sizing to fit ran while the tab was hidden (AG Grid warning #29 on every load);
                # flex columns with a minimum width fill the grid once it is shown.
                dashGridOptions={
                    "rowSelection": {"mode": "multiRow", "enableClickSelection": False},
                    "selectionColumnDef": {"width": 32, "minWidth": 32, "maxWidth": 32},
                    "stopEditingWhenCellsLoseFocus": True,
                    "animateRows": False,
                    "tooltipShowDelay": 300,
                },
                style={"height": "420px", "width": "100%"},
            ),
            dcc.Store(id=Edit.STORE),
        ],
        className="mb-3",
    )


def _player_line(i: int) -> dbc.Row:
    return dbc.Row(
        [
            dbc.Col(
                labelled(
                    f"Player {i + 1} of the new game",
                    dbc.Input(
                        id={"type": RecordType.PLAYER, "index": i},
                        placeholder=f"player {i + 1}",
                        list=Record.NAMES,
                        size="sm",
                        autocomplete="off",
                    ),
                ),
                width=6,
            ),
            dbc.Col(
                labelled(
                    f"Team of player {i + 1} (optional)",
                    dbc.Input(id={"type": RecordType.TEAM, "index": i}, placeholder="team", size="sm"),
                ),
                width=3,
            ),
            dbc.Col(
                labelled(
                    f"Place of player {i + 1}",
                    dbc.Input(id={"type": RecordType.PLACE, "index": i}, placeholder="place", size="sm"),
                ),
                width=3,
            ),
        ],
        className="g-1 mb-1",
    )


def record_panel() -> html.Div:
    """The short new-game form with its confirm step (for a writable sheet)."""
    return html.Div(
        [
            html.H2("Record a new game", className="h6 mb-1"),
            html.Div(
                "Players and places, read as an uploaded file reads them (1 or 1st = best; equal numbers tie; "
                "DNF, DQ or empty = did not finish). Where it goes is said below.",
                className="small text-muted mb-1",
            ),
            html.Div(id=Record.ACCESS),
            dbc.Collapse(
                [
                    dbc.Label("Organisers' secret", html_for=Record.SECRET, className="small mb-0"),
                    dbc.InputGroup(
                        [
                            dbc.Input(
                                id=Record.SECRET,
                                type="password",
                                placeholder="organisers' secret",
                                autocomplete="current-password",
                                size="sm",
                            ),
                            dbc.Button("Sign in", id=Record.SIGN_IN, color="secondary", size="sm"),
                        ],
                        size="sm",
                        className="mb-1",
                    ),
                ],
                id=Record.SIGN_IN_BOX,
                is_open=False,
            ),
            html.Div(
                dbc.Button(
                    "Sign out", id=Record.SIGN_OUT, color="link", size="sm", className="p-0", style={"display": "none"}
                ),
                className="mb-1",
            ),
            dbc.Label("Date of the game", html_for=Record.DATE, className="small mb-0"),
            dbc.Input(id=Record.DATE, type="date", size="sm", className="mb-1", style={"maxWidth": "12rem"}),
            *name_list(Record.NAMES, Record.NAMES_DATA),
            *[_player_line(i) for i in range(FORM_ROWS)],
            dbc.Button("Record game", id=Record.SUBMIT, color="primary", size="sm", className="mt-1"),
            dbc.Collapse(
                dbc.Alert(
                    [
                        html.Div(id=Record.CONFIRM_TEXT, className="mb-1"),
                        dbc.Button(
                            "Write to the sheet", id=Record.CONFIRM, color="danger", size="sm", className="me-1"
                        ),
                        dbc.Button("Cancel", id=Record.CANCEL, color="secondary", outline=True, size="sm"),
                    ],
                    color="warning",
                    className="small py-2 mt-1 mb-0",
                ),
                id=Record.CONFIRM_BOX,
                is_open=False,
            ),
            html.Div(id=Record.STATUS, className="mt-1"),
            dcc.Store(id=Record.TOKEN),
            dcc.Store(id=Record.PENDING),
        ],
        className="mb-3",
    )


def tab() -> dbc.Tab:
    """Grid (wide) beside the new-game form (narrow); stacked on a phone."""
    return dbc.Tab(
        dbc.Row(
            [dbc.Col(edit_panel(), xl=8, xs=12), dbc.Col(record_panel(), xl=4, xs=12, id=Record.PANEL)],
            className="g-3 pt-2",
        ),
        label="Edit history",
        tab_id=Tab.EDIT,
    )


def status_lines(outcome: EditOutcome) -> list[Any]:
    """The status of an edit action as a small alert (red for problems), one line per problem."""
    head, *rest = outcome.message.split("\n")
    body: list[Any] = [html.Div(head, className="fw-semibold" if rest else "")]
    if rest:
        body.append(html.Ul([html.Li(line) for line in rest], className="mb-0"))
    return [dbc.Alert(body, color="success" if outcome.ok else "danger", className="small py-1 mb-1", dismissable=True)]


def record_alert(text: str, ok: bool) -> list[Any]:
    """The record form's status: green when the game went in, red otherwise."""
    return [dbc.Alert(text, color="success" if ok else "danger", className="small py-1 mb-0", dismissable=True)]


def access_line(now: Rights, note: str, config: SheetSettings | None) -> Any:
    """The record form's line saying where a recorded game goes and who may record it (and what just happened), for
    the host's sheet settings (``None`` when they cannot be read)."""
    if config is None or not config.sheet or not config.can_write:
        text = "No writable group sheet is configured here: a game recorded below joins this browser's session."
        return dbc.Alert(note + text, color="secondary", className="small py-1 mb-1")
    if not now.may_record:
        return dbc.Alert(note + now.message, color="info", className="small py-1 mb-1")
    text = now.message + " A game recorded below is written into the group's Google Sheet after you confirm it."
    return dbc.Alert(note + text, color="success", className="small py-1 mb-1")


#: The record form's line on a group's page.
GROUP_ACCESS = (
    "On a group's page a game recorded here goes into the group's games: organisers and members may record (sign in "
    "on the group's bar above); an organiser may choose a game there to correct it. A what-if edit of the games "
    "is yours alone."
)
#: The same line for whoever may record there (a member or an organiser).
GROUP_RECORDER = "A game recorded here goes into the group's games at once, for all; a what-if edit is yours alone."
#: On a phone the form comes before the what-if grid for whoever may record into the group (their main action).
FIRST_ON_A_PHONE = "order-first order-xl-last"


def group_access_line(may_record: bool) -> Any:
    """The record form's line on a group's page: where a recorded game goes and who may record it."""
    if may_record:
        return dbc.Alert(GROUP_RECORDER, color="success", className="small py-1 mb-1")
    return dbc.Alert(GROUP_ACCESS, color="info", className="small py-1 mb-1")
