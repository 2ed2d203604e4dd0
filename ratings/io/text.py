"""Text tables (CSV, TSV): decoding, the separator, and the rows, bounded as they are read."""

from __future__ import annotations

import csv
import io

from ratings.history import HistoryError, Problem
from ratings.io.cells import is_blank
from ratings.io.encodings import Decoded, decode
from ratings.io.limits import MAX_CELL_CHARS, _Tally


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


def _text_rows(data: bytes, source: str | None, tally: _Tally) -> tuple[list[tuple[int, list[str]]], Decoded]:
    """The rows of a text table that hold something, numbered by record (blank lines counted, not kept), and
    how the file was decoded."""
    decoded = decode(data, source)
    text = decoded.text
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
            while row and is_blank(row[-1]):
                row.pop()
            if not row:
                continue
            tally.keep(number, len(row))
            lengths = [len(c) for c in row]
            longest = max(lengths)
            if tally.bounded and longest > MAX_CELL_CHARS:
                raise tally.cell_too_long(number, lengths.index(longest))
            tally.add_text(sum(lengths), number)
            rows.append((number, row))
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise tally.cell_too_long(number + 1, None) from None
        raise HistoryError(
            [Problem(f"the file cannot be read as a table: {exc}", reader.line_num or None, None, source)]
        ) from None
    return rows, decoded
