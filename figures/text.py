"""Text inside charts: names shown literally, places and date ranges in words.

plotly draws a subset of HTML in every text it renders (legend names, axis tick labels, hover text, titles,
annotations: ``<b>``, ``<i>``, ``<a href>``, ``<br>``, ``<span style>``...), converts the entities ``&lt;``,
``&gt;``, ``&amp;`` and numeric ones (``&#37;``) back to characters, and fills ``%{...}`` placeholders in hover
and text templates.  A player name or a game id comes from a user's file, so it enters a figure only through
:func:`plain`.
"""

from __future__ import annotations

import datetime as dt
import html

from ratings.io.places import ordinal_name as place_name  # 1 -> "1st": the one ordinal rule
from ratings.numerics import counted  # "1,234 games": the one rule for a count and its noun

__all__ = ["HOVER_NUMBER", "counted", "date_range_text", "place_name", "place_text", "plain"]

#: The d3-format twin of :func:`ratings.numerics.number` for Plotly's hover templates (``%{y:,.5~r}``): five
#: significant digits, thousands separated, trailing zeros trimmed, never an exponent (d3's ``g``, as in ``.4g``,
#: wrote a Rank Points rating of 10,000 as ``1e+4``).  Unlike :func:`ratings.numerics.number` it rounds a value
#: above 99,999 to five digits (1,000,000).
HOVER_NUMBER = ",.5~r"


def plain(text: object) -> str:
    """``text`` as plotly shows it literally: ``<``, ``>``, ``&`` as entities and ``%`` as ``&#37;``.

    ``quote=False`` because plotly knows no ``&quot;`` entity (it would show those six characters); quotes are
    harmless outside a tag.  ``%`` becomes a numeric entity so that a name such as ``%{y}`` placed in a
    hover template is not filled in as a placeholder; plotly turns ``&#37;`` back into ``%`` when it draws.
    """
    return html.escape(str(text), quote=False).replace("%", "&#37;")


def place_text(position: float, dnf: bool, size: int) -> str:
    """``"place 2 of 5"`` or ``"DNF of 5"``."""
    return f"DNF of {size}" if dnf else f"place {int(position)} of {size}"


def date_range_text(first: dt.date | None, last: dt.date | None) -> str:
    """``"2021-01-05 to 2021-12-20"``, or a note that the games are undated."""
    if first is None or last is None:
        return "no dates"
    return f"{first.isoformat()} to {last.isoformat()}"
