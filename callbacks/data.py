"""Choosing the data: sample, upload or an address (a Google Sheet's) -> the source store, a summary and
plain-language messages (what each choice leads to: :mod:`sources.choosing`)."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import DataError, load_source, sample_shown
from layouts.ids import Data, DateRange, Page
from layouts.summary import data_messages, season_alert, summary_text
from ratings.seasons import Season
from sources.choosing import Action, choose_source, page_source, season_boxes, season_from, set_season
from sources.model import address_of, parse_source


def _action(trigger: Any) -> Action | None:
    """What the control that moved asks for; anything else (the page's address) is ``None``."""
    if trigger == Data.UPLOAD:
        return "upload"
    if trigger == Data.SAMPLE:
        return "sample"
    if trigger in (Data.SHEET_LOAD, Data.SHEET_URL):
        return "address"
    if trigger == Data.SHEET_REFRESH:
        return "refresh"
    return None


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
    State(Page.LOCATION, "pathname"),
    State(Page.LOCATION, "search"),
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
    pathname: str | None = None,
    search: str | None = None,
) -> tuple[Any, ...]:
    trigger = ctx.triggered_id
    if trigger == Data.SAMPLE and (not sample or sample_shown(previous)[0] == sample):
        raise PreventUpdate  # the dropdown followed the data in use (below); nothing was chosen
    choice = choose_source(
        _action(trigger),
        previous=previous,
        url_source=page_source(pathname, search, (url_state or {}).get("source")),
        sample=sample,
        upload=upload,
        filename=filename,
        address=sheet_url,
    )
    source = choice.source
    typed = parse_source(source) if source is not None else None
    address = address_of(typed)
    sheet_value = address if address is not None else no_update
    summary = summary_text(choice.shown) if choice.shown is not None else no_update
    # Once read, the file's bytes are dropped from the page, so no later request carries them again.
    cleared = None if trigger == Data.UPLOAD else no_update
    return (
        source if source is not None else no_update,
        summary,
        data_messages(choice.errors, choice.warnings),
        sheet_value,
        cleared,
        *sample_shown(source),
    )


# ---------------------------------------------------------------- the season (date range, last N games)
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
        return no_update, season_alert(exc.messages), no_update
    updated, problem = set_season(source, season)
    if updated is None:
        return no_update, season_alert([problem]), no_update
    return updated, [], summary_text(load_source(updated))


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
