"""Reading game histories from tables and files, and writing them back.

Two table shapes are understood, recognised from the header row:

- **long**: one row per participant, columns ``game``, ``date`` (optional), ``player``, ``place``
  (a place is a positive whole number, or ``DNF``/empty for did-not-finish);
- **wide**: one row per game, as groups keep it in a sheet: ``date``, ``1st``, ``2nd``, ``3rd``, ...
  where each cell names a player; several players separated by ``/`` tie for that place; an optional
  ``DNF`` column lists the players who did not finish and an optional ``game`` column gives ids
  (otherwise they are ``game 1``, ``game 2``, ... in table order).

Every problem is collected and reported together, each located by spreadsheet row (the header is
row 1) and by the column name as written in the file.  Files are read as text cells; nothing guesses
types (``1/2`` stays ``1/2``, ``007`` stays ``007``).
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import math
import os
import posixpath
import re
import sys
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, TypeGuard
from xml.parsers import expat

from ratings.history import Entry, Game, GameHistory, HistoryError, Problem

__all__ = [
    "MAX_BYTES",
    "MAX_CELLS",
    "MAX_CELL_CHARS",
    "MAX_ROWS",
    "MAX_SHEET_ROWS",
    "MAX_TEXT_CHARS",
    "ReadResult",
    "load_history",
    "read_file",
    "read_header",
    "read_table",
    "safe_cell",
    "to_long_rows",
    "to_wide_rows",
    "write_csv",
]

#: Largest file accepted, in bytes (checked before any parsing).
MAX_BYTES = 10 * 1024 * 1024
#: Largest number of non-empty rows accepted per file, header included.
MAX_ROWS = 200_000
#: Widest table accepted, in columns.
MAX_COLUMNS = 1_000
#: Largest unpacked size of a spreadsheet (xlsx and ods are zip archives of XML), against zip bombs.
MAX_UNPACKED = 200 * 1024 * 1024
#: Most rows a table may span, blank rows included (the row limit of Excel and LibreOffice).  Blank rows
#: after the last value cost nothing in a spreadsheet; a value further down, or more row records than this
#: in a file (lines of a text file, ``<row>`` elements of a sheet), is refused.
MAX_SHEET_ROWS = 1_048_576
#: Most cells kept from one table (every cell up to the last value of each row, blank ones included).
MAX_CELLS = 2_000_000
#: Longest text of one cell, in characters (the most an Excel cell holds).
MAX_CELL_CHARS = 32_767
#: Most text read from one table, in characters, all cells together.
MAX_TEXT_CHARS = 20_000_000
#: Longest single XML token (a tag with its attributes) a spreadsheet may contain, in bytes.
MAX_XML_TOKEN = 1024 * 1024

SHAPES = ("auto", "long", "wide")
_TEXT_EXTENSIONS = {".csv", ".tsv", ".txt"}
_EXTENSIONS = _TEXT_EXTENSIONS | {".xlsx", ".xlsm", ".ods"}
_TIE_SEPARATOR = "/"
_DANGEROUS_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")

Cell = str | dt.date


@dataclass(frozen=True)
class ReadResult:
    """What a reader found: the history, the recognised shape and everything worth telling the user."""

    history: GameHistory
    shape: str
    warnings: tuple[str, ...] = ()
    skipped: tuple[Problem, ...] = ()
    columns: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------- cells
def _cell(value: Any) -> Cell:
    """One cell as text (or a date when the spreadsheet stored a date); never guesses a type from text."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value.replace("\ufeff", "") if "\ufeff" in value else value
        # Undo our own formula neutralisation ('=x written by write_csv reads back as =x).
        if len(text) > 1 and text[0] == "'" and text[1] in "=+-@\t\r\n":
            text = text[1:]
        return text
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return value.date() if value.time() == dt.time(0) else value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, dt.time):
        return value.isoformat()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if hasattr(value, "to_pydatetime"):  # pandas Timestamp
        return _cell(value.to_pydatetime())
    if hasattr(value, "item"):  # numpy scalar
        return _cell(value.item())
    return str(value)


def _blank(cell: Cell) -> bool:
    return isinstance(cell, str) and not cell.strip()


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _too_big(what: str, row: int | None = None, column: str | None = None, source: str | None = None) -> HistoryError:
    return HistoryError([Problem(what, row, column, source)])


class _Tally:
    """What a reader has taken in so far; raises :class:`HistoryError` the moment a bound is passed.

    Every reader (text, xlsx, ods, rows handed to :func:`read_table`) reports each row record it meets
    (:meth:`record`), each row that holds something (:meth:`keep`) and each cell's text (:meth:`text`), so
    that no input is read further than the first bound it passes.
    """

    def __init__(self, source: str | None, noun: str = "table") -> None:
        self.source = source
        self.noun = noun
        self.records = 0  # row records met, blank ones included
        self.nonblank = 0  # rows holding a value
        self.cells = 0  # cells kept
        self.chars = 0  # characters kept

    def record(self, number: int) -> None:
        """One row record (a line of text, a ``<row>`` element), blank or not."""
        self.records += 1
        if self.records > MAX_SHEET_ROWS:
            raise _too_big(
                f"the {self.noun} has more than {MAX_SHEET_ROWS:,} rows, blank rows included; this reader accepts "
                f"at most {MAX_SHEET_ROWS:,}",
                number,
                None,
                self.source,
            )

    def keep(self, number: int, width: int, repeat: int = 1) -> None:
        """A row (repeated ``repeat`` times) holding ``width`` cells up to its last value."""
        if number + repeat - 1 > MAX_SHEET_ROWS:
            raise _too_big(
                f"the {self.noun} has a value on row {max(number, MAX_SHEET_ROWS + 1):,}; this reader accepts rows "
                f"up to {MAX_SHEET_ROWS:,}, blank rows included",
                number,
                None,
                self.source,
            )
        self.nonblank += repeat
        if self.nonblank > MAX_ROWS:
            raise _too_big(
                f"the {self.noun} has more than {MAX_ROWS:,} rows; this reader accepts at most {MAX_ROWS:,}",
                number,
                None,
                self.source,
            )
        self.cells += width * repeat
        if self.cells > MAX_CELLS:
            raise _too_big(
                f"the {self.noun} has more than {MAX_CELLS:,} cells up to this row; this reader accepts at most "
                f"{MAX_CELLS:,}",
                number,
                None,
                self.source,
            )

    def cell_too_long(self, number: int | None, column: int | None) -> HistoryError:
        where = _column_letter(column) if column is not None else None
        return _too_big(
            f"a cell holds more than {MAX_CELL_CHARS:,} characters (the most a spreadsheet cell holds)",
            number,
            where,
            self.source,
        )

    def text(self, length: int, number: int | None, column: int | None, repeat: int = 1) -> None:
        """One cell's text of ``length`` characters (0-based ``column``), kept ``repeat`` times."""
        if length > MAX_CELL_CHARS:
            raise self.cell_too_long(number, column)
        self.add_text(length * repeat, number, column)

    def add_text(self, length: int, number: int | None, column: int | None = None) -> None:
        """``length`` more characters kept (cells already checked one by one)."""
        self.chars += length
        if self.chars > MAX_TEXT_CHARS:
            raise _too_big(
                f"the {self.noun}'s cells hold more than {MAX_TEXT_CHARS:,} characters in all; this reader accepts "
                f"at most {MAX_TEXT_CHARS:,}",
                number,
                _column_letter(column) if column is not None else None,
                self.source,
            )


