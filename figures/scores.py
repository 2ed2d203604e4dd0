"""The multiplayer Elo score function: the score of each place under the chosen base."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ratings import get_system
from ratings.systems.multielo import score_function

__all__ = ["base_of", "score_function_figure", "score_view"]


def score_function_figure(n: int, base: float) -> go.Figure:
    """The multiplayer Elo score of each place for ``n`` players under ``base``, beside the linear (base 1) scores.

    The scores come from :func:`ratings.systems.multielo.score_function` (Cunningham, "Developing a
    Generalized Elo Rating System for Multiplayer Games", 2021, equation 6): each list sums to 1 and the last place
    scores 0.
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


def base_of(system: str | None, params: dict[str, Any] | None) -> tuple[float, bool]:
    """The score-function base in use: the multielo parameter when multielo is chosen, else its default.

    Returns ``(base, from_settings)``.
    """
    default = next(s.default for s in get_system("multielo").parameters() if s.name == "base")
    if system == "multielo" and params and params.get("base") is not None:
        return float(params["base"]), True
    return float(default), False


def score_view(system: str | None, params: dict[str, Any] | None, size: Any) -> tuple[go.Figure, str]:
    """The score-function figure for the chosen game size and a line saying where the base comes from."""
    try:
        n = int(size)
    except (TypeError, ValueError):
        n = 6
    n = min(max(n, 2), 20)
    base, ours = base_of(system, params)
    if ours:
        note = f"Multiplayer Elo with base {base:g}: "
    else:
        note = f"The current system is not multiplayer Elo; shown with its default base {base:g}: "
    note += (
        "base 1 gives every place step the same score (a straight line, dashed when another base is chosen); "
        "a larger base gives the top places more of the game's total score of 1. "
        "A player gains rating when their score beats the expected score."
    )
    return score_function_figure(n, base), note
