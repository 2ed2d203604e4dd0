"""A plain long CSV read column by column into the flat arrays the kernels replay, with no object per row.

Two paths give the rows as integer codes.  First the byte level (:mod:`ratings.io.long_bytes`): the file is split
in chunks of bytes by a compiled loop that codes each cell of the game, player, place and date columns by
looking its bytes up in a hash table, so that only a distinct text becomes a Python string.  A file that path
does not take (a quote character anywhere, a lone CR, a line of only white space, a row wider than the header, bytes
that are not UTF-8) goes to the C parser of pandas, read in chunks of :data:`CHUNK_ROWS` rows, each column as
categories (only a chunk's distinct texts become Python strings).  Either way every distinct text is read by the
project's one rule for its kind (:func:`ratings.io.names.clean_name`, :func:`ratings.io.places.parse_place`,
:func:`ratings.io.dates.parse_date_cells`) once, and the rows keep only integer codes.  The history is then built
from the arrays (:meth:`ratings.history.GameHistory.from_columns`), the player and place arrays handed over
without a copy and the others freed first.  So a file of millions of rows reads at more than a million rows a
second in memory bounded by a few bytes a row beyond the arrays (``benchmarks/read_large.py``).

This reader takes only what it reads exactly as the general reader (:func:`ratings.io.table.read_table`) would:
a UTF-8 text table in the long shape with game, player and place columns (and a date column), no team or weight
column, and nothing the general reader would report or merge.  Anything else (names that differ only in case, a
row with more cells than the header, a player twice in a game, another encoding) makes :func:`read_long_columns`
decline (return None): the caller then reads the file with the general reader, which reports every problem with
its row and column.  Under the hosted limits it declines as well whenever a bound could be reached, so that the
bounds are enforced by the one reader that enforces them.

The common problems of a large file, cells the general reader reports on their own rows (an unreadable place, a
blank game or player, a date that is not one, in a trusted file a value beyond the header's columns), are reported
without reading the whole file that way (``report``, as :func:`ratings.io.read_file` asks): in a file the
byte-level path took, the rows holding them are found by their codes, and the general reader reads only those
rows' games, each row under its own row number, giving the message a whole read gives; the rest of the file is
checked by this path (:func:`_problems`).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.history import GameHistory, HistoryError, Problem
from ratings.io.cells import _cell
from ratings.io.dates import DateColumn, parse_date_cells, play_order
from ratings.io.header import _choose_shape, _Header, read_header
from ratings.io.limits import MAX_CELL_CHARS, MAX_CELLS, MAX_COLUMNS, MAX_SHEET_ROWS, MAX_TEXT_CHARS, Limits
from ratings.io.names import clean_name, name_key
from ratings.io.places import parse_place
from ratings.io.table import ReadResult, _read_rows, column_warnings, date_warnings
from ratings.io.text import _sniff_delimiter

__all__ = ["CHUNK_ROWS", "read_long_columns"]

#: Rows parsed at a time (the memory of one chunk's codes and distinct texts is what the reading holds beyond the
#: arrays).
CHUNK_ROWS = 1 << 16
#: Rows checked at a time after the parse (bounds the memory of the checks).
_BLOCK = 1 << 19
#: Entries ranked at a time when the history is built (:meth:`GameHistory.from_columns`): its temporary arrays, some
#: ten of 8 bytes an entry, are made while every array of the history lives; 32,768 entries hold them to about 3 MB.
_HISTORY_BLOCK = 1 << 15
#: Bytes of the file's start read to recognise its header, separator and encoding.
_PREFIX = 1 << 16

#: Called after each chunk with the rows read so far and the most the file can hold (its lines).
Progress = Callable[[int, int], None]


class _Decline(Exception):
    """The file is not for this path (the general reader reads it)."""


class _BadText(_Decline):
    """A cell's text the general reader reports on the cell's row (an unreadable place, a blank game or player);
    the byte-level path finds its rows and has them reported from a window of the file (:func:`_problems`)."""


def _prefix_text(prefix: bytes) -> str:
    """The file's start as text, if it is UTF-8 (a character cut at the end of the prefix is dropped)."""
    data = prefix[3:] if prefix.startswith(b"\xef\xbb\xbf") else prefix
    for cut in range(4):
        try:
            return data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise _Decline


def read_long_columns(
    file: str | os.PathLike[str] | bytes,
    source: str | None,
    limits: Limits | None,
    progress: Progress | None = None,
    *,
    report: bool = False,
    pandas: bool = True,
) -> ReadResult | None:
    """Read a plain long-shape CSV (a path or its bytes) into a history from columns; None to decline (see the
    module's description).  With ``report``, cells the general reader reports on their rows raise its
    :class:`HistoryError`, with its very message (:func:`_problems`), where this reader can tell it; without, such
    a file is declined.  Without ``pandas``, a file the byte level does not take is declined too."""
    try:
        layout = _layout(file, source, limits)
        # (the parse is handed on unnamed: the history frees its arrays as it goes; rows wider than the header are
        # taken for a window only from a trusted file: the hosted bounds count their cells)
        wide = report and limits is None
        return _history(
            layout, _parse(file, layout, limits, progress, wide, pandas), source, limits, file if report else None
        )
    except (_Decline, HistoryError):
        return None
    except _Reported as reported:
        raise reported.error from None


class _Reported(Exception):
    """The general reader's error for the file's bad cells (:func:`_problems`)."""

    def __init__(self, error: HistoryError) -> None:
        super().__init__(str(error))
        self.error = error


def _parse(
    file: str | os.PathLike[str] | bytes,
    layout: _Layout,
    limits: Limits | None,
    progress: Progress | None,
    wide: bool = False,
    pandas: bool = True,
) -> _Parsed:
    """The rows as codes: at the byte level, or by pandas' C parser for a file that path does not take (quoted
    cells, a lone CR: see :mod:`ratings.io.long_bytes`), which without ``pandas`` is declined.  ``wide``: the byte
    level takes rows wider than the header, noting those with a value beyond it (:attr:`_Parsed.outside`)."""
    try:
        return _parse_bytes(file, layout, limits, progress, wide)
    except _NotTaken:
        if not pandas:
            raise _Decline from None
    # (the pandas path runs after the handler, once the exception and the arrays its frames hold are gone)
    return _parse_pandas(file, layout, limits, progress)


class _NotTaken(Exception):
    """The file is not for the byte-level path (the pandas path reads it)."""


@dataclass
class _Layout:
    """What the file's start says: its separator, header and the columns read."""

    delimiter: str
    header_cells: list[str]
    info: _Header  # the recognised header
    wanted: dict[str, int]  # role -> column index: game, player, place and (if any) date
    size: int  # bytes
    lines: int  # line breaks + 1: the most rows the file can hold
    data_start: int  # the byte after the header's line (-1: no LF ends it)


def _layout(file: str | os.PathLike[str] | bytes, source: str | None, limits: Limits | None) -> _Layout:
    """Recognise the file's header, separator and encoding from its start, and count its lines; decline a file not
    for this reader."""
    if isinstance(file, (bytes, bytearray)):
        size = len(file)
        prefix = bytes(file[:_PREFIX])
    else:
        size = os.path.getsize(file)
        with open(file, "rb") as handle:
            prefix = handle.read(_PREFIX)
    if b"\x00" in prefix:
        raise _Decline
    text = _prefix_text(prefix)
    delimiter = _sniff_delimiter(text, source)
    header_cells = next(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), None)
    if not header_cells:
        raise _Decline
    if any("\n" in c or "\r" in c for c in header_cells):
        raise _Decline  # a header over several lines: the rows are counted from the next line
    while header_cells and not header_cells[-1].strip():
        header_cells.pop()
    info = read_header([_cell(c) for c in header_cells], source)
    if info.problems or "game" not in info.roles or {"team", "weight"} & set(info.roles):
        raise _Decline
    if _choose_shape(info, "auto", source) != "long":
        raise _Decline
    width = len(header_cells)
    roles = info.roles
    if limits is not None:
        if size > MAX_TEXT_CHARS or size > limits.max_bytes or width > MAX_COLUMNS:
            raise _Decline
        if column_warnings(info, header_cells, "long"):  # ignored columns: their cells count against the bounds
            raise _Decline
    wanted = {"game": roles["game"], "player": roles["player"], "place": roles["place"]}
    if "date" in roles:
        wanted["date"] = roles["date"]
    # Rows are at most the lines of the file: the arrays are made once at that size (no growing copies).
    if isinstance(file, (bytes, bytearray)) and b"\x00" in file:
        raise _Decline  # NUL in a cell (see _count_lines)
    lines = (file.count(b"\n") if isinstance(file, (bytes, bytearray)) else _count_lines(file)) + 1
    newline = prefix.find(b"\n")
    if b"\r" in prefix[:newline].rstrip(b"\r"):
        newline = -1  # a CR alone ends the header line: the rows start before the first LF (not for the byte level)
    return _Layout(delimiter, header_cells, info, wanted, size, lines, newline + 1 if newline >= 0 else -1)


class _Cells:
    """Each distinct text of the columns read, read once by the project's one rule for its kind, and what the
    reading learns: the games and players in order of first appearance, every distinct date text."""

    def __init__(self) -> None:
        self.games: dict[str, int] = {}  # game id -> code, in order of first appearance
        self.game_first: list[int] = []  # each game's first row (index into the arrays)
        self.players: dict[str, int] = {}  # cleaned name -> code, in order of first appearance
        self.spelling: dict[str, str] = {}  # name_key -> the cleaned name that has it
        self.date_texts: list[str] = []  # every distinct date cell, in order of first appearance
        self.dates: DateColumn | None = None  # the date texts read (:func:`_date_column`)

    @staticmethod
    def _plain(raw: str) -> bool:
        """Whether ``clean_name`` keeps a text as it is (kept then as the very string the parser made, so that the
        parser, this reader's tables and the history share one string per name)."""
        return raw.isascii() and raw[:1] != "'" and raw == " ".join(raw.split())

    def game(self, raw: str) -> int:
        game_id = raw if self._plain(raw) else clean_name(_cell(raw))
        if not game_id:
            raise _BadText
        if "\x00" in game_id:
            raise _Decline
        code = self.games.get(game_id)
        if code is None:
            code = self.games[game_id] = len(self.games)
            self.game_first.append(-1)
        return code

    def player(self, raw: str) -> int:
        name = raw if self._plain(raw) else clean_name(_cell(raw))
        if not name:
            raise _BadText
        if "\x00" in name:
            raise _Decline
        key = name_key(name)
        if self.spelling.setdefault(name if key == name else key, name) != name:
            raise _Decline  # two spellings of one player: the general reader merges them and says so
        return self.players.setdefault(name, len(self.players))

    def many(self, role: str, texts: list[str]) -> np.ndarray:
        """The values of all the distinct texts of one column (``role``), in order of first appearance: what
        reading each in turn gives (:meth:`game`, :meth:`player`, :meth:`place`, :meth:`date`), with the common
        case of game ids and names all plain read at once; -1 for a text the general reader reports on its rows
        (:class:`_BadText`)."""
        if role in ("game", "player") and _all_plain(texts):
            if role == "player" and not self.players and _distinct_keys(texts):
                self.players = dict(zip(texts, range(len(texts)), strict=True))
                return np.arange(len(texts), dtype=np.int32)
            if role == "game" and not self.games:
                self.games = dict(zip(texts, range(len(texts)), strict=True))
                self.game_first = [-1] * len(texts)
                return np.arange(len(texts), dtype=np.int32)
        read = {"game": self.game, "player": self.player, "place": self.place, "date": self.date}[role]

        def value(text: str) -> int:
            try:
                return read(text)
            except _BadText:
                return -1

        return np.fromiter((value(t) for t in texts), dtype=np.int32, count=len(texts))

    @staticmethod
    def place(raw: str) -> int:
        try:
            read = parse_place(_cell(raw))
        except ValueError:
            raise _BadText from None
        return 0 if read is None else read

    def date(self, raw: str) -> int:
        self.date_texts.append(raw)
        return len(self.date_texts) - 1


def _all_plain(texts: list[str]) -> bool:
    """Whether every text is non-empty and :meth:`_Cells._plain` (so that ``clean_name`` keeps it as it is): checked
    on the texts joined by NUL (which no text holds and which is not white space), at the speed of a few string
    operations in C instead of a few per text."""
    if not texts:
        return True
    joined = "\x00".join(texts)
    return (
        joined.isascii()
        and "\x00\x00" not in joined
        and bool(texts[0])
        and bool(texts[-1])
        and not joined.startswith("'")
        and "\x00'" not in joined
        and " \x00" not in joined
        and "\x00 " not in joined
        and joined == " ".join(joined.split())
    )


def _distinct_keys(names: list[str]) -> bool:
    """Whether distinct plain names (:func:`_all_plain`) are distinct players too: plain names are ASCII, so two are
    one player (:func:`ratings.io.names.name_key`) exactly when their lower case is equal."""
    joined = "\x00".join(names)
    lower = joined.lower()
    if lower == joined:
        return True  # no capital letter: the keys are the names
    return len(set(lower.split("\x00"))) == len(names)


