"""Players in charts: who is listed by default, each one's colour and games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from plotly.colors import qualitative

from ratings import GameHistory, RatingRun

__all__ = [
    "PALETTE",
    "PLACEHOLDER_NAMES",
    "PlayerSeries",
    "default_players",
    "is_placeholder",
    "player_color",
    "player_series",
]

#: Names of placeholder players that are never listed (the dummy of seed 000, section 5.1, when a file has one).
PLACEHOLDER_NAMES = frozenset({"dummy", "placeholder", "?"})
PALETTE: tuple[str, ...] = tuple(qualitative.Plotly) + tuple(qualitative.D3) + tuple(qualitative.Dark24)


def is_placeholder(name: str) -> bool:
    """Whether a player name is a placeholder (a dummy row in a file), never shown in lists."""
    text = name.strip().lower()
    return text in PLACEHOLDER_NAMES or text.startswith("dummy ")


def player_color(players: Sequence[str], player: str) -> str:
    """A stable colour for ``player`` given the full player list of a history."""
    try:
        index = list(players).index(player)
    except ValueError:
        index = abs(hash(player))
    return PALETTE[index % len(PALETTE)]


def default_players(data: RatingRun | GameHistory, limit: int = 15) -> list[str]:
    """The most active players (most games, then by name), at most ``limit``, placeholders left out.

    It depends on the history only, so the selection stays put while parameters change.
    """
    history = data.history if isinstance(data, RatingRun) else data
    games = np.bincount(history.flat_player, minlength=history.n_players)
    order = sorted(range(history.n_players), key=lambda p: (-games[p], history.players[p]))
    return [history.players[p] for p in order if not is_placeholder(history.players[p])][:limit]


@dataclass(frozen=True)
class PlayerSeries:
    """One player's games: game indices, ratings before/after, places and field sizes."""

    games: np.ndarray
    before: np.ndarray
    after: np.ndarray
    position: np.ndarray
    dnf: np.ndarray
    size: np.ndarray


def player_series(run: RatingRun, player: str) -> PlayerSeries | None:
    """The games of ``player`` in ``run`` (``None`` when the player is not in its history)."""
    h = run.history
    index = h.player_index.get(player)
    if index is None:
        return None
    mask = h.flat_player == index
    game_of = h.flat_game
    sizes = np.diff(h.offsets)
    games = game_of[mask]
    return PlayerSeries(
        games=games,
        before=run.before[mask],
        after=run.after[mask],
        position=run.history.flat_position[mask],
        dnf=h.flat_dnf[mask],
        size=sizes[games],
    )