# --------------------------------------------------------------------------------------------- header
_ROLE_WORDS = {
    "game": {"game", "gameid", "gameno", "gamenumber", "id", "match", "matchid", "race", "raceid", "event", "round"},
    "date": {"date", "day", "when", "played", "playedon", "datum"},
    "player": {"player", "players", "name", "playername", "participant", "competitor", "who"},
    "place": {"place", "position", "pos", "rank", "ranking", "finish", "placing", "standing", "result"},
    "dnf": {"dnf", "dnfs", "didnotfinish", "notfinished", "out"},
}
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
_ORDINAL = re.compile(r"^(?:place|pos|position|rank)?(\d{1,4})(?:st|nd|rd|th)?(?:place)?$")


def _header_key(text: str) -> str:
    return re.sub(r"[\s_\-.:#()]+", "", text.casefold())


def _ordinal(key: str) -> int | None:
    match = _ORDINAL.match(key)
    if match:
        number = int(match.group(1))
        return number if number >= 1 else None
    for suffix in ("place", ""):
        word = key[: len(key) - len(suffix)] if suffix and key.endswith(suffix) else key
        if word in _ORDINAL_WORDS:
            return _ORDINAL_WORDS[word]
    return None


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
        number = _ordinal(key)
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
    columns = ", ".join(f"'{n}'" for n in info.names)
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


# ---------------------------------------------------------------------------------------------- dates
_ISO_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T].*)?$")
_NUMERIC_DATE = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})(?:[ T].*)?$")
_WORD_FORMATS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d-%b-%Y", "%d %b. %Y")


_SERIAL_EPOCH = dt.date(1899, 12, 30)


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
class _DateColumn:
    """Parsed dates of one column: row -> date, plus row-level and column-level problems."""

    dates: dict[int, dt.date] = field(default_factory=dict)
    row_problems: dict[int, Problem] = field(default_factory=dict)
    column_problems: list[Problem] = field(default_factory=list)
    order: str | None = None  # "day/month" or "month/day" when the column used one
    serials: int = 0  # how many cells were spreadsheet day numbers


def _parse_dates(cells: dict[int, Cell], column: str, source: str | None) -> _DateColumn:
    """Parse a date column as a whole, so that the day/month order is decided once for the column."""
    out = _DateColumn()
    numeric: dict[int, tuple[str, dt.date | None, dt.date | None]] = {}
    for row, cell in cells.items():
        if isinstance(cell, dt.date):
            out.dates[row] = cell
            continue
        text = cell.strip()
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
        if re.fullmatch(r"\d{5}(\.\d+)?", text) and 20_000 <= float(text) < 80_000:
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


