"""The busy state of a result while it is recomputed: dimmed, with a spinner, shown only after a short delay.

Dash marks every element whose properties a running callback will set with ``data-dash-is-loading="true"``; the
page's stylesheet (``assets/app.css``, "busy") dims such an element inside a ``.busy`` block and, when it is the
block's own content, shows the block's spinner over it, both after :data:`DELAY_MS`, so a result that comes back
sooner never flickers.  Attribute and sibling selectors only: the ``:has()`` rule this once used made every change
restyle the whole page (about 65 ms a change in Chromium).  It is done in
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


def busy(*components: Any) -> html.Div:
    """``components`` in a block that looks busy while they are recomputed.

    Whatever is being set is dimmed; when one of ``components`` itself is being set, the ones after it are dimmed too
    and the block shows its spinner.  A component that does not carry Dash's mark on its own element (dash-ag-grid's
    grid) goes after one that does and is written by the same callback (the leaderboard's empty-result note).
    """
    return html.Div([*components, html.Div(className="busy-spinner")], className="busy")
