"""A source in use, read from its JSON form: how the page names it (and a download of it), its game history as read
(and as a CSV file).

Both take the browser's JSON (untrusted): :func:`describe_source` never fails, :func:`history_for` raises
:class:`sources.model.DataError` saying what is wrong.
"""

from __future__ import annotations

import re
from typing import Any

from ratings import GameHistory
from ratings.io import write_csv  # the one CSV writer and formula-quoting rule of the project
from sources.model import DataError, parse_source
from sources.runs import load_raw

__all__ = ["describe_source", "file_stem", "history_csv", "history_for"]


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


def file_stem(source: dict[str, Any] | None, system: str | None = None) -> str:
    """A file name stem from the source (and system): ``ratings-sample-poker-multielo``."""
    words = describe_source(source or {}) + (f" {system}" if system else "")
    return re.sub(r"[^A-Za-z0-9]+", "-", words).strip("-").lower()[:80] or "ratings"


def history_csv(source: dict[str, Any]) -> str:
    """The history of ``source`` in the long shape (game, date, player, place), formula-safe."""
    return write_csv(history_for(source), "long")
