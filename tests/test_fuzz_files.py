"""A fuzz corpus for uploaded files: every file a visitor can send gets a result or a located message, quickly.

Through the guarded upload reader the app uses (``sources.uploads.read_upload``), with hypothesis where inputs are
generated and with named cases where the input is a known attack.  The heavy files (200,001 rows, a zip bomb and an
XML bomb disguised as spreadsheets) are generated at test time and read in a subprocess whose address space is
limited (``tests.test_io_hostile.read_in_subprocess``, 1 GB).  Expected outcomes are stated by hand from the README's
rules (limits, encodings, places), never taken from the reader's output.
"""

from __future__ import annotations

import base64
import functools
import io
import struct
import unicodedata
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ratings.history import HistoryError
from ratings.io import MAX_CELL_CHARS, ReadResult
from sources.uploads import read_upload
from tests.test_io_hostile import WALL_LIMIT, hostile, read_in_subprocess

FIXTURES = Path(__file__).parent / "fixtures" / "io"
NAMES = ["games.csv", "games.tsv", "games.txt", "games.xlsx", "games.ods", "games", "games.CSV", "../../etc/x.xlsx"]
HEADER = "game,date,player,place\n"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def upload(data: bytes, name: str | None) -> ReadResult:
    return read_upload("data:application/octet-stream;base64," + base64.b64encode(data).decode(), name)


def result_or_located_message(data: bytes, name: str | None) -> ReadResult | None:
    """The reader's answer: a result, or a HistoryError whose every problem is a plain sentence naming the file."""
    try:
        return upload(data, name)
    except HistoryError as error:
        assert error.problems, "an error says what is wrong"
        for problem in error.problems:
            text = str(problem)
            assert text.strip() and "Traceback" not in text and "\n" not in text.strip()
            assert len(text) < 2_000, "a message quotes the file briefly"
        return None


@FUZZ
@given(data=st.binary(max_size=4096), name=st.sampled_from(NAMES))
def test_random_bytes_under_any_name(data: bytes, name: str) -> None:
    result_or_located_message(data, name)


@FUZZ
@given(
    fixture=st.sampled_from(["long.xlsx", "wide.xlsx", "long.ods", "wide.ods", "long_basic.csv", "tabs.tsv"]),
    cut=st.floats(min_value=0.0, max_value=1.0),
)
def test_truncated_files(fixture: str, cut: float) -> None:
    data = (FIXTURES / fixture).read_bytes()
    result_or_located_message(data[: int(len(data) * cut)], fixture)


@FUZZ
@given(
    fixture=st.sampled_from(["long.xlsx", "wide.ods"]),
    flips=st.lists(st.tuples(st.floats(0.0, 0.999), st.integers(0, 255)), min_size=1, max_size=8),
)
def test_damaged_bytes_inside_a_spreadsheet(fixture: str, flips: list[tuple[float, int]]) -> None:
    data = bytearray((FIXTURES / fixture).read_bytes())
    for where, value in flips:
        data[int(where * len(data))] = value
    result_or_located_message(bytes(data), fixture)


def test_a_damaged_zip_directory_is_quoted_briefly() -> None:
    """Every local header of an .xlsx claims a 3,000-byte part name, so the header's name runs into the compressed
    bytes and ``zipfile`` reports the mismatch quoting all of them (over 4,000 characters before the message was
    capped; found by ``test_damaged_bytes_inside_a_spreadsheet``)."""
    data = bytearray((FIXTURES / "long.xlsx").read_bytes())
    start = data.find(b"PK\x03\x04")
    while start >= 0:
        data[start + 26 : start + 28] = struct.pack("<H", 3000)  # the local header's file-name length
        start = data.find(b"PK\x03\x04", start + 4)
    with pytest.raises(HistoryError) as caught:
        upload(bytes(data), "long.xlsx")
    (problem,) = caught.value.problems
    assert str(problem).startswith("long.xlsx: the Excel file cannot be read (File name in directory")
    assert len(str(problem)) < 300


