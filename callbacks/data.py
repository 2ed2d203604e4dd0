"""Choosing the data: sample, upload or Google Sheet -> the source store, a summary and plain-language messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, ctx, html, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import DataError, describe_source, load_source, read_upload, sample_shown
from layouts.ids import Data, DateRange, Page
from layouts.summary import summary_text
from ratings.io.cells import Cell
from ratings.io.dates import parse_date_cells  # the readers' date parser (one rule for dates)
from ratings.seasons import Season, SeasonError
from sources.links import default_source
from sources.model import Sheet, parse_source
from sources.views import View, view_of, with_view

__all__ = [
    "Choice",
    "choose_source",
    "season_boxes",
    "season_from",
    "set_season",
]


@dataclass
class Choice:
    """The outcome of a data action: the new source (``None``: keep the previous one) and what to say."""

    source: dict[str, Any] | None
    summary: str
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _try(source: dict[str, Any], previous: dict[str, Any] | None, *, force: bool = False) -> Choice:
    try:
        loaded = load_source(source, force=force)
    except DataError as exc:
        return _failed(f"Could not read {describe_source(source)}:", exc.messages, previous)
    return Choice(source, summary_text(loaded), warnings=list(loaded.warnings))


def _try_in_view(source: dict[str, Any], previous: dict[str, Any] | None, *, force: bool = False) -> Choice:
    """:func:`_try` on newly chosen data seen through the view in use (its aliases and season), so a change of
    data keeps them; a season that selects none of the new data's games is dropped, with a note saying so."""
    try:
        view = view_of(previous)
    except DataError:
        view = View()
    choice = _try(with_view(source, view), previous, force=force)
    if choice.source is None and not view.season.whole:
        fallback = _try(with_view(source, View(view.aliases)), previous, force=force)
        if fallback.source is not None:
            fallback.warnings.insert(0, f"The season ({view.season}) holds none of these games: showing all games.")
            return fallback
    return choice


def _failed(head: str, messages: list[str], previous: dict[str, Any] | None) -> Choice:
    errors = [head, *messages]
    if previous is not None:
        errors.append(f"Still using the previous data ({describe_source(previous)}).")
        try:
            return Choice(None, summary_text(load_source(previous)), errors)
        except DataError:
            return Choice(None, "", errors)
    return Choice(None, "", errors)


def choose_source(
    trigger: str | None,
    *,
    previous: dict[str, Any] | None,
    url_source: dict[str, Any] | None = None,
    sample: str | None = None,
    upload: str | None = None,
    filename: str | None = None,
    sheet_url: str | None = None,
) -> Choice:
    """What a data action leads to.  ``trigger`` names the control that moved (a :class:`Data` or
    :class:`Page` id); a source that cannot be read leaves the previous one in use.
    """
    if trigger == Data.UPLOAD:
        if not upload:
            return Choice(None, "")
        name = filename or "the uploaded file"
        try:
            source, warnings = read_upload(upload, name)
        except DataError as exc:
            return _failed(f"Could not read {name}:", exc.messages, previous)
        choice = _try_in_view(source, previous)
        choice.warnings = warnings + [w for w in choice.warnings if w not in warnings]
        return choice
    if trigger == Data.SAMPLE and sample:
        return _try_in_view({"kind": "sample", "name": sample}, previous)
    if trigger in (Data.SHEET_LOAD, Data.SHEET_URL, Data.SHEET_REFRESH):
        url = (sheet_url or "").strip()
        if not url:
            return _failed("Enter the address of a Google Sheet first.", [], previous)
        sheet = {"kind": "sheet", "url": url, "worksheet": None}
        return _try_in_view(sheet, previous, force=trigger == Data.SHEET_REFRESH)
    # the page opened (or its address changed): the address's source, else the default
    wanted = url_source or default_source()
    choice = _try(wanted, previous)
    if choice.source is None and previous is None and wanted != default_source():
        fallback = _try(default_source(), None)
        fallback.errors = choice.errors + [f"Showing {describe_source(default_source())} instead."]
        return fallback
    return choice


def messages(choice: Choice) -> list[Any]:
    """Alerts for the errors (red) and warnings (yellow) of a data action."""
    out: list[Any] = []
    if choice.errors:
        out.append(
            dbc.Alert(
                [html.Div(choice.errors[0], className="fw-semibold"), html.Ul([html.Li(m) for m in choice.errors[1:]])],
                color="danger",
                className="small py-1 mb-1",
                dismissable=True,
            )
        )
    if choice.warnings:
        shown = choice.warnings[:20]
        more = len(choice.warnings) - len(shown)
        items = [html.Li(w) for w in shown] + ([html.Li(f"... and {more} more")] if more > 0 else [])
        out.append(
            dbc.Alert(
                [html.Div("Read with warnings:", className="fw-semibold"), html.Ul(items, className="mb-0")],
                color="warning",
                className="small py-1 mb-1",
                dismissable=True,
            )
        )
    return out


