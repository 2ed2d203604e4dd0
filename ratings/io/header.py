"""Header rows: which column is the game, date, player, place, team, weight, a numbered place or the DNF list."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ratings.history import HistoryError, Problem
from ratings.io.cells import Cell, _column_letter
from ratings.io.places import header_ordinal

_ROLE_WORDS = {
    "game": {"game", "gameid", "gameno", "gamenumber", "id", "match", "matchid", "race", "raceid", "event", "round"},
    "date": {"date", "day", "when", "played", "playedon", "datum"},
    "player": {"player", "players", "name", "playername", "participant", "competitor", "who"},
    "place": {"place", "position", "pos", "rank", "ranking", "finish", "placing", "standing", "result"},
    "dnf": {"dnf", "dnfs", "didnotfinish", "notfinished", "out"},
    "team": {"team", "teamname", "teamid", "side", "partnership"},
    "weight": {"weight", "playweight", "partialplay", "share"},
}


def _header_key(text: str) -> str:
    return re.sub(r"[\s_\-.:#()]+", "", text.casefold())


@dataclass
class _Header:
    names: list[str]  # column names as written (blank ones named by letter)
    roles: dict[str, int] = field(default_factory=dict)  # role -> column index
    ordinals: dict[int, int] = field(default_factory=dict)  # column index -> place number
    unknown: list[int] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    row: int = 1  # spreadsheet row of the header


def read_header(header: Sequence[Cell], source: str | None, row: int = 1) -> _Header:
    """Recognise a header row: each column's role (game, date, player, place, a numbered place, DNF).

    Used by the readers and by ``sources.record`` to append a game in a sheet's own shape.
    """
    names = []
    for i, cell in enumerate(header):
        text = str(cell).strip()
        names.append(text if text else f"column {_column_letter(i)}")
    info = _Header(names, row=row)
    seen_places: dict[int, int] = {}
    for i, cell in enumerate(header):
        key = _header_key(str(cell))
        if not key:
            info.unknown.append(i)
            continue
        role = next((r for r, words in _ROLE_WORDS.items() if key in words), None)
        if role is not None:
            if role in info.roles:
                other = names[info.roles[role]]
                info.problems.append(
                    Problem(
                        f"columns '{other}' and '{names[i]}' both look like the {role} column", row, names[i], source
                    )
                )
            else:
                info.roles[role] = i
            continue
        number = header_ordinal(key)
        if number is not None:
            if number in seen_places:
                other = names[seen_places[number]]
                info.problems.append(
                    Problem(f"columns '{other}' and '{names[i]}' are both place {number}", row, names[i], source)
                )
            else:
                seen_places[number] = i
                info.ordinals[i] = number
            continue
        info.unknown.append(i)
    return info


def _choose_shape(info: _Header, shape: str, source: str | None) -> str:
    long_ok = "player" in info.roles and "place" in info.roles
    wide_ok = bool(info.ordinals)
    columns = _shown_columns(info.names)
    if shape == "auto":
        if long_ok and wide_ok:
            raise HistoryError(
                [
                    Problem(
                        "the header fits both table shapes (it has 'player' and 'place' columns and numbered place "
                        "columns); choose the shape: long (one row per player) or wide (one row per game)",
                        info.row,
                        None,
                        source,
                    )
                ]
            )
        if wide_ok:
            return "wide"
        if not long_ok:
            raise HistoryError(
                [
                    Problem(
                        f"the header row ({columns}) is neither shape this reader knows: long needs columns 'game', "
                        "'player' and 'place' (and optionally 'date'); wide needs place columns '1st', '2nd', ... "
                        "(and optionally 'date', 'game' and 'DNF')",
                        info.row,
                        None,
                        source,
                    )
                ]
            )
    if shape != "wide":
        missing = [r for r in ("game", "player", "place") if r not in info.roles]
        if missing == ["game"] and "date" in info.roles:
            return "long"  # one game per date
        if missing:
            raise HistoryError(
                [
                    Problem(
                        f"the long shape needs a '{r}' column"
                        + (" (or a 'date' column if the group plays one game a day)" if r == "game" else "")
                        + f"; the columns are {columns}",
                        info.row,
                        None,
                        source,
                    )
                    for r in missing
                ]
            )
        return "long"
    if not wide_ok:
        raise HistoryError(
            [
                Problem(
                    f"the wide shape needs place columns such as '1st', '2nd', '3rd'; the columns are {columns}",
                    info.row,
                    None,
                    source,
                )
            ]
        )
    return "wide"


def _shown_columns(names: Sequence[str], most: int = 20, width: int = 40) -> str:
    """Column names quoted for a message: at most ``most`` of them, each cut to ``width`` characters."""
    shown = [f"'{n if len(n) <= width else n[: width - 3] + '...'}'" for n in names[:most]]
    if len(names) > most:
        shown.append(f"and {len(names) - most:,} more")
    return ", ".join(shown)
