"""A group's bar on its page (``/g/<slug>``): its game titles, who is signed in, and the organisers' tools.

The bar is on every page but shown only on a group's address (``callbacks.group`` fills it); ``/`` looks as before.
Recording a game uses the Edit tab's form, which writes into the group when the page shows the group's own games and
the browser is signed in as an organiser or a member.
"""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

from layouts.ids import GroupPage, GroupType

__all__ = ["alias_rows", "bar", "header", "link_rows"]

#: A hidden part of the bar, and a shown one (the style a callback sets).
HIDDEN = {"display": "none"}
SHOWN: dict[str, str] = {}


#: A row of small controls that wraps on a phone.
ROW = "d-flex flex-wrap align-items-center gap-1 mb-1"


def _short_input(ident: str, placeholder: str, max_length: int) -> dbc.Input:
    """A small text box of a row of controls (a name, a label)."""
    return dbc.Input(id=ident, placeholder=placeholder, size="sm", maxLength=max_length, style={"maxWidth": "12rem"})


def _address_input(ident: str, placeholder: str) -> dbc.Input:
    """A text box of a row of controls for a Google Sheet's address."""
    return dbc.Input(id=ident, placeholder=placeholder, size="sm", maxLength=2000, style={"maxWidth": "24rem"})


def header() -> html.Span:
    """The group's name in the page's header (empty on ``/``)."""
    return html.Span(id=GroupPage.HEADER, className="navbar-text text-white fw-semibold me-auto ms-2")


def _heading(text: str) -> html.Div:
    return html.Div(text, className="small fw-semibold text-secondary mt-2 mb-1")


def _folded(summary: str, children: list[Any]) -> html.Details:
    """A part of the tools used now and then, folded under one line until opened."""
    return html.Details(
        [html.Summary(summary, className="small fw-semibold text-secondary"), *children], className="mt-2"
    )


def _organiser_tools() -> html.Div:
    """The organisers' tools, in parts: the games, member links and names in view; the Google Sheet and imports
    folded (a group sets them once)."""
    games = [
        _heading("Games"),
        html.Div(
            [
                dbc.Label("Game to correct or delete", html_for=GroupPage.GAME, className="small mb-0 me-1"),
                dcc.Dropdown(
                    id=GroupPage.GAME,
                    placeholder="none: the form records a new game",
                    style={"minWidth": "14rem"},
                    className="small",
                ),
                dbc.Button("Delete game", id=GroupPage.DELETE, color="outline-danger", size="sm"),
                dbc.Button("Undo last change", id=GroupPage.UNDO, color="outline-secondary", size="sm"),
            ],
            className=ROW,
        ),
        html.Div(
            "With a game chosen, the Edit tab's form replaces that game's date and results.",
            className="small text-muted mb-1",
        ),
    ]
    members = [
        _heading("Member links (record games only)"),
        html.Div(
            [
                _short_input(GroupPage.LINK_LABEL, "member's name", 100),
                dbc.Button("Make member link", id=GroupPage.MAKE_LINK, color="outline-primary", size="sm"),
            ],
            className=ROW,
        ),
        html.Div(id=GroupPage.NEW_LINK, className="small"),
        html.Div(id=GroupPage.LINKS, className="small mb-1"),
    ]
    names = [
        _heading("Names: one player under two names"),
        html.Div(
            [
                _short_input(GroupPage.ALIAS_NAME, "other name (alias)", 200),
                html.Span("is", className="small"),
                _short_input(GroupPage.ALIAS_PLAYER, "the player's name", 200),
                dbc.Button("Merge for the group", id=GroupPage.DECLARE_ALIAS, color="outline-primary", size="sm"),
            ],
            className=ROW,
        ),
        html.Div(id=GroupPage.ALIASES, className="small mb-1"),
    ]
    sheet = _folded(
        "Google Sheet",
        [
            html.Div(
                [
                    html.Span("Append each recorded game to the server's Sheet too:", className="small"),
                    dbc.Button("Mirror on", id=GroupPage.MIRROR_ON, color="outline-primary", size="sm"),
                    dbc.Button("Mirror off", id=GroupPage.MIRROR_OFF, color="outline-secondary", size="sm"),
                ],
                className=ROW + " mt-1",
            ),
            html.Div(
                [
                    _address_input(GroupPage.TITLE_SHEET_URL, "a Google Sheet's address"),
                    _short_input(GroupPage.TITLE_SHEET_TAB, "worksheet (optional)", 200),
                    dbc.Button(
                        "Read this title from the Sheet",
                        id=GroupPage.TITLE_SHEET_ON,
                        color="outline-primary",
                        size="sm",
                    ),
                    dbc.Button(
                        "Read it from the group's database",
                        id=GroupPage.TITLE_SHEET_OFF,
                        color="outline-secondary",
                        size="sm",
                    ),
                ],
                className=ROW,
            ),
            html.Div(
                "A title read from a Sheet shows the Sheet's games; games recorded here are appended to it.",
                className="small text-muted mb-1",
            ),
        ],
    )
    imports = _folded(
        "Import games, restore an export",
        [
            dcc.Upload(
                html.Div(["Import a file's games into this title: ", html.A("choose one", href="#")]),
                id=GroupPage.IMPORT_UPLOAD,
                className="small border rounded px-2 py-1 my-1",
                max_size=10 * 1024 * 1024,
            ),
            html.Div(
                [
                    _address_input(GroupPage.IMPORT_SHEET_URL, "or a Google Sheet's address"),
                    dbc.Button(
                        "Preview the Sheet's games", id=GroupPage.IMPORT_SHEET, color="outline-primary", size="sm"
                    ),
                ],
                className=ROW,
            ),
            html.Div(id=GroupPage.IMPORT_PREVIEW, className="small"),
            dbc.Button("Import these games", id=GroupPage.IMPORT_CONFIRM, color="primary", size="sm", style=HIDDEN),
            dcc.Store(id=GroupPage.IMPORT_PENDING),
            dcc.Upload(
                html.Div(
                    [
                        "Restore an export (its changes.json and the titles' CSV files, chosen together): ",
                        html.A("choose the files", href="#"),
                    ]
                ),
                id=GroupPage.RESTORE_UPLOAD,
                multiple=True,
                className="small border rounded px-2 py-1 mt-1",
                max_size=10 * 1024 * 1024,
            ),
        ],
    )
    return html.Div([*games, *members, *names, sheet, imports], id=GroupPage.TOOLS, style=HIDDEN)


