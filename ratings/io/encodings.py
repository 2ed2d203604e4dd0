"""Text encodings: which one a text file uses, and its text.

UTF-8 (with or without a byte-order mark) is read as such.  UTF-16 and UTF-32 are recognised by their
byte-order mark, and UTF-16 without one by its zero bytes (Excel's "Unicode text" and many Windows tools
write it).  Any other file is given to ``charset_normalizer`` (3.5.2, pinned in requirements.txt; the detector
``requests`` uses) and decoded with
its answer when the answer is confident (see :func:`_guess`), else as Windows-1252, the code page of most
Western spreadsheets.  Every encoding other than UTF-8 is named in a warning line the app shows, so that
mojibake is never silent.
"""

from __future__ import annotations

from dataclasses import dataclass

from ratings.history import HistoryError, Problem

#: charset_normalizer sees at most this much of a file (it tries its input with every candidate encoding).
SNIFF_BYTES = 256 * 1024

#: Encodings of several bytes a character: a text that decodes cleanly in one of them is strong evidence.
_MULTI_BYTE = frozenset(
    {
        "big5",
        "big5hkscs",
        "cp932",
        "cp949",
        "cp950",
        "euc_jis_2004",
        "euc_jisx0213",
        "euc_jp",
        "euc_kr",
        "gb18030",
        "gb2312",
        "gbk",
        "johab",
        "shift_jis",
        "shift_jis_2004",
        "shift_jisx0213",
    }
)

_LABELS = {
    "utf_8": "UTF-8",
    "utf_16": "UTF-16",
    "utf_16_le": "UTF-16 (little-endian, no byte-order mark)",
    "utf_16_be": "UTF-16 (big-endian, no byte-order mark)",
    "utf_32": "UTF-32",
    "cp1252": "Windows-1252 (Western European)",
    "cp1250": "Windows-1250 (Central European)",
    "cp1251": "Windows-1251 (Cyrillic)",
    "koi8_r": "KOI8-R (Cyrillic)",
    "cp932": "Shift-JIS (Japanese)",
    "shift_jis": "Shift-JIS (Japanese)",
    "euc_jp": "EUC-JP (Japanese)",
    "cp949": "EUC-KR (Korean)",
    "euc_kr": "EUC-KR (Korean)",
    "gb18030": "GB18030 (Chinese)",
    "big5": "Big5 (Chinese)",
    "latin_1": "Latin-1 (ISO-8859-1)",
}


@dataclass(frozen=True)
class Decoded:
    """A text file's text, the encoding it was read with (a Python codec name) and what to tell the user."""

    text: str
    encoding: str
    note: str | None = None


def label(encoding: str) -> str:
    """How messages name an encoding (``cp1251`` -> ``Windows-1251 (Cyrillic)``)."""
    key = encoding.lower().replace("-", "_")
    return _LABELS.get(key, encoding)


def decode(data: bytes, source: str | None) -> Decoded:
    """Decode a text file (see the module docstring); binary data raises :class:`HistoryError`."""
    boms = (
        (b"\xef\xbb\xbf", "utf_8_sig", "utf_8"),
        (b"\xff\xfe\x00\x00", "utf_32", "utf_32"),
        (b"\x00\x00\xfe\xff", "utf_32", "utf_32"),
        (b"\xff\xfe", "utf_16", "utf_16"),
        (b"\xfe\xff", "utf_16", "utf_16"),
    )
    for bom, codec, name in boms:
        if data.startswith(bom):
            try:
                return _decoded(data.decode(codec), name)
            except UnicodeDecodeError:
                break
    if b"\x00" in data[:4096]:
        utf16 = _utf16_without_bom(data[:4096])
        if utf16 is not None:
            try:
                return _decoded(data.decode(utf16), utf16)
            except UnicodeDecodeError:
                pass
        raise HistoryError([Problem("the file is not a text table (it contains binary data)", source=source)])
    try:
        return Decoded(data.decode("utf-8"), "utf_8")
    except UnicodeDecodeError:
        pass
    guess = _guess(data)
    if guess is not None:
        try:
            return _decoded(data.decode(guess), guess)
        except (UnicodeDecodeError, LookupError):
            pass
    for fallback in ("cp1252", "latin_1"):
        try:
            text = data.decode(fallback)
        except UnicodeDecodeError:
            continue
        return Decoded(
            text,
            fallback,
            f"the file is not UTF-8 and its encoding could not be recognised with confidence: it was read as "
            f"{label(fallback)}; if names look wrong, save the file as UTF-8 (CSV UTF-8) and upload it again",
        )
    raise AssertionError("latin-1 decodes any bytes")  # pragma: no cover


def _decoded(text: str, encoding: str) -> Decoded:
    if encoding == "utf_8":
        return Decoded(text, encoding)
    return Decoded(text, encoding, f"the file is not UTF-8: it was read as {label(encoding)}")


def _utf16_without_bom(head: bytes) -> str | None:
    """``utf_16_le`` or ``utf_16_be`` when zero bytes sit on one side of nearly every pair, as in mostly-Latin
    UTF-16 text; else None."""
    pairs = len(head) // 2
    if pairs < 2:
        return None
    even = head[0 : 2 * pairs : 2].count(0)  # the high byte of big-endian characters
    odd = head[1 : 2 * pairs : 2].count(0)
    if odd >= 0.4 * pairs and even <= 0.05 * pairs:
        return "utf_16_le"
    if even >= 0.4 * pairs and odd <= 0.05 * pairs:
        return "utf_16_be"
    return None


def _guess(data: bytes) -> str | None:
    """charset_normalizer's answer for a file that is not UTF-8, when it is confident; else None.

    Confident means: little mess in the decoded text (``chaos`` at most 0.2) and either a language recognised
    in it (``coherence`` at least 0.1) or, for an encoding of several bytes a character, no other candidate
    nearly as clean.  Windows-1252 wins any tie (short Western files fit several code pages equally well).
    Checked on short and long tables of names: German, Russian (Windows-1251, KOI8-R), Japanese, Korean.
    """
    from charset_normalizer import from_bytes

    sample = data[:SNIFF_BYTES]
    if len(data) > SNIFF_BYTES and b"\n" in sample:
        sample = sample[: sample.rindex(b"\n") + 1]  # whole lines: no character cut in two
    matches = list(from_bytes(sample))
    if not matches:
        return None
    best = min(matches, key=lambda m: (m.chaos, -m.coherence))
    tied = [m for m in matches if m.chaos <= best.chaos and m.coherence >= best.coherence]
    if any(m.encoding == "cp1252" for m in tied):
        return "cp1252"
    if best.chaos > 0.2:
        return None
    if best.coherence >= 0.1:
        return str(best.encoding)
    if best.encoding in _MULTI_BYTE and not any(m is not best and m.chaos <= best.chaos + 0.07 for m in matches):
        return str(best.encoding)
    return None
