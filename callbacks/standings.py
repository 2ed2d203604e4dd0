"""Leaderboard, trajectories, one game's changes and the overview heatmap, all read from one rating run."""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple, dataclass
from typing import Any

import plotly.graph_objects as go
from dash import Input, Output, Patch, State, callback, clientside_callback, ctx, no_update
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import DataError, baseline_run, current_run, settings_of
from layouts.ids import Baseline, Data, GameExplain, Page, Params, Standings, Tab
from layouts.leaderboard import GRID_OPTIONS, LeaderboardView, leaderboard_table
from layouts.player import STANDINGS_EXPLANATION, ExplanationView, explanation_outputs, explanation_view
from ratings import RatingRun
from ratings.explain import explain
from ratings.params import parse_number
from sources.generations import announce, generation_of, superseded

__all__ = [
    "baseline_run",
    "current_run",
    "explain_view",
    "game_choice",
    "game_players",
    "game_options",
    "leaderboard_view",
    "min_games_of",
    "player_choice",
    "scale_of",
    "StandingsInputs",
    "game_changes_patch",
    "standings_views",
    "trajectories_patch",
    "trajectories_view",
]


def _number(value: Any, default: float) -> float:
    """A finite number from a box's value (untrusted), else ``default``."""
    try:
        number = parse_number(value)
    except ValueError:
        return default
    return number if abs(number) < 1e12 else default


def min_games_of(value: Any) -> int:
    """The "minimum games to be listed" box's value (untrusted) as the leaderboard and its CSV both read it: a whole
    number of at least 0 (a fraction counts down; a blank, a word or an absurd number lists everybody)."""
    return max(0, int(_number(value, 0)))


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
) -> LeaderboardView:
    """The leaderboard for ``run`` (with rank shifts against ``baseline`` when pinned)."""
    scale = scale_of(run, offset, factor)
    rows = figures.leaderboard_rows(run, min_games=min_games_of(min_games), scale=scale, baseline=baseline)
    return leaderboard_table(rows, scale.unit, with_shift=baseline is not None, narrow=narrow)


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


def game_players(
    run: RatingRun, game: Any, chosen: Any, click: Any = None, scale: figures.Scale | None = None
) -> tuple[list[dict[str, str]], str | None]:
    """The participants of ``game`` in finishing order and the one to explain: the clicked trajectory point's
    player (the participant whose rating after that game is the point's height), else the previous choice when they
    played, else the winner."""
    history = run.history
    if not isinstance(game, int) or isinstance(game, bool) or not 0 <= game < history.n_games:
        return [], None
    cut = history.game_slice(game)
    order = sorted(range(cut.start, cut.stop), key=lambda i: (int(history.flat_position[i]), i))
    names = [history.players[int(history.flat_player[i])] for i in order]
    options = [
        {"label": f"{'DNF' if history.flat_dnf[i] else int(history.flat_position[i])}. {name}", "value": name}
        for i, name in zip(order, names, strict=True)
    ]
    points = click.get("points") if isinstance(click, dict) else None
    if scale is not None and isinstance(points, list) and points and isinstance(points[0], dict):
        y = points[0].get("y")
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            shown = [float(scale.value(run.after[i])) for i in order]
            return options, names[min(range(len(names)), key=lambda k: abs(shown[k] - float(y)))]
    if isinstance(chosen, str) and chosen in names:
        return options, chosen
    return options, names[0] if names else None


def explain_view(run: RatingRun, player: Any, game: Any, scale: figures.Scale) -> ExplanationView:
    """The explanation of ``player``'s change in ``game`` (a short note alone when there is none)."""
    if not isinstance(player, str) or not isinstance(game, int):
        return ExplanationView("Pick a game.")
    try:
        e = explain(run, game, player)
    except ValueError as exc:
        return ExplanationView(str(exc))
    change = figures.signed(float(scale.change_between(e.before, e.after)))
    header = (
        f"{player} in {figures.game_label(run, game)}: {figures.number(float(scale.value(e.before)))} → "
        f"{figures.number(float(scale.value(e.after)))} ({change} {scale.unit})"
    )
    return explanation_view(header, figures.explanation_rows(e, scale), e.notes, exact=e.exact)


@dataclass(frozen=True)
class StandingsInputs:
    """The standings callback's inputs as the browser sent them (untrusted JSON)."""

    source: Any
    settings: Any
    min_games: Any = None
    offset: Any = None
    factor: Any = None
    pinned: Any = None
    narrow: Any = None
    players: Any = None
    x_axis: Any = None
    game: Any = None
    tab: Any = None
    generation: Any = None
    explained: Any = None


#: The inputs each view depends on (the open tab decides whether a view is drawn at all).
_SCALE = frozenset({Data.SOURCE, Params.SETTINGS, Standings.SCALE_OFFSET, Standings.SCALE_FACTOR, Page.TABS})
LEADERBOARD_INPUTS = frozenset({*_SCALE, Standings.MIN_GAMES, Baseline.STORE, Standings.NARROW})
TRAJECTORY_INPUTS = frozenset({*_SCALE, Standings.PLAYERS, Standings.X_AXIS, Baseline.STORE})
GAME_INPUTS = frozenset({*_SCALE, Standings.GAME})
EXPLAIN_INPUTS = frozenset({*GAME_INPUTS, GameExplain.PLAYER})
HEATMAP_INPUTS = frozenset({*_SCALE, Standings.PLAYERS})


