"""Places and ordinals: the one rule for what a place cell means, everywhere a place is typed or read.

A place is a positive whole number (1 is the best; equal numbers are a tie), optionally written as an ordinal
(``2nd``, ``3rd place``) or with a zero fraction (``2.0``, as spreadsheets store whole numbers).  A blank cell
or one of the did-not-finish words (``DNF``, ``did not finish``, ``DNS``, ``DQ``, ``DSQ``, ``-``) means the
player did not finish: they rank below every finisher and the order among them is unknown.  Anything else
(``0``, ``-1``, ``2.5``, ``second``, a date) is refused with a message that quotes the cell.

The upload readers (:mod:`ratings.io.table`), :meth:`ratings.history.GameHistory.from_records` (hence the edit
grid), the record form (``sources.record``) and the command line all read places with :func:`parse_place`.
Ordinal column headers (``1st``, ``2nd``, ``first``, ``winner``) are recognised by :func:`header_ordinal` and
written by :func:`ordinal_name`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from ratings.io.cells import is_blank, shortened

__all__ = ["DNF_WORDS", "MAX_PLACE", "header_ordinal", "ordinal_name", "parse_place"]

#: Largest place accepted (a field of a million; far beyond any game, far below int32).
MAX_PLACE = 1_000_000
#: Words (compared case-insensitively, spacing folded) that mean "did not finish"; a blank cell means it too.
DNF_WORDS = frozenset({"dnf", "did not finish", "dns", "did not start", "dq", "dsq", "disqualified", "-"})

_WHOLE = re.compile(r"^[+-]?\d+(?:\.0*)?$")
_SUFFIXED = re.compile(r"^(\d+)(?:st|nd|rd|th)(?:place)?$")
_HEADER_ORDINAL = re.compile(r"^(?:place|pos|position|rank)?(\d{1,4})(?:st|nd|rd|th)?(?:place)?$")
_ORDINAL_WORDS = {
    word: i + 1
    for i, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ]
    )
}
_ORDINAL_WORDS["winner"] = 1


def parse_place(value: Any) -> int | None:
    """One place cell as a place: a whole number from 1 to :data:`MAX_PLACE`, or ``None`` for did-not-finish.

    Accepts numbers (``2``, ``2.0``), text (``" 2 "``, ``"2nd"``, ``"2nd place"``), blanks and the words of
    :data:`DNF_WORDS`.  Raises ``ValueError`` with a short explanation quoting the cell for anything else.
    """
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit() and text.isascii() and len(text) <= 7:  # the common case, fast
            return _bounded(int(text), text)
    if is_blank(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"place '{value}' is not a whole number (1 is the best place) or DNF")
    if isinstance(value, dt.date):
        raise ValueError(f"place '{value}' is a date, not a place")
    if isinstance(value, float) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "f"):
        number_f = float(value)
        if not math.isfinite(number_f) or abs(number_f) > MAX_PLACE:
            raise ValueError(f"place {number_f:g} is larger than any game has places (at most {MAX_PLACE:,})")
        if not number_f.is_integer():
            raise ValueError(f"place {number_f:g} is not a whole number (1 is the best place)")
        return _bounded(int(number_f), str(int(number_f)))
    if isinstance(value, int) or hasattr(value, "__index__"):
        return _bounded(int(value), str(int(value)))
    text = str(value).replace("\ufeff", "").strip()
    folded = " ".join(text.casefold().split())
    if folded in DNF_WORDS:
        return None
    shown = shortened(text, 40)
    if _WHOLE.match(text):
        whole = text.split(".")[0]
        if len(whole.lstrip("+-0")) > 7:
            raise ValueError(f"place '{shown}' is larger than any game has places (at most {MAX_PLACE:,})")
        return _bounded(int(whole), shown)
    match = _SUFFIXED.match(folded.replace(" ", ""))
    if match is None or len(match.group(1).lstrip("0")) > 7:
        raise ValueError(f"place '{shown}' is not a whole number (1 is the best place) or DNF")
    return _bounded(int(match.group(1)), shown)


def _bounded(number: int, shown: str) -> int:
    if number < 1:
        raise ValueError(f"place {shown} is not positive (1 is the best place)")
    if number > MAX_PLACE:
        raise ValueError(f"place '{shown}' is larger than any game has places (at most {MAX_PLACE:,})")
    return number


def header_ordinal(key: str) -> int | None:
    """The place a column header names (``1st``, ``place 2``, ``2nd place``, ``third``, ``winner``), or None.

    ``key`` is the header as :func:`ratings.io.header.read_header` folds it (lower case, no spaces or
    punctuation).  Numbered headers go up to 9999.
    """
    match = _HEADER_ORDINAL.match(key)
    if match:
        number = int(match.group(1))
        return number if number >= 1 else None
    word = key[: -len("place")] if key.endswith("place") else key
    return _ORDINAL_WORDS.get(word)


def ordinal_name(k: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd" (English ordinal suffixes)."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"
