"""Player names: the one rule for trimming them, for when two spellings are one player, and for ties in a cell.

A name is kept with byte-order marks removed, runs of white space folded to one space, no space at either end,
and Unicode in its composed form (NFC, so ``й`` typed as one character or as ``и`` plus a breve is one name;
see Unicode Standard Annex #15).  Two names that differ only in case or spacing are the same player
(:func:`name_key`): the readers merge them with a warning, the record form refuses them twice in one game.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ratings.io.cells import is_blank

__all__ = ["TIE_SEPARATOR", "clean_name", "name_key"]

#: Separates players tied for one place in a wide-shape cell (``Ann / Bob``).
TIE_SEPARATOR = "/"


def clean_name(value: Any) -> str:
    """A player name (or a game id) as the history keeps it; ``""`` for a blank cell."""
    if isinstance(value, str):
        return _clean_text(value)  # a blank text cleans to ""
    if is_blank(value):
        return ""
    return _clean_text(str(value))


@functools.lru_cache(maxsize=1 << 16)
def _clean_text(value: str) -> str:
    """:func:`clean_name` of a text; a group has few distinct names, each read once per row (so cached)."""
    text = " ".join(value.replace("\ufeff", "").split())
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def name_key(name: str) -> str:
    """What two spellings of one player share: the cleaned name, case-folded (``"ANN  lee"`` ~ ``"Ann Lee"``)."""
    return clean_name(name).casefold()


def _merge_names(spellings: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Map every raw spelling to a canonical name; names equal up to case and spacing are merged.

    The canonical spelling is the most frequent cleaned one (first seen wins a tie).  Returns the mapping and a
    warning per merged group.
    """
    counts = Counter(spellings)
    groups: dict[str, list[str]] = {}
    for raw in counts:  # Counter keeps first-seen order
        groups.setdefault(name_key(raw), []).append(raw)
    mapping: dict[str, str] = {}
    warnings = []
    for raws in groups.values():
        cleaned = Counter[str]()
        for raw in raws:
            cleaned[clean_name(raw)] += counts[raw]
        canonical = max(cleaned, key=lambda s: cleaned[s])  # max keeps the first of equal counts
        for raw in raws:
            mapping[raw] = canonical
        if len(cleaned) > 1:
            shown = ", ".join(f"'{r}'" for r in cleaned)
            warnings.append(f"names that differ only in case or spacing were merged: {shown} -> '{canonical}'")
    return mapping, warnings
