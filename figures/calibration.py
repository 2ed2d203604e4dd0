"""Calibration of the win probabilities: a reliability chart of predicted against observed win rate."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ratings.predict import Calibration

__all__ = ["calibration_figure", "calibration_words"]


def calibration_figure(calibration: Calibration) -> go.Figure:
    """Each bin of predicted win probability as a point (mean prediction, observed win rate), sized by how many
    players it holds, over the diagonal a perfectly calibrated system would follow (percent on both axes)."""
    full = calibration.count > 0
    predicted = 100.0 * calibration.predicted[full]
    observed = 100.0 * calibration.observed[full]
    count = calibration.count[full]
    low, high = 100.0 * calibration.edges[:-1][full], 100.0 * calibration.edges[1:][full]
    hover = [
        f"predicted {lo:.0f}-{hi:.0f}%: {n} players, mean prediction {p:.1f}%, won {o:.1f}%"
        for lo, hi, n, p, o in zip(low, high, count, predicted, observed, strict=True)
    ]
    size = 8.0 + 22.0 * np.sqrt(count / max(int(count.max()), 1)) if len(count) else count
    fig = go.Figure(
        [
            go.Scatter(
                x=[0, 100],
                y=[0, 100],
                mode="lines",
                line={"dash": "dot", "color": "#888", "width": 1},
                hoverinfo="skip",
                name="perfectly calibrated",
            ),
            go.Scatter(
                x=predicted,
                y=observed,
                mode="lines+markers",
                marker={"size": size, "color": "#1f77b4"},
                line={"color": "#1f77b4", "width": 1},
                hovertext=hover,
                hoverinfo="text",
                name="these settings",
            ),
        ]
    )
    fig.update_layout(
        margin={"l": 50, "r": 10, "t": 10, "b": 45},
        xaxis={"title": {"text": "predicted chance to win (%)"}, "range": [0, 100], "fixedrange": True},
        yaxis={"title": {"text": "won (%)"}, "range": [0, 100], "fixedrange": True},
        showlegend=False,
        template="plotly_white",
    )
    return fig


def calibration_words(calibration: Calibration, log_loss: float, games: int) -> str:
    """The calibration check in one sentence: how far predictions were from what happened, on average."""
    error = calibration.error
    if math.isnan(error):
        return f"None of the latest {games} games had a winner to compare the predictions with."
    surprise = "" if math.isnan(log_loss) else f"; log-loss of the finishing order {log_loss:.3f} nats per game"
    return (
        f"Over the latest {games} games, a predicted chance to win was on average {100 * error:.1f} points away "
        f"from how often such players won (expected calibration error{surprise}; lower is better for both)."
    )
