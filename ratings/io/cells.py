"""Cells as the readers see them: text (or a date a spreadsheet stored as a date), never a guessed type; and the
one definition of a blank cell (:func:`is_blank`) that every path uses."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

Cell = str | dt.date


def is_blank(value: Any) -> bool:
    """Whether a cell holds nothing: None, a missing value (NaN, ``pandas.NA``, ``NaT``), or text that is only
    white space (byte-order marks included).  The one definition of "blank" for readers, the edit grid, the
    record form and the command line.
    """
    if isinstance(value, str):
        return not value.strip() or ("\ufeff" in value and not value.replace("\ufeff", "").strip())
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (int, dt.date)):
        return False
    # pandas.NA, pandas.NaT and numpy NaN: missing values that are not equal to themselves (or refuse to say).
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return True


def shortened(text: str, limit: int = 80) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters, cut with ``...`` (a cell, an address, or an
    exception's own text, which for a damaged file can quote kilobytes of its bytes)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cell(value: Any) -> Cell:
    """One cell as text (or a date when the spreadsheet stored a date); never guesses a type from text."""
    if isinstance(value, str):
        text = value.replace("\ufeff", "") if "\ufeff" in value else value
        # Undo our own formula neutralisation ('=x written by write_csv reads back as =x).
        if len(text) > 1 and text[0] == "'" and text[1] in "=+-@\t\r\n":
            text = text[1:]
        return text
    if value is None or (not isinstance(value, (int, dt.date)) and is_blank(value)):
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return value.date() if value.time() == dt.time(0) else value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, dt.time):
        return value.isoformat()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if hasattr(value, "to_pydatetime"):  # pandas Timestamp
        return _cell(value.to_pydatetime())
    if hasattr(value, "item"):  # numpy scalar
        return _cell(value.item())
    return str(value)


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters
