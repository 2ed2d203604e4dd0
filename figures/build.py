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

import copy
from functools import cache
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["THEME", "figure", "game_number_axis", "theme"]

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
    layout = {"template": theme(), **layout}
    return go.Figure(data=data, layout=layout, _validate=False)


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
