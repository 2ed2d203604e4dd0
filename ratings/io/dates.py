"""Dates: the one rule for reading a date, in a file's column (:func:`parse_date_cells`, which decides the
day/month order once for the column) or on its own (:func:`parse_date`, for the edit grid's cells, the record form
and the command line's options).

Understood: ISO 8601 dates (``2024-03-31``, also with ``/`` or ``.``), day/month/year or month/day/year with
``/``, ``-`` or ``.`` (the order settled by the column's unambiguous dates), dates in words (``31 March 2024``,
``March 31, 2024``) and spreadsheet day numbers (days since 1899-12-30, as Excel, LibreOffice and Google Sheets
count them).  Nothing else is guessed: ``2024-01-0123`` is refused, not cut to 2024-01-01.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from ratings.history import Problem
from ratings.io.cells import Cell, is_blank

_ISO_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T].*)?$")
_NUMERIC_DATE = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})(?:[ T].*)?$")
_WORD_FORMATS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d-%b-%Y", "%d %b. %Y")


_SERIAL_EPOCH = dt.date(1899, 12, 30)
#: A spreadsheet day number written as text (``45352`` or ``45352.5``).
_SERIAL = re.compile(r"\d{5}(\.\d+)?")


def _make_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _full_year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < 70 else 1900
    return year


@dataclass
class DateColumn:
    """Parsed dates of one column: row -> date, plus row-level and column-level problems."""

    dates: dict[int, dt.date] = field(default_factory=dict)
    row_problems: dict[int, Problem] = field(default_factory=dict)
    column_problems: list[Problem] = field(default_factory=list)
    order: str | None = None  # "day/month" or "month/day" when the column used one
    serials: int = 0  # how many cells were spreadsheet day numbers


def parse_date_cells(cells: dict[int, Cell], column: str, source: str | None) -> DateColumn:
    """Parse a date column as a whole, so that the day/month order is decided once for the column."""
    out = DateColumn()
    numeric: dict[int, tuple[str, dt.date | None, dt.date | None]] = {}
    known: dict[str, dt.date] = {}  # text -> date, for the many rows of one game that repeat its date
    for row, cell in cells.items():
        if isinstance(cell, dt.date):
            out.dates[row] = cell
            continue
        text = cell.strip()
        if text in known:
            out.dates[row] = known[text]
            continue
        if len(text) == 10 and text[4] == text[7] == "-":  # the common case: ISO 8601, fast
            try:
                out.dates[row] = known[text] = dt.date.fromisoformat(text)
                continue
            except ValueError:
                pass  # the patterns below say why
        match = _ISO_DATE.match(text)
        if match:
            y, m, d = (int(g) for g in match.groups())
            date = _make_date(y, m, d)
            if date is None:
                out.row_problems[row] = Problem(f"'{text}' is not a real date", row, column, source)
            else:
                out.dates[row] = date
            continue
        match = _NUMERIC_DATE.match(text)
        if match:
            a, b = int(match.group(1)), int(match.group(2))
            year = _full_year(match.group(3))
            numeric[row] = (text, _make_date(year, b, a), _make_date(year, a, b))
            if numeric[row][1] is None and numeric[row][2] is None:
                del numeric[row]
                out.row_problems[row] = Problem(f"'{text}' is not a real date", row, column, source)
            continue
        if _SERIAL.fullmatch(text) and 20_000 <= float(text) < 80_000:
            # A spreadsheet's day number (the cell lost its date format): day 1 is 1900-01-01 in Excel,
            # LibreOffice and Google Sheets, which count from 1899-12-30 for days after February 1900.
            out.dates[row] = _SERIAL_EPOCH + dt.timedelta(days=int(float(text)))
            out.serials += 1
            continue
        for fmt in _WORD_FORMATS:
            try:
                out.dates[row] = dt.datetime.strptime(text, fmt).date()
                break
            except ValueError:
                pass
        else:
            out.row_problems[row] = Problem(
                f"'{text}' is not a date this reader understands (write it as YYYY-MM-DD, e.g. 2024-03-31)",
                row,
                column,
                source,
            )
    if not numeric:
        return out
    day_first = [r for r, (_, dm, md) in numeric.items() if dm is not None and md is None]
    month_first = [r for r, (_, dm, md) in numeric.items() if md is not None and dm is None]
    if day_first or month_first:
        order = "day/month" if len(day_first) >= len(month_first) else "month/day"
        out.order = order
        for row, (text, dm, md) in numeric.items():
            date = dm if order == "day/month" else md
            if date is None:
                example = numeric[(day_first if order == "day/month" else month_first)[0]][0]
                out.row_problems[row] = Problem(
                    f"'{text}' cannot be read {order} like the other dates of this column (such as '{example}')",
                    row,
                    column,
                    source,
                )
            else:
                out.dates[row] = date
        return out
    ambiguous = [r for r, (_, dm, md) in numeric.items() if dm != md]
    if ambiguous:
        first = ambiguous[0]
        text, dm, md = numeric[first]
        assert dm is not None and md is not None
        rows = ", ".join(str(r) for r in ambiguous[:10]) + (" ..." if len(ambiguous) > 10 else "")
        out.column_problems.append(
            Problem(
                f"{len(ambiguous)} date(s) can be read day/month or month/day and no date in the column settles "
                f"which (e.g. '{text}' could be {dm.day} {dm:%B %Y} or {md.day} {md:%B %Y}; rows {rows}); "
                "write the dates as YYYY-MM-DD",
                first,
                column,
                source,
            )
        )
        return out
    for row, (_, dm, _md) in numeric.items():
        assert dm is not None
        out.dates[row] = dm
    return out


def parse_date(value: object, what: str = "date") -> dt.date | None:
    """One date on its own (a form field, a command-line option), read by the rule of :func:`parse_date_cells`:
    ``None`` for a blank, a date, or ``ValueError`` saying why (``2024-01-0123`` and a lone ``07/01/2023``, which
    could be either day or month first, are refused).
    """
    if is_blank(value):
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    read = parse_date_cells({0: str(value)}, what, None)
    if 0 in read.dates:
        return read.dates[0]
    problem = read.row_problems.get(0)
    if problem is not None:
        raise ValueError(problem.message)
    text = str(value).strip()
    match = _NUMERIC_DATE.match(text)
    assert match is not None and read.column_problems  # only a day/month-or-month/day date is left undecided
    a, b, year = int(match.group(1)), int(match.group(2)), _full_year(match.group(3))
    one, other = dt.date(year, b, a), dt.date(year, a, b)
    raise ValueError(
        f"'{text}' can be read day/month or month/day ({one.day} {one:%B %Y} or {other.day} {other:%B %Y}); "
        "write it as YYYY-MM-DD"
    )
