"""A delimited text file split at the byte level into columns of integer codes, one code per distinct text.

The fast path of :mod:`ratings.io.columns` for a plain long CSV: the file is read in chunks of bytes
(:data:`CHUNK_BYTES`) into one reused buffer, and a compiled loop (numba) walks each chunk once, splitting the
lines at the separator and looking each wanted cell up, by its bytes, in one open-addressing hash table (FNV-1a
hash, linear probing; every match is confirmed byte for byte, so two texts are never merged by their hash).  A row
keeps only the code of each wanted cell; a distinct text is kept once, as bytes, and becomes one Python string at
the end, so the only Python objects are one string per distinct text (player names, game ids, places, dates).
What each text means (a name, a place, a date) is then read by the project's one rule for its kind, once per
distinct text, by the caller.

This path takes only the plain part of the CSV dialect that the C parser of pandas (the path it stands in front
of) reads the same way: lines ending in LF or CRLF, blank lines skipped, rows with fewer cells than the header
filled with empty cells.  A quote character anywhere (a quoted cell may hold the separator or a line break), a
lone CR, a NUL byte, a line of only spaces or tabs, a row with more cells than the header, a header longer than
the prefix read, bytes that are not UTF-8, or texts made to collide in the hash table make it raise
:class:`NotTaken`: the caller then reads the file with the pandas path (which reads those or declines in its turn).
A caller that reports a file's bad cells from a window of it (:func:`ratings.io.columns._problems`) may take rows
wider than the header (``wide_rows`` of :func:`intern_columns`): the rows with a value beyond the header are noted.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

__all__ = ["CHUNK_BYTES", "Interned", "NotTaken", "intern_columns", "lines_of_rows", "warm_up"]

#: Bytes read from a file at a time (the buffer grows only for a line longer than this).
CHUNK_BYTES = 1 << 22

# What the scanning loop stops for.
_DONE = 0  # the window is read to its end
_MORE = 1  # the window ends inside a line: read on from the returned position with more bytes
_GROW = 2  # the table is full: grow it and scan again from the returned position (the start of a line)
_NOT_TAKEN = 3  # something this path does not read (see the module's description)

_SPACE, _TAB, _LF, _CR, _QUOTE = 32, 9, 10, 13, 34
# FNV-1a, 64-bit (Fowler, Noll and Vo; the offset basis and prime of its published parameters).
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
# ``state``: entries made, key bytes used, then each column's distinct texts so far.
_STATE_ENTRIES, _STATE_BYTES, _STATE_COUNTS = 0, 1, 2
# A slot of the hash table: the text's hash, then its code, length and column (-1: an empty slot), then its first
# 8 bytes, then its next 8 (a text of up to 16 bytes) or where its bytes start in the keys (a longer one); so that
# one cache line, in the common case, tells whether a cell is that text.
_HASH, _META, _WORD0, _WORD1 = 0, 1, 2, 3
_SHORT = 16  # bytes of a text held in its slot
_LONGEST = (1 << 28) - 1  # bytes of a cell this path takes (the length is kept in 28 bits of the slot)
# Quarters of the slots that may be full (linear probing at a load of up to 3/4 probes about 2.5 slots, adjacent
# ones, for a text met before; at 1/2 the table would take twice the memory at its largest).
_LOAD = 3
# Slots probed for one text before the file is left to the pandas path: far beyond what a load of 3/4 makes (the
# longest probe, simulated for tables of 8,192 to 524,288 slots with random hashes and with FNV-1a of generated
# names, was 80-135 slots), so reached only by texts made to collide (FNV-1a is not keyed), whose probes would
# otherwise grow with the square of the rows of an upload.
_PROBES = 1024


#: How the loops are compiled: cached on disk (numba's own place beside this file, as every function here is
#: self-contained: numba checks a cached function against its own file only), and without the GIL.
_compiled: Callable[[Any], Any] = njit(cache=True, nogil=True)


def _empty_slots(n: int) -> np.ndarray:
    """A table of ``n`` empty slots."""
    slots = np.zeros((n, 4), dtype=np.int64)
    slots[:, _META] = -1
    return slots


class NotTaken(Exception):
    """The file holds something this path does not read (see the module's description)."""


@dataclass
class Interned:
    """Wanted columns as codes: ``codes[k][row]`` numbers the text of column ``k`` in that row; ``texts[k]`` holds
    each distinct text of column ``k`` in order of first appearance (code ``i`` is ``texts[k][i]``), and
    ``first_row[k]`` the row where each first appears.  ``rows`` counts the data rows (blank lines not counted), and
    ``wide`` lists those with a value in a field beyond the header's (with ``wide_rows``); the code arrays are views
    of length ``rows`` of arrays allocated for ``capacity`` rows (their pages beyond ``rows`` never touched)."""

    codes: list[np.ndarray]
    texts: list[list[str]]
    first_row: list[np.ndarray]
    rows: int
    wide: np.ndarray


@_compiled
def _words(buf, a, n):
    """The first 8 bytes of ``buf[a:a+n]`` and the next 8 as little-endian words (zero past the end)."""
    w0 = np.int64(0)
    w1 = np.int64(0)
    for k in range(min(n, 8)):
        w0 |= np.int64(buf[a + k]) << (8 * k)
    for k in range(8, min(n, _SHORT)):
        w1 |= np.int64(buf[a + k]) << (8 * (k - 8))
    return w0, w1


@_compiled
def _holds(slots, s, buf, a, n, column, w0, w1, keys):
    """Whether slot ``s`` holds the text ``buf[a:a+n]`` of column ``column`` (``w0``, ``w1``: its :func:`_words`)."""
    meta = slots[s, _META]
    if meta < 0 or (meta >> 32) != (n | (column << 28)) or slots[s, _WORD0] != w0:
        return False
    if n <= _SHORT:
        return slots[s, _WORD1] == w1
    start = slots[s, _WORD1]
    for k in range(8, n):  # noqa: SIM110 (a loop: numba compiles no generator into all())
        if keys[start + k] != buf[a + k]:
            return False
    return True


@_compiled
def _find(buf, a, n, column, slots, keys):
    """The slot of the text ``buf[a:a+n]`` of column ``column`` in the table, or the empty slot where it would go
    (linear probing); with the text's hash and :func:`_words`.  The hash is FNV-1a over the bytes, from an offset
    basis mixed with the column; a match is confirmed on the bytes themselves, never on the hash alone.  The slot is
    -1 after :data:`_PROBES` slots probed in vain (texts made to share a hash's low bits)."""
    h = _FNV_OFFSET ^ np.uint64(column)
    for i in range(a, a + n):
        h = (h ^ np.uint64(buf[i])) * _FNV_PRIME
    hashed = np.int64(h)
    w0, w1 = _words(buf, a, n)
    mask = len(slots) - 1
    s = np.int64(h & np.uint64(mask))
    for _ in range(_PROBES):
        if slots[s, _META] < 0:
            return s, hashed, w0, w1
        if slots[s, _HASH] == hashed and _holds(slots, s, buf, a, n, column, w0, w1, keys):
            return s, hashed, w0, w1
        s = (s + 1) & mask
    return np.int64(-1), hashed, w0, w1


@_compiled
def _scan(
    buf,
    pos,
    end,
    final,
    separator,
    role_of_field,
    n_roles,
    out0,
    out1,
    out2,
    out3,
    row,
    slots,
    entry,
    keys,
    state,
    last,
    wide,
    wide_count,
):
    """Split the lines of ``buf[pos:end]`` and code their wanted cells (at most four) into ``out<role>[row]``.

    ``role_of_field[i]`` is the wanted column (0 .. ``n_roles`` - 1) field ``i`` holds, or -1; a line with more
    fields than ``role_of_field`` is not taken when ``wide`` is empty; else it is, its fields beyond ignored, and
    if one of them holds a byte other than a space or a tab its row is noted in ``wide`` (``wide_count[0]`` of them;
    not taken past ``len(wide)``).  Returns (what stopped the scan, the position to go on from, the
    rows coded so far, whether a byte above 127 was met).  ``slots`` and ``keys`` are the hash table
    (:class:`_Table`), ``entry`` the column and first row of each distinct text in order of first appearance, and
    ``last`` each column's slot in the row before.  ``state`` holds the entries made, the key bytes used and each
    column's distinct texts so far; a new text's bytes go to ``keys`` followed by a NUL (so that all the keys, in
    order, decode as one text and split at NUL).
    """
    width = len(role_of_field)
    start = np.empty(n_roles, dtype=np.int64)
    stop = np.empty(n_roles, dtype=np.int64)
    high = False
    while pos < end:
        line = pos
        c = buf[pos]
        if c == _LF:
            pos += 1
            continue
        if c == _CR:
            if pos + 1 < end:
                if buf[pos + 1] == _LF:
                    pos += 2
                    continue
                return _NOT_TAKEN, pos, row, high
            if not final:
                return _MORE, line, row, high
            return _NOT_TAKEN, pos, row, high
        for r in range(n_roles):
            start[r] = 0
            stop[r] = 0
        field = 0
        field_start = pos
        blank = True  # only spaces and tabs so far
        outside = False  # a byte other than a space or a tab in a field beyond the header's
        i = pos
        after = -1  # where the next line starts
        while True:
            if i == end:
                if not final:
                    return _MORE, line, row, high
                after = i
                break
            c = buf[i]
            if c == separator:
                if field < width:
                    r = role_of_field[field]
                    if r >= 0:
                        start[r] = field_start
                        stop[r] = i
                field += 1
                if field >= width and len(wide) == 0:
                    return _NOT_TAKEN, line, row, high
                field_start = i + 1
                blank = False
            elif c == _LF:
                after = i + 1
                break
            elif c == _CR:
                if i + 1 < end and buf[i + 1] == _LF:
                    after = i + 2
                    break
                if i + 1 == end and not final:
                    return _MORE, line, row, high
                return _NOT_TAKEN, line, row, high
            elif c == _QUOTE or c == 0:
                return _NOT_TAKEN, line, row, high
            else:
                if c >= 128:
                    high = True
                if c != _SPACE and c != _TAB:
                    blank = False
                    if field >= width:
                        outside = True
            i += 1
        if blank:
            return _NOT_TAKEN, line, row, high  # pandas skips a line of only white space; the general reader decides
        if field < width:
            r = role_of_field[field]
            if r >= 0:
                start[r] = field_start
                stop[r] = i
        if outside and wide_count[0] >= len(wide):
            return _NOT_TAKEN, line, row, high  # more such rows than the caller takes
        if row >= len(out0):
            return _NOT_TAKEN, line, row, high  # more rows than the caller counted lines
        # room for every cell of the line as a new entry (else grow, and read the line again)
        entries = state[_STATE_ENTRIES]
        if entries + n_roles > len(entry):  # (the entries are three quarters of the slots)
            return _GROW, line, row, high
        if state[_STATE_BYTES] + (i - line) + n_roles > len(keys):
            return _GROW, line, row, high
        for r in range(n_roles):
            a = start[r]
            n = stop[r] - a
            if n > _LONGEST:
                return _NOT_TAKEN, line, row, high
            s = last[r]  # the row before's text in this column (a game's rows, its date)
            if s < 0 or slots[s, _META] < 0 or ((slots[s, _META] >> 32) & _LONGEST) != n:
                s = -1
            else:
                w0, w1 = _words(buf, a, n)
                if not _holds(slots, s, buf, a, n, r, w0, w1, keys):
                    s = -1
            if s < 0:
                s, hashed, w0, w1 = _find(buf, a, n, r, slots, keys)
                if s < 0:
                    return _NOT_TAKEN, line, row, high
                if slots[s, _META] < 0:  # a new text
                    e = state[_STATE_ENTRIES]
                    used = state[_STATE_BYTES]
                    for k in range(n):
                        keys[used + k] = buf[a + k]
                    keys[used + n] = 0
                    state[_STATE_BYTES] = used + n + 1
                    code = state[_STATE_COUNTS + r]
                    state[_STATE_COUNTS + r] = code + 1
                    state[_STATE_ENTRIES] = e + 1
                    entry[e, 0] = r
                    entry[e, 1] = row
                    slots[s, _HASH] = hashed
                    slots[s, _META] = code | ((n | (r << 28)) << 32)
                    slots[s, _WORD0] = w0
                    slots[s, _WORD1] = w1 if n <= _SHORT else used
            last[r] = s
            code = slots[s, _META] & 0xFFFFFFFF
            if r == 0:
                out0[row] = code
            elif r == 1:
                out1[row] = code
            elif r == 2:
                out2[row] = code
            else:
                out3[row] = code
        if outside:
            wide[wide_count[0]] = row
            wide_count[0] += 1
        row += 1
        pos = after
    return _DONE, pos, row, high


@_compiled
def _rehash(slots, held):
    """Place the slots ``held`` (every full slot of a smaller table) into an empty table ``slots`` by their
    hashes."""
    mask = len(slots) - 1
    for k in range(len(held)):
        s = np.int64(np.uint64(held[k, _HASH]) & np.uint64(mask))
        while slots[s, _META] >= 0:
            s = (s + 1) & mask
        for j in range(4):
            slots[s, j] = held[k, j]


class _Table:
    """The hash table of distinct texts (every wanted column's), their bytes and their entries, grown by
    doubling."""

    def __init__(self, n_roles: int, slots: int = 1 << 13, key_bytes: int = 1 << 16) -> None:
        self.slots: np.ndarray | None = _empty_slots(slots)
        self.entry = np.empty((slots * _LOAD // 4, 2), dtype=np.int64)  # column, first row
        self.keys = np.empty(key_bytes, dtype=np.uint8)
        self.state = np.zeros(_STATE_COUNTS + n_roles, dtype=np.int64)
        self.last = np.full(n_roles, -1, dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray | None, ...]:
        return self.slots, self.entry, self.keys, self.state, self.last

    def grow(self) -> None:
        """Double the entries (with the table) when they are what is full, else the key bytes (the scan asks again
        until a line's texts fit)."""
        entries = int(self.state[_STATE_ENTRIES])
        assert self.slots is not None
        if entries + 4 > len(self.entry):
            size = 2 * len(self.slots)
            entry = np.empty((size * _LOAD // 4, 2), dtype=np.int64)
            entry[:entries] = self.entry[:entries]
            self.entry = entry
            held = self.slots[self.slots[:, _META] >= 0]
            self.slots = _empty_slots(size)
            _rehash(self.slots, held)
            del held
            self.last[:] = -1  # slots moved
        else:
            used = int(self.state[_STATE_BYTES])
            keys = np.empty(2 * len(self.keys), dtype=np.uint8)
            keys[:used] = self.keys[:used]
            self.keys = keys

    def texts(self, n_roles: int) -> tuple[list[list[str]], list[np.ndarray]]:
        """Each column's distinct texts in order of first appearance, and the row where each first appears."""
        entries = int(self.state[_STATE_ENTRIES])
        used = int(self.state[_STATE_BYTES])
        try:
            every = bytes(self.keys[:used]).decode("utf-8").split("\x00")  # a NUL ends each key
        except UnicodeDecodeError:
            raise NotTaken from None
        column = self.entry[:entries, 0]
        texts, first = [], []
        for r in range(n_roles):
            mine = np.flatnonzero(column == r)  # entries are made in order, so their codes count up
            texts.append([every[e] for e in mine.tolist()])
            first.append(self.entry[mine, 1])
        return texts, first


def _windows(
    file: str | os.PathLike[str] | bytes, start: int
) -> Generator[tuple[np.ndarray, int, int, bool], int, None]:
    """The file's bytes from ``start`` as (buffer, from, to, last) windows of about :data:`CHUNK_BYTES`.  The scan
    sends back where it stopped, the start of a line cut at the window's end, which the next window starts with
    (a window doubles while one line is longer than it)."""
    if isinstance(file, (bytes, bytearray)):
        whole = np.frombuffer(file, dtype=np.uint8)
        whole.flags.writeable = False  # as the windows of a path below (one compiled type), bytearray too
        pos, size = start, CHUNK_BYTES
        while True:
            end = min(len(whole), pos + size)
            stopped = yield whole, pos, end, end == len(whole)
            size = size * 2 if stopped == pos else CHUNK_BYTES
            pos = stopped
    buffer = bytearray(CHUNK_BYTES)
    with open(file, "rb") as handle:
        handle.seek(start)
        held = 0  # bytes at the buffer's start carried over from the last window (a cut line)
        while True:
            with memoryview(buffer) as view:
                got = handle.readinto(view[held:])
            end = held + got
            window = np.frombuffer(buffer, dtype=np.uint8)
            window.flags.writeable = False  # the loop's one compiled type (bytes give read-only arrays)
            stopped = yield window, 0, end, got == 0
            del window
            held = end - stopped
            if held == len(buffer):  # one line longer than the buffer
                bigger = bytearray(2 * len(buffer))
                bigger[:held] = buffer[stopped:end]
                buffer = bigger
            else:
                buffer[:held] = buffer[stopped:end]


def intern_columns(
    file: str | os.PathLike[str] | bytes,
    start: int,
    separator: str,
    width: int,
    fields: Sequence[int],
    capacity: int,
    after_window: Callable[[int], None] | None = None,
    wide_rows: int = 0,
) -> Interned:
    """The columns ``fields`` (indices into the ``width`` fields of a line) of the file's lines from byte
    ``start``, coded (see :class:`Interned`); ``capacity`` bounds the rows (the file's line count); ``after_window``
    is called with the rows read so far after each window of bytes (progress, a time limit: it may raise).  A line
    with more fields than ``width`` is not taken, unless ``wide_rows``: then up to that many rows with a value
    beyond the header's fields are noted (:attr:`Interned.wide`), and fields beyond it that hold only spaces and
    tabs are ignored (the general reader drops blank cells at a row's end)."""
    if len(separator) != 1 or not separator.isascii() or separator in '\r\n"\x00 ':
        raise NotTaken
    role_of_field = np.full(width, -1, dtype=np.int64)
    for role, index in enumerate(fields):
        role_of_field[index] = role
    n_roles = len(fields)
    if not 1 <= n_roles <= 4:
        raise ValueError(f"one to four columns are coded, not {n_roles}")
    out = [np.empty(capacity if r < n_roles else 0, dtype=np.int32) for r in range(4)]
    table = _Table(n_roles)
    wide = np.empty(wide_rows, dtype=np.int64)
    wide_count = np.zeros(1, dtype=np.int64)
    row = 0
    windows = _windows(file, start)
    buf, pos, end, last = next(windows)
    while True:
        begin = pos
        status, pos, row, high = _scan(
            buf, pos, end, last, ord(separator), role_of_field, n_roles, *out, row, *table.arrays(), wide, wide_count
        )
        if status == _NOT_TAKEN:
            windows.close()
            raise NotTaken
        if high:
            _check_utf8(buf, begin, pos)
        if status == _GROW:
            table.grow()
            continue
        if after_window is not None:
            after_window(row)
        if status == _DONE and last:
            break
        buf, pos, end, last = windows.send(pos)
    windows.close()
    table.slots = None  # the texts are read from the keys: the table's largest array freed first
    texts, first = table.texts(n_roles)
    return Interned([out[r][:row] for r in range(n_roles)], texts, first, row, wide[: int(wide_count[0])].copy())


def _check_utf8(buf: np.ndarray, a: int, b: int) -> None:
    """Raise :class:`NotTaken` unless ``buf[a:b]`` (whole lines) is UTF-8: every byte, in every column, since the
    pandas path and the general reader's choice of an encoding read the whole file, so one byte that is not UTF-8
    anywhere changes how every cell is read.  A line break is never inside a character, so lines check apart."""
    try:
        bytes(buf[a:b]).decode("utf-8")
    except UnicodeDecodeError:
        raise NotTaken from None


def lines_of_rows(file: str | os.PathLike[str] | bytes, start: int, rows: np.ndarray) -> list[tuple[int, str]]:
    """The rows ``rows`` (sorted indices as :func:`intern_columns` counts rows: the lines from byte ``start`` that
    are not blank) of a file that path took, each as (its line number, its text without the line break); ``start``
    is the byte after the header's line, which is line 1.  A file the byte-level path took has no quoted cell and
    no lone CR, so a line is a record: the line number is the row number the general reader gives (it counts
    blank lines).  Read :data:`CHUNK_BYTES` at a time, with numpy (no compiled loop to load for it)."""
    found: list[tuple[int, str]] = []
    k = 0  # the next of ``rows`` to find
    row = 0  # rows before the block
    line = 2  # the line number of the block's first line
    carry = b""  # a line cut at the end of the last chunk
    with io.BytesIO(file) if isinstance(file, (bytes, bytearray)) else open(file, "rb") as handle:
        handle.seek(start)
        while k < len(rows):
            chunk = handle.read(CHUNK_BYTES)
            last = not chunk
            block = carry + chunk
            cut = len(block) if last else block.rfind(b"\n") + 1  # the block's whole lines
            carry = block[cut:]
            body = np.frombuffer(block, dtype=np.uint8, count=cut)
            ends = np.flatnonzero(body == _LF)
            if last and cut and (not len(ends) or ends[-1] != cut - 1):
                ends = np.append(ends, cut)  # the last line, with no line break
            if not len(ends):
                if last:
                    break
                continue
            starts = np.empty_like(ends)
            starts[0] = 0
            starts[1:] = ends[:-1] + 1
            length = ends - starts
            blank = (length == 0) | ((length == 1) & (body[np.minimum(starts, cut - 1)] == _CR))
            holding = np.flatnonzero(~blank)  # the lines that are rows
            upto = int(np.searchsorted(rows, row + len(holding)))
            for wanted in rows[k:upto].tolist():
                j = int(holding[wanted - row])
                text = bytes(body[starts[j] : ends[j]])
                found.append((line + j, text.removesuffix(b"\r").decode("utf-8")))
            k = upto
            row += len(holding)
            line += len(ends)
            if last:
                break
    if k < len(rows):
        raise ValueError(f"the file has {row} rows, not {int(rows[-1]) + 1}")
    return found


def warm_up() -> float:
    """Compile the loops into numba's on-disk cache, or load them from it; the seconds it took.  ``python -m
    ratings.kernels`` (the build step) calls it, so that the first large file a process reads only loads machine
    code (a compile takes about 2 s of CPU, a load about 0.3 s)."""
    started = time.perf_counter()
    data = b"game,player,place\ng,a,1\ng,b,2\n"
    intern_columns(data, data.index(b"\n") + 1, ",", 3, [0, 1, 2], 3)
    return time.perf_counter() - started