# ---------------------------------------------------------------------------------------------- names
def _name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _merge_names(spellings: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Map every raw spelling to a canonical name; names equal up to case and spacing are merged.

    The canonical spelling is the most frequent one (first seen wins a tie).  Returns the mapping and a
    warning per merged group.
    """
    counts = Counter(spellings)
    groups: dict[str, list[str]] = {}
    for raw in counts:  # Counter keeps first-seen order
        groups.setdefault(_name_key(raw), []).append(raw)
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


# ---------------------------------------------------------------------------------------------- tables
@dataclass
class _Row:
    number: int  # spreadsheet row number (header = 1)
    cells: list[Cell]

    def get(self, index: int | None) -> Cell:
        if index is None or index >= len(self.cells):
            return ""
        return self.cells[index]


@dataclass
class _Draft:
    id: str
    rows: list[int]
    date: dt.date | None = None
    date_row: int | None = None
    entries: list[tuple[str, int | None, int, str]] = field(default_factory=list)  # raw name, place, row, column
    bad: bool = False


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
) -> ReadResult:
    """:func:`read_table` on rows numbered as the spreadsheet numbers them (header = 1); rows may be left out.

    The file readers hand over only the rows that hold something, already counted by their own tally;
    ``tally`` counts rows handed over by a caller.
    """
    table: list[_Row] = []
    for number, raw in rows:
        cells = [_cell(v) for v in raw]
        while cells and _blank(cells[-1]):
            cells.pop()
        if not cells:
            continue
        if tally is not None:
            tally.keep(number, len(cells))
            for j, cell in enumerate(cells):
                if isinstance(cell, str) and cell:
                    tally.text(len(cell), number, j)
        elif len(table) >= MAX_ROWS:
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
    warnings: list[str] = []
    if chosen == "long" and "game" not in info.roles:
        warnings.append(f"there is no game column: each date in column '{info.names[info.roles['date']]}' is one game")
    used = set(info.roles.values()) | set(info.ordinals)
    if chosen == "long":
        used -= {info.roles[r] for r in ("dnf",) if r in info.roles}
    ignored = [n for i, n in enumerate(info.names) if i not in used and _header_key(str(header_row.cells[i]))]
    if ignored:
        warnings.append("ignored column(s) this reader does not use: " + ", ".join(f"'{n}'" for n in ignored))
    data = table[1:]
    width = len(header_row.cells)
    problems: list[Problem] = []  # row problems (skippable)
    fatal: list[Problem] = []  # table problems
    outside: list[Problem] = []
    for row in data:
        for j in range(width, len(row.cells)):
            if not _blank(row.cells[j]):
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
    date_name = info.names[date_col] if date_col is not None else None
    dates = _DateColumn()
    if date_col is not None:
        date_cells = {row.number: row.get(date_col) for row in data if not _blank(row.get(date_col))}
        dates = _parse_dates(date_cells, info.names[date_col], source)
        fatal.extend(dates.column_problems)
        if dates.order:
            warnings.append(f"dates in column '{date_name}' were read {dates.order}")
        if dates.serials:
            warnings.append(
                f"{dates.serials} date(s) in column '{date_name}' were spreadsheet day numbers (such as 45352 for "
                "2024-03-01) and were read as dates; format the column as dates to avoid this"
            )
    if chosen == "long":
        drafts, loose = _long_drafts(data, info, dates, source)
    else:
        drafts, loose = _wide_drafts(data, info, dates, source)
    problems.extend(loose)
    # Attach outside-the-header values to their rows' games.
    bad_rows = {p.row for p in outside}
    problems.extend(outside)
    # Merge names differing only in case/spacing, then check duplicates inside games.
    mapping, merge_warnings = _merge_names(raw for d in drafts for raw, *_ in d.entries)
    warnings.extend(merge_warnings)
    games: list[tuple[_Draft, Game]] = []
    for draft in drafts:
        if any(r in bad_rows for r in draft.rows):
            draft.bad = True
        seen: dict[str, int] = {}
        entries = []
        for raw, place, where, column in draft.entries:
            name = mapping[raw]
            if name in seen:
                also = f" (also row {seen[name]})" if seen[name] != where else ""
                problems.append(
                    Problem(f"player '{name}' appears twice in game '{draft.id}'{also}", where, column, source)
                )
                draft.bad = True
                continue
            seen[name] = where
            entries.append(Entry(name, place))
        if not draft.bad:
            games.append((draft, Game(draft.id, tuple(entries), draft.date)))
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
    ordered = [g for _, g in games]
    if ordered and all(g.date is not None for g in ordered):
        ordered.sort(key=lambda g: g.date)  # type: ignore[arg-type, return-value]
    history = GameHistory(ordered, warnings=warnings)
    return ReadResult(
        history=history,
        shape=chosen,
        warnings=history.warnings,
        skipped=skipped,
        columns=tuple(info.names),
    )


def _problem_order(p: Problem) -> tuple[int, str]:
    return (p.row if p.row is not None else 0, p.column or "")


def _long_drafts(
    data: list[_Row], info: _Header, dates: _DateColumn, source: str | None
) -> tuple[list[_Draft], list[Problem]]:
    """Group long-shape rows into games; problems with no known game are returned as loose problems."""
    player_col, place_col = info.roles["player"], info.roles["place"]
    date_col = info.roles.get("date")
    # Without a game column the date says which game a row belongs to (one game a day; see _choose_shape).
    game_col = info.roles.get("game", date_col)
    assert game_col is not None
    names = info.names
    drafts: dict[str, _Draft] = {}
    loose: list[Problem] = []
    row_problems: list[tuple[_Draft, Problem]] = []
    for row in data:
        game_cell = row.get(game_col)
        if game_col == date_col and row.number in dates.row_problems:
            loose.append(dates.row_problems[row.number])
            continue
        if _blank(game_cell):
            filled = [names[j] for j, c in enumerate(row.cells) if j < len(names) and not _blank(c)]
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
            game_id = " ".join(str(game_cell).split())
        draft = drafts.get(game_id)
        if draft is None:
            draft = drafts[game_id] = _Draft(game_id, [])
        draft.rows.append(row.number)
        if date_col is not None and not _blank(row.get(date_col)):
            problem = dates.row_problems.get(row.number)
            if problem is not None:
                row_problems.append((draft, problem))
            date = dates.dates.get(row.number)
            if date is not None:
                if draft.date is None:
                    draft.date, draft.date_row = date, row.number
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
        name = str(row.get(player_col))
        place_cell = row.get(place_col)
        if _blank(name):
            what = f"place '{place_cell}'" if not _blank(place_cell) else "a row"
            row_problems.append(
                (
                    draft,
                    Problem(f"{what} in game '{game_id}' has no player name", row.number, names[player_col], source),
                )
            )
            continue
        try:
            place = _parse_place(place_cell)
        except ValueError as exc:
            row_problems.append(
                (draft, Problem(f"{exc} (player '{name.strip()}')", row.number, names[place_col], source))
            )
            continue
        draft.entries.append((name, place, row.number, names[player_col]))
    problems = list(loose)
    for draft, problem in row_problems:
        draft.bad = True
        problems.append(problem)
    return list(drafts.values()), problems


def _parse_place(cell: Cell) -> int | None:
    if isinstance(cell, dt.date):
        raise ValueError(f"place '{cell}' is a date, not a place")
    text = cell.strip()
    if text.isdigit() and text.isascii() and 0 < len(text) <= 6:  # the common case, fast
        number = int(text)
        if number >= 1:
            return number
    if not text or text.casefold() in {"dnf", "did not finish", "-", "dq", "dns"}:
        return None
    match = re.match(r"^(\d+)(?:st|nd|rd|th)?$", text.casefold())
    if match is None or len(match.group(1)) > 6:
        if re.match(r"^\d+\.0+$", text):
            return _parse_place(text.split(".")[0])
        raise ValueError(f"place '{text}' is not a whole number (1 is the best place) or DNF")
    number = int(match.group(1))
    if number < 1:
        raise ValueError(f"place {number} is not positive (1 is the best place)")
    return number


def _split_names(cell: Cell) -> list[str]:
    if isinstance(cell, dt.date):
        return [cell.isoformat()]
    return [part for part in (p.strip() for p in cell.split(_TIE_SEPARATOR)) if part]


def _wide_drafts(
    data: list[_Row], info: _Header, dates: _DateColumn, source: str | None
) -> tuple[list[_Draft], list[Problem]]:
    """One game per wide-shape row; place columns give places, ``/`` separates tied players."""
    game_col = info.roles.get("game")
    date_col = info.roles.get("date")
    dnf_col = info.roles.get("dnf")
    names = info.names
    place_cols = sorted(info.ordinals, key=lambda j: info.ordinals[j])
    drafts: list[_Draft] = []
    problems: list[Problem] = []
    ids: dict[str, int] = {}
    for k, row in enumerate(data, start=1):
        if game_col is not None and not _blank(row.get(game_col)):
            game_id = " ".join(str(row.get(game_col)).split())
        else:
            game_id = f"game {k}"
        draft = _Draft(game_id, [row.number])
        drafts.append(draft)
        row_problems: list[Problem] = []
        if game_id in ids:
            where = names[game_col] if game_col is not None else None
            row_problems.append(Problem(f"game '{game_id}' is also on row {ids[game_id]}", row.number, where, source))
        ids.setdefault(game_id, row.number)
        if date_col is not None and not _blank(row.get(date_col)):
            if row.number in dates.row_problems:
                row_problems.append(dates.row_problems[row.number])
            draft.date = dates.dates.get(row.number)
        for j in place_cols:
            for name in _split_names(row.get(j)):
                draft.entries.append((name, info.ordinals[j], row.number, names[j]))
        if dnf_col is not None:
            for name in _split_names(row.get(dnf_col)):
                draft.entries.append((name, None, row.number, names[dnf_col]))
        if not draft.entries:
            filled = [names[j] for j, c in enumerate(row.cells) if j < len(names) and not _blank(c)]
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


# ----------------------------------------------------------------------------------------------- files
def _read_limited(file: Any, filename: str | None) -> tuple[bytes, str | None]:
    """The file's bytes and its name, refusing anything over MAX_BYTES before reading it all."""
    limit = f"{MAX_BYTES // (1024 * 1024)} MB"
    if isinstance(file, (bytes, bytearray, memoryview)):
        data = bytes(file)
        if len(data) > MAX_BYTES:
            raise _too_big(
                f"the file is {len(data) / 1e6:.1f} MB; this reader accepts files up to {limit}", source=filename
            )
        return data, filename
    if isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        name = filename or os.path.basename(path)
        try:
            size = os.path.getsize(path)
        except OSError:
            raise HistoryError([Problem(f"there is no readable file '{path}'")]) from None
        if os.path.isdir(path):
            raise HistoryError([Problem(f"'{path}' is a folder, not a file")])
        if size > MAX_BYTES:
            raise _too_big(f"the file is {size / 1e6:.1f} MB; this reader accepts files up to {limit}", source=name)
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as exc:
            raise HistoryError([Problem(f"the file '{path}' cannot be read: {exc.strerror or exc}")]) from None
        if len(data) > MAX_BYTES:
            raise _too_big(f"the file is larger than {limit}; this reader accepts files up to {limit}", source=name)
        return data, name
    if hasattr(file, "read"):
        given = filename or getattr(file, "name", None)
        label = os.path.basename(given) if isinstance(given, str) else None
        content = file.read(MAX_BYTES + 1)
        if isinstance(content, str):
            content = content.encode("utf-8")
        if len(content) > MAX_BYTES:
            raise _too_big(f"the file is larger than {limit}; this reader accepts files up to {limit}", source=label)
        return bytes(content), label
    raise HistoryError([Problem(f"cannot read a game history from a {type(file).__name__}")])


def _kind(data: bytes, filename: str | None) -> str:
    ext = os.path.splitext(filename)[1].lower() if filename else ""
    if ext and ext not in _EXTENSIONS:
        raise HistoryError(
            [
                Problem(
                    f"'{filename}' is not a file type this reader knows; use .csv, .tsv, .txt, .xlsx or .ods",
                    source=filename,
                )
            ]
        )
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                listing = set(archive.namelist())
                mimetype = archive.read("mimetype")[:100] if "mimetype" in listing else b""
        except (
            zipfile.BadZipFile,
            zlib.error,
            KeyError,
            OSError,
            ValueError,
            RuntimeError,
            EOFError,
            NotImplementedError,
        ):
            raise HistoryError(
                [Problem("the file looks like a spreadsheet but is damaged and cannot be opened", source=filename)]
            ) from None
        unpacked = sum(info.file_size for info in archive.infolist())
        if unpacked > MAX_UNPACKED:
            raise _too_big(
                f"the spreadsheet unpacks to {unpacked / 1e6:.0f} MB; this reader accepts up to "
                f"{MAX_UNPACKED // (1024 * 1024)} MB unpacked",
                source=filename,
            )
        if b"opendocument.spreadsheet" in mimetype:
            return "ods"
        if "xl/workbook.xml" in listing:
            return "xlsx"
        raise HistoryError(
            [Problem("the file is a zip archive but neither an Excel nor an ODS spreadsheet", source=filename)]
        )
    if ext in {".xlsx", ".xlsm", ".ods"}:
        raise HistoryError(
            [Problem(f"the file is named {ext} but is not a valid spreadsheet of that kind", source=filename)]
        )
    return "text"


def read_file(
    file: str | os.PathLike[str] | bytes | IO[bytes],
    *,
    filename: str | None = None,
    shape: str = "auto",
    skip_bad_rows: bool = False,
) -> ReadResult:
    """Read a game history from a file: a path, bytes or a binary file object.

    The format comes from the file name's extension (``.csv``, ``.tsv``, ``.txt``, ``.xlsx``, ``.ods``)
    or, without one, from the content.  Text files may use ``,``, ``;`` or tab separators (sniffed) and
    may start with a UTF-8 byte-order mark.  Files over :data:`MAX_BYTES` are refused before parsing;
    every other bound (:data:`MAX_SHEET_ROWS` rows blank ones included, :data:`MAX_ROWS` rows with values,
    :data:`MAX_CELLS` cells, :data:`MAX_CELL_CHARS` characters a cell, :data:`MAX_TEXT_CHARS` in all) stops
    the reading as soon as it is passed, with a :class:`HistoryError` saying where.  See :func:`read_table`
    for the rest.
    """
    _check_shape(shape)
    data, name = _read_limited(file, filename)
    kind = _kind(data, name)
    notes: list[str] = []
    if kind == "xlsx":
        rows = _xlsx_rows(data, name, notes, _Tally(name, "sheet"))
    elif kind == "ods":
        rows = _ods_rows(data, name, notes, _Tally(name, "sheet"))
    else:
        rows = _text_rows(data, name, _Tally(name, "file"))
    result = _read_rows(rows, shape=shape, source=name, skip_bad_rows=skip_bad_rows)
    if notes:
        result = dataclasses.replace(result, warnings=(*notes, *result.warnings))
    return result


def _decode(data: bytes, source: str | None) -> str:
    if b"\x00" in data[:4096]:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            try:
                return data.decode("utf-16")
            except UnicodeDecodeError:
                pass
        raise HistoryError([Problem("the file is not a text table (it contains binary data)", source=source)])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _sniff_delimiter(text: str, filename: str | None) -> str:
    """The separator of a text table, judged from its first lines (``text`` is only the file's start)."""
    if filename and filename.lower().endswith(".tsv"):
        return "\t"
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if not lines:
        return ","
    best, best_score = ",", (-1, -1.0)
    for delimiter in (",", ";", "\t"):
        try:
            counts = [len(r) for r in csv.reader(lines, delimiter=delimiter)]
        except csv.Error:
            continue
        header = counts[0] if counts else 0
        if header < 2:
            continue
        consistent = sum(1 for c in counts if c <= header) / len(counts)
        score = (header if consistent > 0.8 else 0, consistent)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _text_rows(data: bytes, source: str | None, tally: _Tally) -> list[tuple[int, list[str]]]:
    """The rows of a text table that hold something, numbered by record (blank lines counted, not kept)."""
    text = _decode(data, source)
    if "\x00" in text:
        raise HistoryError([Problem("the file is not a text table (it contains binary data)", source=source)])
    delimiter = _sniff_delimiter(text[:65_536], source)
    rows: list[tuple[int, list[str]]] = []
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    number = 0
    try:
        for row in reader:
            number += 1
            tally.record(number)
            while row and not row[-1].strip():
                row.pop()
            if not row:
                continue
            tally.keep(number, len(row))
            lengths = [len(c) for c in row]
            longest = max(lengths)
            if longest > MAX_CELL_CHARS:
                raise tally.cell_too_long(number, lengths.index(longest))
            tally.add_text(sum(lengths), number)
            rows.append((number, row))
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise tally.cell_too_long(number + 1, None) from None
        raise HistoryError(
            [Problem(f"the file cannot be read as a table: {exc}", reader.line_num or None, None, source)]
        ) from None
    return rows


def _sheet_note(names: Sequence[str], notes: list[str]) -> None:
    if len(names) > 1:
        others = ", ".join(f"'{n}'" for n in names[1:])
        notes.append(f"the file has {len(names)} sheets; only the first, '{names[0]}', was read (not {others})")


# ------------------------------------------------------------------------------------ streamed XML parts
class _Damaged(Exception):
    """A spreadsheet's XML is not what its format promises; the message says what (for the user)."""


#: Most entries kept from a workbook's style and sheet lists (Excel allows 64,000 cell formats).
_MAX_XML_ITEMS = 100_000


def _stream_xml(
    archive: zipfile.ZipFile,
    member: str,
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None] | None = None,
    text: Callable[[str], None] | None = None,
) -> None:
    """Feed one XML member of a zip archive through expat in chunks, with namespaces resolved as ``uri}name``.

    Memory stays at a chunk plus what the handlers keep: no tree is built.  A document type declaration
    (the carrier of entity-expansion bombs; spreadsheets never have one) and any single token longer than
    :data:`MAX_XML_TOKEN` are refused.  Handlers stop the reading by raising.
    """
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.buffer_size = 65_536

    def refuse_doctype(*_: Any) -> None:
        raise _Damaged("it contains an XML document type declaration, which spreadsheets never have")

    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_doctype
    parser.StartElementHandler = start
    if end is not None:
        parser.EndElementHandler = end
    if text is not None:
        parser.CharacterDataHandler = text
    fed = 0
    with archive.open(member) as stream:
        while True:
            chunk = stream.read(65_536)
            fed += len(chunk)
            parser.Parse(chunk, not chunk)
            if not chunk:
                return
            if fed - max(parser.CurrentByteIndex, 0) > MAX_XML_TOKEN:
                raise _Damaged(f"its part {member} holds an XML tag longer than {MAX_XML_TOKEN // 1024:,} kB")


