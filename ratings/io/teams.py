"""Teams and partial play: the one rule for what a team cell, a wide-shape place cell and a weight cell mean.

Long shape: an optional ``team`` column names each player's team (any text; players of one game whose team cells
are the same text, up to case and spacing as names are compared, are teammates and must share a place; a blank
cell is a team of one).  An optional ``weight`` column gives the share of the game a player took part in
(partial play): a number in (0, 1] (``0.5``, ``50%``); blank means 1.

Wide shape: a place cell lists what finished in that place.  ``&`` joins the players of one team (``Ann & Bob``),
``/`` separates teams or players tied for the place (``Ann / Bob`` is a tie between two players,
``Ann & Bob / Cid & Dee`` a tie between two teams).  A team read from a wide cell is named by its members
(:func:`team_label`).  The wide shape has no weights: a history with partial play is written in the long shape.

The upload readers (:mod:`ratings.io.table`, hence the Sheets reader and the command line) and the records reader
behind :meth:`ratings.history.GameHistory.from_records` (the edit grid's rows) read teams with these functions,
and the writers (:mod:`ratings.io.writing`) write them back with :data:`TEAM_SEPARATOR` and :func:`team_label`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from ratings.io.cells import is_blank, shortened
from ratings.io.names import TIE_SEPARATOR, clean_name

__all__ = ["TEAM_SEPARATOR", "parse_place_cell", "parse_team", "parse_weight", "team_label"]

#: Joins the players of one team in a wide-shape cell (``Ann & Bob``).
TEAM_SEPARATOR = "&"

_NUMBER = re.compile(r"^[+]?(\d+(?:\.\d*)?|\.\d+)(%?)$")


def team_label(players: list[str] | tuple[str, ...]) -> str:
    """The name of a team read from a wide-shape cell: its players joined by `` & ``."""
    return f" {TEAM_SEPARATOR} ".join(players)


def parse_place_cell(value: Any) -> list[list[str]]:
    """One wide-shape place cell as the teams (lists of player names) that finished in that place.

    ``"Ann"`` -> ``[["Ann"]]``; ``"Ann / Bob"`` -> ``[["Ann"], ["Bob"]]`` (a tie between two players);
    ``"Ann & Bob / Cid & Dee"`` -> ``[["Ann", "Bob"], ["Cid", "Dee"]]`` (a tie between two teams).  Names are
    trimmed (the readers clean and merge them as every name); empty parts between two ``/`` are skipped.
    Raises ``ValueError`` quoting the cell for a team with an empty member (``Ann &``, ``& Bob``).
    """
    if isinstance(value, dt.date):
        return [[value.isoformat()]]
    if is_blank(value):
        return []
    text = str(value)
    out = []
    for part in (p.strip() for p in text.split(TIE_SEPARATOR)):
        if not part:
            continue
        if TEAM_SEPARATOR not in part:
            out.append([part])
            continue
        members = [m.strip() for m in part.split(TEAM_SEPARATOR)]
        if not all(clean_name(m) for m in members):
            raise ValueError(
                f"team '{shortened(part.strip(), 40)}' has an empty player name (write 'Ann & Bob' for a team of "
                "two, 'Ann / Bob' for a tie)"
            )
        out.append(members)
    return out


def parse_team(value: Any) -> str | None:
    """A long-shape team cell: the team's name as the history keeps it (cleaned as a name), None when blank."""
    name = clean_name(value)
    return name or None


def parse_weight(value: Any) -> float:
    """A weight cell (partial play): a number in (0, 1], or a percentage in (0%, 100%]; blank means 1.

    Raises ``ValueError`` quoting the cell for anything else (``0``, ``1.5``, ``-1``, ``half``).
    """
    if is_blank(value):
        return 1.0
    if isinstance(value, (bool, dt.date)):
        raise ValueError(f"weight '{value}' is not a number from 0 to 1 (the share of the game played)")
    if isinstance(value, (int, float)):
        number = float(value)
        shown = f"{number:g}"
    else:
        shown = shortened(str(value).strip(), 40)
        match = _NUMBER.match(shown.replace(" ", ""))
        if match is None:
            raise ValueError(f"weight '{shown}' is not a number from 0 to 1 (the share of the game played)")
        number = float(match.group(1)) / (100.0 if match.group(2) else 1.0)
    if not (math.isfinite(number) and 0.0 < number <= 1.0):
        raise ValueError(f"weight '{shown}' is not in (0, 1] (the share of the game played; 1 is the whole game)")
    return number