def _digest(*parts: Any) -> str:
    """A short fingerprint of what a chart shows apart from the run's values (kept in the page, compared on the
    next change)."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _chosen(run: RatingRun, players: Any) -> list[str]:
    """The drawn players: the picker's (names only) or, when none is chosen, the leaderboard's top ten."""
    names = [p for p in players if isinstance(p, str)] if isinstance(players, list) else []
    return names or figures.top_players(run)


def trajectories_patch(
    run: RatingRun, players: list[str], *, scale: figures.Scale, baseline: RatingRun | None
) -> Patch:
    """The new values of a drawn trajectories chart (same data, system, players and options): each solid line's
    ``y`` (binary) and changes (``hovertext``), and the initial rating's line."""
    values = figures.trajectory_values(run, players, scale=scale, baseline=baseline)
    patch = Patch()
    for index, y, changes in values.traces:
        patch["data"][index]["y"] = figures.typed_array(y)
        patch["data"][index]["hovertext"] = changes
    patch["layout"]["shapes"][0]["y0"] = values.initial
    patch["layout"]["shapes"][0]["y1"] = values.initial
    patch["layout"]["annotations"][0]["y"] = values.initial
    return patch


def game_changes_patch(run: RatingRun, game: int, *, scale: figures.Scale) -> Patch:
    """The values of one game's drawn bars that depend on the run (the bars' order and labels do not)."""
    bars = figures.game_change_values(run, game, scale=scale)
    patch = Patch()
    patch["data"][0]["y"] = figures.typed_array(bars.change)
    patch["data"][0]["text"] = bars.text
    patch["data"][0]["hovertext"] = bars.hovertext
    patch["data"][0]["marker"]["color"] = bars.colors
    return patch


def standings_views(inputs: StandingsInputs, *, triggered: set[str] | None, drawn: Any) -> tuple[Any, ...]:
    """The standings views for ``inputs``: (leaderboard rows, its columns, its style, the empty note's style, scale
    row style, trajectories, one game's bars, heatmap, the five outputs of the game's explanation
    (:func:`layouts.player.explanation_outputs`), what is drawn), ``no_update`` for each view that the changed
    inputs (``triggered``; ``None`` for all) leave as it is or whose tab is hidden.

    The run is computed before any view is built, so a failure (``ComputationError``, ``ParameterError``,
    ``DataError``) raises here and the page keeps every view of the last good result together.  A chart whose
    fingerprint (data, system, players, options, baseline) matches the one drawn gets a :class:`dash.Patch` with
    only the values a parameter changes.
    """

    def wanted(names: frozenset[str]) -> bool:
        return triggered is None or bool(triggered & {str(n) for n in names})

    standings_open = inputs.tab in (None, Tab.STANDINGS)
    want_board = standings_open and wanted(LEADERBOARD_INPUTS)
    want_lines = standings_open and wanted(TRAJECTORY_INPUTS)
    want_game = standings_open and wanted(GAME_INPUTS)
    want_explain = standings_open and wanted(EXPLAIN_INPUTS)
    want_heat = inputs.tab == Tab.OVERVIEW and wanted(HEATMAP_INPUTS)
    if not (want_board or want_lines or want_game or want_explain or want_heat):
        raise PreventUpdate
    generation = generation_of(inputs.generation)
    if generation is not None:
        announce(generation)
    if superseded(generation):
        raise PreventUpdate  # a newer change of this page is being computed: this answer would be thrown away
    run = current_run(inputs.source, inputs.settings)
    if superseded(generation):
        raise PreventUpdate
    baseline = baseline_run(inputs.pinned) if want_board or want_lines else None
    scale = scale_of(run, inputs.offset, inputs.factor)
    system = (settings_of(inputs.settings) or ("",))[0]
    shown = dict(drawn) if isinstance(drawn, dict) else {}
    rows: Any = no_update
    columns: Any = no_update
    grid_style: Any = no_update
    note_style: Any = no_update
    style: Any = no_update
    lines: Any = no_update
    bars: Any = no_update
    heat: Any = no_update
    if want_board:
        view = leaderboard_view(
            run,
            min_games=inputs.min_games,
            offset=inputs.offset,
            factor=inputs.factor,
            baseline=baseline,
            narrow=inputs.narrow is True,
        )
        rows = view.rows
        # the grid stays; its columns and size are sent only when they differ from the drawn ones (the grid then
        # keeps the sort the user chose), and the rows are matched by player, so only changed cells redraw.  An
        # empty result hides the grid and shows the note, leaving the columns as they are.
        key = "empty" if view.empty else _digest(view.columns, view.style)
        if shown.get("leaderboard") != key:
            grid_style = view.style
            note_style = {"display": "block"} if view.empty else {"display": "none"}
            if not view.empty:
                columns = view.columns
            shown["leaderboard"] = key
        row_style = {} if run.scale == figures.NATURAL_SCALE else {"display": "none"}
        if shown.get("scale_row") != row_style:  # sent only when it changes (each set output costs the page a round)
            style = shown["scale_row"] = row_style
    if want_lines:
        chosen = _chosen(run, inputs.players)
        label = inputs.pinned.get("label", "baseline") if isinstance(inputs.pinned, dict) else "baseline"
        key = _digest(inputs.source, system, chosen, inputs.x_axis == "date", astuple(scale), inputs.pinned)
        if shown.get("trajectories") == key:
            lines = trajectories_patch(run, chosen, scale=scale, baseline=baseline)
        else:
            lines = trajectories_view(
                run,
                chosen,
                x_axis=inputs.x_axis,
                offset=inputs.offset,
                factor=inputs.factor,
                baseline=baseline,
                baseline_label=str(label),
            )
        shown["trajectories"] = key
    game = inputs.game
    if want_game and isinstance(game, int) and not isinstance(game, bool) and 0 <= game < run.history.n_games:
        key = _digest(inputs.source, system, game, astuple(scale))
        if shown.get("changes") == key:
            bars = game_changes_patch(run, game, scale=scale)
        else:
            bars = figures.game_changes_figure(run, game, scale=scale)
        shown["changes"] = key
    if want_heat:
        heat = figures.change_heatmap(run, _chosen(run, inputs.players), scale=scale)
    explained: tuple[Any, ...] = (no_update,) * 5
    player = inputs.explained
    # the player picker may still hold a player of the previous game (it follows the game in its own callback)
    if want_explain and not (isinstance(player, str) and player not in _names(game_players(run, game, None)[0])):
        header, table_rows, table_columns, table_style, notes = explain_view(run, player, game, scale).outputs()
        key = _digest(table_columns, table_style)
        if shown.get("explanation") == key:
            table_columns = table_style = no_update
        shown["explanation"] = key
        notes_key = _digest(notes)  # the notes in words often stay the same (a parameter they do not quote)
        if shown.get("explanation_notes") == notes_key:
            notes = no_update
        shown["explanation_notes"] = notes_key
        explained = (header, table_rows, table_columns, table_style, notes)
    # what is drawn is written only when it changed (every output set costs the page a round of updates)
    return rows, columns, grid_style, note_style, style, lines, bars, heat, *explained, _changed(shown, drawn)


