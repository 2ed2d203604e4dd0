"""Writing a history back as rows or CSV, safe to open in a spreadsheet; the one formula-quoting rule.

Every text cell the project writes for a spreadsheet (the history and leaderboard CSVs of the app and the command
line, the comparison CSV, the rows appended to a Google Sheet) goes through :func:`safe_cell`: text that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading apostrophe, so that a spreadsheet shows
it as text instead of running it as a formula (OWASP, "CSV Injection").  Names and ids are always text, so a
player called ``-1`` is written ``'-1`` too; numbers the program computed are written as numbers
(:func:`csv_value`).  The readers remove that apostrophe again (:mod:`ratings.io.cells`).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
from collections.abc import Iterable, Sequence
from typing import IO, Any

import numpy as np

from ratings.history import Entry, Game, GameHistory, HistoryError, Problem
from ratings.io.names import TIE_SEPARATOR
from ratings.io.places import ordinal_name
from ratings.io.teams import TEAM_SEPARATOR

#: A text cell starting with one of these is a formula (or the start of one) to a spreadsheet.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """A text cell a spreadsheet will show as text: a leading apostrophe where it would start a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_value(value: Any, *, precise: bool = False) -> str:
    """One value as a CSV cell: numbers as numbers (floats to 6 significant digits, or every digit with
    ``precise``; NaN empty), None empty, true/false in lower case, anything else as formula-safe text
    (:func:`safe_cell`)."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if math.isnan(number):
            return ""
        return repr(number) if precise else f"{number:.6g}"
    text = str(value)
    if "\r" in text:
        # A lone carriage return inside a cell would not be quoted with "\n" line endings; a line feed is, and
        # reading collapses either to a space.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return safe_cell(text)


def write_rows(out: IO[str], rows: Iterable[Sequence[Any]], *, precise: bool = False) -> None:
    """The one CSV writer of the project: ``rows`` (a header first) to ``out``, every cell by :func:`csv_value`,
    lines ending in ``\n``.  The history, leaderboard, trajectory and comparison CSVs of the app and of the
    command line are all written here."""
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([csv_value(v, precise=precise) for v in row])


def csv_text(rows: Iterable[Sequence[Any]], *, precise: bool = False) -> str:
    """:func:`write_rows` into a string."""
    buffer = io.StringIO()
    write_rows(buffer, rows, precise=precise)
    return buffer.getvalue()


def place_cells(entries: Sequence[Entry]) -> dict[int | None, str]:
    """One game's players by place as wide-shape cells: ``{1: "Ann & Bob", 2: "Cid / Dee", None: "Eve"}``
    (``None``: the DNF cell), a team's players joined by `` & ``, tied players or teams by `` / ``, formula-safe.
    Raises :class:`HistoryError` for a name that contains ``/`` or ``&`` (it would read back as a tie or a team)
    and for a partial-play weight (the wide shape has none: write the long shape)."""
    problems = [
        Problem(f"player name '{p}' contains '/', which a wide-shape cell uses to separate tied players")
        for p in dict.fromkeys(e.player for e in entries if TIE_SEPARATOR in e.player)
    ]
    problems += [
        Problem(f"player name '{p}' contains '&', which a wide-shape cell uses to join a team's players")
        for p in dict.fromkeys(e.player for e in entries if TEAM_SEPARATOR in e.player)
    ]
    problems += [
        Problem(f"player '{e.player}' has weight {e.weight:g}: the wide shape has no weights; write the long shape")
        for e in entries
        if e.weight != 1.0
    ]
    if problems:
        raise HistoryError(problems)
    by_place: dict[int | None, dict[str, list[str]]] = {}
    for k, entry in enumerate(entries):
        team = f"\0{k}" if entry.team is None else entry.team.casefold()
        by_place.setdefault(entry.place, {}).setdefault(team, []).append(entry.player)
    return {
        place: safe_cell(f" {TIE_SEPARATOR} ".join(f" {TEAM_SEPARATOR} ".join(team) for team in teams.values()))
        for place, teams in by_place.items()
    }


def to_long_rows(history: GameHistory) -> list[list[str]]:
    """The history as long-shape rows (header first): game, date, player, place (DNF for did-not-finish), and
    team and weight when some entry names a team or has a weight (:attr:`GameHistory.labels_teams`)."""
    teams = history.labels_teams
    out = [["game", "date", "player", "place"] + (["team", "weight"] if teams else [])]
    for game in history.games:
        date = when(game)
        for entry in game.entries:
            place = "DNF" if entry.place is None else str(entry.place)
            row = [safe_cell(game.id), date, safe_cell(entry.player), place]
            if teams:
                row += [safe_cell(entry.team or ""), "" if entry.weight == 1.0 else repr(entry.weight)]
            out.append(row)
    return out


def to_wide_rows(history: GameHistory) -> list[list[str]]:
    """The history as wide-shape rows (header first): game, date, 1st, 2nd, ..., DNF.

    Tied players share a cell separated by `` / ``, a team's players by `` & ``.  A player name containing ``/``
    or ``&`` cannot be written in this shape (it would read back as a tie or a team), nor a partial-play weight:
    they raise :class:`HistoryError`.
    """
    bad = sorted({p for p in history.players if TIE_SEPARATOR in p or TEAM_SEPARATOR in p})
    if bad:
        place_cells([Entry(p, None) for p in bad])  # raises the problem for each such name
    top = max((e.place for g in history.games for e in g.entries if e.place is not None), default=1)
    has_dnf = any(e.place is None for g in history.games for e in g.entries)
    header = ["game", "date"] + [ordinal_name(k) for k in range(1, top + 1)] + (["DNF"] if has_dnf else [])
    out = [header]
    for game in history.games:
        cells = [safe_cell(game.id), when(game)] + [""] * top
        by_place = place_cells(game.entries)
        for place, text in by_place.items():
            if place is not None:
                cells[1 + place] = text
        if has_dnf:
            cells.append(by_place.get(None, ""))
        while len(cells) > 2 and cells[-1] == "":
            cells.pop()
        out.append(cells)
    return out


def write_csv(history: GameHistory, shape: str = "long") -> str:
    """The history as CSV text in the long or wide shape, safe to open in a spreadsheet."""
    if shape not in ("long", "wide"):
        raise ValueError(f"shape must be 'long' or 'wide', not {shape!r}")
    return csv_text(to_long_rows(history) if shape == "long" else to_wide_rows(history))


def when(game: Game) -> str:
    """A game's date as the writers write it: ``YYYY-MM-DD``, with `` HH:MM`` (``:SS`` when not zero) where the game
    has a time of day (read back by :mod:`ratings.io.dates`); empty without a date."""
    return when_text(game.date, game.time)


def when_text(date: dt.date | None, time: dt.time | None) -> str:
    """A date and optional time of day as :func:`when` writes a game's (empty without a date)."""
    if date is None:
        return ""
    if time is None:
        return date.isoformat()
    spec = "minutes" if not (time.second or time.microsecond) else "auto"
    return f"{date.isoformat()} {time.isoformat(spec)}"
