"""Text files in encodings other than UTF-8 (issue 10 section 3): read with the encoding charset_normalizer
recognises when it is confident, else Windows-1252, and the encoding used is always said.

The tables are written here in each encoding from known names, and the names read back must be those names.
"""

from __future__ import annotations

import base64

import pytest

from ratings.history import HistoryError
from ratings.io import ReadResult, read_file
from ratings.io.encodings import SNIFF_BYTES, decode, label
from sources.uploads import read_upload

NAMES = {
    "german": ["Jürgen", "Søren", "Zoë", "José", "Åsa", "Björn"],
    "russian": ["Иван Петров", "Мария Смирнова", "Ольга", "Пётр", "Сергей", "Анна Кузнецова"],
    "japanese": ["山田太郎", "佐藤花子", "鈴木一郎", "高橋健", "田中美咲", "伊藤翔", "渡辺直美"],
    "korean": ["김민준", "이서연", "박지훈", "최유나"],
}


def table(names: list[str], games: int) -> str:
    """A wide table: one game a row, three players a game, taken in turn from ``names``."""
    rows = ["date,1st,2nd,3rd"]
    for g in range(games):
        players = [names[(g + k) % len(names)] for k in range(3)]
        rows.append(f"2024-03-{g % 28 + 1:02d}," + ",".join(players))
    return "\r\n".join(rows) + "\r\n"


def players(result: ReadResult) -> set[str]:
    return set(result.history.players)


@pytest.mark.parametrize(
    ("language", "encoding", "games", "read_as", "shown"),
    [
        ("german", "cp1252", 1, "cp1252", "Windows-1252 (Western European)"),
        ("german", "cp1252", 40, "cp1252", "Windows-1252 (Western European)"),
        ("russian", "cp1251", 5, "cp1251", "Windows-1251 (Cyrillic)"),
        ("russian", "koi8_r", 5, "koi8_r", "KOI8-R (Cyrillic)"),
        ("japanese", "shift_jis", 20, "cp932", "Shift-JIS (Japanese)"),
        ("korean", "euc_kr", 5, "cp949", "EUC-KR (Korean)"),
    ],
)
def test_recognised_encodings_read_the_names_and_say_so(
    language: str, encoding: str, games: int, read_as: str, shown: str
) -> None:
    names = NAMES[language]
    result = read_file(table(names, games).encode(encoding), filename="games.csv")
    assert players(result) == set(names[: min(len(names), games + 2)])
    assert result.encoding == read_as
    assert f"the file is not UTF-8: it was read as {shown}" in result.warnings


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark(codec: str) -> None:
    names = NAMES["russian"]
    result = read_file(table(names, 4).encode(codec), filename="export.txt")
    assert players(result) == set(names)
    assert result.encoding == codec.replace("-", "_")
    assert any("no byte-order mark" in w for w in result.warnings)


@pytest.mark.parametrize(("codec", "read_as"), [("utf-16", "utf_16"), ("utf-32", "utf_32"), ("utf-8-sig", "utf_8")])
def test_byte_order_marks(codec: str, read_as: str) -> None:
    names = NAMES["japanese"]
    result = read_file(table(names, 3).encode(codec), filename="bom.csv")
    assert players(result) == set(names[:5])
    assert result.encoding == read_as
    assert any("not UTF-8" in w for w in result.warnings) == (read_as != "utf_8")


def test_utf8_says_nothing_about_encodings() -> None:
    result = read_file(table(NAMES["japanese"], 3).encode("utf-8"), filename="plain.csv")
    assert result.encoding == "utf_8"
    assert not any("UTF-8" in w for w in result.warnings)


def test_an_unrecognised_encoding_falls_back_to_windows_1252_and_says_so() -> None:
    # Two Chinese names in GB18030: too little text for any detector to be sure.
    data = "date,1st,2nd\n2024-03-01,张伟,王芳\n".encode("gb18030")
    result = read_file(data, filename="short.csv")
    assert result.encoding == "cp1252"
    assert any(
        "could not be recognised with confidence" in w and "save the file as UTF-8" in w for w in result.warnings
    )


def test_bytes_that_windows_1252_leaves_undefined_fall_back_to_latin_1() -> None:
    decoded = decode(b"game,player,place\ng1,Andr\xe9,1\ng1,\x81x,2\n", "odd.csv")
    assert decoded.encoding == "latin_1"
    assert decoded.text.splitlines()[1] == "g1,Andr\u00e9,1"
    assert decoded.note is not None and "read as Latin-1 (ISO-8859-1)" in decoded.note


def test_binary_data_is_not_taken_for_utf16() -> None:
    with pytest.raises(HistoryError, match="binary data"):
        read_file(bytes(range(256)) * 4, filename="noise.csv")


def test_a_large_file_is_judged_from_its_start_and_decoded_whole() -> None:
    names = NAMES["russian"]
    header, *games = table(names, 40).splitlines(keepends=True)
    data = (header + "".join(games) * 500).encode("cp1251")
    assert len(data) > 2 * SNIFF_BYTES
    result = read_file(data, filename="big.csv")
    assert result.encoding == "cp1251" and players(result) == set(names)


def test_the_upload_path_carries_the_encoding_line() -> None:
    data = table(NAMES["russian"], 5).encode("cp1251")
    contents = "data:text/csv;base64," + base64.b64encode(data).decode()
    result = read_upload(contents, "cyrillic.csv")
    assert result.encoding == "cp1251"
    assert result.warnings[0] == "the file is not UTF-8: it was read as Windows-1251 (Cyrillic)"


def test_labels() -> None:
    assert label("cp1251") == "Windows-1251 (Cyrillic)"
    assert label("utf-16-le") == "UTF-16 (little-endian, no byte-order mark)"
    assert label("mac_roman") == "mac_roman"
