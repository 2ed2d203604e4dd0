"""The "Standings" tab: leaderboard beside the trajectories, the chosen game below, and one change explained; and
the views the standings callback sends, built from one rating run."""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple, dataclass, replace
from typing import Any

import dash_bootstrap_components as dbc
from dash import Patch, no_update

import figures
from layouts.changes import game_panel
from layouts.ids import Tab
from layouts.leaderboard import leaderboard_panel, leaderboard_view
from layouts.player import explain_view, game_explain_panel
from layouts.trajectories import trajectories_panel
from ratings import RatingRun
from sources.runs import settings_of

__all__ = [
    "StandingsInputs",
    "StandingsViews",
    "Wanted",
    "game_changes_patch",
    "stale_views",
    "tab",
    "trajectories_patch",
    "views_for",
]


def tab() -> dbc.Tab:
    """Leaderboard (left on wide screens), trajectories (right), per-game bars underneath."""
    return dbc.Tab(
        dbc.Row(
            [
                dbc.Col(leaderboard_panel(), xxl=5, xs=12),
                dbc.Col([trajectories_panel(), game_panel(), game_explain_panel()], xxl=7, xs=12),
            ],
            className="g-3 pt-2",
        ),
        label="Standings",
        tab_id=Tab.STANDINGS,
    )


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
    search: Any = None  #: the leaderboard's search text
    order: Any = None  #: the leaderboard's sort (:func:`figures.leaderboard.leaderboard_sort`)
    page: Any = 1  #: the leaderboard's page shown
    first_page: bool = False  #: whether the leaderboard goes back to its first page (a new search, sort, filter)


@dataclass(frozen=True)
class Wanted:
    """Which of the standings views an answer builds (the others stay as drawn)."""

    leaderboard: bool = True
    trajectories: bool = True
    game: bool = True
    explanation: bool = True
    heatmap: bool = False

    def any(self) -> bool:
        """Whether the answer builds any view at all."""
        return self.leaderboard or self.trajectories or self.game or self.explanation or self.heatmap


def _cut(inputs: StandingsInputs) -> str:
    """Which players the leaderboard lists, in which order: when it changes, the leaderboard goes back to its first
    page."""
    return _digest(inputs.source, inputs.min_games, inputs.search, inputs.order)


def _leaderboard_key(inputs: StandingsInputs, page: Any) -> str:
    """What the leaderboard shows at ``page``, as a fingerprint of every input it is built from."""
    data = (inputs.source, inputs.settings, inputs.offset, inputs.factor)
    return _digest(*data, inputs.min_games, inputs.pinned, inputs.narrow is True, _cut(inputs), page)


def _view_keys(inputs: StandingsInputs) -> dict[str, str]:
    """What each view shows, as a fingerprint of every input it is built from (kept in the page with the views)."""
    data = (inputs.source, inputs.settings, inputs.offset, inputs.factor)
    game = (*data, inputs.game)
    return {
        "leaderboard": _leaderboard_key(inputs, 1 if inputs.first_page else inputs.page),
        "trajectories": _digest(*data, inputs.players, inputs.x_axis, inputs.pinned),
        "game": _digest(*game),
        "explanation": _digest(*game, inputs.explained),
        "heatmap": _digest(*data, inputs.players),
    }


def stale_views(inputs: StandingsInputs, drawn: Any) -> tuple[Wanted, StandingsInputs]:
    """The views on the open tab that do not show ``inputs`` yet, by what the page says it has drawn (``drawn``),
    and the inputs to build them with (the leaderboard's first page when its cut changed).

    Judged by what is drawn, never by which input triggered the request: the browser drops the answer of a request
    still running when the same callback is asked again (Dash keeps only the newest of a callback's requests), so
    the views the dropped request would have drawn must come with the next answer, whatever triggered that one.
    """
    shown = drawn if isinstance(drawn, dict) else {}
    cut = shown.get("cut")
    if isinstance(cut, str) and cut != _cut(inputs):
        inputs = replace(inputs, first_page=True)  # a page turn, a parameter or a baseline keeps the page shown
    keys = _view_keys(inputs)
    stale = {name: shown.get(f"{name}@") != key for name, key in keys.items()}
    standings_open = inputs.tab in (None, Tab.STANDINGS)
    wanted = Wanted(
        leaderboard=standings_open and stale["leaderboard"],
        trajectories=standings_open and stale["trajectories"],
        game=standings_open and stale["game"],
        explanation=standings_open and stale["explanation"],
        heatmap=inputs.tab == Tab.OVERVIEW and stale["heatmap"],
    )
    return wanted, inputs


