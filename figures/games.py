"""Games in charts and pickers: a short human name of each game."""

from __future__ import annotations

import functools

from figures.text import plain
from ratings import GameHistory, RatingRun

__all__ = ["game_label", "game_labels", "plain_game_labels"]


def game_label(run: RatingRun, g: int) -> str:
    """A short human name of game ``g``: its number, id and date (raw text, for a picker; :func:`plain` in a chart)."""
    return _label(run.history, g)


def _label(history: GameHistory, g: int) -> str:
    game = history.games[g]
    label = f"Game {g + 1}"
    if game.id.strip().lower() not in (str(g + 1), f"game {g + 1}"):
        label += f" ({game.id})"
    if game.date is not None:
        label += f", {game.date.isoformat()}"
    return label


@functools.lru_cache(maxsize=16)
def game_labels(history: GameHistory) -> tuple[str, ...]:
    """:func:`game_label` of every game, computed once per history."""
    return tuple(_label(history, g) for g in range(history.n_games))


@functools.lru_cache(maxsize=16)
def plain_game_labels(history: GameHistory) -> tuple[str, ...]:
    """:func:`game_labels` as chart text (:func:`figures.text.plain`), computed once per history."""
    return tuple(plain(label) for label in game_labels(history))
