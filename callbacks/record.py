"""Recording a real new game: validate the short form, then write it to the group's sheet after a confirm step,
or add it to the user's session history (an edit like any other: undoable, downloadable).

Validation, the sheet's shape and the idempotent append live in :mod:`sources.record`; who may write and where in
:mod:`sources.access`.  This module reads the request's part of that (the session cookie, the server's settings)
and decides where the game goes: only the configured sheet is ever written, only by someone allowed to, however the
request was made.  Every form showing carries a submission token (``sources.record``), so a double-clicked
confirm or a retried request adds the game once.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import flask
from dash import ALL, Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import (
    SAMPLE_SHOWN,
    DataError,
    describe_source,
    history_for,
    load_source,
    sample_shown,
    source_summary,
)
from layouts.edit import FIRST_ON_A_PHONE, access_line, group_access_line, record_alert, status_lines
from layouts.ids import Data, Edit, GroupPage, Page, Record, RecordType
from ratings.lazy import lazy_module
from sources import settings
from sources.access import Rights, group_entry, group_may, organiser_mark, rights, secret_matches
from sources.choosing import group_of_path, group_shown
from sources.edits import fresh_state
from sources.groups import GroupError
from sources.model import GroupTitle
from sources.record import new_submission_token
from sources.record_form import add_to_session, game_text, plan, sheet_writable, write_to_sheet
from sources.sheets import SheetError, load_settings

if TYPE_CHECKING:
    from sources.groups import pages as group_pages
else:  # loaded (with SQLAlchemy) when a group's page first needs it: the app's start and "/" never do
    group_pages = lazy_module("sources.groups.pages")

__all__ = ["LOCAL_WRITES", "ORGANISER", "record_step", "request_rights"]

#: The session cookie's field holding :func:`sources.access.organiser_mark` for a signed-in organiser.
ORGANISER = "organiser"
#: Flask config flag set by ``python app.py`` on a loopback address: the person at the keyboard is the host.
LOCAL_WRITES = "RATINGS_LOCAL_WRITES"


def request_rights() -> Rights:
    """What this request's sender may do with the group's sheet (from its signed session cookie)."""
    app = flask.current_app
    return rights(
        mark=flask.session.get(ORGANISER),
        secret_key=str(app.secret_key),
        admin_secret=settings.current().admin_secret,
        local=bool(app.config.get(LOCAL_WRITES)),
    )


# data source -> player names offered in the form, a fresh submission token
@callback(
    Output(Record.NAMES_DATA, "data"),
    Output(Record.TOKEN, "data"),
    Input(Data.SOURCE, "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_names(source: dict[str, Any] | None) -> tuple[Any, str]:
    try:
        players = history_for(source).players if source else ()
    except DataError:
        players = ()
    return sorted(players, key=str.casefold), new_submission_token()


# Record / Write / Cancel buttons, form, source, edit store -> confirm step, status, session history or sheet
@callback(
    Output(Record.CONFIRM_BOX, "is_open"),
    Output(Record.CONFIRM_TEXT, "children"),
    Output(Record.PENDING, "data"),
    Output(Record.STATUS, "children", allow_duplicate=True),
    Output(Record.TOKEN, "data", allow_duplicate=True),
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Edit.STORE, "data", allow_duplicate=True),
    Output(Edit.GRID, "rowData", allow_duplicate=True),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    *SAMPLE_SHOWN,
    Output({"type": RecordType.PLAYER, "index": ALL}, "value"),
    Output({"type": RecordType.PLACE, "index": ALL}, "value"),
    Output({"type": RecordType.TEAM, "index": ALL}, "value"),
    Output(GroupPage.GAME, "value", allow_duplicate=True),
    Input(Record.SUBMIT, "n_clicks"),
    Input(Record.CONFIRM, "n_clicks"),
    Input(Record.CANCEL, "n_clicks"),
    State(Record.DATE, "value"),
    State({"type": RecordType.PLAYER, "index": ALL}, "value"),
    State({"type": RecordType.PLACE, "index": ALL}, "value"),
    State({"type": RecordType.TEAM, "index": ALL}, "value"),
    State(Record.TOKEN, "data"),
    State(Record.PENDING, "data"),
    State(Data.SOURCE, "data"),
    State(Edit.STORE, "data"),
    State(GroupPage.GAME, "value"),
    prevent_initial_call=True,
)
def on_record(_submit, _confirm, _cancel, date, players, places, teams, token, pending, source, state, correcting=None):
    if not {Record.SUBMIT: _submit, Record.CONFIRM: _confirm, Record.CANCEL: _cancel}.get(ctx.triggered_id):
        raise PreventUpdate  # the tab's content mounting (no button pressed yet): nothing to do
    players = players if isinstance(players, list) else []
    places = places if isinstance(places, list) else []
    teams = teams if isinstance(teams, list) else []
    out = record_step(
        ctx.triggered_id,
        date,
        players,
        places,
        token,
        pending,
        source,
        state,
        correcting=correcting,
        teams=teams,  # plan() reads a game with every team field blank as a game without teams
    )
    recorded = out[4] is not no_update  # a new token: the game went in, so empty the form
    # Wildcard outputs take one value per component, never a bare no_update (which Dash refuses with a 500).
    # a corrected game is no longer chosen on the group's bar, so the next game recorded is a new one
    done = None if recorded and correcting else no_update
    return (
        *out,
        *sample_shown(out[5]),
        _each(players, recorded),
        _each(places, recorded),
        _each(teams, recorded),
        done,
    )


def _each(fields: list[Any], empty: bool) -> list[Any]:
    """One value per form field: emptied after a recorded game, else left as typed."""
    return ["" if empty else no_update for _ in fields]


def record_step(
    trigger: Any,
    date: Any,
    players: list[Any],
    places: list[Any],
    token: Any,
    pending: Any,
    source: Any,
    state: Any,
    allowed: Rights | None = None,
    *,
    correcting: Any = None,
    teams: list[Any] | None = None,
) -> tuple[Any, ...]:
    """What the Record / Write / Cancel buttons lead to: the callback's outputs but the form's values (``teams``:
    a team per player line, or None for a game without teams).

    On a group's page showing the group's own games, the game goes into the group's database (``correcting``: the
    id of the game it replaces, organisers only) when the cookie gives the right, and is refused otherwise.
    """
    keep = (no_update,) * 5
    token = token or new_submission_token()
    if trigger == Record.CANCEL:
        return False, "", None, record_alert("Not recorded.", False), *keep
    group = group_shown(source)
    if group is not None and trigger == Record.SUBMIT:
        return _record_in_group(group, source, date, players, places, token, correcting, teams)
    allowed = request_rights() if allowed is None else allowed
    if trigger == Record.CONFIRM:
        if not pending:
            return False, "", None, no_update, *keep
        ok, message = write_to_sheet(pending, allowed)
        if not ok:
            return False, "", None, record_alert(message, False), *keep
        sheet = pending["source"]
        with contextlib.suppress(DataError):
            load_source(sheet, force=True)  # read the sheet anew so the game shows at once
        refreshed = {**sheet, "recorded": pending["token"]}
        return (
            False,
            "",
            None,
            record_alert(message, True),
            new_submission_token(),
            refreshed,
            fresh_state(refreshed),
            no_update,
            source_summary(refreshed),
        )
    writable = sheet_writable(source)
    if writable and not allowed.may_record:
        return False, "", None, record_alert(f"Not recorded: {allowed.message}", False), *keep
    step = plan(source, date, players, places, token, writable=writable, teams=teams)
    if step.problems:
        return False, "", None, record_alert("Not recorded: " + "; ".join(step.problems), False), *keep
    assert step.game is not None
    if step.pending is not None:
        text = f"Write this game to {describe_source(source or {})}? {game_text(step.game)}"
        return True, text, step.pending, no_update, *keep
    outcome = add_to_session(
        state if isinstance(state, dict) and state.get("base") else fresh_state(source), step.game, token
    )
    return (
        False,
        "",
        None,
        status_lines(outcome),
        new_submission_token() if outcome.ok else no_update,
        outcome.source if outcome.source is not None else no_update,
        outcome.state if outcome.state is not None else no_update,
        outcome.rows if outcome.rows is not None else no_update,
        source_summary(outcome.source),
    )


def _record_in_group(
    group: GroupTitle,
    source: Any,
    date: Any,
    players: list[Any],
    places: list[Any],
    token: str,
    correcting: Any,
    teams: list[Any] | None = None,
) -> tuple[Any, ...]:
    keep = (no_update,) * 5
    step = plan(source, date, players, places, token, writable=False, teams=teams)
    if step.problems:
        return False, "", None, record_alert("Not recorded: " + "; ".join(step.problems), False), *keep
    assert step.game is not None
    try:
        message = group_pages.record(
            group.group,
            group.title,
            step.game,
            token=token,
            entry=group_entry(flask.session, group.group),
            secret_key=str(flask.current_app.secret_key),
            correcting=correcting if isinstance(correcting, str) and correcting else None,
        )
    except GroupError as exc:
        return False, "", None, record_alert(str(exc), False), *keep
    refreshed = {**source, "changed": token}  # a new value: every view reads the group's games again
    return (
        False,
        "",
        None,
        record_alert(message, True),
        new_submission_token(),
        refreshed,
        no_update,  # the edit store still shows the games before: the grid is filled anew (callbacks.edit)
        no_update,
        source_summary(refreshed),
    )


# Sign in / Sign out buttons, secret box -> the session cookie's organiser mark, the access line, the box emptied,
# the last record message cleared (it was about the rights before)
@callback(
    Output(Record.ACCESS, "children"),
    Output(Record.STATUS, "children"),
    Output(Record.SIGN_IN_BOX, "is_open"),
    Output(Record.SIGN_OUT, "style"),
    Output(Record.SECRET, "value"),
    Output(Record.PANEL, "className"),
    Input(Record.SIGN_IN, "n_clicks"),
    Input(Record.SIGN_OUT, "n_clicks"),
    Input(Record.SECRET, "n_submit"),
    Input(GroupPage.REFRESH, "data"),  # signed in or out on the group's bar
    State(Record.SECRET, "value"),
    State(Page.LOCATION, "pathname"),
    prevent_initial_call=False,  # fires when the tab's content mounts: says who may record
)
def on_access(
    _sign_in: Any, _sign_out: Any, _submit: Any, _refresh: Any, secret: Any, pathname: Any = None
) -> tuple[Any, Any, bool, dict[str, str], str, str]:
    trigger = ctx.triggered_id
    slug = group_of_path(pathname)
    if slug is not None:  # a group's page: its bar says who may record, and signs in
        role = group_pages.identify(slug, group_entry(flask.session, slug), str(flask.current_app.secret_key)).role
        may = group_may(role, "record")
        return group_access_line(may), no_update, False, {"display": "none"}, "", FIRST_ON_A_PHONE if may else ""
    note = ""
    if trigger == Record.SIGN_OUT:
        flask.session.pop(ORGANISER, None)
        note = "Signed out. "
    elif trigger in (Record.SIGN_IN, Record.SECRET):
        admin_secret = settings.current().admin_secret
        if admin_secret and secret_matches(secret, admin_secret):
            flask.session[ORGANISER] = organiser_mark(str(flask.current_app.secret_key), admin_secret)
            flask.session.permanent = True  # kept for the app's PERMANENT_SESSION_LIFETIME (web.guard)
        elif admin_secret:
            note = "That is not the organisers' secret. "
    now = request_rights()
    shown = now.can_sign_in and not now.organiser
    cleared = "" if trigger is not None else no_update
    return _access_line(now, note), cleared, shown, {} if now.organiser else {"display": "none"}, "", ""


def _access_line(now: Rights, note: str) -> Any:
    """The record form's line saying who may record here (and what just happened)."""
    try:
        config = load_settings()
    except SheetError:
        config = None
    return access_line(now, note, config)
