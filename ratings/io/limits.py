"""The bounds on what a reader takes in, and the tally that enforces them as a file streams in.

The bounds protect a hosted app from what anyone may upload (:data:`HOSTED`): uploads, sheets and standard input
are read within them.  A local file a user names on the command line or hands to :func:`ratings.io.read_file` by
its path is trusted and read without them (``limits=None``), however large.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ratings.history import HistoryError, Problem
from ratings.io.cells import _column_letter

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
#: Most values a table may hold through repeat counts, beyond the copy the file writes out: an ODS row written once
#: with ``number-rows-repeated`` (each later copy counts all its values), a cell with ``number-columns-repeated``
#: (each later copy of a value counts one).  Every other bound counts bytes the file had to spend; a repeat count
#: costs a few bytes whatever its size, so within the row and cell bounds alone a 574-byte file stood for 199,999
#: games.  Real sheets repeat a value or a row a few times (a tie, two identical games in a row).
MAX_REPEATED_VALUES = 20_000
#: Longest text of one cell, in characters (the most an Excel cell holds).
MAX_CELL_CHARS = 32_767
#: Most text read from one table, in characters, all cells together.
MAX_TEXT_CHARS = 20_000_000
#: Largest ratio of a spreadsheet's unpacked size to its file size, checked once it unpacks past
#: :data:`RATIO_CHECKED_FROM`: real workbooks pack their XML 5-30 times (the bundled samples written by openpyxl:
#: 9-14), a file made to inflate packs it about a thousand times.
MAX_RATIO = 100
#: Unpacked size from which :data:`MAX_RATIO` applies (small files may pack as tightly as they like).
RATIO_CHECKED_FROM = 20 * 1024 * 1024
#: Most processor time (seconds of this thread's CPU) reading one file may take before it is refused, whatever
#: packs the work into the bounds above (tens of millions of empty XML elements, say).  ``None`` lifts it (the
#: command line's ``--read-seconds 0``, for trusted local files).
READ_CPU_SECONDS = 10.0
#: Longest single XML token (a tag with its attributes) a spreadsheet may contain, in bytes.
MAX_XML_TOKEN = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The bounds a read is held to: every bound of this module, with these three adjustable.

    ``max_bytes``: the largest file (:data:`MAX_BYTES`); ``max_rows``: the most rows holding a value
    (:data:`MAX_ROWS`); ``cpu_seconds``: the most processor time (:data:`READ_CPU_SECONDS`; None: no limit).
    ``limits=None`` wherever a :class:`Limits` is taken means none of the bounds (a trusted local file).
    """

    max_bytes: int = MAX_BYTES
    max_rows: int = MAX_ROWS
    cpu_seconds: float | None = READ_CPU_SECONDS


#: The bounds of a hosted app: what uploads, sheets and standard input are read within.
HOSTED = Limits()


def _too_big(what: str, row: int | None = None, column: str | None = None, source: str | None = None) -> HistoryError:
    return HistoryError([Problem(what, row, column, source)])


class _Tally:
    """What a reader has taken in so far; raises :class:`HistoryError` the moment a bound is passed.

    Every reader (text, xlsx, ods, rows handed to :func:`read_table`) reports each row record it meets
    (:meth:`record`), each row that holds something (:meth:`keep`) and each cell's text (:meth:`text`), so
    that no input is read further than the first bound it passes.
    """

    def __init__(
        self,
        source: str | None,
        noun: str = "table",
        cpu_seconds: float | None = None,
        limits: Limits | None = HOSTED,
    ) -> None:
        """``limits=None``: count, refuse nothing (a trusted file; ``cpu_seconds`` still applies when given)."""
        self.source = source
        self.noun = noun
        self.bounded = limits is not None
        self.max_rows = limits.max_rows if limits is not None else MAX_ROWS
        self.cpu_seconds = cpu_seconds
        self.until = None if cpu_seconds is None else time.thread_time() + cpu_seconds
        self.records = 0  # row records met, blank ones included
        self.nonblank = 0  # rows holding a value
        self.cells = 0  # cells kept
        self.chars = 0  # characters kept
        self.copies = 0  # values held through repeat counts, beyond the copy written out

    def tick(self) -> None:
        """Refuse the input once reading it has used more than ``cpu_seconds`` of this thread's processor time."""
        if self.until is not None and time.thread_time() > self.until:
            raise _too_big(
                f"reading the {self.noun} took more than {self.cpu_seconds:g} seconds of processing, the most this "
                "reader spends on one file (it holds far more than its size suggests); nothing of it was used",
                source=self.source,
            )

    def record(self, number: int) -> None:
        """One row record (a line of text, a ``<row>`` element), blank or not."""
        self.records += 1
        if not self.records & 0x3FFF:
            self.tick()
        if self.bounded and self.records > MAX_SHEET_ROWS:
            raise _too_big(
                f"the {self.noun} has more than {MAX_SHEET_ROWS:,} rows, blank rows included; this reader accepts "
                f"at most {MAX_SHEET_ROWS:,}",
                number,
                None,
                self.source,
            )

    def repeated(self, copies: int, number: int) -> None:
        """``copies`` values the rows from ``number`` hold only through repeat counts (see
        :data:`MAX_REPEATED_VALUES`), counted before the rows are built."""
        self.copies += copies
        if self.bounded and self.copies > MAX_REPEATED_VALUES:
            raise _too_big(
                f"the {self.noun} repeats its rows or cells to more than {MAX_REPEATED_VALUES:,} values beyond those "
                f"written out (a repeat count stands for copies the file does not contain); this reader accepts at "
                f"most {MAX_REPEATED_VALUES:,}",
                number,
                None,
                self.source,
            )

    def keep(self, number: int, width: int, repeat: int = 1) -> None:
        """A row (repeated ``repeat`` times) holding ``width`` cells up to its last value."""
        if not self.bounded:
            self.nonblank += repeat
            self.cells += width * repeat
            return
        if number + repeat - 1 > MAX_SHEET_ROWS:
            raise _too_big(
                f"the {self.noun} has a value on row {max(number, MAX_SHEET_ROWS + 1):,}; this reader accepts rows "
                f"up to {MAX_SHEET_ROWS:,}, blank rows included",
                number,
                None,
                self.source,
            )
        self.nonblank += repeat
        if self.nonblank > self.max_rows:
            raise _too_big(
                f"the {self.noun} has more than {self.max_rows:,} rows; this reader accepts at most {self.max_rows:,}",
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
        if self.bounded and length > MAX_CELL_CHARS:
            raise self.cell_too_long(number, column)
        self.add_text(length * repeat, number, column)

    def add_text(self, length: int, number: int | None, column: int | None = None) -> None:
        """``length`` more characters kept (cells already checked one by one)."""
        self.chars += length
        if self.bounded and self.chars > MAX_TEXT_CHARS:
            raise _too_big(
                f"the {self.noun}'s cells hold more than {MAX_TEXT_CHARS:,} characters in all; this reader accepts "
                f"at most {MAX_TEXT_CHARS:,}",
                number,
                _column_letter(column) if column is not None else None,
                self.source,
            )