def _digits(text: str | None, limit: int) -> TypeGuard[str]:
    """Whether ``text`` is a plain decimal number of fewer than ``limit`` ASCII digits."""
    return text is not None and 0 < len(text) < limit and text.isascii() and text.isdigit()


def _local(name: str) -> str:
    return name.rpartition("}")[2]


def _column_index(reference: str) -> int | None:
    """0-based column of a cell reference such as ``AB12`` (None if it names no column)."""
    index = 0
    for n, char in enumerate(reference):
        if "A" <= char <= "Z":
            if n >= 4:  # past column XFD: far beyond anything read
                return MAX_COLUMNS + 1
            index = index * 26 + ord(char) - 64
        elif "a" <= char <= "z":
            if n >= 4:
                return MAX_COLUMNS + 1
            index = index * 26 + ord(char) - 96
        else:
            break
    return index - 1 if index else None


@dataclass
class _Workbook:
    sheets: list[tuple[str, str]] = field(default_factory=list)  # (name, relationship id) in order
    date1904: bool = False
    targets: dict[str, str] = field(default_factory=dict)  # relationship id -> part name
    strings_part: str | None = None
    styles_part: str | None = None


def _xlsx_workbook(archive: zipfile.ZipFile) -> _Workbook:
    book = _Workbook()

    def on_book(name: str, attrs: dict[str, str]) -> None:
        local = _local(name)
        if local == "sheet" and len(book.sheets) < _MAX_XML_ITEMS:
            rid = next((v for k, v in attrs.items() if _local(k) == "id"), "")
            book.sheets.append((attrs.get("name", f"sheet {len(book.sheets) + 1}"), rid))
        elif local == "workbookPr":
            book.date1904 = attrs.get("date1904", "").lower() in {"1", "true"}

    _stream_xml(archive, "xl/workbook.xml", on_book)
    rels = "xl/_rels/workbook.xml.rels"

    def on_rel(name: str, attrs: dict[str, str]) -> None:
        if _local(name) != "Relationship" or len(book.targets) >= _MAX_XML_ITEMS:
            return
        target = attrs.get("Target", "")
        part = target.lstrip("/") if target.startswith("/") else posixpath.normpath("xl/" + target)
        kind = attrs.get("Type", "").rpartition("/")[2]
        if kind == "worksheet":
            book.targets[attrs.get("Id", "")] = part
        elif kind == "sharedStrings":
            book.strings_part = part
        elif kind == "styles":
            book.styles_part = part

    if rels in archive.NameToInfo:
        _stream_xml(archive, rels, on_rel)
    book.sheets = [s for s in book.sheets if s[1] in book.targets] if book.targets else book.sheets
    return book


