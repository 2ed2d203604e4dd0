"""The games list: filters -> one page of games; a click on a game -> its one-game chart.

Computed only while the Games tab is open.  The page is cut on the server, so the browser gets 25 rows
whatever the history's length.
"""

from __future__ import annotations

from dash import Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import DataError, current_run, load_source, opened_by
from layouts.games import grid_columns
from layouts.ids import Baseline, Data, GamesList, Page, Params, Standings, Tab, tab_gate


# source, visible tab -> the player filter's options (its pick kept while the player exists) and the date bounds
@callback(
    Output(GamesList.PLAYER, "options"),
    Output(GamesList.PLAYER, "value"),
    Output(GamesList.DATE_FROM, "min"),
    Output(GamesList.DATE_FROM, "max"),
    Output(GamesList.DATE_TO, "min"),
    Output(GamesList.DATE_TO, "max"),
    State(Data.SOURCE, "data"),
    State(Page.TABS, "active_tab"),
    State(GamesList.PLAYER, "value"),
    Input(tab_gate(Tab.GAMES), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_games_filters(source, tab, chosen, _gate=None):
    if tab != Tab.GAMES or not source:
        raise PreventUpdate  # computed when the tab opens
    try:
        history = load_source(source).history
    except DataError:
        raise PreventUpdate from None
    summary = history.summary()
    first, last = summary["first_date"], summary["last_date"]
    kept = chosen if isinstance(chosen, str) and chosen in history.player_index else None
    return (
        figures.player_options(history),
        no_update if kept == chosen else kept,
        *(2 * [first and first.isoformat(), last and last.isoformat()]),
    )


#: What changes the games shown but not which page of them is wanted (the gate's reasons, callbacks/gates.py).
_KEEP_PAGE = frozenset({Params.SETTINGS, Baseline.STORE, Standings.SCALE_OFFSET, Standings.SCALE_FACTOR})


# source, settings, filters, page, scale, visible tab -> one page of the games list
@callback(
    Output(GamesList.GRID, "rowData"),
    Output(GamesList.GRID, "columnDefs"),
    Output(GamesList.COUNT, "children"),
    Output(GamesList.PAGES, "active_page"),
    Output(GamesList.PAGES, "max_value"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    Input(GamesList.PLAYER, "value"),
    Input(GamesList.DATE_FROM, "value"),
    Input(GamesList.DATE_TO, "value"),
    Input(GamesList.PAGES, "active_page"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.GAMES), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_games_list(source, current, player, start, end, page, offset, factor, tab, _gate=None):
    if tab != Tab.GAMES:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    # a page turn, a parameter or a scale change keeps the page; new data, a filter or the tab opening start at 1
    why = opened_by(_gate) if ctx.triggered_id == tab_gate(Tab.GAMES) else frozenset()
    keep_page = ctx.triggered_id == GamesList.PAGES or bool(why) and why <= _KEEP_PAGE
    scale = figures.scale_of(run, offset, factor)
    cut = figures.games_page(run, scale, player=player, start=start, end=end, page=page if keep_page else 1)
    columns = grid_columns(with_player=bool(cut.rows) and "place" in cut.rows[0])
    return cut.rows, columns, cut.summary, (no_update if cut.shown == page else cut.shown), cut.pages


# a click on a game (or new data/settings) -> that game's change bars (the newest game until one is clicked)
@callback(
    Output(GamesList.GAME, "children"),
    Output(GamesList.GAME_CHART, "figure"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    Input(GamesList.GRID, "cellClicked"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    State(Page.TABS, "active_tab"),
    State(GamesList.GRID, "rowData"),
    Input(tab_gate(Tab.GAMES), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_games_game(source, current, click, offset, factor, tab, rows, _gate=None):
    if tab != Tab.GAMES:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    if run.history.n_games == 0:
        return "No games.", figures.empty_figure("No games in this history")
    new_data = ctx.triggered_id == tab_gate(Tab.GAMES) and Data.SOURCE in opened_by(_gate)
    g = None if new_data else figures.clicked_game(run, click)
    if g is None:
        g = run.history.n_games - 1
    text = f"{figures.game_label(run, g)}: {figures.finishing_order(run.history, g)}"
    return text, figures.game_changes_view(run, g, scale=figures.scale_of(run, offset, factor))
