"""Pure figure builders for the extra features: win probabilities, the score function, PNG download options.

Nothing here reads a store or a request; the numbers come from ``ratings`` and are only drawn here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ratings.systems.multielo import score_function

__all__ = [
    "empty_figure",
    "graph_config",
    "place_name",
    "probability_figure",
    "probability_rows",
    "score_function_figure",
]


def graph_config(filename: str, **extra: Any) -> dict[str, Any]:
    """A ``dcc.Graph`` config whose modebar camera button saves a PNG named ``filename`` (2x for sharp text)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", filename).strip("-") or "chart"
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": safe, "scale": 2},
        **extra,
    }


def place_name(k: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th"."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def empty_figure(message: str) -> go.Figure:
    """A blank figure that says why there is nothing to draw."""
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, font={"size": 14}, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(
        xaxis={"visible": False}, yaxis={"visible": False}, template="plotly_white", margin={"l": 10, "r": 10}
    )
    return fig


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
            y=list(players),
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=100,
            colorbar={"title": {"text": "%"}, "thickness": 12},
            hovertemplate="<b>%{y}</b> finishes %{x}: %{z:.1f}%<extra></extra>",
        )
    )
    title = "Chance of each place" + (f" ({system_title})" if system_title else "")
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


def score_function_figure(n: int, base: float) -> go.Figure:
    """The multiplayer Elo score of each place for ``n`` players under ``base``, beside the linear (base 1) scores.

    The scores come from :func:`ratings.systems.multielo.score_function` (seed 001, eq. 6): each list sums to 1
    and the last place scores 0.
    """
    places = np.arange(1, n + 1)
    chosen = score_function(n, base)
    linear = score_function(n, 1.0)
    fig = go.Figure()
    if base != 1.0:
        fig.add_trace(
            go.Scatter(
                x=places,
                y=linear,
                name="linear (base 1)",
                mode="lines+markers",
                line={"color": "#8c959f", "dash": "dash"},
                hovertemplate="place %{x}: score %{y:.3f}<extra>linear</extra>",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=places,
            y=chosen,
            name=f"base {base:g}" + (" (linear)" if base == 1.0 else ""),
            mode="lines+markers",
            line={"color": "#0969da", "width": 3},
            hovertemplate=f"place %{{x}}: score %{{y:.3f}}<extra>base {base:g}</extra>",
        )
    )
    fig.update_layout(
        title={"text": f"Score of each place in a {n}-player game", "font": {"size": 15}},
        xaxis={"title": "place", "dtick": 1},
        yaxis={"title": "score (a game's scores sum to 1)", "rangemode": "tozero"},
        showlegend=True,
        legend={"orientation": "h", "y": -0.25},
        margin={"l": 60, "r": 10, "t": 40, "b": 40},
        template="plotly_white",
    )
    return fig
