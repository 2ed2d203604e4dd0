"""A group's page (``/g/<slug>``): its bar (name, titles, who is signed in), signing in (the passphrase, a member
link's ``#member=`` token, the admin link's ``#admin=`` passphrase), and the organisers' tools (delete, undo, member
links, the group's aliases, importing a file's or a Sheet's games with a preview, downloads).

Every write is checked by :mod:`sources.groups.pages` against the signed cookie's entry for the group and what the
database holds now; this module only reads the request's cookie and passes it on.  Secrets arrive in request bodies
(the address's fragment never reaches the server's access log) and are never logged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import flask
from dash import ALL, Input, Output, State, callback, clientside_callback, ctx, html, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import source_summary
from layouts import group as group_layout
from layouts.edit import record_alert
from layouts.ids import Data, GroupPage, GroupType, Page
from ratings.lazy import lazy_module
from sources.access import GROUPS_COOKIE, REFUSED, group_entry, group_may
from sources.choosing import group_of_path, group_shown, title_of_query
from sources.groups import GroupError
from sources.model import DataError, GroupTitle, Upload
from sources.record import new_submission_token
from sources.runs import read_upload

if TYPE_CHECKING:
    from sources.groups import pages
else:  # loaded (with SQLAlchemy) when a group's page first needs it: the app's start and "/" never do
    pages = lazy_module("sources.groups.pages")


def _key() -> str:
    return str(flask.current_app.secret_key)


def _entry(slug: str) -> Any:
    return group_entry(flask.session, slug)


def _alert(text: str, ok: bool) -> Any:
    return record_alert(text, ok)  # the record form's own status line


# page address, a sign-in or write (the refresh store) -> the group's bar: shown, name, titles, role, tools
@callback(
    Output(GroupPage.BAR, "style"),
    Output(GroupPage.HEADER, "children"),
    Output(GroupPage.TITLE, "options"),
    Output(GroupPage.TITLE, "value"),
    Output(GroupPage.ROLE, "children"),
    Output(GroupPage.SIGN_IN_BOX, "style"),
    Output(GroupPage.SIGN_OUT, "style"),
    Output(GroupPage.TOOLS, "style"),
    Output(GroupPage.LINKS, "children"),
    Output(GroupPage.GAME, "options"),
    Output(GroupPage.ALIASES, "children"),
    Input(Page.LOCATION, "pathname"),
    Input(GroupPage.REFRESH, "data"),
    State(Data.SOURCE, "data"),
    State(Page.LOCATION, "search"),
)
def on_group_page(pathname: Any, _refresh: Any, source: Any, search: Any = None) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    info = pages.group_info(slug) if slug else None
    if slug is None or info is None:
        return (
            group_layout.HIDDEN,
            "",
            [],
            None,
            "",
            group_layout.HIDDEN,
            group_layout.HIDDEN,
            group_layout.HIDDEN,
            [],
            [],
            [],
        )
    # the title in use: the data's once it shows this group, else the address's (the page is still opening)
    shown = _title_shown(source, slug)
    wanted = shown if shown is not None else title_of_query(search)
    title = wanted if wanted in info.titles else (info.titles[0] if info.titles else None)
    visitor = pages.identify(slug, _entry(slug), _key())
    role = {
        "organiser": "Organiser: you may record, correct and delete games, merge names and make member links.",
        "member": f"You hold the {visitor.who}: you may record games, on the Edit history tab.",
    }.get(
        visitor.role or "",
        "You are a visitor: every view and what-if is yours alone; the group's games stay as they are.",
    )
    organiser = group_may(visitor.role, "links")
    links = group_layout.link_rows(pages.links_of(slug, entry=_entry(slug), secret_key=_key())) if organiser else []
    games = [{"label": g, "value": g} for g in pages.games_of(slug, title)] if organiser else []
    aliases = group_layout.alias_rows(pages.aliases_of(slug)) if organiser else []
    return (
        group_layout.SHOWN,
        info.name,
        [{"label": t, "value": t} for t in info.titles],
        title,
        role,
        group_layout.HIDDEN if visitor.role == "organiser" else group_layout.SHOWN,
        group_layout.SHOWN if visitor.role else group_layout.HIDDEN,
        group_layout.SHOWN if organiser else group_layout.HIDDEN,
        links,
        games,
        aliases,
    )


# title dropdown -> the data source shows that title's games (seen through the view in use)
@callback(
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Input(GroupPage.TITLE, "value"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_title(title: Any, source: Any) -> tuple[Any, Any]:
    shown = group_shown(source)
    if shown is None or not isinstance(title, str) or title == shown.title:
        raise PreventUpdate  # not a group's own games in use, or the bar followed the data in use
    chosen = {**GroupTitle(shown.group, title).to_json(), **({"view": source["view"]} if "view" in source else {})}
    return chosen, source_summary(chosen)


# Sign in (passphrase), Sign out, the address's #member= / #admin= fragment -> the cookie's entry for the group,
# what happened, the passphrase box emptied, the bar refreshed
@callback(
    Output(GroupPage.MESSAGE, "children"),
    Output(GroupPage.PASSPHRASE, "value"),
    Output(GroupPage.REFRESH, "data"),
    Input(GroupPage.SIGN_IN, "n_clicks"),
    Input(GroupPage.PASSPHRASE, "n_submit"),
    Input(GroupPage.SIGN_OUT, "n_clicks"),
    Input(Page.LOCATION, "hash"),
    State(GroupPage.PASSPHRASE, "value"),
    State(Page.LOCATION, "pathname"),
    prevent_initial_call=True,
)
def on_sign_in(_click: Any, _submit: Any, _out: Any, fragment: Any, passphrase: Any, pathname: Any) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    if slug is None:
        raise PreventUpdate
    trigger = ctx.triggered_id
    message: str | None
    entry: dict[str, Any] | None
    try:
        if trigger == GroupPage.SIGN_OUT:
            entry, message = None, "Signed out of this group in this browser."
        elif trigger == Page.LOCATION:
            entry, message = _from_fragment(slug, fragment)
        else:
            entry = pages.sign_in(slug, passphrase, _key())
            message = "Signed in as an organiser." if entry else "That is not this group's passphrase."
            if entry is None:
                return _alert(message, False), "", no_update
    except GroupError as exc:
        return _alert(str(exc), False), "", no_update
    if entry is None and trigger == Page.LOCATION:
        if message is None:
            raise PreventUpdate  # a fragment that is no sign-in
        return _alert(message, False), "", no_update
    groups = dict(flask.session.get(GROUPS_COOKIE) or {})
    if entry is None:
        groups.pop(slug, None)
    else:
        groups[slug] = entry
    flask.session[GROUPS_COOKIE] = groups
    flask.session.permanent = True  # kept for the app's PERMANENT_SESSION_LIFETIME (web.guard)
    return _alert(message or "", True), "", new_submission_token()


def _from_fragment(slug: str, fragment: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The cookie entry a ``#member=TOKEN`` or ``#admin=PASSPHRASE`` fragment gives, and what to say."""
    text = fragment[1:] if isinstance(fragment, str) and fragment.startswith("#") else ""
    kind, _, secret = text.partition("=")
    if kind == "member":
        entry = pages.join(slug, secret, _key())
        return entry, ("Signed in with a member link." if entry else MEMBER_REFUSED)
    if kind == "admin":
        entry = pages.sign_in(slug, secret, _key())
        return entry, ("Signed in as an organiser." if entry else "That admin link is not this group's.")
    return None, None