# Names people type, and names that attack: formulas, markup, placeholders, control characters, long ones.
HOSTILE_NAMES = [
    "=cmd|' /C calc'!A0",
    "+SUM(A1:A9)",
    '@HYPERLINK("http://x")',
    "-1+1",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">me</a>',
    "%{y}",
    "{{7*7}}",
    "Robert'); DROP TABLE games;--",
    "Zoë Ĳssel 李 🎲",
    "x" * 10_000,
]
name_text = (
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters=',"\n\r\t;'),
        min_size=1,
        max_size=40,
    )
    .map(str.strip)
    .filter(bool)
)


def spelled(name: str) -> str:
    """A name as the README says the reader keeps it: runs of white space written as one space, Unicode composed
    (NFC: a compatibility ideograph such as U+F900 is read as its canonical U+8C48)."""
    return unicodedata.normalize("NFC", " ".join(name.split()))


def distinct(players: list[str]) -> bool:
    """Whether no two names differ only in case or spacing (the README: such spellings are one player)."""
    return len({spelled(p).casefold() for p in players}) == len(players)


def long_csv(players: list[str]) -> str:
    """One game with ``players`` finishing in that order, in the long shape (names quoted as CSV requires)."""
    lines = [HEADER.strip()]
    for place, player in enumerate(players, start=1):
        quoted = '"' + player.replace('"', '""') + '"'
        lines.append(f"g1,2024-03-01,{quoted},{place}")
    return "\n".join(lines) + "\n"


@FUZZ
@given(players=st.lists(st.one_of(st.sampled_from(HOSTILE_NAMES), name_text), min_size=2, max_size=8, unique=True))
@example(players=["\uf900", "Ann"])  # a compatibility ideograph: kept composed (U+8C48), found by a random run
def test_any_names_read_back_exactly_as_text(players: list[str]) -> None:
    if not distinct(players):
        return  # names differing only in case or spacing are one player by the README's rule
    try:
        result = upload(long_csv(players).encode("utf-8"), "names.csv")
    except HistoryError as error:  # a name the reader refuses (e.g. a spreadsheet's cell limit) is named
        assert all(str(p).startswith("names.csv") for p in error.problems)
        return
    finishers = [r["player"] for r in sorted(result.history.to_records(), key=lambda r: r["place"])]
    assert finishers == [spelled(p) for p in players], (
        "formulas, markup and placeholders are kept as the names they are"
    )


@FUZZ
@given(
    players=st.lists(
        st.one_of(st.sampled_from(["Zoë", "Günter", "Ångström", "Çelik"]), name_text),
        min_size=2,
        max_size=6,
        unique=True,
    ),
    codec=st.sampled_from(["utf-16", "utf-16-le", "latin-1", "cp1251", "cp1252"]),
)
def test_mis_encoded_text_is_read_with_every_player_and_a_word_on_the_encoding(players: list[str], codec: str) -> None:
    text = long_csv(players)
    try:
        data = text.encode(codec)
    except UnicodeEncodeError:
        return  # the names cannot be written in this encoding at all
    if not distinct(players):
        return
    try:
        result = upload(data, "names.csv")
    except HistoryError as error:
        # Decoded in a wrong single-byte code page, a name may turn into something the reader refuses; it says so.
        assert all(str(p).startswith("names.csv") for p in error.problems)
        return
    # Any single-byte decoding maps distinct byte strings to distinct texts: every player is still there, distinct.
    assert result.history.n_games == 1 and result.history.n_players == len(players)
    assert result.encoding is not None and result.encoding != "utf_8"
    assert any("UTF-8" in w or "UTF-16" in w for w in result.warnings), result.warnings
    if codec.startswith("utf-16"):
        assert sorted(r["player"] for r in result.history.to_records()) == sorted(spelled(p) for p in players)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (HEADER + "1,2024-01-01,A,nan\n1,2024-01-01,B,2\n", "place 'nan' is not a whole number"),
        (HEADER + "1,2024-01-01,A,inf\n1,2024-01-01,B,2\n", "place 'inf' is not a whole number"),
        (HEADER + "1,2024-01-01,A,-inf\n1,2024-01-01,B,2\n", "place '-inf' is not a whole number"),
        (HEADER + "1,2024-01-01,A,1e400\n1,2024-01-01,B,2\n", "row 2, column 'place'"),
        (HEADER + "1,2024-01-01,A,NaN\n1,2024-01-01,B,2\n", "row 2, column 'place'"),
        ("game,game,player,place\n1,1,A,1\n1,1,B,2\n", "columns 'game' and 'game'"),
        ("date,1st,1st\n2024-01-01,Ann,Bob\n", "row 1"),
        (HEADER + "1,2024-01-01," + "x" * (MAX_CELL_CHARS + 1) + ",1\n", f"more than {MAX_CELL_CHARS:,} characters"),
    ],
)
def test_nan_infinities_duplicate_headers_and_overlong_cells_are_located(text: str, said: str) -> None:
    with pytest.raises(HistoryError) as caught:
        upload(text.encode(), "hostile.csv")
    messages = " ".join(str(p) for p in caught.value.problems)
    assert said in messages and "hostile.csv" in messages, messages


