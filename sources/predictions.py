"""Win probabilities for an upcoming game: each picked player's chance of each place under the current settings,
or each of two picked teams' chance of winning under the system's own team model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings import RatingRun, create
from ratings import predict as rating_predictions
from ratings.io.teams import team_label
from ratings.metrics import evaluate_ratings
from ratings.predict import Calibration, team_entrants
from sources.runs import typed_params

__all__ = [
    "CALIBRATION_GAMES",
    "MAX_PLAYERS",
    "RecentCalibration",
    "recent_calibration",
    "team_win_probabilities",
    "win_probabilities",
]

#: Most players in one predicted game (exact place probabilities grow quickly with the field).
MAX_PLAYERS = 10
#: How many of the latest games the calibration check predicts again (a prediction per game: about 3-8 ms each for
#: a 20-player race, so at most a second or two of server time, asked for with a button).
CALIBRATION_GAMES = 200


@dataclass(frozen=True)
class RecentCalibration:
    """How the system's win probabilities before each of the latest games held up: the reliability bins
    (:class:`ratings.predict.Calibration`) and the log-loss of the finishing order over the same games."""

    calibration: Calibration
    log_loss: float
    first_game: int  #: the first game predicted (0-based)
    games: int  #: how many games were predicted, from ``first_game`` to the last


def recent_calibration(run: RatingRun, latest: int = CALIBRATION_GAMES) -> RecentCalibration:
    """The calibration and log-loss of ``run``'s own win probabilities over its ``latest`` games (each predicted
    from the ratings held before it, :func:`ratings.predict.win_probabilities`)."""
    history = run.history
    first = max(0, history.n_games - latest)
    wins = rating_predictions.win_probabilities(run, first_game=first)
    return RecentCalibration(
        calibration=rating_predictions.calibration(history, wins, first_game=first),
        log_loss=evaluate_ratings(history, run.before, first_game=first, win_probabilities=wins).log_loss,
        first_game=first,
        games=history.n_games - first,
    )


def win_probabilities(
    run: RatingRun, system: str, params: dict[str, Any], players: list[str]
) -> tuple[list[str], np.ndarray]:
    """``(players, P)`` with ``P[i, j]`` the chance that ``players[i]`` finishes place ``j + 1``.

    The system's own ``place_probabilities`` on the run's final state does the work; raises ``ValueError``
    for fewer than two players, more than :data:`MAX_PLAYERS`, or an unknown player.
    """
    unique = list(dict.fromkeys(players))
    if len(unique) < 2:
        raise ValueError("pick at least two players")
    if len(unique) > MAX_PLAYERS:
        raise ValueError(f"pick at most {MAX_PLAYERS} players")
    missing = [p for p in unique if p not in run.history.player_index]
    if missing:
        raise ValueError(f"not in this history: {', '.join(missing)}")
    rater = create(system, **typed_params(system, params))
    indices = np.array([run.history.player_index[p] for p in unique], dtype=np.int64)
    return unique, np.asarray(rater.place_probabilities(dict(run.state), indices), dtype=float)


def team_win_probabilities(
    run: RatingRun, system: str, params: dict[str, Any], first: list[str], second: list[str]
) -> tuple[list[str], np.ndarray]:
    """``(labels, P)`` for a game between two teams: ``labels`` name the teams by their players (``Ann & Bob``),
    ``P[t, j]`` is team ``t``'s chance of place ``j + 1`` (first or second), from the run's final state under the
    system's own team model (:func:`ratings.predict.team_entrants`, the ``team_strength`` or ``team_method`` it
    rates with).

    Raises ``ValueError`` for an empty team, a player on both teams, more than :data:`MAX_PLAYERS` players a team,
    or an unknown player.
    """
    teams = [list(dict.fromkeys(first or [])), list(dict.fromkeys(second or []))]
    if not teams[0] or not teams[1]:
        raise ValueError("pick at least one player for each team")
    both = [p for p in teams[0] if p in teams[1]]
    if both:
        raise ValueError(f"on both teams: {', '.join(both)}")
    if any(len(t) > MAX_PLAYERS for t in teams):
        raise ValueError(f"pick at most {MAX_PLAYERS} players a team")
    missing = [p for t in teams for p in t if p not in run.history.player_index]
    if missing:
        raise ValueError(f"not in this history: {', '.join(missing)}")
    rater = create(system, **typed_params(system, params))
    members = [[run.history.player_index[p] for p in t] for t in teams]
    state = team_entrants(system, rater.params, run.state, members)
    probabilities = np.asarray(rater.place_probabilities(state, np.arange(2)), dtype=float)
    return [team_label(t) for t in teams], probabilities
