"""Leaderboard, trajectories, one game's changes and the overview heatmap, all read from one rating run (the views
are built by :func:`layouts.standings.views_for`)."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, clientside_callback, ctx, no_update
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import DataError, baseline_run, current_run
from layouts.ids import Baseline, Data, GameExplain, Page, Params, Standings
from layouts.player import STANDINGS_EXPLANATION, explanation_outputs
from layouts.standings import StandingsInputs, stale_views, views_for
from sources.generations import announce, generation_of, superseded

__all__ = ["standings_views", "with_player"]


def standings_views(inputs: StandingsInputs, *, drawn: Any) -> tuple[Any, ...]:
    """The standings callback's outputs for ``inputs`` (:meth:`layouts.standings.StandingsViews.outputs`): the views
    of the open tab that do not show ``inputs`` yet by what the page has drawn (``drawn``;
    :func:`layouts.standings.stale_views`), ``no_update`` for the others.

    The run is computed before any view is built, so a failure (``ComputationError``, ``ParameterError``,
    ``DataError``) raises here and the page keeps every view of the last good result together.
    """
    wanted, inputs = stale_views(inputs, drawn)
    if not wanted.any():
        raise PreventUpdate
    generation = generation_of(inputs.generation)
    if generation is not None:
        announce(generation)
    if superseded(generation):
        raise PreventUpdate  # a newer change of this page is being computed: this answer would be thrown away
    run = current_run(inputs.source, inputs.settings)
    if superseded(generation):
        raise PreventUpdate
    baseline = baseline_run(inputs.pinned) if wanted.leaderboard or wanted.trajectories else None
    return views_for(run, inputs, wanted=wanted, baseline=baseline, drawn=drawn).outputs()


# the grid's sort (a click on a column's header) -> the order the server sorts the whole leaderboard in (written only
# when it changes: the grid reports its columns' state on other events too)
clientside_callback(
    """function(state, known) {
        var sorted = (state || []).filter(function(c) { return c.sort; });
        var order = sorted.length ? {column: sorted[0].colId, descending: sorted[0].sort === "desc"} : null;
        var same = JSON.stringify(order) === JSON.stringify(known || null);
        return same ? window.dash_clientside.no_update : order;
    }""",
    Output(Standings.LEADERBOARD_SORT, "data"),
    Input(Standings.LEADERBOARD, "columnState"),
    State(Standings.LEADERBOARD_SORT, "data"),
    prevent_initial_call=True,
)


def with_player(chosen: list[str] | None, clicked: Any, known: set[str]) -> list[str] | None:
    """The drawn players with the clicked leaderboard player added (``None`` when nothing changes)."""
    player = clicked.get("rowId") if isinstance(clicked, dict) else None
    if not isinstance(player, str) or player not in known or player in (chosen or []):
        return None
    return [*(chosen or []), player]


# a click on a leaderboard row -> that player is drawn in the trajectories chart
@callback(
    Output(Standings.PLAYERS, "value", allow_duplicate=True),
    Input(Standings.LEADERBOARD, "cellClicked"),
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
    prevent_initial_call=True,
)
def on_players(source, current, chosen):
    if not source:
        raise PreventUpdate
    try:
        run = current_run(source, current)
    except DataError:
        raise PreventUpdate from None
    return figures.player_choice(run, chosen)


# source, a click on a trajectory point, a picked game -> the game picker (its options change only with the data)
# and whom to explain in that game (the clicked line's player, else the one explained before if they played, else
# the winner), in one answer: the standings wait for both, and one round trip brings them
@callback(
    Output(Standings.GAME, "options"),
    Output(Standings.GAME, "value"),
    Output(GameExplain.PLAYER, "options"),
    Output(GameExplain.PLAYER, "value"),
    Input(Data.SOURCE, "data"),
    Input(Standings.TRAJECTORIES, "clickData"),
    Input(Standings.GAME, "value"),
    State(Params.SETTINGS, "data"),
    State(GameExplain.PLAYER, "value"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    prevent_initial_call=True,
)
def on_game(source, click, game, current, chosen, offset, factor):
    run = current_run(source, current)
    triggered = set(ctx.triggered_prop_ids)
    fresh = f"{Data.SOURCE}.data" in triggered
    clicked = f"{Standings.TRAJECTORIES}.clickData" in triggered
    value = figures.game_choice(run, None if fresh else game, click, clicked)
    scale = figures.scale_of(run, offset, factor)
    options, player = figures.game_players(run, value, chosen, click if clicked else None, scale)
    return (figures.game_options(run) if fresh else no_update), (no_update if value == game else value), options, player


# source, settings, display options, baseline, players, game, explained player, visible tab, the leaderboard's
# search, sort and page -> one page of the leaderboard (cut on the server: a 20,000-player history sends 100 rows),
# trajectories, one game's bars and its explanation, and the heatmap, in ONE response (each callback a change wakes
# costs the page a round of bookkeeping over every component); a failed computation updates none of them (never a
# mixed view), and a change of parameters alone sends only the new values of the charts (dash.Patch)
@callback(
    Output(Standings.LEADERBOARD, "rowData"),
    Output(Standings.LEADERBOARD, "columnDefs"),
    Output(Standings.LEADERBOARD, "style"),
    Output(Standings.LEADERBOARD_EMPTY, "style"),
    Output(Standings.LEADERBOARD_EMPTY, "children"),
    Output(Standings.LEADERBOARD_COUNT, "children"),
    Output(Standings.LEADERBOARD_PAGES, "active_page"),
    Output(Standings.LEADERBOARD_PAGES, "max_value"),
    Output(Standings.LEADERBOARD_PAGER, "style"),
    Output(Standings.SCALE_ROW, "style"),
    Output(Standings.TRAJECTORIES, "figure"),
    Output(Standings.GAME_CHANGES, "figure"),
    Output(Standings.HEATMAP, "figure"),
    *explanation_outputs(STANDINGS_EXPLANATION),
    Output(Standings.DRAWN, "data"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
    Input(Standings.MIN_GAMES, "value"),
    Input(Standings.SCALE_OFFSET, "value"),
    Input(Standings.SCALE_FACTOR, "value"),
    Input(Baseline.STORE, "data"),
    Input(Standings.NARROW, "data"),
    Input(Standings.PLAYERS, "value"),
    Input(Standings.X_AXIS, "value"),
    Input(Standings.GAME, "value"),
    Input(Page.TABS, "active_tab"),
    Input(Standings.GENERATION, "data"),
    Input(GameExplain.PLAYER, "value"),
    Input(Standings.LEADERBOARD_SEARCH, "value"),
    Input(Standings.LEADERBOARD_SORT, "data"),
    Input(Standings.LEADERBOARD_PAGES, "active_page"),
    State(Standings.DRAWN, "data"),
    prevent_initial_call=True,
)
def on_standings(
    source,
    current,
    min_games,
    offset,
    factor,
    pinned,
    narrow,
    players,
    x_axis,
    game,
    tab,
    generation,
    explained,
    search,
    order,
    page,
    drawn,
):
    inputs = (source, current, min_games, offset, factor, pinned, narrow, players, x_axis, game, tab)
    return standings_views(
        StandingsInputs(*inputs, generation=generation, explained=explained, search=search, order=order, page=page),
        drawn=drawn,
    )


# the page opened (its first data) -> whether the screen is a phone's (the leaderboard keeps fewer columns there)
clientside_callback(
    """function(source, known) {
        var narrow = window.innerWidth < 576;
        return narrow === known ? window.dash_clientside.no_update : narrow;
    }""",
    Output(Standings.NARROW, "data"),
    Input(Data.SOURCE, "data"),
    State(Standings.NARROW, "data"),
    prevent_initial_call=True,
)