@dataclass
class StandingsViews:
    """The standings views of one answer, each ``no_update`` where it stays as drawn."""

    rows: Any = no_update  #: the leaderboard grid's rows
    columns: Any = no_update  #: its columns (sent only when they differ from the drawn ones)
    grid_style: Any = no_update  #: its style (hidden when the filter leaves nobody)
    empty_note_style: Any = no_update  #: the note shown instead of an empty grid
    empty_note: Any = no_update  #: its words (nobody plays enough games, or nobody's name holds the search)
    scale_row_style: Any = no_update  #: the display scale's row (shown for natural-scale systems only)
    trajectories: Any = no_update  #: the trajectories figure, or a Patch of its values
    game_changes: Any = no_update  #: one game's bars, or a Patch of their values
    heatmap: Any = no_update  #: the overview heatmap
    #: the game's explanation, its five outputs (:func:`layouts.player.explanation_outputs`)
    explanation: tuple[Any, ...] = (no_update,) * 5
    drawn: Any = no_update  #: what is drawn (fingerprints), written only when it changed
    count: Any = no_update  #: the leaderboard's count of matching players, in words
    page: Any = no_update  #: the leaderboard page shown (sent when it is not the one asked for)
    pages: Any = no_update  #: how many pages
    pager_style: Any = no_update  #: the count and page picker's style (hidden when one page shows everyone)

    def outputs(self) -> tuple[Any, ...]:
        """The values in the standings callback's output order (``callbacks/standings.py``)."""
        return (
            self.rows,
            self.columns,
            self.grid_style,
            self.empty_note_style,
            self.empty_note,
            self.count,
            self.page,
            self.pages,
            self.pager_style,
            self.scale_row_style,
            self.trajectories,
            self.game_changes,
            self.heatmap,
            *self.explanation,
            self.drawn,
        )


