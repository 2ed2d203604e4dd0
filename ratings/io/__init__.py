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

The modules, one subject each: :mod:`~ratings.io.cells` (cell values and what a blank cell is),
:mod:`~ratings.io.limits` (the bounds on what is read), :mod:`~ratings.io.header`, :mod:`~ratings.io.places`
(places, did-not-finish words, ordinals), :mod:`~ratings.io.dates`, :mod:`~ratings.io.names`,
:mod:`~ratings.io.table` (rows to a history), :mod:`~ratings.io.text` (CSV/TSV and their encodings),
:mod:`~ratings.io.columns` (a large plain long CSV straight into arrays), :mod:`~ratings.io.contests` (Elo-MMR's
JSON contests),
:mod:`~ratings.io.spreadsheets` (.xlsx, .ods), :mod:`~ratings.io.files` (files of any kind) and
:mod:`~ratings.io.writing` (the one CSV writer and formula-quoting rule).  These are the project's only rules for
places, names, blanks, dates, ordinals and quoting: the edit grid, the record form, the sheet writer, the downloads
and the command line all use them.  Nothing here imports :mod:`ratings.samples` (which reads its files with these
readers); ``load_history``, which knows both (a path or a sample name), lives there.
"""

from __future__ import annotations

from ratings.io.files import read_file
from ratings.io.header import read_header
from ratings.io.limits import (
    HOSTED,
    MAX_BYTES,
    MAX_CELL_CHARS,
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_RATIO,
    MAX_ROWS,
    MAX_SHEET_ROWS,
    MAX_TEXT_CHARS,
    MAX_UNPACKED,
    MAX_XML_TOKEN,
    READ_CPU_SECONDS,
    Limits,
)
from ratings.io.table import SHAPES, ReadResult, read_table
from ratings.io.writing import csv_text, csv_value, safe_cell, to_long_rows, to_wide_rows, write_csv, write_rows

__all__ = [
    "HOSTED",
    "Limits",
    "MAX_BYTES",
    "MAX_CELLS",
    "MAX_CELL_CHARS",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_SHEET_ROWS",
    "MAX_TEXT_CHARS",
    "MAX_RATIO",
    "MAX_UNPACKED",
    "READ_CPU_SECONDS",
    "MAX_XML_TOKEN",
    "SHAPES",
    "ReadResult",
    "read_file",
    "read_header",
    "read_table",
    "csv_text",
    "csv_value",
    "safe_cell",
    "to_long_rows",
    "to_wide_rows",
    "write_csv",
    "write_rows",
]
