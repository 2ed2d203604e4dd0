"""Leaderboard, trajectories, one game's changes and the overview heatmap, all read from one rating run."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from dash import Input, Output, State, callback, clientside_callback, ctx, no_update
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import DataError, baseline_run, current_run
from layouts.ids import Baseline, Data, Page, Params, Standings, Tab
from layouts.leaderboard import GRID_OPTIONS, leaderboard_table
from ratings import RatingRun
from ratings.params import parse_number

__all__ = [
    "baseline_run",
    "current_run",
    "game_choice",
    "game_options",
    "leaderboard_view",
    "player_choice",
    "scale_of",
    "trajectories_view",
]


def _number(value: Any, default: float) -> float:
    """A finite number from a box's value (untrusted), else ``default``."""
    try:
        number = parse_number(value)
    except ValueError:
        return default
    return number if abs(number) < 1e12 else default


def scale_of(run: RatingRun, offset: Any, factor: Any) -> figures.Scale:
    """The display scale from the two boxes (blank boxes fall back to 1500 and 200)."""
    return figures.scale_for(run, _number(offset, 1500.0), _number(factor, 200.0))


def leaderboard_view(
    run: RatingRun,
    *,
    min_games: Any,
    offset: Any,
    factor: Any,
    baseline: RatingRun | None,
    baseline_scale: Any = None,
    narrow: bool = False,
    search: Any = None,
) -> list[Any]:
    """The leaderboard for ``run`` (with rank shifts against ``baseline`` when pinned), filtered by ``search``."""
    scale = scale_of(run, offset, factor)
    minimum = max(0, int(_number(min_games, 0)))
    rows = figures.leaderboard_rows(run, min_games=minimum, scale=scale, baseline=baseline)
    return leaderboard_table(rows, scale.unit, with_shift=baseline is not None, narrow=narrow, search=search)


def trajectories_view(
    run: RatingRun,
    players: list[str] | None,
    *,
    x_axis: str | None,
    offset: Any,
    factor: Any,
    baseline: RatingRun | None,
    baseline_label: str = "baseline",
) -> go.Figure:
    """The trajectories figure for the chosen players (the default selection when none is chosen)."""
    chosen = players or figures.top_players(run)
    scale = scale_of(run, offset, factor)
    bscale = scale_of(baseline, offset, factor) if baseline is not None else None
    return figures.trajectory_figure(
        run,
        chosen,
        by_date=x_axis == "date",
        scale=scale,
        baseline=baseline,
        baseline_scale=bscale,
        baseline_name=baseline_label,
    )


def player_choice(run: RatingRun, chosen: list[str] | None) -> tuple[list[dict[str, str]], list[str]]:
    """Player options (leaderboard order) and the selection: the previous one where it still fits, else the
    leaderboard's top ten."""
    options = [{"label": p, "value": p} for p in figures.top_players(run, limit=run.history.n_players)]
    known = set(run.history.players)
    kept = [p for p in (chosen or []) if p in known]
    return options, kept or figures.top_players(run)


def game_options(run: RatingRun) -> list[dict[str, Any]]:
    """One option per game, newest first."""
    return [{"label": figures.game_label(run, g), "value": g} for g in reversed(range(run.history.n_games))]


def game_choice(run: RatingRun, current: Any, click: dict[str, Any] | None, clicked: bool) -> int:
    """The game to show: the clicked trajectory point's game, else the current choice if valid, else the last game."""
    n = run.history.n_games
    points = click.get("points") if clicked and isinstance(click, dict) else None
    if isinstance(points, list) and points and isinstance(points[0], dict):
        game = points[0].get("customdata")
        if isinstance(game, list) and game:
            game = game[0]  # a point with several customdata values: the game index comes first
        if isinstance(game, int) and not isinstance(game, bool) and 0 <= game < n:
            return game
        if isinstance(game, float) and game.is_integer() and 0 <= game < n:
            return int(game)
    if isinstance(current, int) and 0 <= current < n:
        return current
    return n - 1


