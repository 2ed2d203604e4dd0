"""Rows of cells to a game history: both table shapes, every problem located by row and column."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ratings.history import Entry, Game, GameHistory, HistoryError, Problem
from ratings.io.cells import Cell, _cell, _column_letter, is_blank
from ratings.io.dates import DateColumn, parse_date_cells, play_order
from ratings.io.header import _choose_shape, _Header, _header_key, read_header
from ratings.io.limits import MAX_COLUMNS, MAX_ROWS, _Tally, _too_big
from ratings.io.names import _merge_names, clean_name
from ratings.io.places import parse_place
from ratings.io.teams import parse_place_cell, parse_team, parse_weight, team_label

SHAPES = ("auto", "long", "wide")


@dataclass(frozen=True)
class ReadResult:
    """What a reader found: the history, the recognised shape and everything worth telling the user."""

    history: GameHistory
    #: "long" or "wide" (a table), "contests" (:mod:`ratings.io.contests`).
    shape: str
    warnings: tuple[str, ...] = ()
    skipped: tuple[Problem, ...] = ()
    columns: tuple[str, ...] = ()
    #: The text encoding a text file was read with (a Python codec name such as ``utf_8`` or ``cp1251``);
    #: None for spreadsheets and rows.  Any encoding but UTF-8 is also named in ``warnings``.
    encoding: str | None = None


@dataclass(slots=True)
class _Row:
    number: int  # spreadsheet row number (header = 1)
    cells: list[Cell]

    def get(self, index: int | None) -> Cell:
        if index is None or index >= len(self.cells):
            return ""
        return self.cells[index]


@dataclass(slots=True)
class _Draft:
    id: str
    rows: list[int]
    date: dt.date | None = None
    time: dt.time | None = None
    date_row: int | None = None
    entries: list[_Seat] = field(default_factory=list)
    bad: bool = False


@dataclass(slots=True)
class _Seat:
    """One participant as read: raw name, place, where (row, column of the name), team and weight."""

    name: str
    place: int | None
    row: int
    column: str
    team: str | None = None
    weight: float = 1.0
    place_column: str = ""  # the column of the place, when not the name's own (long shape)


def read_table(
    rows: Sequence[Sequence[Any]],
    *,
    shape: str = "auto",
    source: str | None = None,
    skip_bad_rows: bool = False,
) -> ReadResult:
    """Read a game history from rows of cells (row 0 is the header), as a spreadsheet holds them.

    ``shape`` is ``"auto"`` (recognise from the header), ``"long"`` or ``"wide"``.  Cells may be strings,
    numbers, dates or None.  Raises :class:`HistoryError` listing every problem, each with its spreadsheet
    row (header = row 1) and column name.  With ``skip_bad_rows=True`` games with row problems are left
    out and their problems returned in ``ReadResult.skipped``; problems with the table as a whole (header,
    ambiguous date order) are still raised.
    """
    _check_shape(shape)
    tally = _Tally(source)

    def numbered() -> Iterable[tuple[int, Sequence[Any]]]:
        for number, raw in enumerate(rows, start=1):
            tally.record(number)
            yield number, raw

    return _read_rows(numbered(), shape=shape, source=source, skip_bad_rows=skip_bad_rows, tally=tally)


#: The columns of long-shape records (:func:`read_records`); ``team`` and ``weight`` are optional.
RECORD_COLUMNS = ("game", "date", "player", "place", "team", "weight")


def read_records(
    records: Iterable[Mapping[str, Any]], *, rows: Sequence[int] | None = None, source: str | None = None
) -> GameHistory:
    """Long-shape records (``game``, ``player``, ``place`` and optional ``date``, ``team`` and ``weight`` keys) as a
    history, read by exactly the rules a long-shape file is read by (places, names, blanks, dates, one date per
    game, teams and weights).

    ``rows`` gives each record's row number for messages (default: the header is row 1, so record ``i`` is row
    ``i + 2``).  Raises :class:`HistoryError` listing every problem.  In-memory records are not held to the
    file-size bounds of :mod:`ratings.io.limits`.
    """
    records = list(records)
    numbers = list(rows) if rows is not None else list(range(2, len(records) + 2))
    if len(numbers) != len(records):
        raise ValueError(f"{len(records)} records but {len(numbers)} row numbers")
    header = min(numbers, default=2) - 1

    teams = any("team" in r or "weight" in r for r in records)
    columns = RECORD_COLUMNS if teams else RECORD_COLUMNS[:4]

    def numbered() -> Iterator[tuple[int, Sequence[Any]]]:  # made as read, so none outlives its row
        yield header, columns
        for number, r in zip(numbers, records, strict=True):
            yield number, tuple(r.get(c) for c in columns)

    return _read_rows(numbered(), shape="long", source=source, skip_bad_rows=False, bounded=False).history


def _check_shape(shape: str) -> None:
    if shape not in SHAPES:
        raise HistoryError([Problem(f"unknown table shape '{shape}'; choose one of: {', '.join(SHAPES)}")])


def _read_rows(
    rows: Iterable[tuple[int, Sequence[Any]]],
    *,
    shape: str,
    source: str | None,
    skip_bad_rows: bool,
    tally: _Tally | None = None,
    bounded: bool = True,
) -> ReadResult:
    """:func:`read_table` on rows numbered as the spreadsheet numbers them (header = 1); rows may be left out.

    The file readers hand over only the rows that hold something, already counted by their own tally;
    ``tally`` counts rows handed over by a caller.
    """
    table: list[_Row] = []
    for number, raw in rows:
        cells = [_cell(v) for v in raw]
        while cells and is_blank(cells[-1]):
            cells.pop()
        if not cells:
            continue
        if tally is not None:
            tally.keep(number, len(cells))
            for j, cell in enumerate(cells):
                if isinstance(cell, str) and cell:
                    tally.text(len(cell), number, j)
        elif bounded and len(table) >= MAX_ROWS:
            raise _too_big(
                f"the table has more than {MAX_ROWS:,} rows; this reader accepts at most {MAX_ROWS:,}",
                number,
                None,
                source,
            )
        if len(cells) > MAX_COLUMNS:
            raise _too_big(
                f"row {number} has {len(cells):,} columns; this reader accepts at most {MAX_COLUMNS:,} columns",
                number,
                None,
                source,
            )
        table.append(_Row(number, cells))
    if not table:
        raise HistoryError([Problem("the table is empty (no header row and no games)", None, None, source)])
    header_row = table[0]
    info = read_header(header_row.cells, source, header_row.number)
    chosen = _choose_shape(info, shape, source)
    if info.problems:
        raise HistoryError(info.problems)
    warnings: list[str] = column_warnings(info, header_row.cells, chosen)
    data = table[1:]
    width = len(header_row.cells)
    problems: list[Problem] = []  # row problems (skippable)
    fatal: list[Problem] = []  # table problems
    outside: list[Problem] = []
    for row in data:
        if len(row.cells) <= width:
            continue
        for j in range(width, len(row.cells)):
            if not is_blank(row.cells[j]):
                outside.append(
                    Problem(
                        f"'{row.cells[j]}' is in a column with no header; give the column a name or move the value",
                        row.number,
                        f"column {_column_letter(j)}",
                        source,
                    )
                )
                break
    # Dates are parsed for the whole column at once (day/month order).
    date_col = info.roles.get("date")
    dates = DateColumn()
    if date_col is not None:
        date_cells = {row.number: cell for row in data if not is_blank(cell := row.get(date_col))}
        dates = parse_date_cells(date_cells, info.names[date_col], source)
        fatal.extend(dates.column_problems)
        warnings.extend(date_warnings(dates, info.names[date_col]))
    if chosen == "long":
        drafts, loose = _long_drafts(data, info, dates, source)
    else:
        drafts, loose = _wide_drafts(data, info, dates, source)
    problems.extend(loose)
    # Attach outside-the-header values to their rows' games.
    bad_rows = {p.row for p in outside}
    problems.extend(outside)
    # Merge names differing only in case/spacing, then check duplicates inside games.
    mapping, merge_warnings = _merge_names(seat.name for d in drafts for seat in d.entries)
    warnings.extend(merge_warnings)
    games: list[tuple[_Draft, Game]] = []
    for draft in drafts:
        if bad_rows and any(r in bad_rows for r in draft.rows):
            draft.bad = True
        seen: dict[str, _Seat] = {}
        entries = []
        for seat in draft.entries:
            name = mapping[seat.name]
            if name in seen:
                first = seen[name]
                also = f" (also row {first.row})" if first.row != seat.row else ""
                if first.team is not None and seat.team is not None and first.team.casefold() != seat.team.casefold():
                    message = f"player '{name}' is on two teams in game '{draft.id}': '{first.team}' and '{seat.team}'"
                else:
                    message = f"player '{name}' appears twice in game '{draft.id}'"
                problems.append(Problem(message + also, seat.row, seat.column, source))
                draft.bad = True
                continue
            seen[name] = seat
            entries.append(Entry(name, seat.place, seat.team, seat.weight))
        if not draft.bad:
            disagreeing = _teammates_apart(draft)
            if disagreeing:
                problems.extend(Problem(m, row, column, source) for m, row, column in disagreeing)
                draft.bad = True
        if not draft.bad:
            games.append((draft, Game(draft.id, tuple(entries), draft.date, draft.time)))
    if fatal or (problems and not skip_bad_rows):
        raise HistoryError(sorted(fatal + problems, key=_problem_order))
    skipped = tuple(sorted(problems, key=_problem_order))
    if skipped:
        left_out = sum(1 for d in drafts if d.bad)
        message = f"{len(skipped)} problem(s) found; {left_out} game(s) with problems were left out"
        orphans = sum(1 for p in problems if " column is empty (the row has " in p.message)
        if orphans:
            message += f", and {orphans} row(s) with no game"
        warnings.append(message)
    listed = [g for _, g in games]
    order, note = play_order([g.date for g in listed], [g.time for g in listed])
    ordered = [listed[i] for i in order]
    if note:
        warnings.append(note)
    history = GameHistory(ordered, warnings=warnings)
    return ReadResult(
        history=history,
        shape=chosen,
        warnings=history.warnings,
        skipped=skipped,
        columns=tuple(info.names),
    )


def column_warnings(info: _Header, header: Sequence[Any], chosen: str) -> list[str]:
    """What a reader says about a table's columns: no game column (each date is a game), columns it ignores."""
    warnings: list[str] = []
    if chosen == "long" and "game" not in info.roles:
        warnings.append(f"there is no game column: each date in column '{info.names[info.roles['date']]}' is one game")
    used = set(info.roles.values()) | set(info.ordinals)
    if chosen == "long":
        used -= {info.roles[r] for r in ("dnf",) if r in info.roles}
    ignored = [n for i, n in enumerate(info.names) if i not in used and _header_key(str(header[i]))]
    if ignored:
        warnings.append("ignored column(s) this reader does not use: " + ", ".join(f"'{n}'" for n in ignored))
    return warnings