def _xlsx_date_styles(archive: zipfile.ZipFile, part: str | None) -> tuple[set[int], set[int]]:
    """The cell styles (indexes into ``cellXfs``) whose number format shows a date, and a duration."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

    if part is None or part not in archive.NameToInfo:
        return set(), set()
    formats: dict[int, str] = dict(BUILTIN_FORMATS)
    styles: list[int] = []
    inside = [False]

    def start(name: str, attrs: dict[str, str]) -> None:
        local = _local(name)
        if local == "numFmt" and len(formats) < _MAX_XML_ITEMS:
            formats[int(attrs.get("numFmtId", "0"))] = attrs.get("formatCode", "")
        elif local == "cellXfs":
            inside[0] = True
        elif local == "xf" and inside[0]:
            if len(styles) >= _MAX_XML_ITEMS:
                raise _Damaged(f"it declares more than {_MAX_XML_ITEMS:,} cell styles")
            styles.append(int(attrs.get("numFmtId", "0")))

    def end(name: str) -> None:
        if _local(name) == "cellXfs":
            inside[0] = False

    _stream_xml(archive, part, start, end)
    dates = {i for i, f in enumerate(styles) if is_date_format(formats.get(f))}
    durations = {i for i in dates if is_timedelta_format(formats.get(styles[i]))}
    return dates, durations


@dataclass
class _Strings:
    """A workbook's shared texts, read until the first that passes a bound (``stopped`` is its index)."""

    texts: list[str] = field(default_factory=list)
    stopped: int | None = None
    why: str = ""


