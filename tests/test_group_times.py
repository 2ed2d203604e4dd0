"""Time of day kept through the app's own paths (issue 24 with the readers' times of issue 27): the shared store, the
record form's game, the sheet's row and a group's page (import, record, export, restore).

The file below is written by hand: two games on 1 March listed out of time order (a at 20:00 before b at 18:00), so
the readers play b first (ratings.io.dates.play_order: by date, then time of day); the expected orders are worked out
by hand from the times."""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Iterator

import pytest

from ratings import create
from ratings.io import read_file

FILE = b"""game,date,player,place
a,2024-03-01 20:00,Ann,1
a,2024-03-01 20:00,Bob,2
a,2024-03-01 20:00,Cid,3
b,2024-03-01 18:00,Bob,1
b,2024-03-01 18:00,Cid,2
c,2024-03-02 09:30,Cid,1
c,2024-03-02 09:30,Ann,2
d,2024-03-03,Ann,1
d,2024-03-03,Bob,DNF
"""
#: (id, time of day) in play order, by hand: b (18:00) before a (20:00) on 1 March, then c, then d (no time).
ORDER = [("b", dt.time(18)), ("a", dt.time(20)), ("c", dt.time(9, 30)), ("d", None)]


def _file():  # type: ignore[no-untyped-def]
    return read_file(FILE, filename="times.csv").history


@pytest.fixture
def store(tmp_path) -> Iterator[None]:  # type: ignore[no-untyped-def]
    from sources import histories
    from sources.store import DiskStore, shared_store, use_store

    before = shared_store()
    use_store(DiskStore(str(tmp_path / "store")))
    yield
    histories._recent.clear()
    use_store(before)


def _fetched_anew(cid: str):  # type: ignore[no-untyped-def]
    """The history under ``cid`` read back from the store (not this process's memory of it)."""
    from sources import histories

    histories._recent.clear()
    return histories.fetch(cid)


def test_a_history_kept_in_the_store_keeps_its_times(store) -> None:  # type: ignore[no-untyped-def]
    from sources.histories import keep, serialise

    history = _file()
    assert [(g.id, g.time) for g in history.games] == ORDER
    back = _fetched_anew(keep(history))
    assert back.games == history.games
    # a game without a time is written as before (its content id unchanged): date alone
    assert b'["d","2024-03-03",' in serialise(history) and b'"2024-03-01 18:00"' in serialise(history)


def test_a_file_with_times_edited_in_the_grid_and_stored_rates_as_the_file(store) -> None:  # type: ignore[no-untyped-def]
    from sources.edits import check_rows, grid_rows
    from sources.histories import keep

    history = _file()
    checked = check_rows(grid_rows(history))
    assert checked.history is not None and checked.problems == []
    back = _fetched_anew(keep(checked.history))
    assert [g.id for g in back.games] == [g for g, _ in ORDER]
    for system in ("multielo", "trueskill", "glicko2"):
        assert create(system).rate(back).final.tolist() == create(system).rate(history).final.tolist(), system


def test_a_recorded_game_keeps_its_time_in_the_session_and_the_sheet_row() -> None:
    from sources.record import add_game, new_game, sheet_rows

    game = new_game("2024-03-01 19:00", [("Ann", 1), ("Bob", 2)])
    assert (game.date, game.time) == (dt.date(2024, 3, 1), dt.time(19))
    assert new_game("2024-03-01", [("Ann", 1), ("Bob", 2)]).time is None
    added = add_game(_file(), game, token="x")
    assert [(g.id, g.time) for g in added.games][:3] == [("b", dt.time(18)), ("x", dt.time(19)), ("a", dt.time(20))]
    _, rows = sheet_rows(["game", "date", "player", "place"], game, game_id="x")
    assert rows == [["x", "2024-03-01 19:00", "Ann", 1], ["x", "2024-03-01 19:00", "Bob", 2]]


def _data_url(text: str) -> str:
    return "data:text/csv;base64," + base64.b64encode(text.encode()).decode()


def test_a_group_keeps_times_through_record_correct_undo_export_and_restore(tmp_path, monkeypatch, store) -> None:  # type: ignore[no-untyped-def]
    from sources.access import group_mark
    from sources.groups import pages, service
    from sources.groups.database import database_url, process_sessions, upgrade
    from sources.record import new_game

    monkeypatch.setenv("RATINGS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    upgrade(database_url())
    with process_sessions()() as session:
        club, _ = service.create_group(session, "club", "Club", titles=["Races"])
        copy, _ = service.create_group(session, "copy", "Copy")
        entries = {
            g.slug: {"role": "organiser", "mark": group_mark("key", g.slug, "organiser", g.admin_hash)}
            for g in (club, copy)
        }
        session.commit()
    key = {"secret_key": "key"}
    pages.import_games("club", "Races", _file(), entry=entries["club"], **key)
    assert [(g.id, g.time) for g in pages.load_title("club", "Races").history.games] == ORDER
    game = new_game("2024-03-01 19:00", [("Ann", 1), ("Cid", 2)])
    pages.record("club", "Races", game, token="t1", entry=entries["club"], **key)
    recorded = pages.load_title("club", "Races").history
    (new_id,) = {g.id for g in recorded.games} - {"a", "b", "c", "d"}
    assert [(g.id, g.time) for g in recorded.games][:3] == [
        ("b", dt.time(18)),
        (new_id, dt.time(19)),
        ("a", dt.time(20)),
    ]
    # corrected to 21:15 it moves after a; undone, it is back at 19:00
    later = new_game("2024-03-01 21:15", [("Ann", 1), ("Cid", 2)])
    pages.record("club", "Races", later, token="t2", entry=entries["club"], correcting=new_id, **key)
    assert [g.id for g in pages.load_title("club", "Races").history.games][:3] == ["b", "a", new_id]
    pages.undo_last("club", entry=entries["club"], **key)
    again = pages.load_title("club", "Races").history
    assert again.games == recorded.games

    csv_text, manifest = pages.export_files("club", "Races")
    assert "2024-03-01 19:00" in csv_text and "2024-03-01 18:00" in csv_text
    files = [("Races.csv", _data_url(csv_text)), ("changes.json", _data_url(manifest))]
    read_manifest, read_histories = pages.read_export(files)
    pages.restore("copy", read_manifest, read_histories, entry=entries["copy"], **key)
    restored = pages.load_title("copy", "Races").history
    assert restored.games == again.games