def date_warnings(dates: DateColumn, column: str) -> list[str]:
    """What a reader says about how it read a date column (the day/month order, spreadsheet day numbers)."""
    warnings = []
    if dates.order:
        warnings.append(f"dates in column '{column}' were read {dates.order}")
    if dates.serials:
        warnings.append(
            f"{dates.serials} date(s) in column '{column}' were spreadsheet day numbers (such as 45352 for "
            "2024-03-01) and were read as dates; format the column as dates to avoid this"
        )
    return warnings


def _teammates_apart(draft: _Draft) -> list[tuple[str, int, str]]:
    """(message, row, column) for every player whose place differs from their team's first player's place."""
    first: dict[str, _Seat] = {}
    out = []
    for seat in draft.entries:
        if seat.team is None:
            continue
        lead = first.setdefault(seat.team.casefold(), seat)
        if lead.place != seat.place:
            shown = "DNF" if seat.place is None else seat.place
            other = "DNF" if lead.place is None else lead.place
            out.append(
                (
                    f"team '{lead.team}' of game '{draft.id}' has place {shown} here but {other} on row {lead.row} "
                    "(teammates share their team's place)",
                    seat.row,
                    seat.place_column or seat.column,
                )
            )
    return out


def _problem_order(p: Problem) -> tuple[int, str]:
    return (p.row if p.row is not None else 0, p.column or "")


