"""One player's page: pick (default: the leaderboard leader) -> record, rating and rank over time, head-to-head,
partners.

Computed only while the Player tab is open.
"""

from __future__ import annotations

from dash import Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import current_run
from layouts.ids import Data, Page, Params, Partners, PlayerPage, Standings, Tab, tab_gate
from layouts.player import PLAYER_EXPLANATION, explain_view, explanation_outputs, player_view


# source, settings, visible tab -> the player picker (default: the leader)
@callback(
    Output(PlayerPage.PLAYER, "options"),
    Output(PlayerPage.PLAYER, "value"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Page.TABS, "active_tab"),
    State(PlayerPage.PLAYER, "value"),
    Input(tab_gate(Tab.PLAYER), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_player_pick(source, current, tab, chosen, _gate=None):
    if tab != Tab.PLAYER:
        raise PreventUpdate  # computed when the tab opens
    return figures.player_pick(current_run(source, current), chosen)


# source, settings, picked player, scale, visible tab -> record, trajectory with rank, head-to-head, partners
@callback(
    Output(PlayerPage.SUMMARY, "children"),
    Output(PlayerPage.TRAJECTORY, "figure"),
    Output(PlayerPage.HEAD_TO_HEAD, "rowData"),
    Output(Partners.GRID, "rowData"),
    Output(Partners.SUMMARY, "children"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    Input(PlayerPage.PLAYER, "value"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.PLAYER), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_player(source, current, player, offset, factor, tab, _gate=None):
    if tab != Tab.PLAYER:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    return tuple(player_view(run, player, figures.scale_of(run, offset, factor)))


# source, picked player, a click on their chart -> the game picker (their games, newest first)
@callback(
    Output(PlayerPage.GAME, "options"),
    Output(PlayerPage.GAME, "value"),
    State(Data.SOURCE, "data"),
    Input(PlayerPage.PLAYER, "value"),
    Input(PlayerPage.TRAJECTORY, "clickData"),
    State(Params.SETTINGS, "data"),
    State(PlayerPage.GAME, "value"),
    Input(tab_gate(Tab.PLAYER), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_player_games(source, player, click, current, chosen, _gate=None):
    run = current_run(source, current)
    clicked = ctx.triggered_id == PlayerPage.TRAJECTORY
    options, game = figures.game_pick(run, player, chosen, click if clicked else None)
    return (no_update if clicked else options), game


# source, settings, picked player and game, scale, visible tab -> why the rating changed
@callback(
    *explanation_outputs(PLAYER_EXPLANATION),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    Input(PlayerPage.PLAYER, "value"),
    Input(PlayerPage.GAME, "value"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.PLAYER), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_explain(source, current, player, game, offset, factor, tab, _gate=None):
    if tab != Tab.PLAYER:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    return explain_view(run, player, game, figures.scale_of(run, offset, factor)).outputs()
