"""Player names: ties written in one cell, and spellings that differ only in case or spacing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

_TIE_SEPARATOR = "/"


def name_key(name: str) -> str:
    """A name as compared for sameness: case folded, runs of white space made one space, ends trimmed."""
    return " ".join(name.split()).casefold()


def _merge_names(spellings: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Map every raw spelling to a canonical name; names equal up to case and spacing are merged.

    The canonical spelling is the most frequent one (first seen wins a tie).  Returns the mapping and a
    warning per merged group.
    """
    counts = Counter(spellings)
    groups: dict[str, list[str]] = {}
    for raw in counts:  # Counter keeps first-seen order
        groups.setdefault(name_key(raw), []).append(raw)
    mapping: dict[str, str] = {}
    warnings = []
    for raws in groups.values():
        stripped = Counter[str]()
        for raw in raws:
            stripped[" ".join(raw.split())] += counts[raw]
        canonical = max(stripped, key=lambda s: stripped[s])  # max keeps the first of equal counts
        for raw in raws:
            mapping[raw] = canonical
        if len(raws) > 1:
            shown = ", ".join(f"'{r}'" for r in raws)
            warnings.append(f"names that differ only in case or spacing were merged: {shown} -> '{canonical}'")
    return mapping, warnings