def test_a_name_of_ten_thousand_characters_is_a_name() -> None:
    name = "Ж" * 10_000
    result = upload(long_csv([name, "Bob"]).encode(), "long-name.csv")
    assert {r["player"] for r in result.history.to_records()} == {name, "Bob"}


# ---------------------------------------------------------------------------------------------- heavy, in a subprocess
def rows_csv(rows: int) -> bytes:
    """``rows`` data rows in the long shape: games of four players (written at test time, about 6 MB)."""
    out = io.StringIO()
    out.write(HEADER)
    for i in range(rows):
        out.write(f"{i // 4},2024-01-01,p{i % 4},{i % 4 + 1}\n")
    return out.getvalue().encode()


@functools.cache
def zip_bomb_xlsx() -> bytes:
    """A .xlsx whose worksheet unpacks to 210 MB of blanks in one row (past the 200 MB bound; ~200 kB zipped).

    Written as it streams, in 100 kB pieces, and once per run (two cases read it)."""
    blanks = hostile._repeated(b" " * 100_000, 2_100, block=1)
    return hostile._xlsx([b"<worksheet><sheetData>", b'<row r="1">', *blanks, b"</row></sheetData></worksheet>"])


def billion_laughs_ods() -> bytes:
    """An .ods whose content.xml defines nested entities (a few hundred bytes that would expand to gigabytes)."""
    entities = ['<!ENTITY lol "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10)
    ]
    content = f'<?xml version="1.0"?><!DOCTYPE office:document-content [{"".join(entities)}]>' + (
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
        '<table:table table:name="Games"><table:table-row><table:table-cell><text:p>&lol9;</text:p></table:table-cell>'
        "</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", content)
    return buffer.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("maker", "name", "said"),
    [
        (lambda: rows_csv(200_001), "rows.csv", "200,000"),
        (zip_bomb_xlsx, "report.xlsx", "report.xlsx"),
        (billion_laughs_ods, "report.ods", "report.ods"),
        (lambda: zip_bomb_xlsx(), "disguised.ods", "disguised.ods"),  # an .xlsx named .ods
    ],
    ids=["200001-rows", "zip-bomb-xlsx", "xml-bomb-ods", "xlsx-named-ods"],
)
def test_heavy_files_are_refused_within_time_and_memory(maker, name: str, said: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_bytes(maker())
    outcome, seconds = read_in_subprocess(path, name)
    assert "problems" in outcome, outcome
    messages = " ".join(p[0] for p in outcome["problems"])
    assert said in messages or said in " ".join(str(p[3]) for p in outcome["problems"]), outcome
    assert seconds < WALL_LIMIT
    assert outcome["max_rss_mb"] < 600, outcome["max_rss_mb"]