# source, settings, filter, scale, baseline -> leaderboard grid; scale boxes shown for natural-scale systems
@callback(
    Output(Standings.LEADERBOARD, "children"),
    Output(Standings.SCALE_ROW, "style"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(Standings.MIN_GAMES, "value"),
    Input(Standings.SCALE_OFFSET, "value"),
    Input(Standings.SCALE_FACTOR, "value"),
    Input(Baseline.STORE, "data"),
    Input(Standings.NARROW, "data"),
    State(Standings.LEADERBOARD_SEARCH, "value"),
)
def on_leaderboard(source, current, min_games, offset, factor, pinned, narrow, search):
    run = current_run(source, current)
    baseline = baseline_run(pinned)
    view = leaderboard_view(
        run, min_games=min_games, offset=offset, factor=factor, baseline=baseline, narrow=narrow is True, search=search
    )
    return view, {} if run.scale == figures.NATURAL_SCALE else {"display": "none"}


# leaderboard search box -> the grid's quick filter (rows whose text holds it; a rebuilt grid keeps it)
@callback(
    Output(Standings.LEADERBOARD_GRID, "dashGridOptions"),
    Input(Standings.LEADERBOARD_SEARCH, "value"),
    prevent_initial_call=True,
)
def on_search(text: Any) -> dict[str, Any]:
    return {**GRID_OPTIONS, "quickFilterText": str(text or "")[:100]}


def with_player(chosen: list[str] | None, clicked: Any, known: set[str]) -> list[str] | None:
    """The drawn players with the clicked leaderboard player added (``None`` when nothing changes)."""
    player = clicked.get("rowId") if isinstance(clicked, dict) else None
    if not isinstance(player, str) or player not in known or player in (chosen or []):
        return None
    return [*(chosen or []), player]


# a click on a leaderboard row -> that player is drawn in the trajectories chart
@callback(
    Output(Standings.PLAYERS, "value", allow_duplicate=True),
    Input(Standings.LEADERBOARD_GRID, "cellClicked"),
    State(Standings.PLAYERS, "value"),
    State(Standings.PLAYERS, "options"),
    prevent_initial_call=True,
)
def on_leaderboard_click(clicked, chosen, options):
    known = {o["value"] for o in options or [] if isinstance(o, dict)}
    players = with_player(chosen, clicked, known)
    if players is None:
        raise PreventUpdate
    return players


# source (settings as they are) -> player picker options and selection (kept while it still fits the data);
# the selection does not follow parameter changes, so the drawn lines stay put while parameters move
@callback(
    Output(Standings.PLAYERS, "options"),
    Output(Standings.PLAYERS, "value"),
    Input(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Standings.PLAYERS, "value"),
)
def on_players(source, current, chosen):
    if not source:
        raise PreventUpdate
    try:
        run = current_run(source, current)
    except DataError:
        raise PreventUpdate from None
    return player_choice(run, chosen)


# source, settings, players, x axis, scale, baseline -> trajectories figure
@callback(
    Output(Standings.TRAJECTORIES, "figure"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(Standings.PLAYERS, "value"),
    Input(Standings.X_AXIS, "value"),
    Input(Standings.SCALE_OFFSET, "value"),
    Input(Standings.SCALE_FACTOR, "value"),
    Input(Baseline.STORE, "data"),
)
def on_trajectories(source, current, players, x_axis, offset, factor, pinned):
    run = current_run(source, current)
    label = (pinned or {}).get("label", "baseline")
    return trajectories_view(
        run,
        players,
        x_axis=x_axis,
        offset=offset,
        factor=factor,
        baseline=baseline_run(pinned),
        baseline_label=label,
    )


# source, a click on a trajectory point -> game picker (options change only with the data)
@callback(
    Output(Standings.GAME, "options"),
    Output(Standings.GAME, "value"),
    Input(Data.SOURCE, "data"),
    Input(Standings.TRAJECTORIES, "clickData"),
    State(Params.SETTINGS, "data"),
    State(Standings.GAME, "value"),
)
def on_game_pick(source, click, current, game):
    run = current_run(source, current)
    clicked = ctx.triggered_id == Standings.TRAJECTORIES
    value = game_choice(run, None if ctx.triggered_id == Data.SOURCE else game, click, clicked)
    return (no_update if clicked else game_options(run)), (no_update if value == game else value)


# source, settings, chosen game, scale -> that game's change bars
@callback(
    Output(Standings.GAME_CHANGES, "figure"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(Standings.GAME, "value"),
    Input(Standings.SCALE_OFFSET, "value"),
    Input(Standings.SCALE_FACTOR, "value"),
)
def on_game_changes(source, current, game, offset, factor):
    run = current_run(source, current)
    if not isinstance(game, int) or not 0 <= game < run.history.n_games:
        raise PreventUpdate
    return figures.game_changes_figure(run, game, scale=scale_of(run, offset, factor))


# source, settings, players, scale, visible tab -> players x games heatmap
# Drawn only while its tab is open: a graph drawn in a hidden tab gets plotly's default width.
@callback(
    Output(Standings.HEATMAP, "figure"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(Standings.PLAYERS, "value"),
    Input(Standings.SCALE_OFFSET, "value"),
    Input(Standings.SCALE_FACTOR, "value"),
    Input(Page.TABS, "active_tab"),
)
def on_heatmap(source, current, players, offset, factor, tab):
    if tab != Tab.OVERVIEW:
        raise PreventUpdate
    run = current_run(source, current)
    return figures.change_heatmap(run, players or figures.top_players(run), scale=scale_of(run, offset, factor))


# the page opened (its first data) -> whether the screen is a phone's (the leaderboard keeps fewer columns there)
clientside_callback(
    """function(source, known) {
        var narrow = window.innerWidth < 576;
        return narrow === known ? window.dash_clientside.no_update : narrow;
    }""",
    Output(Standings.NARROW, "data"),
    Input(Data.SOURCE, "data"),
    State(Standings.NARROW, "data"),
)