class _StopReading(Exception):
    pass


def _xlsx_strings(archive: zipfile.ZipFile, part: str | None) -> _Strings:
    """The shared-string table, each text bounded by MAX_CELL_CHARS and all together by MAX_TEXT_CHARS."""
    out = _Strings()
    if part is None or part not in archive.NameToInfo:
        return out
    parts: list[str] = []
    state = {"depth": 0, "t": 0, "phonetic": 0, "length": 0, "total": 0}

    def start(name: str, attrs: dict[str, str]) -> None:
        local = _local(name)
        if local == "si":
            parts.clear()
            state["length"] = 0
        elif local == "t":
            state["t"] += 1
        elif local == "rPh":
            state["phonetic"] += 1

    def end(name: str) -> None:
        local = _local(name)
        if local == "si":
            out.texts.append("".join(parts))
        elif local == "t":
            state["t"] -= 1
        elif local == "rPh":
            state["phonetic"] -= 1

    def text(data: str) -> None:
        if state["t"] and not state["phonetic"]:
            state["length"] += len(data)
            state["total"] += len(data)
            if state["length"] > MAX_CELL_CHARS:
                out.why = f"a cell holds more than {MAX_CELL_CHARS:,} characters (the most a spreadsheet cell holds)"
                raise _StopReading
            if state["total"] > MAX_TEXT_CHARS:
                out.why = (
                    f"the workbook's texts hold more than {MAX_TEXT_CHARS:,} characters in all; this reader accepts "
                    f"at most {MAX_TEXT_CHARS:,}"
                )
                raise _StopReading
            parts.append(data)

    try:
        _stream_xml(archive, part, start, end, text)
    except _StopReading:
        out.stopped = len(out.texts)
    return out


