"""Files: a path, bytes or a file object, refused past the size limits, then read by format."""

from __future__ import annotations

import dataclasses
import io
import os
import sys
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Any

from ratings.history import HistoryError, Problem
from ratings.io.contests import is_contest_input, read_contests
from ratings.io.limits import (
    HOSTED,
    MAX_RATIO,
    MAX_UNPACKED,
    RATIO_CHECKED_FROM,
    Limits,
    _Tally,
    _too_big,
)
from ratings.io.spreadsheets import _ods_rows, _xlsx_rows
from ratings.io.table import ReadResult, _check_shape, _read_rows
from ratings.io.text import _text_rows

_TEXT_EXTENSIONS = {".csv", ".tsv", ".txt"}
_EXTENSIONS = _TEXT_EXTENSIONS | {".xlsx", ".xlsm", ".ods"}


def _read_limited(file: Any, filename: str | None, limits: Limits | None) -> tuple[bytes, str | None]:
    """The file's bytes and its name, refusing anything over the limits' ``max_bytes`` before reading it all."""
    most = limits.max_bytes if limits is not None else None
    MAX_BYTES = most if most is not None else float("inf")
    limit = f"{most / (1024 * 1024):g} MB" if most is not None else "any size"
    if isinstance(file, (bytes, bytearray, memoryview)):
        data = bytes(file)
        if len(data) > MAX_BYTES:
            raise _too_big(
                f"the file is {len(data) / 1e6:.1f} MB; this reader accepts files up to {limit}", source=filename
            )
        return data, filename
    name: str | None = filename
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
                data = handle.read(-1 if most is None else most + 1)
        except OSError as exc:
            raise HistoryError([Problem(f"the file '{path}' cannot be read: {exc.strerror or exc}")]) from None
        if len(data) > MAX_BYTES:
            raise _too_big(f"the file is larger than {limit}; this reader accepts files up to {limit}", source=name)
        return data, name
    if hasattr(file, "read"):
        given = filename or getattr(file, "name", None)
        label = os.path.basename(given) if isinstance(given, str) else None
        content = file.read(-1 if most is None else most + 1)
        if isinstance(content, str):
            content = content.encode("utf-8")
        if len(content) > MAX_BYTES:
            raise _too_big(f"the file is larger than {limit}; this reader accepts files up to {limit}", source=label)
        return bytes(content), label
    raise HistoryError([Problem(f"cannot read a game history from a {type(file).__name__}")])


