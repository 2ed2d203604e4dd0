"""A source in use, read from its JSON form: how the page names it and its game history as read.

Both take the browser's JSON (untrusted): :func:`describe_source` never fails, :func:`history_for` raises
:class:`sources.model.DataError` saying what is wrong.
"""

from __future__ import annotations

from typing import Any

from ratings import GameHistory
from sources.model import DataError, parse_source
from sources.runs import load_raw

__all__ = ["describe_source", "history_for"]


def describe_source(source: Any) -> str:
    """A human label: "sample 'poker'", "upload results.csv", "Google Sheet ..."."""
    try:
        return parse_source(source).label
    except DataError:
        return "unknown source"


def history_for(source: Any) -> GameHistory:
    """The game history of ``source`` as read, without the aliases and season of its view (what the edit grid
    edits, the download holds and the record form names)."""
    return load_raw(source).history
