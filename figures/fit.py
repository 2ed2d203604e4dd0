"""The parameter search, drawn: each evaluation's training metric and the best so far."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ratings.tune import METRICS

__all__ = ["METRIC_WORDS", "lower_is_better", "search_figure"]

#: How each metric reads to a lay user (whether lower is better is ratings.tune.METRICS's to say).
METRIC_WORDS: dict[str, str] = {
    "kendall-tau": "share of pairs the higher-rated player lost",
    "pair-inversion": "share of matchups the higher-rated player won or tied",
    "rank-deviation": "distance between actual and predicted rank",
    "log-loss": "surprise at the finishing order (nats per game)",
}


def lower_is_better(metric: str) -> bool:
    """Whether a smaller value of ``metric`` is better (the search's own rule, ratings.tune.METRICS)."""
    return METRICS[metric][1] > 0


def search_figure(evaluations: Sequence[float | None], metric: str) -> go.Figure:
    """Every evaluation (dots; failed ones left out) and the best so far (a step line), on the training games."""
    words, lower = METRIC_WORDS[metric], lower_is_better(metric)
    values = np.array([np.nan if v is None else float(v) for v in evaluations], dtype=float)
    x = np.arange(1, len(values) + 1)
    filled = np.where(np.isnan(values), np.inf if lower else -np.inf, values)
    best = np.minimum.accumulate(filled) if lower else np.maximum.accumulate(filled)
    best = np.where(np.isfinite(best), best, np.nan)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=values, mode="markers", name="each try", marker={"size": 5, "color": "#9aa5b1"}))
    fig.add_trace(go.Scatter(x=x, y=best, mode="lines", name="best so far", line={"shape": "hv", "color": "#0d6efd"}))
    fig.update_layout(
        template="plotly_white",
        title={"text": f"Search on the training games: {words} ({'lower' if lower else 'higher'} is better)"},
        xaxis={"title": "evaluations"},
        yaxis={"title": metric},
        margin={"l": 50, "r": 10, "t": 50, "b": 40},
        legend={"orientation": "h", "y": -0.25},
        height=320,
    )
    return fig