def _digest(*parts: Any) -> str:
    """A short fingerprint of what a chart shows apart from the run's values (kept in the page, compared on the
    next change)."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


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


def views_for(
    run: RatingRun, inputs: StandingsInputs, *, wanted: Wanted, baseline: RatingRun | None, drawn: Any
) -> StandingsViews:
    """The ``wanted`` standings views of ``run`` (and the pinned ``baseline``'s run) for ``inputs``.

    A chart whose fingerprint (data, system, players, options, baseline) matches the one drawn (``drawn``, as the
    page keeps it) gets a :class:`dash.Patch` with only the values a parameter changes.
    """
    system = (settings_of(inputs.settings) or ("",))[0]
    scale = figures.scale_of(run, inputs.offset, inputs.factor)
    shown = dict(drawn) if isinstance(drawn, dict) else {}
    keys = _view_keys(inputs)
    views = StandingsViews()
    if wanted.leaderboard:
        view = leaderboard_view(
            run,
            min_games=inputs.min_games,
            offset=inputs.offset,
            factor=inputs.factor,
            baseline=baseline,
            narrow=inputs.narrow is True,
            order=inputs.order,
            search=inputs.search,
            page=1 if inputs.first_page else inputs.page,
        )
        views.rows = view.rows
        # the grid stays; its columns and size are sent only when they differ from the drawn ones (the grid then
        # keeps the sort the user chose), and the rows are matched by player, so only changed cells redraw.  An
        # empty result hides the grid and shows the note, leaving the columns as they are.
        key = _digest("empty", view.note) if view.empty else _digest(view.columns, view.style)
        if shown.get("leaderboard") != key:
            views.grid_style = view.style
            views.empty_note_style = {"display": "block"} if view.empty else {"display": "none"}
            if view.empty:
                views.empty_note = view.note
            else:
                views.columns = view.columns
            shown["leaderboard"] = key
        # the page picker: its count, length and place, each sent only when it changes
        pager = _digest(view.summary, view.pages)
        if shown.get("leaderboard_pages") != pager:
            views.count = view.summary
            views.pages = view.pages
            views.pager_style = {"display": "block" if view.summary else "none"}
            shown["leaderboard_pages"] = pager
        if view.page != inputs.page:
            views.page = view.page
        shown["cut"] = _cut(inputs)
        shown["leaderboard@"] = _leaderboard_key(inputs, view.page)  # the page shown (past the last: the first)
        row_style = {} if run.scale == figures.NATURAL_SCALE else {"display": "none"}
        if shown.get("scale_row") != row_style:  # sent only when it changes (each set output costs the page a round)
            views.scale_row_style = shown["scale_row"] = row_style
    if wanted.trajectories:
        chosen = figures.drawn_players(run, inputs.players)
        label = inputs.pinned.get("label", "baseline") if isinstance(inputs.pinned, dict) else "baseline"
        key = _digest(inputs.source, system, chosen, inputs.x_axis == "date", astuple(scale), inputs.pinned)
        if shown.get("trajectories") == key:
            views.trajectories = trajectories_patch(run, chosen, scale=scale, baseline=baseline)
        else:
            views.trajectories = figures.trajectories_view(
                run,
                chosen,
                x_axis=inputs.x_axis,
                offset=inputs.offset,
                factor=inputs.factor,
                baseline=baseline,
                baseline_label=str(label),
            )
        shown["trajectories"] = key
        shown["trajectories@"] = keys["trajectories"]
    # No game picked (the picker's own callback has not answered, or its answer was lost): the picker's default, the
    # newest game, so the page never waits on the picker to show one game and its explanation.
    game = figures.game_choice(run, inputs.game, None, False) if run.history.n_games else None
    if wanted.game and game is not None:
        key = _digest(inputs.source, system, game, astuple(scale))
        if shown.get("changes") == key:
            views.game_changes = game_changes_patch(run, game, scale=scale)
        else:
            views.game_changes = figures.game_changes_view(run, game, scale=scale)
        shown["changes"] = key
    if wanted.game:
        shown["game@"] = keys["game"]
    if wanted.heatmap:
        views.heatmap = figures.change_heatmap(run, figures.drawn_players(run, inputs.players), scale=scale)
        shown["heatmap@"] = keys["heatmap"]
    # the game's players and its default player (its winner, until the player picker says otherwise, as for the
    # game above); the picker may still hold a player of the previous game (it follows the game in its own callback)
    options, winner = figures.game_players(run, game, None) if wanted.explanation else ([], None)
    player = inputs.explained if isinstance(inputs.explained, str) else winner
    if wanted.explanation and not (isinstance(player, str) and player not in _names(options)):
        header, table_rows, table_columns, table_style, notes = explain_view(run, player, game, scale).outputs()
        key = _digest(table_columns, table_style)
        if shown.get("explanation") == key:
            table_columns = table_style = no_update
        shown["explanation"] = key
        notes_key = _digest(notes)  # the notes in words often stay the same (a parameter they do not quote)
        if shown.get("explanation_notes") == notes_key:
            notes = no_update
        shown["explanation_notes"] = notes_key
        views.explanation = (header, table_rows, table_columns, table_style, notes)
        shown["explanation@"] = keys["explanation"]
    # what is drawn is written only when it changed (every output set costs the page a round of updates)
    views.drawn = no_update if shown == drawn else shown
    return views


def _names(options: list[dict[str, str]]) -> list[str]:
    return [option["value"] for option in options]
