"""A chart with nothing to draw, saying why."""

from __future__ import annotations

import plotly.graph_objects as go

from figures.text import plain

__all__ = ["empty_figure"]


def empty_figure(message: str, *, height: int | None = None) -> go.Figure:
    """A blank figure that says why there is nothing to draw (``message`` shown literally: it may quote a name);
    ``height`` in pixels (plotly's default, 450, when None)."""
    fig = go.Figure()
    fig.add_annotation(
        text=plain(message), showarrow=False, font={"size": 14}, x=0.5, y=0.5, xref="paper", yref="paper"
    )
    fig.update_layout(
        xaxis={"visible": False}, yaxis={"visible": False}, template="plotly_white", margin={"l": 10, "r": 10}
    )
    if height is not None:
        fig.update_layout(height=height, margin={"t": 10, "b": 10})
    return fig
