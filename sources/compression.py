"""Compression of bytes sent to browsers: the one reader of ``Accept-Encoding`` and the one encoder, shared by the
static files (``web.static_files``, compressed once, hard) and the memoised answers (``sources.answers``, kept
compressed as they are sent).  Pure: no Flask, no Dash."""

from __future__ import annotations

import sys
import zlib

import brotli

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

__all__ = ["BROTLI_QUALITY", "ENCODINGS", "ZSTD_LEVEL", "encode", "encoding_for", "strongest"]

ZSTD_LEVEL = 19
BROTLI_QUALITY = 9
#: Content encodings answers are sent in, preferred first.
ENCODINGS = ("zstd", "br", "gzip")


def encoding_for(accept_encoding: str | None, offered: tuple[str, ...] = ENCODINGS) -> str:
    """The first of ``offered`` (preferred first) that a client's ``Accept-Encoding`` names, else ``""`` (none).
    The one reader of that header."""
    accepted = {part.split(";")[0].strip().lower() for part in (accept_encoding or "").split(",")}
    return next((name for name in offered if name in accepted), "")


def strongest(accept_encoding: str) -> str | None:
    """The encoding used for a static file: ``zstd`` when the browser accepts it, else ``br``, else ``None``."""
    return encoding_for(accept_encoding, ("zstd", "br")) or None


def encode(data: bytes, encoding: str, *, hard: bool = False) -> bytes:
    """``data`` compressed with ``encoding`` (``""``: as it is): at flask-compress's quick levels (an answer, per
    request), or with ``hard`` at the strongest (a file compressed once: :data:`ZSTD_LEVEL`, :data:`BROTLI_QUALITY`)."""
    if encoding == "zstd":
        return bytes(zstd.compress(data, ZSTD_LEVEL if hard else 3))
    if encoding == "br":
        return bytes(brotli.compress(data, quality=BROTLI_QUALITY if hard else 4))
    if encoding == "gzip":
        compressor = zlib.compressobj(9 if hard else 6, zlib.DEFLATED, 31)
        return compressor.compress(data) + compressor.flush()
    return data
