"""Downloads: the leaderboard as CSV and the history in use (edited or recorded games included) as CSV.

Both are written by the project's one CSV writer (:func:`ratings.io.write_rows`), so they are safe to open in a
spreadsheet by the same rule as the command line's and the sheet's: a text cell that a spreadsheet would run as a
formula (a name like ``=cmd`` or ``-1``) gets a leading apostrophe, numbers stay numbers.
"""

from __future__ import annotations

import re
from typing import Any

from dash import Input, Output, State, callback, dcc
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import DataError, current_run, describe_source, history_for
from layouts.ids import Data, Downloads, Params, Predict, ScoreFn, Standings
from ratings import SYSTEM_NAMES, RatingRun, get_system
from ratings.io import csv_text, write_csv  # the one CSV writer and formula-quoting rule of the project

__all__ = ["PNG_CHARTS", "file_stem", "history_csv", "png_configs", "ratings_csv"]

#: The charts whose camera button saves a PNG: (graph id, name, whether the graph is responsive).
PNG_CHARTS = (
    (Standings.TRAJECTORIES, "rating-trajectories", True),
    (Standings.GAME_CHANGES, "game-changes", False),
    (Standings.HEATMAP, "changes-overview", False),
    (Predict.FIGURE, "win-probabilities", True),
    (ScoreFn.FIGURE, "score-function", True),
)


def png_configs(source: dict[str, Any] | None, system: Any) -> list[Any]:
    """Each chart's config with a PNG file name that says the data set and the system, e.g.
    ``rating-trajectories-sample-poker-Multiplayer-Elo``.

    The parameters are left out on purpose: a chart's config cannot change without the browser drawing the chart
    again from scratch, and five charts redrawn on every parameter move cost more than the name is worth.
    """
    title = get_system(system).title if system in SYSTEM_NAMES else ""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", f"{file_stem(source)} {title}").strip("-")
    return [
        figures.graph_config(f"{name}-{stem}"[:150], **({"responsive": True} if responsive else {}))
        for _, name, responsive in PNG_CHARTS
    ]


def file_stem(source: dict[str, Any] | None, system: str | None = None) -> str:
    """A file name stem from the source (and system): ``ratings-sample-poker-multielo``."""
    words = describe_source(source or {}) + (f" {system}" if system else "")
    return re.sub(r"[^A-Za-z0-9]+", "-", words).strip("-").lower()[:80] or "ratings"


def ratings_csv(run: RatingRun, *, min_games: int = 0, scale: figures.Scale | None = None) -> str:
    """The leaderboard as CSV: rank, player, rating (with its scale in the header), games, wins, average place,
    last change.  Placeholder players are left out, as on screen; no cell can start a formula.
    """
    scale = scale or figures.Scale(unit=run.scale)
    rows = figures.leaderboard_rows(run, min_games=min_games, scale=scale)
    header = ["rank", "player", f"rating ({scale.unit})", "games", "wins", "average place", "last change"]
    fields = ("rank", "player", "rating", "games", "wins", "average_place", "last_change")
    return csv_text([header, *([r[k] for k in fields] for r in rows)])


def history_csv(source: dict[str, Any]) -> str:
    """The history of ``source`` in the long shape (game, date, player, place), formula-safe."""
    return write_csv(history_for(source), "long")


# "Ratings CSV" button (with source, settings, filter, scale) -> a CSV download of the leaderboard
@callback(
    Output(Downloads.RATINGS, "data"),
    Input(Downloads.RATINGS_BUTTON, "n_clicks"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Standings.MIN_GAMES, "value"),
    State(Standings.SCALE_OFFSET, "value"),
    State(Standings.SCALE_FACTOR, "value"),
    prevent_initial_call=True,
)
def on_ratings_csv(_clicks, source, current, min_games, offset, factor):
    run = current_run(source, current)
    text = ratings_csv(run, min_games=figures.min_games_of(min_games), scale=figures.scale_of(run, offset, factor))
    return dcc.send_string(text, f"ratings-{file_stem(source, current['system'])}.csv", type="text/csv")


# "History CSV" button (with source) -> a CSV download of the games in use
@callback(
    Output(Downloads.HISTORY, "data"),
    Input(Downloads.HISTORY_BUTTON, "n_clicks"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_history_csv(_clicks, source):
    if not source:
        raise PreventUpdate
    try:
        text = history_csv(source)
    except DataError:
        raise PreventUpdate from None
    return dcc.send_string(text, f"history-{file_stem(source)}.csv", type="text/csv")


# source, system -> every chart's PNG file name (data set, system): the charts always on the page, and those of the
# Predictions tab (also when its content mounts, layouts.page)
_ALWAYS = tuple(i for i, (graph, _, _) in enumerate(PNG_CHARTS) if graph not in (Predict.FIGURE, ScoreFn.FIGURE))
_PREDICTIONS = tuple(i for i in range(len(PNG_CHARTS)) if i not in _ALWAYS)


@callback(
    [Output(PNG_CHARTS[i][0], "config") for i in _ALWAYS],
    Input(Data.SOURCE, "data"),
    Input(Params.SYSTEM, "value"),
    prevent_initial_call=True,
)
def on_png_names(source, system):
    return _png_names(source, system, _ALWAYS)


@callback(
    [Output(PNG_CHARTS[i][0], "config") for i in _PREDICTIONS],
    Input(Data.SOURCE, "data"),
    Input(Params.SYSTEM, "value"),
    prevent_initial_call=False,
)
def on_predictions_png_names(source, system):
    return _png_names(source, system, _PREDICTIONS)


def _png_names(source: Any, system: Any, charts: tuple[int, ...]) -> list[Any]:
    """The PNG configs of ``charts`` (indices into ``PNG_CHARTS``)."""
    configs = png_configs(source, system)
    return [configs[i] for i in charts]