@dataclass
class _Parsed:
    """The file's rows as codes (``rows`` of them): each row's game (:attr:`_Cells.games`), player, place and date
    code (:attr:`_Cells.date_texts`; empty without a date column)."""

    cells: _Cells
    game_code: np.ndarray
    player_code: np.ndarray
    place: np.ndarray
    date_code: np.ndarray
    rows: int
    longest: int  # the longest text met in a column read
    by_lines: bool = False  # split at the byte level: row ``i`` is the ``i``-th line that is not blank
    outside: np.ndarray | None = None  # rows with a value beyond the header's columns (taken for a window)


def _time_limit(limits: Limits | None) -> Callable[[], None]:
    """A check to call now and then: declines once the read has taken the hosted processor time (the general
    reader then refuses the file with its message)."""
    seconds = limits.cpu_seconds if limits is not None else None
    if seconds is None:
        return lambda: None
    until = time.thread_time() + seconds

    def check() -> None:
        if time.thread_time() > until:
            raise _Decline

    return check


def _parse_bytes(
    file: str | os.PathLike[str] | bytes,
    layout: _Layout,
    limits: Limits | None,
    progress: Progress | None,
    wide: bool = False,
) -> _Parsed:
    """The rows split and interned at the byte level (:mod:`ratings.io.long_bytes`); each distinct text is then read
    by :class:`_Cells`, as the pandas path reads it, and the codes mapped to what the texts mean."""
    if layout.data_start <= 0:
        raise _NotTaken  # a header longer than the prefix read
    from ratings.io.long_bytes import NotTaken, intern_columns

    check = _time_limit(limits)

    def after_window(rows: int) -> None:
        check()
        if progress is not None:
            progress(rows, layout.lines)

    roles = list(layout.wanted)
    try:
        interned = intern_columns(
            file,
            layout.data_start,
            layout.delimiter,
            len(layout.header_cells),
            list(layout.wanted.values()),
            layout.lines,
            after_window,
            _WIDE_ROWS if wide else 0,
        )
    except NotTaken:
        raise _NotTaken from None
    rows = interned.rows
    cells = _Cells()
    codes: dict[str, np.ndarray] = {}
    longest = 0
    for k, role in enumerate(roles):
        texts = interned.texts[k]
        if texts:
            longest = max(longest, max(map(len, texts)))
        values = cells.many(role, texts)
        del texts
        column = interned.codes[k]
        if role == "game":  # each game's first row: the first of the texts read as that game
            first = np.full(len(cells.games), rows, dtype=np.int64)
            read = values >= 0  # (a blank game's rows belong to no game)
            np.minimum.at(first, values[read], interned.first_row[k][read])
            cells.game_first = first.tolist()
        if not np.array_equal(values, np.arange(len(values), dtype=np.int32)):
            for a in range(0, rows, _BLOCK):  # in place, a block at a time
                column[a : a + _BLOCK] = values[column[a : a + _BLOCK]]
        codes[role] = column
    interned.texts.clear()
    interned.codes.clear()
    empty = np.empty(0, dtype=np.int32)
    date = codes.get("date", empty)
    parsed = _Parsed(cells, codes["game"], codes["player"], codes["place"], date, rows, longest, by_lines=True)
    parsed.outside = interned.wide
    return parsed


