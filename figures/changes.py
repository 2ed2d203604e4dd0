"""Rating changes: one game's changes by place, and every player's changes over all games as a heatmap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from figures.build import figure, figure_json, game_number_axis
from figures.gamelist import sides_in_game
from figures.games import game_label, teammates_text
from figures.scale import Scale
from figures.text import place_text, plain
from ratings import RatingRun
from ratings.numerics import number, signed

__all__ = [
    "NEGATIVE",
    "POSITIVE",
    "GameChanges",
    "change_heatmap",
    "game_change_values",
    "game_changes_figure",
    "game_changes_view",
    "oddities",
]

POSITIVE = "#1a7f37"
NEGATIVE = "#cf222e"


@dataclass(frozen=True)
class GameChanges:
    """One game's bars, best place first: the labels (``x``) and what a parameter changes (the rest)."""

    labels: list[str]
    change: np.ndarray
    text: list[str]
    hovertext: list[str]
    colors: list[str]


def game_change_values(run: RatingRun, g: int, *, scale: Scale | None = None) -> GameChanges:
    """The values of :func:`game_changes_figure`'s bars (also for a partial update of a drawn one)."""
    scale = scale or Scale(unit=run.scale)
    h = run.history
    s = h.game_slice(g)
    positions = run.history.flat_position[s]
    order = np.argsort(positions, kind="stable")
    players = [plain(h.players[p]) for p in h.flat_player[s][order]]
    dnf = h.flat_dnf[s][order]
    size = sides_in_game(h, g)
    change = scale.change_between(run.before[s], run.after[s])[order]
    teams = [plain(teammates_text(h, s.start + int(i))) for i in order]
    labels = [
        f"{'DNF' if d else int(pos)}. {name}" for name, pos, d in zip(players, positions[order], dnf, strict=True)
    ]
    hover = [
        f"<b>{name}</b>{team}<br>{place_text(pos, bool(d), size)}<br>{number(b, 4)} → {number(a, 4)} ({signed(c)})"
        for name, team, pos, d, b, a, c in zip(
            players,
            teams,
            positions[order],
            dnf,
            scale.value(run.before[s][order]),
            scale.value(run.after[s][order]),
            change,
            strict=True,
        )
    ]
    return GameChanges(
        labels=labels,
        change=np.asarray(change, dtype=float),
        text=[f"{c:+.3g}" for c in change],
        hovertext=hover,
        colors=[POSITIVE if c >= 0 else NEGATIVE for c in change],
    )


def game_changes_figure(run: RatingRun, g: int, *, scale: Scale | None = None) -> go.Figure:
    """Each participant of game ``g``, best place first: the rating change as a bar, labelled with the place."""
    return figure(*_game_changes_parts(run, g, scale))


def game_changes_view(run: RatingRun, g: int, *, scale: Scale | None = None) -> dict[str, Any]:
    """:func:`game_changes_figure` as the dictionary a callback sends (:func:`figures.build.figure_json`)."""
    return figure_json(*_game_changes_parts(run, g, scale))


def _game_changes_parts(run: RatingRun, g: int, scale: Scale | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    scale = scale or Scale(unit=run.scale)
    bars = game_change_values(run, g, scale=scale)
    bar = {
        "type": "bar",
        "x": bars.labels,
        "y": bars.change,
        "marker": {"color": bars.colors},
        "text": bars.text,
        "textposition": "outside",
        "hovertext": bars.hovertext,
        "hoverinfo": "text",
    }
    layout = {
        "title": {"text": f"{plain(game_label(run, g))}: rating change by place", "font": {"size": 15}},
        "xaxis": {"title": {"text": "place. player"}},
        "yaxis": {"title": {"text": f"change ({scale.unit})"}},
        "margin": {"l": 60, "r": 10, "t": 40, "b": 40},
    }
    return [bar], layout


def oddities(run: RatingRun) -> np.ndarray:
    """Flat mask of entries that look wrong at a glance: the last place (or a DNF) gained, or the winner lost.

    Only games with at least two distinct ranks count; a tie for everyone changes nothing odd.
    """
    h = run.history
    out = np.zeros(len(h.flat_rank), dtype=bool)
    change = Scale().change_between(run.before, run.after)  # rounding is not a gain or a loss
    for g in range(h.n_games):
        s = h.game_slice(g)
        ranks = h.flat_rank[s]
        if ranks.min() == ranks.max():
            continue
        last = (ranks == ranks.max()) | h.flat_dnf[s]
        first = ranks == 0
        out[s] = (last & (change[s] > 0.0)) | (first & (change[s] < 0.0))
    return out


def change_heatmap(run: RatingRun, players: Sequence[str], *, scale: Scale | None = None) -> go.Figure:
    """Players x games heatmap of rating changes (blank where a player did not play).

    Entries where the last place or a DNF gained, or the winner lost, are marked with a cross.
    """
    scale = scale or Scale(unit=run.scale)
    h = run.history
    rows = [p for p in players if p in h.player_index]
    names = [plain(p) for p in rows]
    row_of = {h.player_index[p]: i for i, p in enumerate(rows)}
    z = np.full((len(rows), h.n_games), np.nan)
    game_of = h.flat_game
    change = scale.change_between(run.before, run.after)
    odd = oddities(run)
    odd_x: list[int] = []
    odd_y: list[str] = []
    odd_text: list[str] = []
    positions = run.history.flat_position
    sizes = np.diff(h.offsets)
    for i, (p, g) in enumerate(zip(h.flat_player, game_of, strict=True)):
        r = row_of.get(int(p))
        if r is None:
            continue
        z[r, g] = change[i]
        if odd[i]:
            odd_x.append(int(g) + 1)
            odd_y.append(names[r])
            odd_text.append(
                f"{names[r]}: {place_text(positions[i], bool(h.flat_dnf[i]), int(sizes[g]))}, change {change[i]:+.3g}"
            )
    limit = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.arange(1, h.n_games + 1),
            y=names,
            colorscale="RdBu",
            zmid=0.0,
            zmin=-limit,
            zmax=limit,
            colorbar={"title": {"text": "change"}},
            hovertemplate="%{y}<br>game %{x}<br>change %{z:+.3g}<extra></extra>",
            hoverongaps=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=odd_x,
            y=odd_y,
            mode="markers",
            name="last place gained / winner lost",
            marker={"symbol": "x-thin", "size": 9, "line": {"width": 2, "color": "#000"}},
            hovertext=odd_text,
            hoverinfo="text",
        )
    )
    fig.update_layout(
        # Two short lines, so the title fits a phone's width (one line was cut off there).
        title={
            "text": f"Rating changes, players × games<br><sup>{scale.unit}; × marks odd changes</sup>",
            "font": {"size": 15},
        },
        xaxis=game_number_axis(h.n_games),
        yaxis={"autorange": "reversed"},
        margin={"l": 90, "r": 10, "t": 56, "b": 40},
        legend={"orientation": "h", "y": -0.2},
        template="plotly_white",
        height=max(260, 60 + 22 * len(rows)),
    )
    return fig
