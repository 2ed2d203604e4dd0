"""The busy state of a result while it is recomputed: dimmed, with a spinner, shown only after a short delay.

Dash marks every element whose properties a running callback will set with ``data-dash-is-loading="true"``; the
page's stylesheet (``assets/app.css``, "busy") dims a ``.busy`` block that holds such an element and shows a
spinner over it, both after :data:`DELAY_MS`, so a result that comes back sooner never flickers.  It is done in
CSS, not with ``dcc.Loading``: a loading component takes part in every update of the page's state (a parameter
change makes about seventy), and twelve of them slowed every change for a spinner most changes never show.
"""

from __future__ import annotations

from typing import Any

from dash import html

__all__ = ["DELAY_MS", "busy"]

#: A result that comes back sooner than this never flickers; a slower one is visibly being recomputed.
#: (The same delay is written in assets/app.css as the transition delay of the "busy" rules.)
DELAY_MS = 150


def busy(component: Any) -> html.Div:
    """``component`` dimmed under a spinner while a callback that writes it (or anything in it) is running."""
    return html.Div(component, className="busy")
