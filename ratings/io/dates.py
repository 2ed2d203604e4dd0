"""Dates: the one rule for reading a date, in a file's column (:func:`parse_date_cells`, which decides the
day/month order once for the column) or on its own (:func:`parse_date`, for the edit grid's cells, the record form
and the command line's options).

Understood: ISO 8601 dates (``2024-03-31``, also with ``/`` or ``.``), day/month/year or month/day/year with
``/``, ``-`` or ``.`` (the order settled by the column's unambiguous dates), dates in words (``31 March 2024``,
``March 31, 2024``), spreadsheet day numbers (days since 1899-12-30, as Excel, LibreOffice and Google Sheets
count them) and Unix times (seconds since 1970-01-01 UTC, ten digits, as exports and APIs write them; the date and
time of day in UTC).  Nothing else is guessed: ``2024-01-0123`` is refused, not cut to 2024-01-01.

A time of day is kept where a cell has one (:attr:`DateColumn.times`): an ISO or day/month date followed by
``HH:MM`` or ``HH:MM:SS`` (after a space or ``T``; a trailing ``Z`` or UTC offset is read as written, not converted),
a spreadsheet day number's fraction (``45352.75`` is 18:00), or a spreadsheet cell holding a date-time.  Games on one
day are then played in the order of their times (:func:`play_order`), else in the order of the file's rows; a file
listed newest first (its dated games run backwards) is played oldest first, with a note saying so.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass, field

from ratings.history import Problem
from ratings.io.cells import Cell, is_blank

_ISO_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T](.*))?$")
_NUMERIC_DATE = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})(?:[ T](.*))?$")
#: A time of day after a date: hours, minutes, optional seconds (and fraction), optional zone written after it.
_TIME = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?\s*(?:Z|[+-]\d{2}:?\d{2}|UTC)?\s*$", re.I)
_WORD_FORMATS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d-%b-%Y", "%d %b. %Y")


_SERIAL_EPOCH = dt.date(1899, 12, 30)
#: A spreadsheet day number written as text (``45352`` or ``45352.5``).
_SERIAL = re.compile(r"\d{5}(\.\d+)?")
#: A Unix time in seconds written as text: ten digits (2001-09-09 to 2286), optionally with a fraction.
_EPOCH = re.compile(r"\d{10}(\.\d+)?")


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
    times: dict[int, dt.time] = field(default_factory=dict)  # row -> time of day, for cells that have one


def _time_of(text: str | None) -> dt.time | None:
    """The time of day written after a date (``18:30``, ``18:30:05``), None when there is none or it is not one."""
    if not text:
        return None
    match = _TIME.match(text)
    if match is None:
        return None
    hours, minutes = int(match.group(1)), int(match.group(2))
    seconds = int(match.group(3) or 0)
    micro = int((match.group(4) or "0").ljust(6, "0"))
    if hours > 23 or minutes > 59 or seconds > 59:
        return None
    return dt.time(hours, minutes, seconds, micro)


def parse_date_cells(cells: dict[int, Cell], column: str, source: str | None) -> DateColumn:
    """Parse a date column as a whole, so that the day/month order is decided once for the column."""
    out = DateColumn()
    numeric: dict[int, tuple[str, dt.date | None, dt.date | None]] = {}
    known: dict[str, dt.date] = {}  # text -> date, for the many rows of one game that repeat its date
    for row, cell in cells.items():
        if isinstance(cell, dt.datetime):
            out.dates[row] = cell.date()
            out.times[row] = cell.time()
            continue
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
            y, m, d = (int(g) for g in match.groups()[:3])
            date = _make_date(y, m, d)
            time = _time_of(match.group(4))
            if time is not None:
                out.times[row] = time
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
            time = _time_of(match.group(4))
            if time is not None:
                out.times[row] = time
            if numeric[row][1] is None and numeric[row][2] is None:
                del numeric[row]
                out.row_problems[row] = Problem(f"'{text}' is not a real date", row, column, source)
            continue
        if _SERIAL.fullmatch(text) and 20_000 <= float(text) < 80_000:
            # A spreadsheet's day number (the cell lost its date format): day 1 is 1900-01-01 in Excel,
            # LibreOffice and Google Sheets, which count from 1899-12-30 for days after February 1900.
            out.dates[row] = _SERIAL_EPOCH + dt.timedelta(days=int(float(text)))
            fraction = float(text) % 1.0
            if fraction:  # a date-time: the fraction of its day
                moment = dt.datetime.combine(out.dates[row], dt.time()) + dt.timedelta(days=fraction)
                out.times[row] = moment.replace(microsecond=round(moment.microsecond, -3) % 1_000_000).time()
            out.serials += 1
            continue
        if _EPOCH.fullmatch(text):
            when = dt.datetime.fromtimestamp(float(text), tz=dt.UTC)
            out.dates[row], out.times[row] = when.date(), when.time()
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


def moment(date: dt.date | None, time: dt.time | None) -> tuple[int, dt.time]:
    """The sort key of a game's date and time of day (a date alone sorts as its midnight)."""
    return (date.toordinal() if date is not None else 0, time or dt.time())


def play_order(dates: list[dt.date | None], times: list[dt.time | None]) -> tuple[list[int], str | None]:
    """The order games are played in, given each game's date and time of day in the file's order, and a note when
    the file was listed newest first.

    When every game has a date: by date, then by time of day where the games have one, then in the file's order;
    except that a file whose dated games mostly run backwards (more steps from a later to an earlier moment than
    the other way, between consecutive games) is read as listed newest first, so that games on one day without
    times are played in the reverse of the file's order, as the same games listed oldest first are.  Without a date
    on every game, the file's order.
    """
    count = len(dates)
    order = list(range(count))
    if not count or any(d is None for d in dates):
        return order, None
    keys = [moment(d, t) for d, t in zip(dates, times, strict=True)]
    forward = sum(1 for a, b in itertools.pairwise(keys) if b > a)
    backward = sum(1 for a, b in itertools.pairwise(keys) if b < a)
    note = None
    if backward > forward:
        order.reverse()
        note = (
            "the games are listed newest first (their dates run backwards through the file); they are played "
            "oldest first"
        )
    order.sort(key=lambda g: keys[g])
    return order, note
