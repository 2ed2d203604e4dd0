"""Games in charts and pickers: a short human name of each game, the game picker's options and choice, and one
game's participants."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from figures.scale import Scale
from figures.text import plain
from ratings import GameHistory, RatingRun
from ratings.io.teams import team_label

__all__ = [
    "Side",
    "game_choice",
    "game_label",
    "game_labels",
    "game_options",
    "game_players",
    "game_sides",
    "plain_game_labels",
    "teammates_text",
]


@dataclass(frozen=True)
class Side:
    """One place-taker of a game: a player alone, or a team (its members share the place).

    ``entries`` are flat indices into the history's arrays, in the game's entry order; ``label`` is the player's
    name, or a team's members joined by `` & `` (:func:`ratings.io.teams.team_label`, the wide shape's own rule).
    """

    position: int
    dnf: bool
    entries: tuple[int, ...]
    label: str


def game_sides(history: GameHistory, g: int) -> list[Side]:
    """Game ``g``'s players and teams, best place first (a tie in entry order; did-not-finish last).

    A free-for-all game has one side per player; a team game one per team (:attr:`GameHistory.flat_team`).
    """
    s = history.game_slice(g)
    members: dict[int, list[int]] = {}
    for k in range(s.start, s.stop):
        members.setdefault(int(history.flat_team[k]), []).append(k)
    sides = [
        Side(
            int(history.flat_position[ks[0]]),
            bool(history.flat_dnf[ks[0]]),
            tuple(ks),
            team_label([history.players[int(history.flat_player[k])] for k in ks]),
        )
        for ks in members.values()
    ]
    return sorted(sides, key=lambda side: (side.dnf, side.position, side.entries[0]))


def teammates_text(history: GameHistory, k: int) -> str:
    """``", with Bob & Cid"`` for flat entry ``k`` of a team game (its teammates), ``""`` for a player alone."""
    g = int(history.flat_game[k])
    s = history.game_slice(g)
    mates = [
        history.players[int(history.flat_player[j])]
        for j in range(s.start, s.stop)
        if j != k and history.flat_team[j] == history.flat_team[k]
    ]
    return f", with {team_label(mates)}" if mates else ""


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


def game_options(run: RatingRun) -> list[dict[str, Any]]:
    """One option per game, newest first."""
    return [{"label": game_label(run, g), "value": g} for g in reversed(range(run.history.n_games))]


def game_choice(run: RatingRun, current: Any, click: dict[str, Any] | None, clicked: bool) -> int:
    """The game to show: the clicked trajectory point's game, else the current choice if valid, else the last game."""
    n = run.history.n_games
    points = click.get("points") if clicked and isinstance(click, dict) else None
    if isinstance(points, list) and points and isinstance(points[0], dict):
        game = points[0].get("customdata")
        if isinstance(game, list) and game:
            game = game[0]  # a point with several customdata values: the game index comes first
        if isinstance(game, int) and not isinstance(game, bool) and 0 <= game < n:
            return game
        if isinstance(game, float) and game.is_integer() and 0 <= game < n:
            return int(game)
    if isinstance(current, int) and 0 <= current < n:
        return current
    return n - 1


def game_players(
    run: RatingRun, game: Any, chosen: Any, click: Any = None, scale: Scale | None = None
) -> tuple[list[dict[str, str]], str | None]:
    """The participants of ``game`` in finishing order and the one to explain: the clicked trajectory point's
    player (the participant whose rating after that game is the point's height), else the previous choice when they
    played, else the winner."""
    history = run.history
    if not isinstance(game, int) or isinstance(game, bool) or not 0 <= game < history.n_games:
        return [], None
    cut = history.game_slice(game)
    order = sorted(range(cut.start, cut.stop), key=lambda i: (int(history.flat_position[i]), i))
    names = [history.players[int(history.flat_player[i])] for i in order]
    options = [
        {
            "label": f"{'DNF' if history.flat_dnf[i] else int(history.flat_position[i])}. {name}"
            + teammates_text(history, i),
            "value": name,
        }
        for i, name in zip(order, names, strict=True)
    ]
    points = click.get("points") if isinstance(click, dict) else None
    if scale is not None and isinstance(points, list) and points and isinstance(points[0], dict):
        y = points[0].get("y")
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            shown = [float(scale.value(run.after[i])) for i in order]
            return options, names[min(range(len(names)), key=lambda k: abs(shown[k] - float(y)))]
    if isinstance(chosen, str) and chosen in names:
        return options, chosen
    return options, names[0] if names else None