def _long_drafts(
    data: list[_Row], info: _Header, dates: DateColumn, source: str | None
) -> tuple[list[_Draft], list[Problem]]:
    """Group long-shape rows into games; problems with no known game are returned as loose problems."""
    player_col, place_col = info.roles["player"], info.roles["place"]
    team_col, weight_col = info.roles.get("team"), info.roles.get("weight")
    date_col = info.roles.get("date")
    # Without a game column the date says which game a row belongs to (one game a day; see _choose_shape).
    game_col = info.roles.get("game", date_col)
    assert game_col is not None
    names = info.names
    drafts: dict[str, _Draft] = {}
    loose: list[Problem] = []
    row_problems: list[tuple[_Draft, Problem]] = []
    ids: dict[Cell, str] = {}  # a game cell -> its id (clean_name), worked out once per game
    for row in data:
        cells = row.cells
        width = len(cells)
        game_cell = cells[game_col] if game_col < width else ""
        if game_col == date_col and row.number in dates.row_problems:
            loose.append(dates.row_problems[row.number])
            continue
        if is_blank(game_cell):
            filled = [names[j] for j, c in enumerate(row.cells) if j < len(names) and not is_blank(c)]
            loose.append(
                Problem(
                    f"the {names[game_col]} column is empty (the row has {', '.join(filled)})",
                    row.number,
                    names[game_col],
                    source,
                )
            )
            continue
        if game_col == date_col:
            day = dates.dates.get(row.number)
            if day is None:  # an undecided day/month order: a column problem already reported
                continue
            game_id = day.isoformat()
        else:
            game_id = ids.get(game_cell) or ids.setdefault(game_cell, clean_name(game_cell))
        draft = drafts.get(game_id)
        if draft is None:
            draft = drafts[game_id] = _Draft(game_id, [])
        draft.rows.append(row.number)
        if date_col is not None:
            problem = dates.row_problems.get(row.number)
            if problem is not None:
                row_problems.append((draft, problem))
            date = dates.dates.get(row.number)
            if date is not None:
                if draft.date is None:
                    draft.date, draft.date_row = date, row.number
                    draft.time = dates.times.get(row.number)
                elif draft.date != date:
                    row_problems.append(
                        (
                            draft,
                            Problem(
                                f"game '{game_id}' has date {date} here but {draft.date} on row {draft.date_row}",
                                row.number,
                                names[date_col],
                                source,
                            ),
                        )
                    )
        name = str(cells[player_col]) if player_col < width else ""
        place_cell = cells[place_col] if place_col < width else ""
        if is_blank(name):
            what = f"place '{place_cell}'" if not is_blank(place_cell) else "a row"
            row_problems.append(
                (
                    draft,
                    Problem(f"{what} in game '{game_id}' has no player name", row.number, names[player_col], source),
                )
            )
            continue
        try:
            place = parse_place(place_cell)
        except ValueError as exc:
            row_problems.append(
                (draft, Problem(f"{exc} (player '{clean_name(name)}')", row.number, names[place_col], source))
            )
            continue
        team = parse_team(cells[team_col]) if team_col is not None and team_col < width else None
        weight = 1.0
        if weight_col is not None and weight_col < width:
            try:
                weight = parse_weight(cells[weight_col])
            except ValueError as exc:
                row_problems.append(
                    (draft, Problem(f"{exc} (player '{clean_name(name)}')", row.number, names[weight_col], source))
                )
                continue
        draft.entries.append(_Seat(name, place, row.number, names[player_col], team, weight, names[place_col]))
    problems = list(loose)
    for draft, problem in row_problems:
        draft.bad = True
        problems.append(problem)
    return list(drafts.values()), problems