class _XlsxSheet:
    """Expat handlers that turn a worksheet's XML into numbered rows of values, bounded as they stream."""

    def __init__(
        self, strings: _Strings, dates: set[int], durations: set[int], epoch: dt.datetime, tally: _Tally
    ) -> None:
        self.strings, self.dates, self.durations, self.epoch, self.tally = strings, dates, durations, epoch, tally
        self.rows: list[tuple[int, list[Any]]] = []
        self.number = 0  # current row number
        self.cells: list[Any] = []
        self.column = -1
        self.kind = "n"
        self.style = 0
        self.parts: list[str] = []
        self.length = 0
        self.collect = 0  # inside a <v>, or a <t> of an inline string
        self.inline = False
        self.phonetic = 0
        self.cell_elements = 0

    def start(self, name: str, attrs: dict[str, str]) -> None:
        local = _local(name)
        if local == "c":
            self.cell_elements += 1
            if self.cell_elements > MAX_CELLS:
                raise _too_big(
                    f"the sheet has more than {MAX_CELLS:,} cells; this reader accepts at most {MAX_CELLS:,}",
                    self.number,
                    None,
                    self.tally.source,
                )
            reference = attrs.get("r")
            found = _column_index(reference) if reference else None
            self.column = found if found is not None else self.column + 1
            self.kind = attrs.get("t", "n")
            style = attrs.get("s")
            self.style = int(style) if _digits(style, 10) else 0
            self.parts = []
            self.length = 0
            self.inline = False
        elif local == "row":
            reference = attrs.get("r")
            self.number = int(reference) if _digits(reference, 12) else self.number + 1
            self.tally.record(self.number)
            self.cells = []
            self.column = -1
        elif local == "v":
            self.collect += 1
        elif local == "is":
            self.inline = True
        elif local == "t" and self.inline:
            self.collect += 1
        elif local == "rPh":
            self.phonetic += 1

    def text(self, data: str) -> None:
        if self.collect and not self.phonetic:
            self.length += len(data)
            if self.length > MAX_CELL_CHARS:
                raise self.tally.cell_too_long(self.number, self.column)
            self.parts.append(data)

    def end(self, name: str) -> None:
        local = _local(name)
        if local in ("v", "t"):
            if self.collect:
                self.collect -= 1
        elif local == "rPh":
            self.phonetic -= 1
        elif local == "c":
            if self.column > MAX_COLUMNS:
                return
            value = self._value("".join(self.parts))
            if value is None:
                return
            if isinstance(value, str):
                self.tally.text(len(value), self.number, self.column)
            if self.column >= len(self.cells):
                self.cells.extend([None] * (self.column + 1 - len(self.cells)))
            self.cells[self.column] = value
        elif local == "row":
            cells = self.cells
            while cells and (cells[-1] is None or (isinstance(cells[-1], str) and not cells[-1].strip())):
                cells.pop()
            if cells:
                self.tally.keep(self.number, len(cells))
                self.rows.append((self.number, cells))
            self.cells = []

    def _value(self, text: str) -> Any:
        """A cell's value as openpyxl gives it with ``data_only=True`` (cached results of formulas)."""
        kind = self.kind
        if kind == "inlineStr":
            return text if self.inline else None
        if not text:
            return None
        if kind == "s":
            index = int(text)
            if self.strings.stopped is not None and index >= self.strings.stopped:
                if index == self.strings.stopped:
                    raise _too_big(self.strings.why, self.number, _column_letter(self.column), self.tally.source)
                raise _too_big(
                    "the text of this cell comes after a text that passed a bound (" + self.strings.why + ")",
                    self.number,
                    _column_letter(self.column),
                    self.tally.source,
                )
            return self.strings.texts[index]
        if kind == "b":
            return text.strip() not in ("0", "")
        if kind in ("str", "e"):
            return text
        if kind == "d":
            return dt.datetime.fromisoformat(text)
        number: int | float = float(text) if any(c in text for c in ".eE") else int(text)
        if self.style in self.dates:
            from openpyxl.utils.datetime import from_excel

            try:
                return from_excel(number, self.epoch, timedelta=self.style in self.durations)
            except (OverflowError, ValueError):
                return "#VALUE!"
        return number


def _xlsx_rows(data: bytes, source: str | None, notes: list[str], tally: _Tally) -> list[tuple[int, list[Any]]]:
    """The rows of the first worksheet that hold something, streamed from its XML with every bound enforced.

    Not openpyxl's reader: it loads the whole shared-string table and yields every missing row up to the
    last row number, so a tiny file could take gigabytes.  Values are read as openpyxl reads them.
    """
    from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

    damaged = (
        zipfile.BadZipFile,
        zlib.error,
        KeyError,
        OSError,
        ValueError,
        RuntimeError,
        EOFError,
        NotImplementedError,
    )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            book = _xlsx_workbook(archive)
            if not book.sheets:
                raise HistoryError([Problem("the Excel file has no sheets", source=source)])
            _sheet_note([name for name, _ in book.sheets], notes)
            first = book.targets.get(book.sheets[0][1], "xl/worksheets/sheet1.xml")
            dates, durations = _xlsx_date_styles(archive, book.styles_part or "xl/styles.xml")
            strings = _xlsx_strings(archive, book.strings_part or "xl/sharedStrings.xml")
            epoch = CALENDAR_MAC_1904 if book.date1904 else CALENDAR_WINDOWS_1900
            sheet = _XlsxSheet(strings, dates, durations, epoch, tally)
            _stream_xml(archive, first, sheet.start, sheet.end, sheet.text)
            return sheet.rows
    except HistoryError:
        raise
    except _Damaged as exc:
        raise HistoryError([Problem(f"the Excel file cannot be read: {exc}", source=source)]) from None
    except expat.ExpatError as exc:
        raise HistoryError([Problem(f"the Excel file is damaged (its XML is broken: {exc})", source=source)]) from None
    except (*damaged, IndexError) as exc:
        raise HistoryError([Problem(f"the Excel file cannot be read ({exc})", source=source)]) from None


_ODS_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_ODS_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_ODS_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0}"


