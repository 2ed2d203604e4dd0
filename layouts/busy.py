"""The busy state of a result while it is recomputed: dimmed, with a spinner, shown only after a short delay."""

from __future__ import annotations

from typing import Any

from dash import dcc

__all__ = ["DELAY_MS", "busy"]

#: A result that comes back sooner than this never flickers; a slower one is visibly being recomputed.
DELAY_MS = 150


def busy(component: Any) -> dcc.Loading:
    """``component`` dimmed under a spinner while a callback that writes it is running (after DELAY_MS)."""
    return dcc.Loading(
        component,
        type="circle",
        delay_show=DELAY_MS,
        overlay_style={"visibility": "visible", "opacity": 0.45},
        parent_className="busy",
    )
