"""Name suggestions for free-text boxes: a ``<datalist>`` whose options the browser writes from a list of names.

A box that takes a player's name (the record form, the aliases card) suggests the names of the data in use, yet
still takes a new one, which is what a ``<datalist>`` is for.  Its options are not Dash components: a group with a
few hundred players would add a few hundred components to the page, and every update of the page's state visits
every component (a parameter change does that about a hundred times), so the page would pay for a list nobody is
looking at.  The names travel as a plain list in a store; :mod:`callbacks.page` writes them into the datalist as
text (``option.value``, never markup).
"""

from __future__ import annotations

from dash import dcc, html

__all__ = ["name_list"]


def name_list(list_id: str, data_id: str) -> list[html.Datalist | dcc.Store]:
    """An empty ``<datalist id=list_id>`` and the store whose list of names fills it (callbacks.page)."""
    return [html.Datalist(id=list_id), dcc.Store(id=data_id)]
