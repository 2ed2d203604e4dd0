"""Figures assembled from plain dictionaries, without plotly.py's per-property validation.

plotly.py checks and copies every property of every trace as it is set (``go.Scatter(...)``, ``fig.update_layout``):
for the ten-player trajectory chart of the racing sample (3,200 points) that took about 100 ms of the 120 ms a
redraw costs the server, on every parameter change and every first visit.  The charts that are redrawn on every
change build their traces and layout as dictionaries and wrap them with :func:`figure`, which skips that work
(plotly's ``_validate=False``) and fills in the named template itself, as validation would (plotly.js knows no
template names).  ``tests/test_figures.py`` checks, for each of these charts, that plotly's validating constructor
accepts the same dictionaries unchanged: the output is what a validated figure would send.
"""

from __future__ import annotations

import base64
import copy
from functools import cache
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["THEME", "figure", "figure_json", "game_number_axis", "theme", "typed_array"]

#: The template of every chart.
THEME = "plotly_white"


@cache
def _theme_json() -> dict[str, Any]:
    return pio.templates[THEME].to_plotly_json()


def theme() -> dict[str, Any]:
    """:data:`THEME` as plotly.js reads it (a fresh copy: a figure may change its own)."""
    return copy.deepcopy(_theme_json())


def figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A figure of ``data`` (trace dictionaries, each with its ``type``) and ``layout``, taken as they are; a layout
    without a template gets :data:`THEME`'s."""
    return go.Figure(data=data, layout={"template": theme(), **layout}, _validate=False)


def typed_array(values: np.ndarray) -> dict[str, str]:
    """``values`` as plotly.js's typed-array form (``{"dtype": "f8", "bdata": base64}``): 10.7 characters per
    float instead of about 18 as JSON text, decoded by plotly.js (2.28 and later) in any data array.  Integers that
    fit 32 bits go as ``i4`` (plotly.js reads no 64-bit integers), in half the characters."""
    values = np.asarray(values)
    if values.dtype.kind in "iu" and (values.size == 0 or (values.min() >= -(2**31) and values.max() < 2**31)):
        dtype = "i4"
    else:
        dtype = "f8"
    array = np.ascontiguousarray(values, dtype="<" + dtype)
    return {"dtype": dtype, "bdata": base64.b64encode(array.tobytes()).decode("ascii")}


#: A trace's coordinates: sent as typed arrays when they are numeric numpy arrays, as plotly.py sends a figure's.
#: (Not ``customdata``: dcc.Graph copies a clicked point's customdata from the undecoded object.)
_COORDINATES = ("x", "y")


def figure_json(data: list[dict[str, Any]], layout: dict[str, Any]) -> dict[str, Any]:
    """The figure :func:`figure` makes, as plotly.js reads it: what a callback sends to a ``dcc.Graph``.

    A plotly.py figure copies every trace deeply when it is made, even unvalidated, and again when Dash sends it:
    for the racing sample's trajectories (3,200 points, a list of hover values each) those two copies were about
    40% of the CPU of a whole standings answer (``benchmarks/standings_answer.py``)."""
    traces = [
        {
            key: typed_array(value)
            if key in _COORDINATES and isinstance(value, np.ndarray) and value.dtype.kind in "fiu"
            else value
            for key, value in trace.items()
        }
        for trace in data
    ]
    return {"data": traces, "layout": {"template": theme(), **layout}}


#: Games on a game-number axis up to which every game gets its tick.
_EVERY_GAME = 10


def game_number_axis(n_games: int) -> dict[str, Any]:
    """The x axis of a chart by game number (1 to ``n_games``): on a short history a tick at every game, where
    plotly's automatic ticks would fall between games (1, 1.2, 1.4 ... for two games); on a longer one its own,
    which are whole numbers there."""
    axis: dict[str, Any] = {"title": {"text": "game number"}}
    if n_games <= _EVERY_GAME:
        axis.update(tick0=1, dtick=1)
    return axis
