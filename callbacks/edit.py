"""The Edit tab's grid: the data in use -> its rows; Apply, Undo, Revert -> a new data source (the edit session,
:mod:`sources.edits`); New game, Add player, Delete selected -> the grid's rows (nothing applied yet).
"""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import SAMPLE_SHOWN, DataError, history_for, sample_shown, source_summary
from layouts.edit import grid_columns, status_lines
from layouts.ids import Data, Edit, Page, Tab
from sources.edits import add_player, add_row, apply_rows, delete_rows, fresh_state, grid_rows, revert, undo


def grid_for(source: Any, tab: Any, state: Any) -> tuple[Any, Any, Any]:
    """Grid rows, edit store and columns for ``source``, only while the Edit tab is open and the grid shows other
    data (the team and weight columns when the history has teams or partial play).

    The grid's rows (one per result, a megabyte for a large history) are sent only to a page that shows them.
    An edit opened from a link starts a new edit session whose base is that edit (Revert comes back to it).
    """
    if tab != Tab.EDIT or not isinstance(source, dict):
        return no_update, no_update, no_update
    if isinstance(state, dict) and state.get("shown") == source:
        return no_update, no_update, no_update
    try:
        history = history_for(source)
    except DataError:
        return no_update, no_update, no_update
    weights = any(e.weight != 1.0 for g in history.games for e in g.entries)
    columns = grid_columns(teams=history.labels_teams, weights=weights)
    return grid_rows(history), fresh_state(source), columns


# data source, the Edit tab opened -> grid rows, selection cleared, the edit store, the columns (when the grid shows
# other data)
@callback(
    Output(Edit.GRID, "rowData"),
    Output(Edit.GRID, "selectedRows"),
    Output(Edit.STORE, "data"),
    Output(Edit.GRID, "columnDefs"),
    Input(Data.SOURCE, "data"),
    Input(Page.TABS, "active_tab"),
    State(Edit.STORE, "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_source(source: Any, tab: Any, state: Any) -> tuple[Any, Any, Any, Any]:
    rows, store, columns = grid_for(source, tab, state)
    return rows, (no_update if rows is no_update else []), store, columns


@callback(
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Edit.STORE, "data", allow_duplicate=True),
    Output(Edit.GRID, "rowData", allow_duplicate=True),
    Output(Edit.GRID, "selectedRows", allow_duplicate=True),
    Output(Edit.STATUS, "children"),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    *SAMPLE_SHOWN,
    Input(Edit.APPLY, "n_clicks"),
    Input(Edit.UNDO, "n_clicks"),
    Input(Edit.REVERT, "n_clicks"),
    State(Edit.GRID, "rowData"),
    State(Edit.STORE, "data"),
    prevent_initial_call=True,
)
def on_edit(_apply: Any, _undo: Any, _revert: Any, rows: Any, state: Any) -> tuple[Any, ...]:
    trigger = ctx.triggered_id
    if not {Edit.APPLY: _apply, Edit.UNDO: _undo, Edit.REVERT: _revert}.get(trigger):
        raise PreventUpdate  # the tab's content mounting (no button pressed yet): nothing to do
    if trigger == Edit.APPLY:
        outcome = apply_rows(rows, state)
    elif trigger == Edit.UNDO:
        outcome = undo(state)
    else:
        outcome = revert(state)
    return (
        outcome.source if outcome.source is not None else no_update,
        outcome.state if outcome.state is not None else no_update,
        outcome.rows if outcome.rows is not None else no_update,
        # Rows get fresh ids when replaced: a selection kept by id would land on rows the user never chose.
        [] if outcome.rows is not None else no_update,
        status_lines(outcome),
        source_summary(outcome.source),
        *sample_shown(outcome.source),
    )


# New game / Add player / Delete selected buttons, grid rows and selection -> grid rows, selection cleared
# (nothing is applied yet)
@callback(
    Output(Edit.GRID, "rowData", allow_duplicate=True),
    Output(Edit.GRID, "selectedRows", allow_duplicate=True),
    Input(Edit.ADD_ROW, "n_clicks"),
    Input(Edit.ADD_PLAYER, "n_clicks"),
    Input(Edit.DELETE_ROWS, "n_clicks"),
    State(Edit.GRID, "rowData"),
    State(Edit.GRID, "selectedRows"),
    prevent_initial_call=True,
)
def on_rows(_add: Any, _player: Any, _delete: Any, rows: Any, selected: Any) -> tuple[Any, Any]:
    if ctx.triggered_id == Edit.ADD_ROW:
        return add_row(rows), no_update
    if ctx.triggered_id == Edit.ADD_PLAYER:
        return add_player(rows), no_update
    return delete_rows(rows, selected), []