def _changed(value: dict[str, Any], before: Any) -> Any:
    return no_update if value == before else value


def _names(options: list[dict[str, str]]) -> list[str]:
    return [option["value"] for option in options]


# leaderboard search box -> the grid's quick filter (rows whose text holds it), in the browser (no round trip)
clientside_callback(
    """function(text) {
        return Object.assign({}, OPTIONS, {quickFilterText: String(text || "").slice(0, 100)});
    }""".replace("OPTIONS", json.dumps(dict(GRID_OPTIONS))),
    Output(Standings.LEADERBOARD, "dashGridOptions"),
    Input(Standings.LEADERBOARD_SEARCH, "value"),
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
    return player_choice(run, chosen)


# source, a click on a trajectory point -> game picker (options change only with the data)
@callback(
    Output(Standings.GAME, "options"),
    Output(Standings.GAME, "value"),
    Input(Data.SOURCE, "data"),
    Input(Standings.TRAJECTORIES, "clickData"),
    State(Params.SETTINGS, "data"),
    State(Standings.GAME, "value"),
    prevent_initial_call=True,
)
def on_game_pick(source, click, current, game):
    run = current_run(source, current)
    clicked = ctx.triggered_id == Standings.TRAJECTORIES
    value = game_choice(run, None if ctx.triggered_id == Data.SOURCE else game, click, clicked)
    return (no_update if clicked else game_options(run)), (no_update if value == game else value)


# source, settings, display options, baseline, players, game, explained player, visible tab -> leaderboard,
# trajectories, one game's bars and its explanation, and the heatmap, in ONE response (each callback a change wakes
# costs the page a round of bookkeeping over every component); a failed computation updates none of them (never a
# mixed view), and a change of parameters alone sends only the new values of the charts (dash.Patch)
@callback(
    Output(Standings.LEADERBOARD, "rowData"),
    Output(Standings.LEADERBOARD, "columnDefs"),
    Output(Standings.LEADERBOARD, "style"),
    Output(Standings.LEADERBOARD_EMPTY, "style"),
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
    State(Standings.DRAWN, "data"),
    prevent_initial_call=True,
)
def on_standings(
    source, current, min_games, offset, factor, pinned, narrow, players, x_axis, game, tab, generation, explained, drawn
):
    triggered = {str(t).rpartition(".")[0] for t in ctx.triggered_prop_ids}
    inputs = (source, current, min_games, offset, factor, pinned, narrow, players, x_axis, game, tab)
    return standings_views(
        StandingsInputs(*inputs, generation=generation, explained=explained),
        triggered=triggered or None,
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
