"""Writing a history back as rows or CSV, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
import re

from ratings.history import GameHistory, HistoryError, Problem
from ratings.io.names import _TIE_SEPARATOR

_DANGEROUS_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def safe_cell(text: str) -> str:
    """Neutralise a cell a spreadsheet would run as a formula (a leading quote); numbers stay numbers."""
    if text.startswith(_DANGEROUS_START) and not _NUMBER.match(text):
        return "'" + text
    return text


def to_long_rows(history: GameHistory) -> list[list[str]]:
    """The history as long-shape rows (header first): game, date, player, place (DNF for did-not-finish)."""
    out = [["game", "date", "player", "place"]]
    for game in history.games:
        date = game.date.isoformat() if game.date else ""
        for entry in game.entries:
            place = "DNF" if entry.place is None else str(entry.place)
            out.append([safe_cell(game.id), date, safe_cell(entry.player), place])
    return out


def to_wide_rows(history: GameHistory) -> list[list[str]]:
    """The history as wide-shape rows (header first): game, date, 1st, 2nd, ..., DNF.

    Tied players share a cell separated by `` / ``.  A player name containing ``/`` cannot be written in
    this shape (it would read back as a tie) and raises :class:`HistoryError`.
    """
    bad = sorted({p for p in history.players if _TIE_SEPARATOR in p})
    if bad:
        raise HistoryError(
            [
                Problem(f"player name '{p}' contains '/', which the wide shape uses for ties; write the long shape")
                for p in bad
            ]
        )
    top = max((e.place for g in history.games for e in g.entries if e.place is not None), default=1)
    has_dnf = any(e.place is None for g in history.games for e in g.entries)
    header = ["game", "date"] + [_ordinal_name(k) for k in range(1, top + 1)] + (["DNF"] if has_dnf else [])
    out = [header]
    for game in history.games:
        cells = [safe_cell(game.id), game.date.isoformat() if game.date else ""] + [""] * top
        dnfs = []
        by_place: dict[int, list[str]] = {}
        for entry in game.entries:
            if entry.place is None:
                dnfs.append(entry.player)
            else:
                by_place.setdefault(entry.place, []).append(entry.player)
        for place, players in by_place.items():
            cells[1 + place] = safe_cell(" / ".join(players))
        if has_dnf:
            cells.append(safe_cell(" / ".join(dnfs)))
        while len(cells) > 2 and cells[-1] == "":
            cells.pop()
        out.append(cells)
    return out


def _ordinal_name(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def write_csv(history: GameHistory, shape: str = "long") -> str:
    """The history as CSV text in the long or wide shape, safe to open in a spreadsheet."""
    if shape not in ("long", "wide"):
        raise ValueError(f"shape must be 'long' or 'wide', not {shape!r}")
    rows = to_long_rows(history) if shape == "long" else to_wide_rows(history)
    # A lone carriage return inside a cell would not be quoted with "\n" line endings; a line feed is, and
    # reading collapses either to a space.
    rows = [[c.replace("\r\n", "\n").replace("\r", "\n") if "\r" in c else c for c in row] for row in rows]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()
