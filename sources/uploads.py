"""Files a user uploads through the browser (downloads are written by the one CSV writer in ``ratings.io``).

Dash's ``dcc.Upload`` hands a callback ``contents`` (``"data:<mime type>;base64,<data>"``) and ``filename``;
:func:`read_upload` turns them into a :class:`ratings.io.ReadResult`.  Problems (too big, not base64, a file type
the reader does not know, anything wrong in the table) come back as :class:`ratings.history.HistoryError` whose
problems name the file.  Nothing here imports Dash.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from ratings.history import HistoryError, Problem
from ratings.io import MAX_BYTES, ReadResult, read_file

__all__ = ["clean_filename", "decoded_size", "read_upload"]

_DATA_URL = re.compile(r"^data:([^,]*?)(;base64)?,", re.IGNORECASE)


def _refuse(message: str, filename: str | None) -> HistoryError:
    return HistoryError([Problem(message, source=filename)])


def clean_filename(filename: object) -> str | None:
    """The file's own name: no folders (a browser may send a full path), at most 200 characters, or None."""
    if not isinstance(filename, str):
        return None
    return re.split(r"[\\/]", filename)[-1].strip()[:200] or None


def decoded_size(data: str) -> int:
    """The number of bytes a base64 text decodes to, computed from its length (no decoding)."""
    text = data.rstrip()
    padding = len(text) - len(text.rstrip("="))
    return len(text) * 3 // 4 - padding


def read_upload(
    contents: Any,
    filename: str | None,
    *,
    shape: str = "auto",
    skip_bad_rows: bool = False,
    max_bytes: int = MAX_BYTES,
) -> ReadResult:
    """Read an uploaded file from ``dcc.Upload``'s ``contents`` and ``filename``.

    Files larger than ``max_bytes`` (10 MB) are refused from the payload's length, before it is decoded.
    The format comes from the file name (``.csv``, ``.tsv``, ``.txt``, ``.xlsx``, ``.ods``), see
    :func:`ratings.io.read_file`.
    """
    if isinstance(contents, (list, tuple)) or isinstance(filename, (list, tuple)):
        raise _refuse("upload one file at a time", None)
    name = clean_filename(filename)
    label = f"'{name}'" if name else "the uploaded file"
    if not isinstance(contents, str) or not contents:
        raise _refuse(f"{label} arrived empty; choose the file again", name)
    match = _DATA_URL.match(contents)
    if match is None or not match.group(2):
        raise _refuse(f"{label} did not arrive as a base64 data URL, so it cannot be read", name)
    payload = contents[match.end() :]
    size = decoded_size(payload)
    if size > max_bytes:
        limit = max_bytes / (1024 * 1024)
        raise _refuse(f"{label} is {size / (1024 * 1024):.1f} MB; files up to {limit:g} MB are accepted", name)
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(f"{label} arrived damaged (its base64 encoding is invalid); upload it again", name) from None
    if not data:
        raise _refuse(f"{label} is empty", name)
    return read_file(data, filename=name, shape=shape, skip_bad_rows=skip_bad_rows)