# address, sample dropdown, upload, sheet buttons (or Enter in the sheet box) -> data source store, summary, messages,
# the sample dropdown showing the data in use
@callback(
    Output(Data.SOURCE, "data"),
    Output(Data.SUMMARY, "children"),
    Output(Data.MESSAGES, "children"),
    Output(Data.SHEET_URL, "value"),
    Output(Data.UPLOAD, "contents"),
    Output(Data.SAMPLE, "value"),
    Output(Data.SAMPLE, "placeholder"),
    Input(Page.URL_STATE, "data"),
    Input(Data.SAMPLE, "value"),
    Input(Data.UPLOAD, "contents"),
    Input(Data.SHEET_LOAD, "n_clicks"),
    Input(Data.SHEET_URL, "n_submit"),
    Input(Data.SHEET_REFRESH, "n_clicks"),
    State(Data.UPLOAD, "filename"),
    State(Data.SHEET_URL, "value"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_data(
    url_state: dict[str, Any] | None,
    sample: str | None,
    upload: str | None,
    _load: int | None,
    _submit: int | None,
    _refresh: int | None,
    filename: str | None,
    sheet_url: str | None,
    previous: dict[str, Any] | None,
) -> tuple[Any, ...]:
    trigger = ctx.triggered_id
    if trigger == Data.SAMPLE and (not sample or sample_shown(previous)[0] == sample):
        raise PreventUpdate  # the dropdown followed the data in use (below); nothing was chosen
    choice = choose_source(
        trigger,
        previous=previous,
        url_source=(url_state or {}).get("source"),
        sample=sample,
        upload=upload,
        filename=filename,
        sheet_url=sheet_url,
    )
    source = choice.source
    typed = parse_source(source) if source is not None else None
    sheet_value = typed.url if isinstance(typed, Sheet) else no_update
    summary = choice.summary or no_update
    # Once read, the file's bytes are dropped from the page, so no later request carries them again.
    cleared = None if trigger == Data.UPLOAD else no_update
    return (
        source if source is not None else no_update,
        summary,
        messages(choice),
        sheet_value,
        cleared,
        *sample_shown(source),
    )


# ---------------------------------------------------------------- the season (date range, last N games)
def season_from(start: Any, end: Any, last: Any) -> Season:
    """The season the Season card's boxes ask for; :class:`DataError` saying which box is wrong.

    Dates are read by the file readers' own rule (2024-03-31, 31/03/2024, 31 March 2024, ...).
    """
    cells: dict[int, Cell] = {
        i: str(v).strip()[:40] for i, v in enumerate((start, end)) if isinstance(v, str) and v.strip()
    }
    read = parse_date_cells(cells, "date", None)
    problems = [f"{('From', 'To')[row]}: {p.message}" for row, p in read.row_problems.items()]
    problems += [p.message for p in read.column_problems]
    count: int | None = None
    if last not in (None, ""):
        if isinstance(last, bool) or not isinstance(last, (int, float)) or not float(last).is_integer():
            problems.append("Last N games: enter a whole number")
        else:
            count = int(last)
    if problems:
        raise DataError(problems)
    try:
        return Season(read.dates.get(0), read.dates.get(1), count)
    except SeasonError as exc:
        raise DataError([str(exc)]) from None


def set_season(source: Any, season: Season) -> tuple[dict[str, Any] | None, str]:
    """The source seen through ``season`` (its aliases kept) and what to say; ``None`` when it selects nothing."""
    if not isinstance(source, dict):
        return None, "No data is in use yet."
    try:
        updated = with_view(source, View(view_of(source).aliases, season))
        load_source(updated)
    except DataError as exc:
        return None, " ".join(exc.messages)
    return updated, ""


def season_boxes(source: Any) -> tuple[str, str, int | str]:
    """The Season card's boxes for the view in use (from, to, last N; an empty box is "")."""
    try:
        season = view_of(source).season
    except DataError:
        return "", "", ""
    text = lambda d: d.isoformat() if d is not None else ""  # noqa: E731
    return text(season.start), text(season.end), season.last if season.last is not None else ""


# Season card's Apply / Whole history -> data source (seen through the season), message, the summary line
@callback(
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(DateRange.MESSAGE, "children"),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Input(DateRange.APPLY, "n_clicks"),
    Input(DateRange.CLEAR, "n_clicks"),
    State(DateRange.FROM, "value"),
    State(DateRange.TO, "value"),
    State(DateRange.LAST, "value"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_season(_apply: Any, _clear: Any, start: Any, end: Any, last: Any, source: Any) -> tuple[Any, Any, Any]:
    try:
        season = Season() if ctx.triggered_id == DateRange.CLEAR else season_from(start, end, last)
    except DataError as exc:
        return no_update, _season_alert(exc.messages), no_update
    updated, problem = set_season(source, season)
    if updated is None:
        return no_update, _season_alert([problem]), no_update
    return updated, [], summary_text(load_source(updated))


def _season_alert(lines: list[str]) -> list[Any]:
    return [dbc.Alert(" ".join(lines), color="danger", className="small py-1 mb-1", dismissable=True)]


# data source (any feature, the address) -> the Season card's boxes show its season
@callback(
    Output(DateRange.FROM, "value"),
    Output(DateRange.TO, "value"),
    Output(DateRange.LAST, "value"),
    Input(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_season_shown(source: Any) -> tuple[str, str, int | str]:
    return season_boxes(source)