class _OdsSheet:
    """Expat handlers for an ODS content.xml: the first table's rows, repeats expanded within the bounds.

    A cell's value is the text of its paragraphs (``text:p`` children, not comments), or for dates and
    whole numbers the stored value, as a spreadsheet shows them.
    """

    def __init__(self, tally: _Tally) -> None:
        self.tally = tally
        self.names: list[str] = []
        self.rows: list[tuple[int, list[Any]]] = []
        self.number = 0  # last row number used
        self.depth = 0  # nesting of tables (a cell may hold a sub-table)
        self.level = 0  # element nesting inside the first table
        self.cells: list[Any] = []
        self.cell_level = 0  # level of the open cell, 0 when none
        self.cell: dict[str, str] = {}
        self.paragraphs: list[str] = []
        self.parts: list[str] = []
        self.paragraph_level = 0
        self.length = 0
        self.row_repeat = 1
        self.cell_elements = 0

    def _active(self) -> bool:
        return self.depth == 1 and len(self.names) == 1

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _ODS_TABLE + "table":
            self.depth += 1
            if self.depth == 1:
                if len(self.names) < _MAX_XML_ITEMS:
                    self.names.append(attrs.get(_ODS_TABLE + "name") or f"sheet {len(self.names) + 1}")
                self.level = 0
            return
        if not self._active():
            return
        self.level += 1
        if name == _ODS_TABLE + "table-row":
            self.row_repeat = _repeat(attrs.get(_ODS_TABLE + "number-rows-repeated"))
            self.tally.record(self.number + 1)
            self.cells = []
        elif name in (_ODS_TABLE + "table-cell", _ODS_TABLE + "covered-table-cell"):
            self.cell_elements += 1
            if self.cell_elements > MAX_CELLS:
                raise _too_big(
                    f"the sheet has more than {MAX_CELLS:,} cells; this reader accepts at most {MAX_CELLS:,}",
                    self.number + 1,
                    None,
                    self.tally.source,
                )
            self.cell_level = self.level
            self.cell = attrs
            self.paragraphs = []
            self.length = 0
        elif name == _ODS_TEXT + "p" and self.cell_level and self.level == self.cell_level + 1:
            self.paragraph_level = self.level
            self.parts = []

    def text(self, data: str) -> None:
        if self.paragraph_level and self._active():
            self.length += len(data)
            if self.length > MAX_CELL_CHARS:
                raise self.tally.cell_too_long(self.number + 1, len(self.cells))
            self.parts.append(data)

    def end(self, name: str) -> None:
        if name == _ODS_TABLE + "table":
            self.depth -= 1
            return
        if not self._active():
            return
        if self.paragraph_level and self.level == self.paragraph_level:
            self.paragraphs.append("".join(self.parts))
            self.paragraph_level = 0
        elif self.cell_level and self.level == self.cell_level:
            self.cell_level = 0
            times = _repeat(self.cell.get(_ODS_TABLE + "number-columns-repeated"))
            room = MAX_COLUMNS + 1 - len(self.cells)
            if room > 0:
                value = self._value()
                self.cells.extend([value] * min(times, room))
        elif name == _ODS_TABLE + "table-row":
            cells = self.cells
            while cells and (cells[-1] is None or not str(cells[-1]).strip()):
                cells.pop()
            first = self.number + 1
            self.number += self.row_repeat
            if cells:
                repeat = self.row_repeat
                self.tally.keep(first, len(cells), repeat)
                for j, cell in enumerate(cells):
                    if isinstance(cell, str) and cell:
                        self.tally.text(len(cell), first, j, repeat)
                self.rows.extend((first + k, list(cells)) for k in range(repeat))
            self.cells = []
        self.level -= 1

    def _value(self) -> Any:
        attrs = self.cell
        kind = attrs.get(_ODS_OFFICE + "value-type")
        shown = "\n".join(self.paragraphs)
        if kind == "date":
            try:
                return dt.datetime.fromisoformat(attrs.get(_ODS_OFFICE + "date-value") or "")
            except ValueError:
                return shown
        if kind in {"float", "percentage", "currency"}:
            raw = attrs.get(_ODS_OFFICE + "value")
            return raw if raw is not None and re.fullmatch(r"-?\d+", raw) else shown or raw
        return shown


def _repeat(text: str | None) -> int:
    """A repeat count (``number-rows-repeated``, ``number-columns-repeated``); a damaged one is an error."""
    if not text:
        return 1
    if not _digits(text, 13):
        raise _Damaged("a repeat count is not a number")
    return max(1, int(text))


def _ods_rows(data: bytes, source: str | None, notes: list[str], tally: _Tally) -> list[tuple[int, list[Any]]]:
    """The rows of the first sheet of an ODS file that hold something, streamed from its content.xml.

    Repeated rows and cells (``number-rows-repeated``, ``number-columns-repeated``) are expanded only where
    they hold values, within the row, column and cell bounds; blank rows only advance the row number.
    """
    sheet = _OdsSheet(tally)
    damaged = (zipfile.BadZipFile, zlib.error, KeyError, OSError, RuntimeError, EOFError, NotImplementedError)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "content.xml" not in archive.NameToInfo:
                raise HistoryError([Problem("the ODS file is damaged: it has no readable content", source=source)])
            _stream_xml(archive, "content.xml", sheet.start, sheet.end, sheet.text)
    except HistoryError:
        raise
    except _Damaged as exc:
        raise HistoryError([Problem(f"the ODS file is damaged ({exc})", source=source)]) from None
    except (*damaged, expat.ExpatError, ValueError) as exc:
        raise HistoryError([Problem(f"the ODS file is damaged ({exc})", source=source)]) from None
    if not sheet.names:
        raise HistoryError([Problem("the ODS file has no sheets", source=source)])
    _sheet_note(sheet.names, notes)
    return sheet.rows


def load_history(spec: str) -> GameHistory:
    """Load a history from ``sample:NAME`` (a bundled sample), ``-`` (CSV on standard input) or a file path."""
    if spec.startswith("sample:"):
        from ratings.samples import load_sample

        return load_sample(spec.split(":", 1)[1])
    if spec == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        return read_file(data, filename="stdin.csv").history
    return read_file(spec).history


# ---------------------------------------------------------------------------------------------- writing
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