def _parse_pandas(
    file: str | os.PathLike[str] | bytes, layout: _Layout, limits: Limits | None, progress: Progress | None
) -> _Parsed:
    """The rows parsed by the C parser of pandas, a chunk at a time, each column's texts matched by
    :class:`_Distinct` (the path for what the byte-level one does not take, quoted cells above all)."""
    import pandas as pd

    lines, wanted = layout.lines, layout.wanted
    game_code = np.empty(lines, dtype=np.int32)
    player_code = np.empty(lines, dtype=np.int32)
    place = np.empty(lines, dtype=np.int32)
    date_code = np.empty(lines if "date" in wanted else 0, dtype=np.int32)
    cells = _Cells()
    readers = {"game": _Distinct(cells.game), "player": _ManyDistinct(cells.player), "place": _Distinct(cells.place)}
    if "date" in wanted:
        readers["date"] = _Distinct(cells.date)
    targets = {"game": game_code, "player": player_code, "place": place, "date": date_code}
    check = _time_limit(limits)
    game_first = cells.game_first

    source_arg: Any = io.BytesIO(file) if isinstance(file, (bytes, bytearray)) else os.fspath(file)
    names = list(range(len(layout.header_cells)))
    row = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # pandas warns of what it would drop or guess: decline instead
            reader = pd.read_csv(
                source_arg,
                sep=layout.delimiter,
                header=None,
                names=names,
                skiprows=1,
                index_col=False,
                dtype=object,
                na_filter=False,
                keep_default_na=False,
                encoding="utf-8-sig",
                encoding_errors="strict",
                engine="c",
                chunksize=CHUNK_ROWS,
                skip_blank_lines=True,
            )
            with contextlib.closing(reader):
                for chunk in reader:
                    n = len(chunk)
                    if row + n > lines:
                        raise _Decline
                    end = row + n
                    for role, index in wanted.items():
                        targets[role][row:end] = readers[role].codes(chunk[index])
                    # the first row of each game met in this chunk
                    seen, first_at = np.unique(game_code[row:end], return_index=True)
                    for g, at in zip(seen.tolist(), first_at.tolist(), strict=True):
                        if game_first[g] < 0:
                            game_first[g] = row + at
                    row = end
                    check()
                    if progress is not None:
                        progress(row, lines)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.ParserWarning, OverflowError):
        raise _Decline from None
    longest = max(r.longest for r in readers.values())
    del readers, targets  # the factorizers' tables and the arrays only they still name
    return _Parsed(cells, game_code[:row], player_code[:row], place[:row], date_code[:row], row, longest)


def _date_column(cells: _Cells, column: str, source: str | None) -> DateColumn:
    """Every distinct date text read by the one rule for a date column (day/month order decided for the column),
    keyed by its code; read once (kept in ``cells``)."""
    if cells.dates is None:
        texts = cells.date_texts
        cells.dates = parse_date_cells({k: _cell(t) for k, t in enumerate(texts) if t.strip()}, column, source)
    return cells.dates


def _game_dates(
    cells: _Cells, game_code: np.ndarray, date_code: np.ndarray, column: str, source: str | None, warns: list[str]
) -> list[dt.date | None]:
    """One date per game, read by the one rule for a date column (day/month order decided for the column); what
    the reading says is added to ``warns``."""
    texts = cells.date_texts
    parsed = _date_column(cells, column, source)
    if parsed.row_problems or parsed.column_problems or len(parsed.dates) != len(texts) or parsed.times:
        raise _Decline  # a blank or unreadable date (the general reader says where), or times of day
    day = np.array([parsed.dates[k].toordinal() for k in range(len(texts))], dtype=np.int32)
    first = np.asarray(cells.game_first, dtype=np.int64)
    game_day = day[date_code[first]]
    for a in range(0, len(game_code), _BLOCK):  # every row's date is its game's (a block at a time: bounded memory)
        b = a + _BLOCK
        if not np.array_equal(day[date_code[a:b]], game_day[game_code[a:b]]):
            raise _Decline  # a game with two dates
    warns.extend(date_warnings(parsed, column))
    return [parsed.dates[k] for k in date_code[first].tolist()]


def _check_bounds(layout: _Layout, parsed: _Parsed, limits: Limits | None) -> None:
    """Decline a file past a bound of ``limits`` (the general reader refuses it, saying which), or with no rows."""
    row, width = parsed.rows, len(layout.header_cells)
    if limits is not None and (
        row + 1 > limits.max_rows or layout.lines > MAX_SHEET_ROWS or (row + 1) * width > MAX_CELLS
    ):
        raise _Decline
    if parsed.longest > MAX_CELL_CHARS or not row:
        raise _Decline


