"""One player's page: pick (default: the leaderboard leader) -> record, rating and rank over time, head-to-head.

Computed only while the Player tab is open.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from dash import Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import current_run
from layouts.ids import Data, GameExplain, Page, Params, PlayerPage, Standings, Tab, tab_gate
from layouts.player import PLAYER_EXPLANATION, explain_view, explanation_outputs, record_list
from ratings import RatingRun
from ratings.stats import head_to_head, player_games, player_stats

__all__ = ["clicked_game", "game_pick", "player_pick", "player_view"]


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
    return player_pick(current_run(source, current), chosen)


# source, settings, picked player, scale, visible tab -> record, trajectory with rank, head-to-head
@callback(
    Output(PlayerPage.SUMMARY, "children"),
    Output(PlayerPage.TRAJECTORY, "figure"),
    Output(PlayerPage.HEAD_TO_HEAD, "rowData"),
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
    return player_view(run, player, figures.scale_of(run, offset, factor))


def game_pick(run: RatingRun, player: Any, chosen: Any, click: Any = None) -> tuple[list[dict[str, Any]], int | None]:
    """The player's games, newest first, and the game to explain: a clicked chart point's game, else the previous
    choice when the player played it, else their newest game."""
    if not isinstance(player, str):
        return [], None
    games = [int(g) for g in player_games(run.history, player)][::-1]
    options = [{"label": figures.game_label(run, g), "value": g} for g in games]
    points = click.get("points") if isinstance(click, dict) else None
    if isinstance(points, list) and points and isinstance(points[0], dict):
        # The point's x is the game number (a click's customdata does not reach the server: issue 11, item 2).
        x = points[0].get("x")
        if isinstance(x, (int, float)) and not isinstance(x, bool) and float(x).is_integer() and int(x) - 1 in games:
            return options, int(x) - 1
    if isinstance(chosen, int) and chosen in games:
        return options, chosen
    return options, games[0] if games else None


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
    options, game = game_pick(run, player, chosen, click if clicked else None)
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


# ---------------------------------------------------------------- Standings: why did a rating change in one game?
# chosen game (a picked game or a clicked trajectory point) -> whom to explain: the clicked line's player
@callback(
    Output(GameExplain.PLAYER, "options"),
    Output(GameExplain.PLAYER, "value"),
    Input(Standings.GAME, "value"),
    Input(Standings.TRAJECTORIES, "clickData"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(GameExplain.PLAYER, "value"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    prevent_initial_call=True,
)
def on_game_players(game, click, source, current, chosen, offset, factor):
    run = current_run(source, current)
    # The click also moves the game picker, so both may arrive together: the click decides the player.
    clicked = any(str(t.get("prop_id", "")).startswith(f"{Standings.TRAJECTORIES}.") for t in ctx.triggered)
    if clicked:
        game = clicked_game(run, click, game)
    return figures.game_players(run, game, chosen, click if clicked else None, figures.scale_of(run, offset, factor))


def clicked_game(run: RatingRun, click: Any, game: Any) -> int:
    """The game a trajectory click points at (the Standings rule, :func:`figures.games.game_choice`)."""
    return figures.game_choice(run, game, click, True)
