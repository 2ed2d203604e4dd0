"""How a chart is saved: the ``dcc.Graph`` config of its PNG download button."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["graph_config"]


def graph_config(filename: str, **extra: Any) -> Any:
    """A ``dcc.Graph`` config whose modebar camera button saves a PNG named ``filename`` (2x for sharp text).

    No button sends a group's data off the page (plotly's cloud and Chart Studio links are off).  Typed ``Any``:
    Dash declares the config as a TypedDict local to ``dcc.Graph``.
    """
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", filename).strip("-") or "chart"
    return {
        "displaylogo": False,
        "showSendToCloud": False,
        "showEditInChartStudio": False,
        "toImageButtonOptions": {"format": "png", "filename": safe, "scale": 2},
        **extra,
    }