def _history(
    layout: _Layout,
    parsed: _Parsed,
    source: str | None,
    limits: Limits | None,
    report: str | os.PathLike[str] | bytes | None = None,
) -> ReadResult:
    """The history of the parsed rows, in play order (after the checks the general reader would report on).  With
    ``report`` (the file), its bad cells raise :class:`_Reported` (:func:`_problems`); without, they decline."""
    row, info, header_cells, wanted = parsed.rows, layout.info, layout.header_cells, layout.wanted
    _check_bounds(layout, parsed, limits)
    found = _problems(report, layout, parsed, source, limits)
    if found is not None:
        raise _Reported(found)
    cells = parsed.cells
    game_code, player_code, place, date_code = parsed.game_code, parsed.player_code, parsed.place, parsed.date_code
    del parsed  # the arrays are handed on below, each freed as soon as it is used

    n_games = len(cells.games)
    warns: list[str] = column_warnings(info, header_cells, "long")
    game_dates: list[dt.date | None] = [None] * n_games
    if "date" in wanted:
        game_dates = _game_dates(cells, game_code, date_code, info.names[wanted["date"]], source, warns)
    del date_code

    # games in play order: first appearance, then by date when every game has one (stable)
    order, note = play_order(game_dates, [None] * n_games)
    game_order = np.asarray(order, dtype=np.int64)
    if note:
        warns.append(note)
    ids = list(cells.games)
    if np.array_equal(game_order, np.arange(n_games)):
        final_game = game_code
    else:
        rank_of_game = np.empty(n_games, dtype=np.int32)
        rank_of_game[game_order] = np.arange(n_games, dtype=np.int32)
        final_game = rank_of_game[game_code]
    del game_code
    sizes = np.zeros(n_games, dtype=np.int64)
    for a in range(0, row, _BLOCK):  # a block at a time (bincount counts in a copy of 8 bytes a row)
        sizes += np.bincount(final_game[a : a + _BLOCK], minlength=n_games)
    in_order = bool(np.all(final_game[1:] >= final_game[:-1]))
    if not in_order:
        rows_in_order = np.argsort(final_game, kind="stable")
        del final_game
        player_code = player_code[rows_in_order]
        place = place[rows_in_order]
        del rows_in_order
    else:
        del final_game
    offsets = np.zeros(n_games + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    names_list = list(cells.players)
    _no_repeats(offsets, player_code, len(names_list))
    ordered_ids = [ids[g] for g in game_order.tolist()]
    ordered_dates = [game_dates[g] for g in game_order.tolist()]
    del cells, ids, game_dates  # the reader's tables, before the history's arrays are made
    history = GameHistory.from_columns(
        ordered_ids, ordered_dates, offsets, player_code, place, names_list, warns, block=_HISTORY_BLOCK
    )
    return ReadResult(
        history=history, shape="long", warnings=history.warnings, columns=tuple(info.names), encoding="utf_8"
    )


#: Most rows with a value beyond the header's columns that the byte level notes for a window (more: the whole file is
#: read).
_WIDE_ROWS = 4096
#: Most rows, as a share of the file's, that the general reader reads around a file's bad cells (:func:`_problems`);
#: beyond it the whole file is read.
_WINDOW_SHARE = 0.5


def _problems(
    file: str | os.PathLike[str] | bytes | None,
    layout: _Layout,
    parsed: _Parsed,
    source: str | None,
    limits: Limits | None,
) -> HistoryError | None:
    """What the general reader reports for a file the byte-level path took whose cells it cannot take (an unreadable
    place, a blank game or player, a date that is not one, a value beyond the header's columns): None when there are
    none.

    Rather than the whole file (a Python object per row: seconds and hundreds of MB a million rows), the general
    reader reads a window of it: the header and every row of each game that holds such a cell (a game's problems
    may name its other rows), each row under its own row number (:func:`ratings.io.long_bytes.lines_of_rows`).  Its
    problems are the whole file's when nothing else in the file is reported and nothing outside the window changes
    how the window reads, which is checked here: the rest of the file passes every check of this path (the history
    made of it, then dropped), no two spellings of a player in the file (read apart, both would be kept as they
    are), and each of the window's date texts reads alone as in the whole column (its day/month order).  Where that
    cannot be told (a date column whose order the bad dates could change, a window of most of the file, a window the
    general reader reads without a problem), or without the ``file`` (None), this raises :class:`_Decline` and the
    whole file is read."""
    bad = parsed.game_code < 0
    bad |= parsed.player_code < 0
    bad |= parsed.place < 0
    if parsed.outside is not None:
        bad[parsed.outside] = True  # "'x' is in a column with no header"
    wanted, info = layout.wanted, layout.info
    dates: DateColumn | None = None
    column = info.names[wanted["date"]] if "date" in wanted else ""
    if "date" in wanted:
        dates = _date_column(parsed.cells, column, source)
        if dates.row_problems:
            blanks = len(dates.dates) + len(dates.row_problems) != len(parsed.cells.date_texts)
            if file is None or dates.order is not None or dates.column_problems or dates.times or blanks:
                raise _Decline  # the column's order is decided by counting rows, or a blank date
            bad |= np.isin(parsed.date_code, np.fromiter(dates.row_problems, dtype=np.int32))
    if not bad.any():
        return None
    if file is None or not parsed.by_lines:
        raise _Decline  # (a file with quoted cells: a row may span lines, so its number is not found by lines)
    games = np.unique(parsed.game_code[bad])
    window = bad | np.isin(parsed.game_code, games[games >= 0])
    del bad, games
    taken = np.flatnonzero(window)
    if len(taken) > _WINDOW_SHARE * parsed.rows:
        raise _Decline
    from ratings.io.long_bytes import lines_of_rows

    lines = [(1, _header_line(file, layout.data_start)), *lines_of_rows(file, layout.data_start, taken)]
    numbers = [n for n, _ in lines]
    split = csv.reader([t for _, t in lines], delimiter=layout.delimiter)  # one line, one record: no quotes
    try:
        _read_rows(zip(numbers, split, strict=True), shape="long", source=source, skip_bad_rows=False, bounded=False)
    except HistoryError as error:
        found = error
    else:
        raise _Decline  # the window reads as a history: the general reader reads these rows otherwise than this path
    if dates is not None:
        mine = np.unique(parsed.date_code[taken]).tolist()
        texts = parsed.cells.date_texts
        alone = parse_date_cells({k: _cell(texts[k]) for k in mine if texts[k].strip()}, column, source)
        if alone.column_problems or any(
            alone.dates.get(k) != dates.dates.get(k)
            or (alone.row_problems.get(k) or Problem("")).message != (dates.row_problems.get(k) or Problem("")).message
            for k in mine
        ):
            raise _Decline
    _history(layout, _part(parsed, ~window), source, limits)  # declines at anything this path would not take
    return found


def _header_line(file: str | os.PathLike[str] | bytes, data_start: int) -> str:
    """The header's line (the file's first), as text without its line break or a byte-order mark."""
    if isinstance(file, (bytes, bytearray)):
        head = bytes(file[:data_start])
    else:
        with open(file, "rb") as handle:
            head = handle.read(data_start)
    return head.removeprefix(b"\xef\xbb\xbf").decode("utf-8").rstrip("\r\n")


def _part(parsed: _Parsed, keep: np.ndarray) -> _Parsed:
    """The rows ``keep`` (a mask) as a parse of their own: their games and date texts numbered anew (in order of
    first appearance), the players as they are."""
    old = parsed.cells
    cells = _Cells()
    cells.players = old.players
    used, first, inverse = np.unique(parsed.game_code[keep], return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty(len(used), dtype=np.int32)
    rank[by_first] = np.arange(len(used), dtype=np.int32)
    ids = list(old.games)
    cells.games = {ids[g]: k for k, g in enumerate(used[by_first].tolist())}
    cells.game_first = first[by_first].tolist()
    date = parsed.date_code
    if len(date):
        texts, inverse_date = np.unique(date[keep], return_inverse=True)
        cells.date_texts = [old.date_texts[k] for k in texts.tolist()]
        date = inverse_date.astype(np.int32)
    game = rank[inverse]
    return _Parsed(cells, game, parsed.player_code[keep], parsed.place[keep], date, len(game), parsed.longest)


class _Distinct:
    """One column's cells to integers: each distinct text met anywhere in the file is read once (``read``), the
    rows keep codes.  Texts are matched with every text met before by pandas' factorizer (a hash table in C that
    keeps its texts from one chunk to the next, as pandas' merges use it); the C parser already makes one string
    per distinct text of a chunk."""

    def __init__(self, read: Callable[[str], int]) -> None:
        from pandas._libs.hashtable import ObjectFactorizer

        self.read = read
        self.factorizer = ObjectFactorizer(1 << 16)
        self.values = np.empty(0, dtype=np.int32)  # the value of every distinct text, by its factorizer code
        self.longest = 0  # the longest text met

    def codes(self, column: Any) -> np.ndarray:
        """The value of every cell of a column of texts."""
        texts = column.to_numpy(dtype=object)
        known = len(self.values)
        numbers = self.factorizer.factorize(texts)
        new = numbers >= known
        if new.any():
            # the texts met for the first time, in the order the factorizer numbered them
            _, first = np.unique(numbers[new], return_index=True)
            fresh = texts[new][first]
            self.longest = max(self.longest, max(len(t) for t in fresh))
            values = np.fromiter((self.read(t) for t in fresh), dtype=np.int32, count=len(fresh))
            self.values = np.concatenate([self.values, values])
        result: np.ndarray = self.values[numbers]
        return result


class _ManyDistinct(_Distinct):
    """:class:`_Distinct` for a column with many distinct texts (the players: 200,000 in a 3-million-row file), where
    the factorizer's hash table of Python strings cost 2.1 s of a 5.4 s read (each cell a fresh string compared with
    one met long before: cache misses).  A chunk's texts are made one fixed-width UTF-32 array (one copy in C), each
    hashed by a polynomial over its code points (wrapping 64-bit arithmetic; the padding adds nothing), and the
    hashes are matched with the sorted hashes of every text met before (``searchsorted``).  Every cell is then
    compared with the text its code stands for, so two texts of one hash make the reader decline (it never merges
    them).  Texts are read (``read``) in order of first appearance, as :class:`_Distinct` reads them.
    """

    def __init__(self, read: Callable[[str], int]) -> None:
        self.read = read
        self.longest = 0
        self.hashes = np.empty(0, dtype=np.uint64)  # every distinct text's hash, sorted
        self.values = np.empty(0, dtype=np.int32)  # ... its value (``read``)
        self.texts = np.empty(0, dtype="U1")  # ... and the text itself

    def codes(self, column: Any) -> np.ndarray:
        texts = column.to_numpy(dtype=object).astype("U")  # NUL never reaches here (the file was checked for it)
        width = texts.dtype.itemsize // 4
        points = texts.view(np.uint32).reshape(len(texts), width).astype(np.uint64)
        powers = np.cumprod(np.full(width, _HASH_BASE, dtype=np.uint64))
        hashed = points @ powers  # wraps modulo 2^64
        distinct, first, inverse = np.unique(hashed, return_index=True, return_inverse=True)
        at = np.searchsorted(self.hashes, distinct)
        known = at < len(self.hashes)
        known[known] = self.hashes[at[known]] == distinct[known]
        values = np.empty(len(distinct), dtype=np.int32)
        stand_for = np.empty(len(distinct), dtype=np.promote_types(texts.dtype, self.texts.dtype))
        values[known] = self.values[at[known]]
        stand_for[known] = self.texts[at[known]]
        new = np.flatnonzero(~known)  # by hash
        if len(new):
            reading = new[np.argsort(first[new], kind="stable")]  # read in order of first appearance
            fresh = texts[first[reading]].tolist()
            self.longest = max(self.longest, max(len(t) for t in fresh))
            values[reading] = np.fromiter((self.read(t) for t in fresh), dtype=np.int32, count=len(reading))
            stand_for[new] = texts[first[new]]
            self.hashes = np.insert(self.hashes, at[new], distinct[new])  # still sorted
            self.values = np.insert(self.values, at[new], values[new])
            self.texts = np.insert(self.texts.astype(stand_for.dtype), at[new], stand_for[new])
        if not np.array_equal(stand_for[inverse], texts):
            raise _Decline  # two texts of one hash
        result: np.ndarray = values[inverse]
        return result


#: The polynomial hash's base (odd, so every power is odd and no code point's contribution vanishes).
_HASH_BASE = np.uint64(0x9E3779B97F4A7C15)


def _no_repeats(offsets: np.ndarray, player: np.ndarray, n_players: int, block: int = 1 << 19) -> None:
    """Decline when a player appears twice in one game (the general reader reports it), a block of games at a
    time."""
    n_games = len(offsets) - 1
    g = 0
    while g < n_games:
        h = max(g + 1, int(np.searchsorted(offsets, offsets[g] + block, side="right")) - 1)
        h = min(h, n_games)
        a, b = int(offsets[g]), int(offsets[h])
        game = np.repeat(np.arange(h - g, dtype=np.int64), np.diff(offsets[g : h + 1]))
        key = np.sort(game * n_players + player[a:b])
        if np.any(key[1:] == key[:-1]):
            raise _Decline
        g = h


def _count_lines(path: str | os.PathLike[str]) -> int:
    """Line breaks in a file, read a megabyte at a time."""
    count = 0
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            count += block.count(b"\n")
            if b"\x00" in block:
                raise _Decline  # NUL in a cell: the fixed-width texts of _ManyDistinct would drop it
    return count
