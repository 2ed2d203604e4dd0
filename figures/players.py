"""Players in charts: who is listed by default, each one's colour and games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from plotly.colors import qualitative

from ratings import GameHistory, RatingRun

__all__ = [
    "LINE_DASHES",
    "PALETTE",
    "PLACEHOLDER_NAMES",
    "PlayerSeries",
    "default_players",
    "drawn_players",
    "is_placeholder",
    "player_color",
    "player_choice",
    "player_dash",
    "top_players",
    "player_series",
]

#: Names of placeholder players that are never listed (the dummy of Kerby,
#: "Multiplayer generalizations of Elo rating system", 2025, section 5.1, when a file has one).
PLACEHOLDER_NAMES = frozenset({"dummy", "placeholder", "?"})
#: 24 colours made to be told apart on white (plotly's Dark24); line ``i`` of a chart takes colour ``i % 24``.
PALETTE: tuple[str, ...] = tuple(qualitative.Dark24)
#: Line styles of the solid lines, one per round of the palette: lines 25-48 are dotted, and so on (the pinned
#: baseline is drawn "dash", so that style is not used here).
LINE_DASHES: tuple[str, ...] = ("solid", "dot", "dashdot", "longdashdot")


def is_placeholder(name: str) -> bool:
    """Whether a player name is a placeholder (a dummy row in a file), never shown in lists."""
    text = name.strip().lower()
    return text in PLACEHOLDER_NAMES or text.startswith("dummy ")


def player_color(players: Sequence[str], player: str) -> str:
    """The colour of ``player``'s line among the lines drawn (``players``, in drawing order).

    Colours go by position among the drawn players, so no two of the first 24 lines share one (by position
    in the whole history two drawn players could); see :func:`player_dash` past 24.
    """
    return PALETTE[_position(players, player) % len(PALETTE)]


def player_dash(players: Sequence[str], player: str) -> str:
    """The line style of ``player``'s line: solid for the first 24 lines drawn, then dotted, and so on."""
    return LINE_DASHES[(_position(players, player) // len(PALETTE)) % len(LINE_DASHES)]


def _position(players: Sequence[str], player: str) -> int:
    try:
        return list(players).index(player)
    except ValueError:
        return len(players)


def top_players(run: RatingRun, limit: int = 10) -> list[str]:
    """The leaderboard's top ``limit`` players (highest rating first), placeholders left out."""
    order = [str(p) for p in run.leaderboard()["player"]]
    return [p for p in order if not is_placeholder(p)][:limit]


def default_players(data: RatingRun | GameHistory, limit: int = 15) -> list[str]:
    """The most active players (most games, then by name), at most ``limit``, placeholders left out."""
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


def player_choice(run: RatingRun, chosen: list[str] | None) -> tuple[list[dict[str, str]], list[str]]:
    """Player options (leaderboard order) and the selection: the previous one where it still fits, else the
    leaderboard's top ten."""
    options = [{"label": p, "value": p} for p in top_players(run, limit=run.history.n_players)]
    known = set(run.history.players)
    kept = [p for p in (chosen or []) if p in known]
    return options, kept or top_players(run)


def drawn_players(run: RatingRun, players: Any) -> list[str]:
    """The drawn players: the picker's players of this history, each once, in the picker's order (a request naming
    one player 100,000 times draws one line, not a 12 GB answer), or, when none is chosen, the leaderboard's top
    ten."""
    known = set(run.history.players)
    names = [p for p in players if isinstance(p, str) and p in known] if isinstance(players, list) else []
    return list(dict.fromkeys(names)) or top_players(run)
