"""The multiplayer Elo score function: the score of each place under the chosen base."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ratings.systems.multielo import score_function

__all__ = ["score_function_figure"]


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
