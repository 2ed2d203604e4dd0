"""One rule per concept: the same tricky inputs give the same verdict on every path a user can type them into.

Each case is one game of three players (Ann 1st, Bob 2nd and a third whose name, place or the game's date is the
tricky value), played after a first game on 2024-03-01.  It goes through

- an uploaded CSV (``sources.uploads.read_upload``, as the upload box hands it over),
- the edit grid's Apply (``sources.edits.apply_rows``: the rows typed into the grid),
- the record form (``sources.record_form.plan`` and ``add_to_session``: the form's fields, into the session history),
- the command line (``python -m ratings rate FILE --trajectory``, in-process),

and every path must read it the same way: refused, or the same date and the same players in the same places.
The expected verdicts are written by hand from the rules in the README ("Game-history files"): a place is a whole
number from 1 (``2nd`` and ``2.0`` too), a blank place or DNF/DQ/DNS is did-not-finish, names are trimmed with
their spacing folded and are one player up to case, dates are ISO or unambiguous day/month forms.
"""

from __future__ import annotations

import base64
import csv
import io
import unicodedata
from pathlib import Path
from typing import Any

import pytest

import figures
from callbacks.runs import history_for, run_for
from ratings import GameHistory, HistoryError
from ratings.cli import main
from ratings.io import write_csv
from sources import edits, record_form
from sources.model import Sample
from sources.reading import history_csv
from sources.record import new_game, sheet_rows
from sources.uploads import read_upload

FIRST = [("g1", "2024-03-01", "Ann", "1"), ("g1", "2024-03-01", "Bob", "2")]
DATE = "2024-03-08"
REFUSED = "refused"
DNF = None

# (what, the third player's name, their place, the game's date) -> (date read, the third player's name and place)
CASES: list[tuple[str, str, str, str, Any]] = [
    # places
    ("place DQ", "Cy", "DQ", DATE, (DATE, "Cy", DNF)),
    ("place dnf", "Cy", "dnf", DATE, (DATE, "Cy", DNF)),
    ("place DNS", "Cy", "DNS", DATE, (DATE, "Cy", DNF)),
    ("place did not finish", "Cy", "Did not finish", DATE, (DATE, "Cy", DNF)),
    ("place blank", "Cy", "", DATE, (DATE, "Cy", DNF)),
    ("place padded", "Cy", " 2 ", DATE, (DATE, "Cy", 2)),
    ("place 2nd", "Cy", "2nd", DATE, (DATE, "Cy", 2)),
    ("place 3rd", "Cy", "3rd", DATE, (DATE, "Cy", 3)),
    ("place 2.0", "Cy", "2.0", DATE, (DATE, "Cy", 2)),
    ("place second", "Cy", "second", DATE, REFUSED),
    ("place 0", "Cy", "0", DATE, REFUSED),
    ("place -1", "Cy", "-1", DATE, REFUSED),
    ("place 2.5", "Cy", "2.5", DATE, REFUSED),
    ("place 1,5", "Cy", "1,5", DATE, REFUSED),
    ("place a date", "Cy", "2024-01-01", DATE, REFUSED),
    ("place beyond a million", "Cy", "10000000", DATE, REFUSED),
    # names
    ("name -1", "-1", "3", DATE, (DATE, "-1", 3)),
    ("name =1+1", "=1+1", "3", DATE, (DATE, "=1+1", 3)),
    ("name +x", "+x", "3", DATE, (DATE, "+x", 3)),
    ("name @x", "@x", "3", DATE, (DATE, "@x", 3)),
    ("name Cyrillic, padded", "  Иван   Петров ", "3", DATE, (DATE, "Иван Петров", 3)),
    (
        "name decomposed",
        unicodedata.normalize("NFD", "Йоко"),
        "3",
        DATE,
        (DATE, unicodedata.normalize("NFC", "Йоко"), 3),
    ),
    ("name Ann again, other case", "ann", "3", DATE, REFUSED),
    ("name blank with a place", "", "3", DATE, REFUSED),
    ("name byte-order mark only", "\ufeff", "3", DATE, REFUSED),
    # dates
    ("date with extra digits", "Cy", "3", "2024-01-0123", REFUSED),
    ("date day or month first", "Cy", "3", "07/01/2023", REFUSED),
    ("date day first", "Cy", "3", "31/01/2023", ("2023-01-31", "Cy", 3)),
    ("date in words", "Cy", "3", "31 January 2023", ("2023-01-31", "Cy", 3)),
    ("date not real", "Cy", "3", "2024-02-30", REFUSED),
    ("date month 13", "Cy", "3", "2024-13-01", REFUSED),
    ("date blank", "Cy", "3", "", (None, "Cy", 3)),
]


