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
- :mod:`figures.fit` (the parameter search: each try and the best so far);
- :mod:`figures.gamelist` (the games list's rows: finishing order and changes as text), :mod:`figures.player`
  (one player's page: trajectory with rank, numbers, head-to-head);
- :mod:`figures.empty` (a chart saying why it is blank) and :mod:`figures.export` (PNG download config).

Every public name is re-exported here: ``import figures; figures.trajectory_figure(...)``.
"""

from __future__ import annotations

from figures.calibration import calibration_figure, calibration_words
from figures.changes import (
    NEGATIVE,
    POSITIVE,
    GameChanges,
    change_heatmap,
    game_change_values,
    game_changes_figure,
    game_changes_view,
    oddities,
)
from figures.compare import comparison_rows
from figures.empty import empty_figure
from figures.export import COMPARISON_FIELDS, comparison_csv, graph_config, ratings_csv
from figures.fit import METRIC_WORDS, lower_is_better, search_figure
from figures.gamelist import (
    PAGE_SIZE,
    GamesPage,
    clicked_game,
    finishing_order,
    game_rows,
    games_page,
    parse_day,
    player_options,
    sides_in_game,
)
from figures.games import (
    Side,
    game_choice,
    game_label,
    game_labels,
    game_options,
    game_players,
    game_sides,
    plain_game_labels,
    teammates_text,
)
from figures.leaderboard import SPARK_CHARS, leaderboard_rows, sparkline
from figures.metrics import BETTER, METRICS, metrics_rows
from figures.player import (
    explanation_rows,
    form_text,
    game_pick,
    head_to_head_rows,
    partner_rows,
    partner_summary,
    player_figure,
    player_figure_view,
    player_pick,
    record_items,
)
from figures.players import (
    LINE_DASHES,
    PALETTE,
    PLACEHOLDER_NAMES,
    PlayerSeries,
    default_players,
    drawn_players,
    is_placeholder,
    player_choice,
    player_color,
    player_dash,
    player_series,
    top_players,
)
from figures.predictions import (
    default_pick,
    default_teams,
    prediction_options,
    probability_figure,
    probability_rows,
)
from figures.scale import NATURAL_SCALE, Scale, min_games_of, scale_for, scale_of
from figures.scores import base_of, score_function_figure, score_view
from figures.text import counted, date_range_text, place_name, place_text, plain
from figures.trajectories import (
    MARKER_LIMIT,
    TrajectoryValues,
    trajectories_view,
    trajectory_figure,
    trajectory_values,
    typed_array,
)
from ratings.numerics import number, signed

__all__ = [
    "METRIC_WORDS",
    "search_figure",
    "lower_is_better",
    "MARKER_LIMIT",
    "NATURAL_SCALE",
    "NEGATIVE",
    "PAGE_SIZE",
    "LINE_DASHES",
    "PALETTE",
    "PLACEHOLDER_NAMES",
    "POSITIVE",
    "SPARK_CHARS",
    "PlayerSeries",
    "Scale",
    "change_heatmap",
    "GameChanges",
    "game_change_values",
    "calibration_figure",
    "calibration_words",
    "comparison_rows",
    "COMPARISON_FIELDS",
    "comparison_csv",
    "counted",
    "date_range_text",
    "default_players",
    "drawn_players",
    "empty_figure",
    "explanation_rows",
    "finishing_order",
    "form_text",
    "game_changes_figure",
    "game_changes_view",
    "game_label",
    "game_choice",
    "game_labels",
    "game_options",
    "game_rows",
    "games_page",
    "GamesPage",
    "clicked_game",
    "parse_day",
    "player_options",
    "game_players",
    "game_sides",
    "sides_in_game",
    "Side",
    "teammates_text",
    "graph_config",
    "head_to_head_rows",
    "partner_rows",
    "partner_summary",
    "game_pick",
    "player_pick",
    "is_placeholder",
    "leaderboard_rows",
    "min_games_of",
    "oddities",
    "place_name",
    "place_text",
    "plain",
    "top_players",
    "plain_game_labels",
    "player_color",
    "player_choice",
    "player_figure",
    "player_figure_view",
    "player_dash",
    "player_series",
    "probability_figure",
    "probability_rows",
    "prediction_options",
    "default_pick",
    "default_teams",
    "BETTER",
    "METRICS",
    "metrics_rows",
    "ratings_csv",
    "record_items",
    "scale_for",
    "scale_of",
    "score_function_figure",
    "base_of",
    "score_view",
    "number",
    "signed",
    "sparkline",
    "trajectory_figure",
    "trajectories_view",
    "TrajectoryValues",
    "trajectory_values",
    "typed_array",
]