def bar() -> html.Div:
    """The group's bar (hidden until the address names a group)."""
    sign_in = html.Div(  # the style is set on this box: an inner one holds Bootstrap's d-flex (!important)
        html.Div(
            [
                dbc.Input(
                    id=GroupPage.PASSPHRASE,
                    type="password",
                    placeholder="organisers' passphrase",
                    size="sm",
                    autoComplete="current-password",
                    style={"maxWidth": "14rem"},
                ),
                dbc.Button("Sign in", id=GroupPage.SIGN_IN, color="outline-primary", size="sm"),
            ],
            className="d-flex flex-wrap align-items-center gap-1",
        ),
        id=GroupPage.SIGN_IN_BOX,
    )
    return html.Div(
        dbc.Card(
            dbc.CardBody(
                [
                    html.Div(
                        [
                            dbc.Label("Game title", html_for=GroupPage.TITLE, className="small mb-0 me-1"),
                            dcc.Dropdown(id=GroupPage.TITLE, clearable=False, style={"minWidth": "12rem"}),
                            html.Span(id=GroupPage.ROLE, className="small ms-2"),
                            dbc.Button("Sign out", id=GroupPage.SIGN_OUT, color="link", size="sm", style=HIDDEN),
                        ],
                        className=ROW,
                    ),
                    sign_in,
                    html.Div(id=GroupPage.MESSAGE, className="small mt-1"),
                    _organiser_tools(),
                    html.Div(
                        [
                            dbc.Button("Download games (CSV)", id=GroupPage.EXPORT_CSV, color="link", size="sm"),
                            dbc.Button("Download change log (JSON)", id=GroupPage.EXPORT_LOG, color="link", size="sm"),
                        ],
                        className="d-flex flex-wrap gap-1",
                    ),
                    dcc.Download(id=GroupPage.DOWNLOAD),
                    dcc.Store(id=GroupPage.REFRESH),
                    dcc.Store(id=GroupPage.CLEANED),  # whether a sign-in's secret was taken out of the address
                ],
                className="py-2",
            ),
            className="mb-2",
        ),
        id=GroupPage.BAR,
        style=HIDDEN,
    )


def link_rows(links: list[tuple[int, str]]) -> Any:
    """The organiser's list of member links, each with its Revoke button."""
    if not links:
        return html.Div("No member links yet.", className="text-muted")
    return html.Ul(
        [
            html.Li(
                [
                    html.Span(label, className="me-2"),
                    dbc.Button(
                        "Revoke",
                        id={"type": GroupType.REVOKE, "index": link_id},
                        color="link",
                        size="sm",
                        className="p-0",
                    ),
                ]
            )
            for link_id, label in links
        ],
        className="mb-0",
    )


def alias_rows(aliases: dict[str, str]) -> Any:
    """The organiser's list of the group's aliases (every title reads the alias as the player), each with Remove."""
    if not aliases:
        return html.Div(
            "No aliases for the group yet (a visitor's own aliases stay in their view).", className="text-muted"
        )
    return html.Ul(
        [
            html.Li(
                [
                    html.Span(f"{alias} is {player}", className="me-2"),
                    dbc.Button(
                        "Remove",
                        id={"type": GroupType.UNALIAS, "index": alias},
                        color="link",
                        size="sm",
                        className="p-0",
                    ),
                ]
            )
            for alias, player in aliases.items()
        ],
        className="mb-0",
    )
