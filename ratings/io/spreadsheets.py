"""Spreadsheets (.xlsx, .ods) streamed from their XML, with every bound enforced as the XML arrives.

The formats: Office Open XML SpreadsheetML (ECMA-376, Part 1, section 18: ``xl/worksheets/sheetN.xml`` and the
shared-string table) and OpenDocument Spreadsheet (OASIS OpenDocument 1.2, ``content.xml``).  Cell values and date
formats are interpreted as openpyxl 3.1.5 interprets them (its ``is_date_format`` and ``from_excel``).
"""

from __future__ import annotations

import datetime as dt
import io
import posixpath
import re
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard
from xml.parsers import expat

from ratings.history import HistoryError, Problem
from ratings.io.cells import _column_letter, is_blank, shortened
from ratings.io.limits import MAX_CELL_CHARS, MAX_CELLS, MAX_COLUMNS, MAX_TEXT_CHARS, MAX_XML_TOKEN, _Tally, _too_big


def _sheet_note(names: Sequence[str], notes: list[str]) -> None:
    if len(names) > 1:
        others = ", ".join(f"'{n}'" for n in names[1:])
        notes.append(f"the file has {len(names)} sheets; only the first, '{names[0]}', was read (not {others})")


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
    *,
    tick: Callable[[], None],
) -> None:
    """Feed one XML member of a zip archive through expat in chunks, with namespaces resolved as ``uri}name``.

    Memory stays at a chunk plus what the handlers keep: no tree is built.  A document type declaration
    (the carrier of entity-expansion bombs; spreadsheets never have one) and any single token longer than
    :data:`MAX_XML_TOKEN` are refused.  Handlers stop the reading by raising; so does ``tick`` (the reading's
    deadline, :meth:`ratings.io.limits._Tally.tick`), called after every chunk, so no part of any size, however
    many elements it packs, holds the reader past its deadline.
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
            tick()
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


def _xlsx_workbook(archive: zipfile.ZipFile, tick: Callable[[], None]) -> _Workbook:
    book = _Workbook()

    def on_book(name: str, attrs: dict[str, str]) -> None:
        local = _local(name)
        if local == "sheet" and len(book.sheets) < _MAX_XML_ITEMS:
            rid = next((v for k, v in attrs.items() if _local(k) == "id"), "")
            book.sheets.append((attrs.get("name", f"sheet {len(book.sheets) + 1}"), rid))
        elif local == "workbookPr":
            book.date1904 = attrs.get("date1904", "").lower() in {"1", "true"}

    _stream_xml(archive, "xl/workbook.xml", on_book, tick=tick)
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
        _stream_xml(archive, rels, on_rel, tick=tick)
    book.sheets = [s for s in book.sheets if s[1] in book.targets] if book.targets else book.sheets
    return book


def _xlsx_date_styles(
    archive: zipfile.ZipFile, part: str | None, tick: Callable[[], None]
) -> tuple[set[int], set[int]]:
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

    _stream_xml(archive, part, start, end, tick=tick)
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


def _xlsx_strings(archive: zipfile.ZipFile, part: str | None, tick: Callable[[], None]) -> _Strings:
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
        _stream_xml(archive, part, start, end, text, tick=tick)
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
            while cells and is_blank(cells[-1]):
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
            if not 0 <= index < len(self.strings.texts):
                where = f"{_column_letter(self.column)}{self.number}"
                raise _Damaged(f"cell {where} refers to shared text {index}, which the workbook does not have")
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
            book = _xlsx_workbook(archive, tally.tick)
            if not book.sheets:
                raise HistoryError([Problem("the Excel file has no sheets", source=source)])
            _sheet_note([name for name, _ in book.sheets], notes)
            first = book.targets.get(book.sheets[0][1], "xl/worksheets/sheet1.xml")
            dates, durations = _xlsx_date_styles(archive, book.styles_part or "xl/styles.xml", tally.tick)
            strings = _xlsx_strings(archive, book.strings_part or "xl/sharedStrings.xml", tally.tick)
            epoch = CALENDAR_MAC_1904 if book.date1904 else CALENDAR_WINDOWS_1900
            sheet = _XlsxSheet(strings, dates, durations, epoch, tally)
            _stream_xml(archive, first, sheet.start, sheet.end, sheet.text, tick=tally.tick)
            return sheet.rows
    except HistoryError:
        raise
    except _Damaged as exc:
        raise HistoryError(
            [Problem(f"the Excel file cannot be read: {shortened(str(exc), 200)}", source=source)]
        ) from None
    except expat.ExpatError as exc:
        raise HistoryError(
            [Problem(f"the Excel file is damaged (its XML is broken: {shortened(str(exc), 200)})", source=source)]
        ) from None
    except (*damaged, IndexError) as exc:
        raise HistoryError(
            [Problem(f"the Excel file cannot be read ({shortened(str(exc), 200)})", source=source)]
        ) from None


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
        self.cell_copies = 0  # values of the open row held only through number-columns-repeated
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
            self.cell_copies = 0
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
                if times > 1 and not is_blank(value):
                    self.cell_copies += min(times, room) - 1
        elif name == _ODS_TABLE + "table-row":
            cells = self.cells
            while cells and is_blank(cells[-1]):
                cells.pop()
            first = self.number + 1
            self.number += self.row_repeat
            if cells:
                repeat = self.row_repeat
                # Counted as expanded before any copy is built: every value of each later copy of the row, and the
                # copies of values within the row.
                values = sum(not is_blank(cell) for cell in cells)
                self.tally.repeated(values * (repeat - 1) + self.cell_copies, first)
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
    they hold values, within the row, column and cell bounds and :data:`ratings.io.limits.MAX_REPEATED_VALUES`
    (counted before the copies are built); blank rows only advance the row number.
    """
    sheet = _OdsSheet(tally)
    damaged = (zipfile.BadZipFile, zlib.error, KeyError, OSError, RuntimeError, EOFError, NotImplementedError)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "content.xml" not in archive.NameToInfo:
                raise HistoryError([Problem("the ODS file is damaged: it has no readable content", source=source)])
            _stream_xml(archive, "content.xml", sheet.start, sheet.end, sheet.text, tick=tally.tick)
    except HistoryError:
        raise
    except _Damaged as exc:
        raise HistoryError([Problem(f"the ODS file is damaged ({shortened(str(exc), 200)})", source=source)]) from None
    except (*damaged, expat.ExpatError, ValueError) as exc:
        raise HistoryError([Problem(f"the ODS file is damaged ({shortened(str(exc), 200)})", source=source)]) from None
    if not sheet.names:
        raise HistoryError([Problem("the ODS file has no sheets", source=source)])
    _sheet_note(sheet.names, notes)
    return sheet.rows
