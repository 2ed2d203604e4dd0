"""A group's corrections, deletions and undos change the cached history in place of reading the title again (issue
24): after each one, the history the page serves is the one read from the database, game by game (ids, dates, times,
entries with teams and weights, players, warnings), in this worker and in another that follows the shared steps;
when a change re-orders other games (the title's only undated game), the next look reads the database instead.
The reference is the database itself: :func:`sources.groups.service.history` reads the title anew each time."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ratings.history import Entry
from sources.access import group_mark
from sources.groups import pages, service
from sources.groups.database import database_url, process_sessions, upgrade
from sources.model import GroupTitle
from sources.record import NewGame, new_game

SECRET = "key"


@pytest.fixture(params=["sqlite", "postgres"])
def club(request, tmp_path, monkeypatch) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """A group 'club' in a fresh database (SQLite, and a real PostgreSQL started by the suite): Catan with six dated
    games (two on one day), and an organiser's cookie entry; the page's histories of this process forgotten."""
    monkeypatch.setenv("RATINGS_DATA_DIR", str(tmp_path / "data"))
    if request.param == "sqlite":
        monkeypatch.delenv("DATABASE_URL", raising=False)
    else:
        monkeypatch.setenv("DATABASE_URL", request.getfixturevalue("postgres").new_database())
    upgrade(database_url())
    pages._LOADED.clear()
    with process_sessions()() as session:
        group, _ = service.create_group(session, "club", "The Club", titles=["Catan"])
        games: list[tuple[str, list[tuple[str, int | None]]]] = [
            ("2024-01-05", [("Ann", 1), ("Bob", 2), ("Cid", 3)]),
            ("2024-01-12", [("Bob", 1), ("Ann", 2)]),
            ("2024-01-12", [("Cid", 1), ("Dee", 2), ("Ann", None)]),
            ("2024-01-19", [("Cid", 1), ("Ann", 1)]),
            ("2024-01-26", [("Eve", 1), ("Bob", 2)]),
            ("2024-02-02", [("Ann", 1), ("Bob", 2), ("Cid", 2)]),
        ]
        for date, result in games:
            service.record_game(session, group.titles[0], new_game(date, result), who="setup")
        session.commit()
        entry = {"role": "organiser", "mark": group_mark(SECRET, "club", "organiser", group.admin_hash)}
    yield {"entry": entry}
    pages._LOADED.clear()


def _read() -> Any:
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        return service.history(session, group.titles[0])


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets an item each time the page reads a title from the database."""
    reads: list[int] = []
    real = service.read_title

    def counted(*args: Any) -> Any:
        reads.append(1)
        return real(*args)

    monkeypatch.setattr(service, "read_title", counted)
    return reads


def _same(served: Any, read: Any, where: str) -> None:
    assert served.game_ids == read.game_ids, where
    assert served.games == read.games, where  # entries (player, place, team, weight), date and time of each game
    assert served.players == read.players and served.warnings == read.warnings, where
    assert served.to_records() == read.to_records(), where
    for name in ("offsets", "flat_player", "flat_rank", "flat_position", "flat_team", "flat_weight", "team_game"):
        assert getattr(served, name).tolist() == getattr(read, name).tolist(), (where, name)


def test_each_correction_deletion_and_undo_changes_the_cached_history_as_a_read_of_the_database_gives_it(
    club: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    who = {"entry": club["entry"], "secret_key": SECRET}
    reads = _counted_reads(monkeypatch)
    before = GroupTitle("club", "Catan").load()  # read once, then cached under the change counter
    assert before.history.n_games == 6 and reads == [1]

    def correct(game_id: str, game: NewGame) -> Callable[[], str]:
        return lambda: pages.record("club", "Catan", game, token="t", correcting=game_id, **who)

    steps: list[tuple[str, Callable[[], str], bool]] = [
        ("correct in place", correct("g2", new_game("2024-01-12", [("Ann", 1), ("Bob", 2)])), False),
        ("correct to a later day", correct("g1", new_game("2024-01-26", [("Cid", 1), ("Bob", 2)])), False),
        ("correct with a newcomer", correct("g5", new_game("2024-01-26", [("Fay", 1), ("Bob", 2)])), False),
        ("delete a game of the day", lambda: pages.delete_game("club", "Catan", "g3", **who), False),
        ("undo the deletion", lambda: pages.undo_last("club", **who), False),
        ("undo the newcomer", lambda: pages.undo_last("club", **who), False),
        ("delete Dee's only game", lambda: pages.delete_game("club", "Catan", "g3", **who), False),
        (
            "correct into a team game",
            correct("g6", NewGame(dt.date(2024, 2, 2), (Entry("Ann", 1, "x"), Entry("Bob", 1, "x"), Entry("Cid", 2)))),
            False,
        ),
        ("correct with a time of day", correct("g4", new_game("2024-01-12 18:30", [("Cid", 1), ("Ann", 2)])), False),
        ("undo the time of day", lambda: pages.undo_last("club", **who), False),
        # the only undated game turns the title to recording order, which moves g1 (dated after g4) before g4:
        # only the database knows it
        ("correct to no date", correct("g2", new_game(None, [("Ann", 1), ("Bob", 2)])), True),
        ("undo the undated", lambda: pages.undo_last("club", **who), True),
    ]
    for where, write, read_again in steps:
        said = write()
        assert "corrected" in said or "deleted" in said or "Undone" in said, (where, said)
        reads.clear()
        served = GroupTitle("club", "Catan").load()
        assert served.key != before.key, where  # every write moves the key
        assert bool(reads) is read_again, where
        read = _read()
        _same(served.history, read, where)
        # another worker (this process's histories forgotten) follows the shared steps from the history it reads
        pages._LOADED.clear()
        reads.clear()
        elsewhere = GroupTitle("club", "Catan").load()
        assert not reads, where
        _same(elsewhere.history, read, where)
        before = served
    assert "Dee" not in before.history.players  # her only game is deleted


def test_a_game_recorded_under_an_alias_is_served_as_its_player(club: dict[str, Any]) -> None:
    """A recorded game (the cached history grown by it) and a correction name the player an alias is of, as the
    database's read does."""
    who = {"entry": club["entry"], "secret_key": SECRET}
    pages.declare_alias("club", "Annie", "Ann", **who)
    GroupTitle("club", "Catan").load()  # cached after the alias
    pages.record("club", "Catan", new_game("2024-03-01", [("annie", 1), ("Bob", 2)]), token="a", **who)
    _same(GroupTitle("club", "Catan").load().history, _read(), "recorded")
    pages.record("club", "Catan", new_game("2024-01-12", [("Annie", 2), ("Bob", 1)]), token="b", correcting="g2", **who)
    served = GroupTitle("club", "Catan").load().history
    _same(served, _read(), "corrected")
    assert "Annie" not in served.players and "annie" not in served.players


def test_another_write_between_leaves_the_next_look_to_the_database(
    club: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change counted twice since the counter read (another write came between) is not carried: the history is
    read from the database at the next look, and equals it."""
    who = {"entry": club["entry"], "secret_key": SECRET}
    GroupTitle("club", "Catan").load()
    real = service.changes_since
    monkeypatch.setattr(service, "changes_since", lambda *a: real(*a) + 1)
    pages.delete_game("club", "Catan", "g4", **who)
    reads = _counted_reads(monkeypatch)
    served = GroupTitle("club", "Catan").load().history
    assert reads == [1]
    _same(served, _read(), "deleted")