def _wide_drafts(
    data: list[_Row], info: _Header, dates: DateColumn, source: str | None
) -> tuple[list[_Draft], list[Problem]]:
    """One game per wide-shape row; place columns give places, ``/`` separates tied players or teams, ``&`` joins a
    team's players (:func:`ratings.io.teams.parse_place_cell`)."""
    game_col = info.roles.get("game")
    date_col = info.roles.get("date")
    dnf_col = info.roles.get("dnf")
    names = info.names
    place_cols = sorted(info.ordinals, key=lambda j: info.ordinals[j])
    drafts: list[_Draft] = []
    problems: list[Problem] = []
    ids: dict[str, int] = {}
    for k, row in enumerate(data, start=1):
        if game_col is not None and not is_blank(row.get(game_col)):
            game_id = clean_name(row.get(game_col))
        else:
            game_id = f"game {k}"
        draft = _Draft(game_id, [row.number])
        drafts.append(draft)
        row_problems: list[Problem] = []
        if game_id in ids:
            where = names[game_col] if game_col is not None else None
            row_problems.append(Problem(f"game '{game_id}' is also on row {ids[game_id]}", row.number, where, source))
        ids.setdefault(game_id, row.number)
        if date_col is not None and not is_blank(row.get(date_col)):
            if row.number in dates.row_problems:
                row_problems.append(dates.row_problems[row.number])
            draft.date = dates.dates.get(row.number)
            draft.time = dates.times.get(row.number)
        cells: list[tuple[int, int | None]] = [(j, info.ordinals[j]) for j in place_cols]
        if dnf_col is not None:
            cells.append((dnf_col, None))
        for j, place in cells:
            try:
                teams = parse_place_cell(row.get(j))
            except ValueError as exc:
                row_problems.append(Problem(str(exc), row.number, names[j], source))
                continue
            for members in teams:
                label = team_label(members) if len(members) > 1 else None
                for name in members:
                    draft.entries.append(_Seat(name, place, row.number, names[j], label))
        if not draft.entries:
            filled = [names[j] for j, c in enumerate(row.cells) if j < len(names) and not is_blank(c)]
            row_problems.append(
                Problem(
                    "the row fills in " + " and ".join(f"'{f}'" for f in filled) + " but names no players",
                    row.number,
                    names[place_cols[0]],
                    source,
                )
            )
        if row_problems:
            draft.bad = True
            problems.extend(row_problems)
    return drafts, problems