MEMBER_REFUSED = "That member link does not open this group (it was revoked, or is incomplete): ask an organiser."


# Delete, Undo, Make member link, Revoke, Merge for the group, Remove (an alias), Mirror on/off, the title's Sheet
# on/off -> what happened, the new link, the bar and the group's games refreshed
@callback(
    Output(GroupPage.MESSAGE, "children", allow_duplicate=True),
    Output(GroupPage.NEW_LINK, "children"),
    Output(GroupPage.REFRESH, "data", allow_duplicate=True),
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Input(GroupPage.DELETE, "n_clicks"),
    Input(GroupPage.UNDO, "n_clicks"),
    Input(GroupPage.MAKE_LINK, "n_clicks"),
    Input({"type": GroupType.REVOKE, "index": ALL}, "n_clicks"),
    Input(GroupPage.DECLARE_ALIAS, "n_clicks"),
    Input({"type": GroupType.UNALIAS, "index": ALL}, "n_clicks"),
    Input(GroupPage.MIRROR_ON, "n_clicks"),
    Input(GroupPage.MIRROR_OFF, "n_clicks"),
    Input(GroupPage.TITLE_SHEET_ON, "n_clicks"),
    Input(GroupPage.TITLE_SHEET_OFF, "n_clicks"),
    State(GroupPage.GAME, "value"),
    State(GroupPage.LINK_LABEL, "value"),
    State(GroupPage.ALIAS_NAME, "value"),
    State(GroupPage.ALIAS_PLAYER, "value"),
    State(GroupPage.TITLE_SHEET_URL, "value"),
    State(GroupPage.TITLE_SHEET_TAB, "value"),
    State(Page.LOCATION, "pathname"),
    State(Page.LOCATION, "href"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_tools(
    _delete: Any,
    _undo: Any,
    _make: Any,
    _revoke: Any,
    _alias: Any,
    _unalias: Any,
    _mirror_on: Any,
    _mirror_off: Any,
    _sheet_on: Any,
    _sheet_off: Any,
    game: Any,
    label: Any,
    alias: Any,
    player: Any,
    sheet: Any,
    worksheet: Any,
    pathname: Any,
    href: Any,
    source: Any,
) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    trigger = ctx.triggered_id
    if slug is None or trigger is None or not ctx.triggered or not ctx.triggered[0].get("value"):
        raise PreventUpdate  # a Revoke button appearing (n_clicks None) is no click
    title = _title_shown(source, slug)
    link: Any = no_update
    try:
        if trigger == GroupPage.DELETE:
            message = pages.delete_game(slug, title, game, entry=_entry(slug), secret_key=_key())
        elif trigger == GroupPage.UNDO:
            message = pages.undo_last(slug, entry=_entry(slug), secret_key=_key())
        elif trigger == GroupPage.MAKE_LINK:
            token = pages.make_link(slug, label, entry=_entry(slug), secret_key=_key())
            base = (href or "").split("#")[0].split("?")[0]
            message = "Member link made: give it to the member (it is shown only now)."
            link = [html_code(f"{base}#member={token}")]
        elif trigger in (GroupPage.MIRROR_ON, GroupPage.MIRROR_OFF):
            on = trigger == GroupPage.MIRROR_ON
            message = pages.set_mirror(slug, on, entry=_entry(slug), secret_key=_key())
        elif trigger in (GroupPage.TITLE_SHEET_ON, GroupPage.TITLE_SHEET_OFF):
            url = sheet if trigger == GroupPage.TITLE_SHEET_ON else None
            if trigger == GroupPage.TITLE_SHEET_ON and not (isinstance(url, str) and url.strip()):
                raise GroupError("enter the address of the Google Sheet the title's games are read from")
            message = pages.set_title_sheet(slug, title, url, worksheet, entry=_entry(slug), secret_key=_key())
        elif trigger == GroupPage.DECLARE_ALIAS:
            message = pages.declare_alias(slug, alias, player, entry=_entry(slug), secret_key=_key())
        elif isinstance(trigger, dict) and trigger.get("type") == GroupType.UNALIAS:
            message = pages.remove_alias(slug, trigger.get("index"), entry=_entry(slug), secret_key=_key())
        else:
            index = trigger.get("index") if isinstance(trigger, dict) else None
            message = pages.revoke_link(slug, index, entry=_entry(slug), secret_key=_key())
    except GroupError as exc:
        return _alert(str(exc), False), no_update, no_update, no_update, no_update
    return _alert(message, True), link, new_submission_token(), *_read_again(source)


def html_code(text: str) -> Any:
    return html.Code(text, className="user-select-all text-break")


# Download buttons -> the title's games (CSV) or the group's change log (JSON): the files `groups export` writes
@callback(
    Output(GroupPage.DOWNLOAD, "data"),
    Output(GroupPage.MESSAGE, "children", allow_duplicate=True),
    Input(GroupPage.EXPORT_CSV, "n_clicks"),
    Input(GroupPage.EXPORT_LOG, "n_clicks"),
    State(Page.LOCATION, "pathname"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_export(_csv: Any, _log: Any, pathname: Any, source: Any) -> tuple[Any, Any]:
    slug = group_of_path(pathname)
    if slug is None:
        raise PreventUpdate
    title = _title_shown(source, slug)
    try:
        csv, log = pages.export_files(slug, title)
    except GroupError as exc:
        return no_update, _alert(str(exc), False)
    if ctx.triggered_id == GroupPage.EXPORT_LOG:
        return {"content": log, "filename": "changes.json", "type": "application/json"}, no_update
    name = f"{slug}-{(title or 'games')}.csv".replace("/", "_")
    return {"content": csv, "filename": name, "type": "text/csv"}, no_update


# Import upload -> the preview of what the file's games would change, the pending import (its content id), the
# Import button shown (organisers only: anyone else is told so before the file is kept)
@callback(
    Output(GroupPage.IMPORT_PREVIEW, "children"),
    Output(GroupPage.IMPORT_PENDING, "data"),
    Output(GroupPage.IMPORT_CONFIRM, "style"),
    Output(GroupPage.IMPORT_UPLOAD, "contents"),
    Input(GroupPage.IMPORT_UPLOAD, "contents"),
    State(GroupPage.IMPORT_UPLOAD, "filename"),
    State(Page.LOCATION, "pathname"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_import_preview(contents: Any, filename: Any, pathname: Any, source: Any) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    if slug is None or not contents:
        raise PreventUpdate

    def read() -> tuple[str, str, list[str]]:
        upload, warnings = read_upload(contents, filename)
        return upload.id, upload.filename, warnings

    return (*_preview(slug, source, read), None)


# Preview the Sheet's games -> the same preview and pending import as a file's, from the Sheet's games (organisers
# only: anyone else is told so before the Sheet is read)
@callback(
    Output(GroupPage.IMPORT_PREVIEW, "children", allow_duplicate=True),
    Output(GroupPage.IMPORT_PENDING, "data", allow_duplicate=True),
    Output(GroupPage.IMPORT_CONFIRM, "style", allow_duplicate=True),
    Input(GroupPage.IMPORT_SHEET, "n_clicks"),
    State(GroupPage.IMPORT_SHEET_URL, "value"),
    State(Page.LOCATION, "pathname"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_import_sheet(clicks: Any, url: Any, pathname: Any, source: Any) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    if slug is None or not clicks:
        raise PreventUpdate
    return _preview(slug, source, lambda: pages.sheet_games(url))


def _preview(slug: str, source: Any, read: Callable[[], tuple[str, str, list[str]]]) -> tuple[Any, Any, Any]:
    """The preview of an import, its pending confirmation and the Import button's style, for the games ``read`` keeps
    (their content id, what they are called, the reading's warnings); the role is checked before they are read."""
    title = _title_shown(source, slug)
    hidden = group_layout.HIDDEN
    if not group_may(pages.identify(slug, _entry(slug), _key()).role, "import"):
        return _alert(REFUSED["other"], False), None, hidden
    try:
        cid, label, warnings = read()
        history = Upload.from_json({"id": cid, "filename": "import"}).load().history
        preview = pages.import_preview(slug, title, history, entry=_entry(slug), secret_key=_key())
    except DataError as exc:
        return _alert("Not imported: " + "; ".join(exc.messages), False), None, hidden
    except GroupError as exc:
        return _alert(str(exc), False), None, hidden
    note = f" ({'; '.join(warnings[:3])})" if warnings else ""
    return _alert(f"{label}: {preview}{note}", True), {"id": cid, "title": title}, group_layout.SHOWN


def _title_shown(source: Any, slug: str) -> str | None:
    """The title of this group the page shows (None: another source, or another group's)."""
    shown = group_shown(source)
    return shown.title if shown is not None and shown.group == slug else None


def _read_again(source: Any) -> tuple[Any, Any]:
    """After a change to the group's games: the data source with a new value (so every view reads them again) and its
    summary line, when the page shows the group's games; else both left as they are."""
    if group_shown(source) is None:
        return no_update, no_update
    refreshed = {**source, "changed": new_submission_token()}
    return refreshed, source_summary(refreshed)


# Import these games -> the file's new games added to the title, what was done, the group's games read again
@callback(
    Output(GroupPage.IMPORT_PREVIEW, "children", allow_duplicate=True),
    Output(GroupPage.IMPORT_PENDING, "data", allow_duplicate=True),
    Output(GroupPage.IMPORT_CONFIRM, "style", allow_duplicate=True),
    Output(GroupPage.REFRESH, "data", allow_duplicate=True),
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Input(GroupPage.IMPORT_CONFIRM, "n_clicks"),
    State(GroupPage.IMPORT_PENDING, "data"),
    State(Page.LOCATION, "pathname"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_import(clicks: Any, pending: Any, pathname: Any, source: Any) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    if slug is None or not clicks or not isinstance(pending, dict):
        raise PreventUpdate
    title = pending.get("title") if isinstance(pending.get("title"), str) else None
    hidden = group_layout.HIDDEN
    try:
        history = Upload.from_json({"id": pending.get("id"), "filename": "import"}).load().history
        message = pages.import_games(slug, title, history, entry=_entry(slug), secret_key=_key())
    except DataError as exc:
        return _alert("Not imported: " + "; ".join(exc.messages), False), None, hidden, *(no_update,) * 3
    except GroupError as exc:
        return _alert(str(exc), False), None, hidden, *(no_update,) * 3
    return _alert(message, True), None, hidden, new_submission_token(), *_read_again(source)


# Restore upload (changes.json and the titles' CSV files) -> the export's games brought into the group, what was done
@callback(
    Output(GroupPage.IMPORT_PREVIEW, "children", allow_duplicate=True),
    Output(GroupPage.REFRESH, "data", allow_duplicate=True),
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Output(GroupPage.RESTORE_UPLOAD, "contents"),
    Input(GroupPage.RESTORE_UPLOAD, "contents"),
    State(GroupPage.RESTORE_UPLOAD, "filename"),
    State(Page.LOCATION, "pathname"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_restore(contents: Any, filenames: Any, pathname: Any, source: Any) -> tuple[Any, ...]:
    slug = group_of_path(pathname)
    if slug is None or not isinstance(contents, list) or not contents:
        raise PreventUpdate
    keep = (no_update,) * 3
    if not group_may(pages.identify(slug, _entry(slug), _key()).role, "import"):
        return _alert(REFUSED["other"], False), *keep, None
    names = filenames if isinstance(filenames, list) and len(filenames) == len(contents) else []
    try:
        manifest, histories = pages.read_export(list(zip(names, contents, strict=False)))
        message = pages.restore(slug, manifest, histories, entry=_entry(slug), secret_key=_key())
    except DataError as exc:
        return _alert("Not restored: " + "; ".join(exc.messages), False), *keep, None
    except GroupError as exc:
        return _alert(str(exc), False), *keep, None
    return _alert(message, True), new_submission_token(), *_read_again(source), None


# a sign-in's message -> the address bar without a #member= or #admin= fragment (so a copied address never carries the
# secret on); runs in the browser, which alone holds the fragment
clientside_callback(
    """function(message) {
        var hash = window.location.hash || "";
        if (hash.indexOf("#member=") === 0 || hash.indexOf("#admin=") === 0) {
            window.history.replaceState(null, "", window.location.pathname + window.location.search);
        }
        return hash.indexOf("#member=") === 0 || hash.indexOf("#admin=") === 0;
    }""",
    Output(GroupPage.CLEANED, "data"),
    Input(GroupPage.MESSAGE, "children"),
    prevent_initial_call=True,
)
