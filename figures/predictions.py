"""Win probabilities: the players offered and picked, each player's chance of each place as a heatmap and as table
rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from figures.games import game_sides
from figures.leaderboard import leaderboard_rows
from figures.text import place_name, plain
from ratings import RatingRun

__all__ = ["default_pick", "default_teams", "prediction_options", "probability_figure", "probability_rows"]


def probability_figure(players: Sequence[str], probabilities: np.ndarray, *, system_title: str = "") -> go.Figure:
    """Heatmap of each player's chance of each place (rows: players in the given order; cells in percent)."""
    probs = np.asarray(probabilities, dtype=float)
    n = probs.shape[1]
    percent = 100.0 * probs
    places = [place_name(k) for k in range(1, n + 1)]
    text = [[f"{v:.0f}%" if v >= 0.5 else ("<1%" if v > 0 else "0%") for v in row] for row in percent]
    fig = go.Figure(
        go.Heatmap(
            z=percent,
            x=places,
            y=[plain(p) for p in players],
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=100,
            colorbar={"title": {"text": "%"}, "thickness": 12},
            hovertemplate="<b>%{y}</b> finishes %{x}: %{z:.1f}%<extra></extra>",
        )
    )
    title = "Chance of each place" + (f" ({plain(system_title)})" if system_title else "")
    fig.update_layout(
        title={"text": title, "font": {"size": 15}},
        xaxis={"side": "top"},
        yaxis={"autorange": "reversed", "automargin": True},
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        template="plotly_white",
        height=max(220, 60 + 36 * len(players)),
    )
    return fig


def probability_rows(players: Sequence[str], probabilities: np.ndarray) -> list[dict[str, Any]]:
    """Table rows: player, each place's chance in percent, the expected place and the row total (100%)."""
    probs = np.asarray(probabilities, dtype=float)
    n = probs.shape[1]
    places = np.arange(1, n + 1)
    rows = []
    for player, row in zip(players, probs, strict=True):
        out: dict[str, Any] = {"player": player}
        for k in range(n):
            out[place_name(k + 1)] = 100.0 * float(row[k])
        out["expected place"] = float(row @ places)
        out["total"] = 100.0 * float(row.sum())
        rows.append(out)
    return rows


def prediction_options(run: RatingRun) -> list[dict[str, str]]:
    """The rated players (no placeholders), best first."""
    return [{"label": r["player"], "value": r["player"]} for r in leaderboard_rows(run)]


def default_pick(run: RatingRun, chosen: list[str] | None, count: int = 4) -> list[str]:
    """The previous pick where its players still exist, else the top ``count`` of the leaderboard."""
    known = set(run.players)
    kept = [p for p in (chosen or []) if p in known]
    return kept or [r["player"] for r in leaderboard_rows(run)[:count]]


def default_teams(run: RatingRun, first: Any, second: Any) -> tuple[list[str], list[str]]:
    """The two teams to predict: the previous picks where their players still exist, else the first two teams of
    the latest team game (two empty teams when the history has none)."""
    known = set(run.players)

    def kept(pick: Any) -> list[str]:
        return [p for p in pick if isinstance(p, str) and p in known] if isinstance(pick, list) else []

    if kept(first) or kept(second):
        return kept(first), kept(second)
    h = run.history
    team_games = np.flatnonzero(h.team_game)
    if not len(team_games):
        return [], []
    sides = game_sides(h, int(team_games[-1]))
    names = [[h.players[int(h.flat_player[k])] for k in side.entries] for side in sides[:2]]
    return names[0], names[1]