def game_rows(name: str, place: str, date: str) -> list[tuple[str, str, str, str]]:
    return [*FIRST, ("g2", date, "Ann", "1"), ("g2", date, "Bob", "2"), ("g2", date, name, place)]


def csv_bytes(rows: list[tuple[str, str, str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["game", "date", "player", "place"])
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def verdict_of(history: GameHistory, game_id: str) -> Any:
    """The tricky game as (date, third player, place); the other two must be Ann 1st and Bob 2nd."""
    (game,) = [g for g in history.games if g.id == game_id]
    others = {(e.player, e.place) for e in game.entries if e.player in ("Ann", "Bob")}
    assert others == {("Ann", 1), ("Bob", 2)}
    (third,) = [e for e in game.entries if e.player not in ("Ann", "Bob")]
    return (game.date.isoformat() if game.date else None, third.player, third.place)


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    """The first game as an uploaded history: the session every grid edit and form entry starts from."""
    data = csv_bytes(FIRST)
    contents = "data:text/csv;base64," + base64.b64encode(data).decode()
    from sources.model import Upload, keep_history

    return Upload(keep_history(read_upload(contents, "first.csv").history), "first.csv").to_json()


def by_upload(name: str, place: str, date: str, _base: dict[str, Any], _tmp: Path) -> Any:
    contents = "data:text/csv;base64," + base64.b64encode(csv_bytes(game_rows(name, place, date))).decode()
    try:
        return verdict_of(read_upload(contents, "club.csv").history, "g2")
    except HistoryError:
        return REFUSED


def by_grid(name: str, place: str, date: str, base: dict[str, Any], _tmp: Path) -> Any:
    rows = edits.grid_rows(history_for(base))
    for game, day, player, where in game_rows(name, place, date)[len(FIRST) :]:
        rows = edits.add_player(rows) if rows[-1]["game"] == game else edits.add_row(rows)
        rows[-1].update(game=game, date=day, player=player, place=where)
    outcome = edits.apply_rows(rows, edits.fresh_state(base))
    if not outcome.ok:
        assert outcome.source is None and outcome.message.startswith("Not applied")
        return REFUSED
    return verdict_of(history_for(outcome.source), "g2")


def by_form(name: str, place: str, date: str, base: dict[str, Any], _tmp: Path) -> Any:
    step = record_form.plan(None, date, ["Ann", "Bob", name], ["1", "2", place], "form-token", writable=False)
    if step.problems:
        return REFUSED
    assert step.game is not None
    outcome = record_form.add_to_session(edits.fresh_state(base), step.game, "form-token")
    assert outcome.ok, outcome.message
    return verdict_of(history_for(outcome.source), "form-token")


def by_cli(name: str, place: str, date: str, _base: dict[str, Any], tmp: Path) -> Any:
    path = tmp / "club.csv"
    path.write_bytes(csv_bytes(game_rows(name, place, date)))
    out, err = io.StringIO(), io.StringIO()
    if main(["rate", str(path), "--trajectory"], out=out, err=err) != 0:
        assert err.getvalue().startswith("ratings: error: club.csv, row ")
        return REFUSED
    # The trajectory is a CSV the readers read back (its formula quotes removed by the readers' rule).
    rows = [
        dict(zip(("game", "date", "player", "place"), r[:4], strict=True))
        for r in csv.reader(io.StringIO(out.getvalue()))
    ]
    return verdict_of(GameHistory.from_records(rows[1:]), "g2")


PATHS = {"upload": by_upload, "edit grid": by_grid, "record form": by_form, "command line": by_cli}


@pytest.mark.parametrize(("what", "name", "place", "date", "expected"), CASES, ids=[c[0] for c in CASES])
def test_every_path_gives_the_same_verdict(
    what: str, name: str, place: str, date: str, expected: Any, base: dict[str, Any], tmp_path: Path
) -> None:
    verdicts = {path: read(name, place, date, base, tmp_path) for path, read in PATHS.items()}
    assert verdicts == dict.fromkeys(PATHS, expected), what


def test_refusals_quote_the_value_on_every_path(base: dict[str, Any], tmp_path: Path) -> None:
    # Not only refused everywhere, but refused for the same reason, in the same words.
    contents = "data:text/csv;base64," + base64.b64encode(csv_bytes(game_rows("Cy", "2nd place?", DATE))).decode()
    with pytest.raises(HistoryError) as upload:
        read_upload(contents, "club.csv")
    reason = "place '2nd place?' is not a whole number (1 is the best place) or DNF"
    assert reason in str(upload.value)
    step = record_form.plan(None, DATE, ["Ann", "Bob", "Cy"], ["1", "2", "2nd place?"], "t", writable=False)
    assert any(reason in p for p in step.problems)
    rows = edits.grid_rows(history_for(base))
    rows[-1]["place"] = "2nd place?"
    assert reason in edits.apply_rows(rows, edits.fresh_state(base)).message
    with pytest.raises(HistoryError, match="2024-01-0123' is not a date this reader understands"):
        new_game("2024-01-0123", [("Ann", 1), ("Bob", 2)])


# ---------------------------------------------------------------------------------------------- formula quoting
FORMULA_NAMES = ["-1", "=cmd|' -C calc'!A0", "+x", "@x", "=1+1", "-2.5"]


def formula_history() -> GameHistory:
    rows = [("g1", "2024-03-01", name, str(k + 1)) for k, name in enumerate(["Ann", *FORMULA_NAMES])]
    return GameHistory.from_records([dict(zip(("game", "date", "player", "place"), r, strict=True)) for r in rows])


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture(scope="module")
def formula_source() -> dict[str, Any]:
    from sources.model import Upload, keep_history

    return Upload(keep_history(formula_history()), "names.csv").to_json()


def quoted(name: str) -> str:
    """OWASP's CSV-injection rule written out: a leading apostrophe before = + - @ tab and carriage return."""
    return "'" + name if name[0] in "=+-@\t\r" else name


def test_every_writer_quotes_names_the_same_way(formula_source: dict[str, Any], tmp_path: Path) -> None:
    expected = {quoted(n) for n in FORMULA_NAMES}
    assert "'-1" in expected and "'@x" in expected
    history = history_for(formula_source)
    # the app's history download and leaderboard download
    history_cells = cells(history_csv(formula_source))
    assert {r[2] for r in history_cells[1:]} - {"Ann"} == expected
    leaderboard = cells(figures.ratings_csv(run_for(formula_source, "multielo", {})))
    assert {r[1] for r in leaderboard[1:]} - {"Ann"} == expected
    # the command line's leaderboard and trajectory
    path = tmp_path / "names.csv"
    path.write_text(write_csv(history), encoding="utf-8")
    for extra in ([], ["--trajectory"]):
        out = io.StringIO()
        assert main(["rate", str(path), *extra], out=out, err=io.StringIO()) == 0
        column = 0 if not extra else 2
        assert {r[column] for r in cells(out.getvalue())[1:]} - {"Ann"} == expected
    # the rows appended to a Google Sheet, long and wide
    game = new_game("2024-03-01", [(n, k + 1) for k, n in enumerate(["Ann", *FORMULA_NAMES])])
    _, long_rows = sheet_rows(["game", "date", "player", "place"], game, game_id="-3")
    assert {r[2] for r in long_rows} - {"Ann"} == expected and long_rows[0][0] == "'-3"
    header = ["date", *(f"{k}" for k in ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th"))]
    _, (wide,) = sheet_rows(header, game, game_id=None)
    assert set(wide[2:]) == expected


def test_quoted_names_read_back_as_they_were(formula_source: dict[str, Any]) -> None:
    text = history_csv(formula_source)
    contents = "data:text/csv;base64," + base64.b64encode(text.encode()).decode()
    again = read_upload(contents, "again.csv").history
    assert set(again.players) == {"Ann", *(n.strip() for n in FORMULA_NAMES)}


def test_a_sample_source_reads_the_same_through_the_records_reader() -> None:
    # GameHistory.from_records reads records by the file reader's rules: the bundled sample round-trips.
    history = history_for(Sample("racing").to_json())
    again = GameHistory.from_records(history.to_records())
    assert [(g.id, g.date, g.entries) for g in again.games] == [(g.id, g.date, g.entries) for g in history.games]


# ---------------------------------------------------------------------------------------------- teams
# One game of Ann and Bob against Cid and Dee; the tricky value is a team or weight cell of Bob's row.  Each case
# goes through an uploaded CSV, the edit grid's Apply (the game's rows typed into the grid under the first game,
# ``sources.edits.apply_rows``), the record form (``record_form.plan`` with a team per player line, then
# ``add_to_session``) and the command line.  The form has no weight field, so the weight cases skip it.  Verdicts
# by hand from the rule in ratings/io/teams.py: Bob's (place, team, weight), or refused.
TEAM_CASES: list[tuple[str, str, str, str, Any]] = [
    ("team same text", "1", "Red", "", (1, "Red", 1.0)),
    ("team other case and spacing", "1", "  RED ", "", (1, "RED", 1.0)),
    ("team blank is a team of one", "3", "", "", (3, None, 1.0)),
    ("team of the other side", "2", "blue", "", (2, "blue", 1.0)),
    ("team padded inside", "1", "R  e d", "", (1, "R e d", 1.0)),
    ("teammate in another place", "2", "Red", "", REFUSED),
    ("teammate DNF", "DNF", "Red", "", REFUSED),
    ("teammate place 1st", "1st", "Red", "", (1, "Red", 1.0)),
    ("weight half", "1", "Red", "0.5", (1, "Red", 0.5)),
    ("weight percent", "1", "Red", "25%", (1, "Red", 0.25)),
    ("weight 0", "1", "Red", "0", REFUSED),
    ("weight above 1", "1", "Red", "1.5", REFUSED),
    ("weight words", "1", "Red", "half", REFUSED),
]
TEAM_GAME, TEAM_DATE = "t1", "2024-03-08"


def team_rows(place: str, team: str, weight: str) -> list[tuple[str, ...]]:
    return [
        (TEAM_GAME, TEAM_DATE, "Ann", "1", "Red", ""),
        (TEAM_GAME, TEAM_DATE, "Bob", place, team, weight),
        (TEAM_GAME, TEAM_DATE, "Cid", "2", "Blue", ""),
        (TEAM_GAME, TEAM_DATE, "Dee", "2", "Blue", ""),
    ]


def team_csv(rows: list[tuple[str, ...]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["game", "date", "player", "place", "team", "weight"])
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def bob(history: GameHistory, game_id: str = TEAM_GAME) -> Any:
    (game,) = [g for g in history.games if g.id == game_id]
    (entry,) = [e for e in game.entries if e.player == "Bob"]
    return (entry.place, entry.team, entry.weight)


def team_by_upload(rows: list[tuple[str, ...]], _base: dict[str, Any], _tmp: Path) -> Any:
    contents = "data:text/csv;base64," + base64.b64encode(team_csv(rows)).decode()
    try:
        return bob(read_upload(contents, "club.csv").history)
    except HistoryError:
        return REFUSED


def team_by_grid(rows: list[tuple[str, ...]], base: dict[str, Any], _tmp: Path) -> Any:
    grid = edits.grid_rows(history_for(base))
    for game, day, player, place, team, weight in rows:
        grid = edits.add_player(grid) if grid[-1]["game"] == game else edits.add_row(grid)
        grid[-1].update(game=game, date=day, player=player, place=place, team=team, weight=weight)
    outcome = edits.apply_rows(grid, edits.fresh_state(base))
    if not outcome.ok:
        assert outcome.source is None and outcome.message.startswith("Not applied")
        return REFUSED
    return bob(history_for(outcome.source))


def team_by_form(rows: list[tuple[str, ...]], base: dict[str, Any], _tmp: Path) -> Any:
    players, places, teams = [r[2] for r in rows], [r[3] for r in rows], [r[4] for r in rows]
    step = record_form.plan(None, TEAM_DATE, players, places, "form-token", writable=False, teams=teams)
    if step.problems:
        return REFUSED
    assert step.game is not None
    outcome = record_form.add_to_session(edits.fresh_state(base), step.game, "form-token")
    assert outcome.ok, outcome.message
    return bob(history_for(outcome.source), "form-token")


def team_by_cli(rows: list[tuple[str, ...]], _base: dict[str, Any], tmp: Path) -> Any:
    path = tmp / "club.csv"
    path.write_bytes(team_csv(rows))
    out, err = io.StringIO(), io.StringIO()
    if main(["rate", str(path), "--trajectory"], out=out, err=err) != 0:
        assert err.getvalue().startswith("ratings: error: club.csv, row 3")
        return REFUSED
    table = list(csv.reader(io.StringIO(out.getvalue())))
    keys = ("game", "date", "player", "place", "team", "weight")
    assert tuple(table[0][:6]) == keys
    return bob(GameHistory.from_records([dict(zip(keys, r[:6], strict=True)) for r in table[1:]]))


TEAM_PATHS = {
    "upload": team_by_upload,
    "edit grid": team_by_grid,
    "record form": team_by_form,
    "command line": team_by_cli,
}


@pytest.mark.parametrize(("what", "place", "team", "weight", "expected"), TEAM_CASES, ids=[c[0] for c in TEAM_CASES])
def test_every_path_reads_teams_the_same_way(
    what: str, place: str, team: str, weight: str, expected: Any, base: dict[str, Any], tmp_path: Path
) -> None:
    rows = team_rows(place, team, weight)
    paths = {k: v for k, v in TEAM_PATHS.items() if not (weight and k == "record form")}  # the form has no weight
    verdicts = {path: read(rows, base, tmp_path) for path, read in paths.items()}
    assert verdicts == dict.fromkeys(paths, expected), what
