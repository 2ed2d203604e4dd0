"""Win probabilities for an upcoming game: each picked player's chance of each place under the current settings."""

from __future__ import annotations

from typing import Any

import numpy as np

from ratings import RatingRun, create
from sources.runs import typed_params

__all__ = ["MAX_PLAYERS", "win_probabilities"]

#: Most players in one predicted game (exact place probabilities grow quickly with the field).
MAX_PLAYERS = 10


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
