"""Pure builders: (RatingRun, options) -> plotly figures and table rows, one module per subject.

Nothing here reads a file, a store or a request; every function is tested without a browser.

- :mod:`figures.scale`: the display scale ``shown = offset + factor * rating`` (Kerby's natural scale as points);
- :mod:`figures.text`: :func:`~figures.text.plain` (every player name and game id enters a chart through it),
  place names, date ranges;
- :mod:`figures.players` and :mod:`figures.games`: default player selection, colours, one player's games,
  game labels;
- :mod:`figures.trajectories`, :mod:`figures.changes` (one game's bars, the players x games heatmap),
  :mod:`figures.leaderboard` (rows and sparklines), :mod:`figures.predictions` (chance of each place),
  :mod:`figures.scores` (multiplayer Elo score function);
- :mod:`figures.empty` (a chart saying why it is blank) and :mod:`figures.export` (PNG download config).

Every public name is re-exported here: ``import figures; figures.trajectory_figure(...)``.
"""

from __future__ import annotations

from figures.changes import NEGATIVE, POSITIVE, change_heatmap, game_changes_figure, oddities
from figures.empty import empty_figure
from figures.export import graph_config
from figures.games import game_label, game_labels, plain_game_labels
from figures.leaderboard import SPARK_CHARS, leaderboard_rows, sparkline
from figures.players import (
    LINE_DASHES,
    PALETTE,
    PLACEHOLDER_NAMES,
    PlayerSeries,
    default_players,
    is_placeholder,
    player_color,
    player_dash,
    player_series,
    top_players,
)
from figures.predictions import probability_figure, probability_rows
from figures.scale import NATURAL_SCALE, Scale, scale_for
from figures.scores import score_function_figure
from figures.text import counted, date_range_text, place_name, place_text, plain
from figures.trajectories import MARKER_LIMIT, trajectory_figure

__all__ = [
    "MARKER_LIMIT",
    "NATURAL_SCALE",
    "NEGATIVE",
    "LINE_DASHES",
    "PALETTE",
    "PLACEHOLDER_NAMES",
    "POSITIVE",
    "SPARK_CHARS",
    "PlayerSeries",
    "Scale",
    "change_heatmap",
    "counted",
    "date_range_text",
    "default_players",
    "empty_figure",
    "game_changes_figure",
    "game_label",
    "game_labels",
    "graph_config",
    "is_placeholder",
    "leaderboard_rows",
    "oddities",
    "place_name",
    "place_text",
    "plain",
    "top_players",
    "plain_game_labels",
    "player_color",
    "player_dash",
    "player_series",
    "probability_figure",
    "probability_rows",
    "scale_for",
    "score_function_figure",
    "sparkline",
    "trajectory_figure",
]
