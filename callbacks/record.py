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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import dash_bootstrap_components as dbc
import flask
from dash import ALL, Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import (
    SAMPLE_SHOWN,
    DataError,
    describe_source,
    history_for,
    load_source,
    open_sheet,
    sample_shown,
    source_summary,
)
from layouts.edit import status_lines
from layouts.ids import Data, Edit, Record, RecordType
from ratings import HistoryError
from sources import settings
from sources.access import Rights, organiser_mark, rights, secret_matches, write_target
from sources.edits import EditOutcome, apply_rows, fresh_state, grid_rows
from sources.model import Sheet, parse_source
from sources.record import NewGame, new_game, new_submission_token, record_game
from sources.sheets import SheetError, SheetSettings, load_settings

__all__ = [
    "LOCAL_WRITES",
    "ORGANISER",
    "Plan",
    "add_to_session",
    "game_text",
    "plan",
    "record_step",
    "request_rights",
    "sheet_writable",
    "write_to_sheet",
]

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


def sheet_writable(source: dict[str, Any] | None, config: SheetSettings | None = None) -> bool:
    """Whether ``source`` is the (unedited) group sheet this server is configured to write to."""
    try:
        sheet = parse_source(source)
    except DataError:
        return False
    if not isinstance(sheet, Sheet):
        return False
    try:
        config = load_settings() if config is None else config
    except SheetError:
        return False
    return config.can_write and config.is_configured(sheet.url, sheet.worksheet)


def game_text(game: NewGame) -> str:
    """ "2024-05-31: 1. Ann, 2. Bo, DNF Cy"."""
    finished = sorted((e for e in game.entries if e.place is not None), key=lambda e: e.place or 0)
    parts = [f"{e.place}. {e.player}" for e in finished] + [f"DNF {e.player}" for e in game.entries if e.place is None]
    return f"{game.date.isoformat() if game.date else 'no date'}: {', '.join(parts)}"


@dataclass
class Plan:
    """What the submit button leads to: problems, a confirm step (``pending``) or a game for the session."""

    problems: list[str]
    game: NewGame | None = None
    pending: dict[str, Any] | None = None


def plan(
    source: dict[str, Any] | None,
    date: Any,
    players: Sequence[Any],
    places: Sequence[Any],
    token: str,
    *,
    writable: bool,
) -> Plan:
    """Validate the form; a writable sheet asks for confirmation first, anything else goes to the session."""
    try:
        game = new_game(date, list(zip(players, places, strict=False)))
    except HistoryError as exc:
        return Plan([str(p) for p in exc.problems])
    if writable and source:
        pending = {
            "date": game.date.isoformat() if game.date else None,
            "results": [[e.player, e.place] for e in game.entries],
            "token": token,
            "source": source,
        }
        return Plan([], game, pending)
    return Plan([], game)


def add_to_session(state: dict[str, Any] | None, game: NewGame, token: str) -> EditOutcome:
    """The session history with ``game`` added (an applied edit, so Undo takes it back); once per token."""
    if not state or not state.get("base"):
        return EditOutcome("The history is still loading; try again in a moment.", ok=False)
    rows = (
        [
            {"_id": i, **dict(zip(("game", "date", "player", "place", "exclude"), r, strict=True))}
            for i, r in enumerate(state["rows"])
        ]
        if state.get("rows") is not None
        else grid_rows(history_for(state["base"]))
    )
    if any(str(r.get("game")) == token for r in rows):
        return EditOutcome("This game was already added (the same submission); it was not added again.", ok=False)
    date = game.date.isoformat() if game.date else ""
    start = len(rows)
    for i, entry in enumerate(game.entries):
        place = "DNF" if entry.place is None else str(entry.place)
        rows.append(
            {"_id": start + i, "game": token, "date": date, "player": entry.player, "place": place, "exclude": False}
        )
    outcome = apply_rows(rows, state)
    if outcome.ok:
        outcome.message = (
            f"Added to this session's history as game '{token}' ({game_text(game)}). It is not saved anywhere: "
            "download the history CSV to keep it; Undo takes it back."
        )
    return outcome


def write_to_sheet(
    pending: dict[str, Any],
    allowed: Rights,
    opener: Callable[..., Any] = open_sheet,
    config: SheetSettings | None = None,
) -> tuple[bool, str]:
    """Append the confirmed game to the group's sheet (idempotent per token): ``(written or already there, message)``.

    ``pending`` comes from the browser: its game is validated again and its sheet only compared with the configured
    one (:func:`sources.access.write_target`); the address written to is the configured one.
    """
    if not allowed.may_record:
        return False, f"Not recorded: {allowed.message}"
    try:
        url, worksheet = write_target(pending.get("source"), load_settings() if config is None else config)
        game = new_game(pending.get("date"), [tuple(r) for r in pending["results"]])
        sheet = opener(url, worksheet)
        result = record_game(sheet, game, token=str(pending["token"]))
    except (SheetError, DataError, HistoryError, KeyError, TypeError) as exc:
        message = getattr(exc, "message", None) or "; ".join(getattr(exc, "messages", [])) or str(exc)
        if isinstance(exc, (KeyError, TypeError)):
            message = "the confirmation did not hold a game; press Record game again"
        return False, f"Not recorded: {message}"
    return True, result.message[0].upper() + result.message[1:] + "."


