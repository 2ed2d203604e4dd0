"""Downloads: the leaderboard as CSV and the history in use (edited or recorded games included) as CSV.

Both are written by the project's one CSV writer (:func:`figures.export.ratings_csv`,
:func:`sources.reading.history_csv`), so they are safe to open in a
spreadsheet by the same rule as the command line's and the sheet's: a text cell that a spreadsheet would run as a
formula (a name like ``=cmd`` or ``-1``) gets a leading apostrophe, numbers stay numbers.
"""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, dcc
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import DataError, current_run
from layouts.downloads import PNG_CHARTS, png_configs
from layouts.ids import Data, Downloads, Params, Predict, ScoreFn, Standings
from sources.reading import file_stem, history_csv


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
    text = figures.ratings_csv(
        run, min_games=figures.min_games_of(min_games), scale=figures.scale_of(run, offset, factor)
    )
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
