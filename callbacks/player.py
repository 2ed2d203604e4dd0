"""One player's page: pick (default: the leaderboard leader) -> record, rating and rank over time, head-to-head.

Computed only while the Player tab is open.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from dash import Input, Output, State, callback
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import current_run
from callbacks.standings import scale_of
from layouts.ids import Data, Page, Params, PlayerPage, Standings, Tab
from layouts.player import record_list
from ratings import RatingRun
from ratings.stats import head_to_head, player_stats

__all__ = ["player_pick", "player_view"]


def player_pick(run: RatingRun, chosen: Any) -> tuple[list[dict[str, str]], str | None]:
    """Options (leaderboard order, no placeholders) and the pick: the previous one if still there, else the leader."""
    names = [str(r["player"]) for r in figures.leaderboard_rows(run)]
    options = [{"label": f"{i}. {p}", "value": p} for i, p in enumerate(names, start=1)]
    if isinstance(chosen, str) and chosen in run.history.player_index:
        return options, chosen
    return options, names[0] if names else None


def player_view(run: RatingRun, player: Any, scale: figures.Scale) -> tuple[Any, go.Figure, list[dict[str, Any]]]:
    """The record (component), the trajectory-with-rank figure and the head-to-head rows of ``player``."""
    stats = player_stats(run, player) if isinstance(player, str) else None
    if stats is None or stats.n_games == 0:
        return "Pick a player.", figures.empty_figure("Pick a player"), []
    figure = figures.player_figure(stats, scale, labels=figures.plain_game_labels(run.history))
    rows = figures.head_to_head_rows(head_to_head(run.history, player))
    return record_list(figures.record_items(stats, scale)), figure, rows


# source, settings, visible tab -> the player picker (default: the leader)
@callback(
    Output(PlayerPage.PLAYER, "options"),
    Output(PlayerPage.PLAYER, "value"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(Page.TABS, "active_tab"),
    State(PlayerPage.PLAYER, "value"),
)
def on_player_pick(source, current, tab, chosen):
    if tab != Tab.PLAYER:
        raise PreventUpdate  # computed when the tab opens
    return player_pick(current_run(source, current), chosen)


# source, settings, picked player, scale, visible tab -> record, trajectory with rank, head-to-head
@callback(
    Output(PlayerPage.SUMMARY, "children"),
    Output(PlayerPage.TRAJECTORY, "figure"),
    Output(PlayerPage.HEAD_TO_HEAD, "rowData"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(PlayerPage.PLAYER, "value"),
    Input(Standings.SCALE_OFFSET, "value"),
    Input(Standings.SCALE_FACTOR, "value"),
    Input(Page.TABS, "active_tab"),
)
def on_player(source, current, player, offset, factor, tab):
    if tab != Tab.PLAYER:
        raise PreventUpdate  # computed when the tab opens
    run = current_run(source, current)
    return player_view(run, player, scale_of(run, offset, factor))