def _alert(text: str, ok: bool) -> list[Any]:
    return [dbc.Alert(text, color="success" if ok else "danger", className="small py-1 mb-0", dismissable=True)]


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
    Input(Record.SUBMIT, "n_clicks"),
    Input(Record.CONFIRM, "n_clicks"),
    Input(Record.CANCEL, "n_clicks"),
    State(Record.DATE, "value"),
    State({"type": RecordType.PLAYER, "index": ALL}, "value"),
    State({"type": RecordType.PLACE, "index": ALL}, "value"),
    State(Record.TOKEN, "data"),
    State(Record.PENDING, "data"),
    State(Data.SOURCE, "data"),
    State(Edit.STORE, "data"),
    prevent_initial_call=True,
)
def on_record(_submit, _confirm, _cancel, date, players, places, token, pending, source, state):
    if not {Record.SUBMIT: _submit, Record.CONFIRM: _confirm, Record.CANCEL: _cancel}.get(ctx.triggered_id):
        raise PreventUpdate  # the tab's content mounting (no button pressed yet): nothing to do
    players = players if isinstance(players, list) else []
    places = places if isinstance(places, list) else []
    out = record_step(ctx.triggered_id, date, players, places, token, pending, source, state)
    recorded = out[4] is not no_update  # a new token: the game went in, so empty the form
    # Wildcard outputs take one value per component, never a bare no_update (which Dash refuses with a 500).
    return (*out, *sample_shown(out[5]), _each(players, recorded), _each(places, recorded))


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
) -> tuple[Any, ...]:
    """What the Record / Write / Cancel buttons lead to: the callback's outputs but the form's values."""
    allowed = request_rights() if allowed is None else allowed
    keep = (no_update,) * 5
    token = token or new_submission_token()
    if trigger == Record.CANCEL:
        return False, "", None, _alert("Not recorded.", False), *keep
    if trigger == Record.CONFIRM:
        if not pending:
            return False, "", None, no_update, *keep
        ok, message = write_to_sheet(pending, allowed)
        if not ok:
            return False, "", None, _alert(message, False), *keep
        sheet = pending["source"]
        with contextlib.suppress(DataError):
            load_source(sheet, force=True)  # read the sheet anew so the game shows at once
        refreshed = {**sheet, "recorded": pending["token"]}
        return (
            False,
            "",
            None,
            _alert(message, True),
            new_submission_token(),
            refreshed,
            fresh_state(refreshed),
            no_update,
            source_summary(refreshed),
        )
    writable = sheet_writable(source)
    if writable and not allowed.may_record:
        return False, "", None, _alert(f"Not recorded: {allowed.message}", False), *keep
    step = plan(source, date, players, places, token, writable=writable)
    if step.problems:
        return False, "", None, _alert("Not recorded: " + "; ".join(step.problems), False), *keep
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


# Sign in / Sign out buttons, secret box -> the session cookie's organiser mark, the access line, the box emptied,
# the last record message cleared (it was about the rights before)
@callback(
    Output(Record.ACCESS, "children"),
    Output(Record.STATUS, "children"),
    Output(Record.SIGN_IN_BOX, "is_open"),
    Output(Record.SIGN_OUT, "style"),
    Output(Record.SECRET, "value"),
    Input(Record.SIGN_IN, "n_clicks"),
    Input(Record.SIGN_OUT, "n_clicks"),
    Input(Record.SECRET, "n_submit"),
    State(Record.SECRET, "value"),
    prevent_initial_call=False,  # fires when the tab's content mounts: says who may record
)
def on_access(_sign_in: Any, _sign_out: Any, _submit: Any, secret: Any) -> tuple[Any, Any, bool, dict[str, str], str]:
    trigger = ctx.triggered_id
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
    return _access_line(now, note), cleared, shown, {} if now.organiser else {"display": "none"}, ""


def _access_line(now: Rights, note: str) -> Any:
    """The record form's line saying who may record here (and what just happened)."""
    try:
        config = load_settings()
    except SheetError:
        config = None
    if config is None or not config.sheet or not config.can_write:
        text = "No writable group sheet is configured here: a game recorded below joins this browser's session."
        return dbc.Alert(note + text, color="secondary", className="small py-1 mb-1")
    return dbc.Alert(note + now.message, color="success" if now.may_record else "info", className="small py-1 mb-1")