def _kind(data: bytes, filename: str | None, limits: Limits | None = HOSTED) -> str:
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
        if limits is not None and unpacked > MAX_UNPACKED:
            raise _too_big(
                f"the spreadsheet unpacks to {unpacked / 1e6:.0f} MB; this reader accepts up to "
                f"{MAX_UNPACKED // (1024 * 1024)} MB unpacked",
                source=filename,
            )
        if limits is not None and unpacked > RATIO_CHECKED_FROM and unpacked > MAX_RATIO * len(data):
            raise _too_big(
                f"the spreadsheet unpacks to {unpacked / 1e6:.0f} MB from {len(data) / 1e3:.0f} kB, "
                f"{unpacked / len(data):.0f} times its size; real spreadsheets pack less than {MAX_RATIO} times, "
                "so this reader refuses it",
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


#: Smallest text file the column reader may hand to pandas when pandas is not imported yet (importing it costs about
#: 0.2 s of CPU, what the general reader spends on about 25,000 rows): a smaller file is read by the column reader only
#: at the byte level (what it declines goes to the general reader).
COLUMNS_FROM_BYTES = 1 << 20
#: ``limits`` of :func:`read_file` by what is read: none for a path (a trusted local file), :data:`HOSTED` for
#: bytes and file objects (an upload).
BY_INPUT = "by input"
#: ``cpu_seconds`` of :func:`read_file` when not given: the limits' own.
FROM_LIMITS = "from limits"


def read_file(
    file: str | os.PathLike[str] | bytes | IO[bytes],
    *,
    filename: str | None = None,
    shape: str = "auto",
    skip_bad_rows: bool = False,
    cpu_seconds: float | None | str = FROM_LIMITS,
    limits: Limits | None | str = BY_INPUT,
    progress: Callable[[int, int], None] | None = None,
) -> ReadResult:
    """Read a game history from a file: a path, bytes or a binary file object.

    The format comes from the file name's extension (``.csv``, ``.tsv``, ``.txt``, ``.xlsx``, ``.ods``)
    or, without one, from the content; a ``.json`` file, or a folder of them, holds contests in the layout of the
    Elo-MMR data sets (:mod:`ratings.io.contests`).  Text files may use ``,``, ``;`` or tab separators (sniffed) and
    may start with a UTF-8 byte-order mark.

    ``limits`` (:class:`ratings.io.limits.Limits`) bounds the reading; by default a path is a trusted local file,
    read whatever its size (``None``), and bytes or a file object are an upload, read within :data:`HOSTED`.
    Within limits, files over ``max_bytes`` are refused before parsing; every other bound (:data:`MAX_SHEET_ROWS`
    rows blank ones included, ``max_rows`` rows with values, :data:`MAX_CELLS` cells, :data:`MAX_CELL_CHARS`
    characters a cell, :data:`MAX_TEXT_CHARS` in all) stops the reading as soon as it is passed, with a
    :class:`HistoryError` saying where.  A spreadsheet that unpacks past :data:`RATIO_CHECKED_FROM` to more than
    :data:`MAX_RATIO` times its size is refused before parsing, and reading stops once it has used ``cpu_seconds``
    of this thread's processor time (default: the limits' own, :data:`READ_CPU_SECONDS`; ``None``: no limit).

    A plain long-shape UTF-8 CSV is read column by column straight into the history's arrays
    (:mod:`ratings.io.columns`: millions of rows in seconds, in bounded memory); ``progress(rows, most)`` is then
    called as it goes.  Its common bad cells (a place, a date, a blank name) are reported from the rows of their
    games alone, with the message a reading of the whole file gives.  See :func:`read_table` for the rest.
    """
    _check_shape(shape)
    if limits == BY_INPUT:
        limits = None if isinstance(file, (str, os.PathLike)) else HOSTED
    assert limits is None or isinstance(limits, Limits)
    if cpu_seconds == FROM_LIMITS:
        cpu_seconds = limits.cpu_seconds if limits is not None else None
    assert cpu_seconds is None or isinstance(cpu_seconds, (int, float))
    if limits is not None and cpu_seconds != limits.cpu_seconds:
        limits = dataclasses.replace(limits, cpu_seconds=cpu_seconds)
    if is_contest_input(file, filename):
        return _contests(file, filename, limits, progress)
    if shape in ("auto", "long") and not skip_bad_rows:
        fast = _columns(file, filename, limits, progress)
        if fast is not None:
            return fast
    data, name = _read_limited(file, filename, limits)
    if is_contest_input(data, name):  # a file object named .json
        return _contests(data, name, limits, progress)
    kind = _kind(data, name, limits)
    notes: list[str] = []
    encoding: str | None = None
    if kind == "xlsx":
        rows = _xlsx_rows(data, name, notes, _Tally(name, "sheet", cpu_seconds, limits))
    elif kind == "ods":
        rows = _ods_rows(data, name, notes, _Tally(name, "sheet", cpu_seconds, limits))
    else:
        rows, decoded = _text_rows(data, name, _Tally(name, "file", cpu_seconds, limits))
        encoding = decoded.encoding
        if decoded.note:
            notes.append(decoded.note)
    result = _read_rows(rows, shape=shape, source=name, skip_bad_rows=skip_bad_rows, bounded=False)
    if notes or encoding:
        result = dataclasses.replace(result, warnings=(*notes, *result.warnings), encoding=encoding)
    return result


def _contests(
    file: Any, filename: str | None, limits: Limits | None, progress: Callable[[int, int], None] | None
) -> ReadResult:
    """A contest file or folder (:mod:`ratings.io.contests`)."""
    history = read_contests(
        file, filename, max_bytes=limits.max_bytes if limits is not None else None, progress=progress
    )
    return ReadResult(history=history, shape="contests", warnings=history.warnings)


def _columns(
    file: Any, filename: str | None, limits: Limits | None, progress: Callable[[int, int], None] | None
) -> ReadResult | None:
    """The column reader's history for a path or bytes named as (or sniffed to be) a text table; None otherwise."""
    from ratings.io.columns import read_long_columns

    name: str | None = filename
    if isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        name = filename or os.path.basename(path)
        if not os.path.isfile(path):
            return None
    elif isinstance(file, (bytes, bytearray)):
        if bytes(file[:4]) == b"PK\x03\x04":
            return None
    else:
        return None
    ext = os.path.splitext(name)[1].lower() if name else ""
    if ext not in ("", ".csv", ".txt"):
        return None
    size = os.path.getsize(file) if isinstance(file, (str, os.PathLike)) else len(file)
    pandas = size >= COLUMNS_FROM_BYTES or "pandas" in sys.modules  # (below, the general reader is as quick)
    return read_long_columns(file, name, limits, progress, report=True, pandas=pandas)  # a bad cell: its message
