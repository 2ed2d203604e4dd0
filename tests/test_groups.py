"""A group's games kept in a database (issue 24, its data layer): migrations from empty to head, every write path
with its change log, undo, export then import giving the same history, and two groups never seeing each other's
games, on SQLite and on a real PostgreSQL started by the suite (tests/postgres_server.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from ratings import create
from ratings.samples import load_sample
from sources.groups import service
from sources.groups.database import database_url, engine_for, sessions, upgrade
from sources.groups.schema import Base, Change, Game, Player
from sources.record import new_game

TABLES = {"groups", "member_links", "titles", "players", "aliases", "games", "entries", "changes"}


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path) -> str:  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        return database_url({"RATINGS_DATA_DIR": str(tmp_path / "data")})
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def session(url: str) -> Iterator[Session]:
    upgrade(url)
    engine = engine_for(url)
    with sessions(engine)() as s:
        yield s
    engine.dispose()


def test_the_database_url_follows_the_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert database_url({"DATABASE_URL": "postgres://u:p@host:5432/db"}) == "postgresql+psycopg://u:p@host:5432/db"
    assert database_url({"DATABASE_URL": "postgresql://u@h/d"}) == "postgresql+psycopg://u@h/d"
    local = database_url({"RATINGS_DATA_DIR": str(tmp_path)})
    assert local == f"sqlite:///{tmp_path.resolve()}/ratings.sqlite3"


def test_migrations_take_an_empty_database_to_the_models(url: str) -> None:
    upgrade(url)
    engine = engine_for(url)
    try:
        found = inspect(engine)
        assert set(found.get_table_names()) >= TABLES
        for table in Base.metadata.sorted_tables:  # every column the models declare, as the migration made it
            assert {c.name for c in table.columns} == {c["name"] for c in found.get_columns(table.name)}, table.name
        upgrade(url)  # a second upgrade changes nothing
    finally:
        engine.dispose()


def test_the_migrations_match_the_models(url: str) -> None:
    """Alembic compares the migrated database with the models: no difference (a model changed without a
    migration fails here)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    upgrade(url)
    engine = engine_for(url)
    try:
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert differences == []
    finally:
        engine.dispose()


def test_a_group_keeps_a_hash_of_its_passphrase_never_the_passphrase(session: Session) -> None:
    group, passphrase = service.create_group(session, "poker-night", "Poker night", titles=["Hold'em"])
    session.commit()
    assert len(passphrase) >= 20 and passphrase not in group.admin_hash and group.admin_hash.startswith("scrypt$")
    assert service.check_passphrase(group, passphrase)
    assert not service.check_passphrase(group, passphrase + "x") and not service.check_passphrase(group, "")
    with pytest.raises(service.GroupError, match="already a group at /g/poker-night"):
        service.create_group(session, "poker-night", "Another")
    for bad in ("Poker", "-x", "a b", "x" * 41, ""):
        with pytest.raises(service.GroupError, match="cannot be a group's address"):
            service.create_group(session, bad, "x")


def _three_games(session: Session):  # type: ignore[no-untyped-def]
    group, _ = service.create_group(session, "club", "The club", titles=["Catan"])
    (catan,) = group.titles
    games = [
        service.record_game(session, catan, new_game("2024-01-05", [("Ann", 1), ("Bob", 2), ("Cid", "DNF")]), who="a"),
        service.record_game(session, catan, new_game("2024-01-12", [("bob", 1), ("Ann", 2)]), who="member:Kim"),
        service.record_game(session, catan, new_game("2024-01-19", [("Cid", 1), ("Ann", 1)]), who="a"),
    ]
    session.commit()
    return group, catan, games


def test_recorded_games_make_the_history_the_rating_systems_read(session: Session) -> None:
    group, catan, _ = _three_games(session)
    history = service.history(session, catan)
    assert history.n_games == 3 and sorted(history.players) == ["Ann", "Bob", "Cid"]  # 'bob' is Bob
    assert [g.id for g in history.games] == ["g1", "g2", "g3"]
    assert [(e.player, e.place) for e in history.games[0].entries] == [("Ann", 1), ("Bob", 2), ("Cid", None)]
    # the same games as a file would give: the same ratings
    expected = create("multielo").rate(history).final
    assert list(create("multielo").rate(service.history(session, catan)).final) == list(expected)
    assert session.scalar(select(Player).where(Player.key == "bob")) is not None


ARRAYS = ("offsets", "flat_player", "flat_rank", "flat_dnf", "flat_place", "flat_position", "flat_game", "flat_team")


def _same_history(got, expected) -> None:  # type: ignore[no-untyped-def]
    for name in (*ARRAYS, "flat_weight", "team_game"):
        assert getattr(got, name).tolist() == getattr(expected, name).tolist(), name
    assert got.players == expected.players and got.games == expected.games and got.warnings == expected.warnings


def test_a_title_read_as_columns_is_the_history_its_records_give(session: Session) -> None:
    """The database read into flat arrays (service.history) against the same rows read as long-shape records by the
    readers' rule (ratings.GameHistory.from_records): ties, DNFs, a one-player game, a game recorded late for a past
    date (played in date order), a deleted game left out, a corrected one; then the racing sample (the library's
    bundled file, 1,000s of entries) imported whole."""
    from ratings import Entry, GameHistory
    from sources.record import NewGame

    group, catan, games = _three_games(session)
    service.record_game(session, catan, new_game("2024-01-08", [("Dee", 1), ("ann", 2), ("Bob", 2)]), who="a")
    alone = NewGame(dt.date(2024, 1, 20), (Entry("Eve", 1),))  # imported files may hold one (a warning)
    service.record_game(session, catan, alone, who="a")
    service.delete_game(session, games[1].id, who="a")
    service.correct_game(session, games[2].id, new_game("2024-01-19", [("Cid", 2), ("Ann", 1)]), who="a")
    session.commit()
    records: list[dict[str, object]] = [
        {"game": "g1", "date": "2024-01-05", "player": "Ann", "place": 1},
        {"game": "g1", "date": "2024-01-05", "player": "Bob", "place": 2},
        {"game": "g1", "date": "2024-01-05", "player": "Cid", "place": "DNF"},
        {"game": "g3", "date": "2024-01-19", "player": "Cid", "place": 2},
        {"game": "g3", "date": "2024-01-19", "player": "Ann", "place": 1},
        {"game": "g4", "date": "2024-01-08", "player": "Dee", "place": 1},
        {"game": "g4", "date": "2024-01-08", "player": "Ann", "place": 2},
        {"game": "g4", "date": "2024-01-08", "player": "Bob", "place": 2},
        {"game": "g5", "date": "2024-01-20", "player": "Eve", "place": 1},
    ]
    read = service.history(session, catan)
    assert [g.id for g in read.games] == ["g1", "g4", "g3", "g5"]
    _same_history(read, GameHistory.from_records(records))

    racing = load_sample("racing")
    sprint = service.add_title(session, group, "Sprint")
    service.import_history(session, sprint, racing, who="cli")
    session.commit()
    _same_history(service.history(session, sprint), racing)


def test_every_write_is_logged_and_any_change_can_be_undone(session: Session) -> None:
    group, catan, games = _three_games(session)
    corrected = service.correct_game(session, games[1].id, new_game("2024-01-13", [("Ann", 1), ("Bob", 2)]), who="a")
    service.delete_game(session, games[0].id, who="a")
    session.commit()
    history = service.history(session, catan)
    assert [g.id for g in history.games] == ["g2", "g3"]
    assert [(e.player, e.place) for e in history.games[0].entries] == [("Ann", 1), ("Bob", 2)]
    log = service.change_log(session, group)
    assert [(c.action, c.who) for c in log] == [
        ("added", "a"),
        ("added", "member:Kim"),
        ("added", "a"),
        ("corrected", "a"),
        ("deleted", "a"),
    ]
    assert log[3].before == {"game": "g2", "date": "2024-01-12", "entries": [["Bob", 1], ["Ann", 2]], "deleted": False}
    assert log[3].after is not None and log[3].after["date"] == "2024-01-13"

    service.undo(session, log[4].id, who="a")  # the deletion: g1 is back
    service.undo(session, log[3].id, who="a")  # the correction: g2 as recorded
    session.commit()
    again = service.history(session, catan)
    assert [g.id for g in again.games] == ["g1", "g2", "g3"]
    assert [(e.player, e.place) for e in again.games[1].entries] == [("Bob", 1), ("Ann", 2)]
    assert str(again.games[1].date) == "2024-01-12"
    undo_of_add = service.undo(session, log[2].id, who="a")  # taking back an added game deletes it
    session.commit()
    assert [g.id for g in service.history(session, catan).games] == ["g1", "g2"]
    service.undo(session, undo_of_add.id, who="a")  # and undoing that undo brings it back
    session.commit()
    assert [g.id for g in service.history(session, catan).games] == ["g1", "g2", "g3"]
    assert session.get(Game, corrected.id) is not None  # nothing is ever removed
    assert len(service.change_log(session, group)) == 9


def test_bad_writes_are_refused_with_a_reason(session: Session) -> None:
    group, catan, games = _three_games(session)
    with pytest.raises(service.GroupError, match="already has a game 'g1'"):
        service.record_game(session, catan, new_game("2024-02-01", [("Ann", 1), ("Bob", 2)]), who="a", public_id="g1")
    service.delete_game(session, games[0].id, who="a")
    with pytest.raises(service.GroupError, match="already deleted"):
        service.delete_game(session, games[0].id, who="a")
    with pytest.raises(service.GroupError, match="is deleted: undo the deletion"):
        service.correct_game(session, games[0].id, new_game(None, [("Ann", 1), ("Bob", 2)]), who="a")
    with pytest.raises(service.GroupError, match="no change 9999"):
        service.undo(session, 9999, who="a")
    with pytest.raises(service.GroupError, match="already has a title 'Catan'"):
        service.add_title(session, group, " Catan ")


def test_export_then_import_gives_the_same_history(session: Session) -> None:
    group, _ = service.create_group(session, "races", "Races", titles=["Sprint", "Copy"])
    sprint, copy = group.titles
    sample = load_sample("racing")
    assert service.import_history(session, sprint, sample, who="cli") == sample.n_games
    session.commit()
    exported = service.export_records(session, sprint)
    from ratings import GameHistory

    service.import_history(session, copy, GameHistory.from_records(exported), who="cli")
    session.commit()
    first, second = service.history(session, sprint), service.history(session, copy)
    assert first.to_records() == second.to_records() == sample.to_records()
    assert {c.action for c in service.change_log(session, group)} == {"imported"}
    with pytest.raises(service.GroupError, match="nothing was imported"):
        service.import_history(session, copy, sample, who="cli")


def test_two_groups_never_see_each_others_games_or_players(session: Session) -> None:
    one, _ = service.create_group(session, "one", "One", titles=["Chess"])
    two, _ = service.create_group(session, "two", "Two", titles=["Chess"])
    service.record_game(session, one.titles[0], new_game("2024-01-01", [("Ann", 1), ("Bob", 2)]), who="a")
    service.record_game(session, two.titles[0], new_game("2024-01-01", [("Zed", 1), ("Ann", 2)]), who="a")
    session.commit()
    assert sorted(service.history(session, one.titles[0]).players) == ["Ann", "Bob"]
    assert sorted(service.history(session, two.titles[0]).players) == ["Ann", "Zed"]
    anns = session.scalars(select(Player).where(Player.key == "ann")).all()
    assert len(anns) == 2  # one Ann per group, never shared
    assert all(c.group_id == one.id for c in service.change_log(session, one))
    assert session.scalars(select(Change)).all()  # both groups' changes exist, each seen only through its own group


def test_a_doubles_club_keeps_its_teams_and_substitutes(session: Session) -> None:
    doubles = load_sample("doubles")
    group, _ = service.create_group(session, "doubles", "Doubles", titles=["Table tennis"])
    service.import_history(session, group.titles[0], doubles, who="cli")
    session.commit()
    back = service.history(session, group.titles[0])
    assert [g.entries for g in back.games] == [g.entries for g in doubles.games]  # teams and weights included


def test_a_team_game_keeps_its_teams_through_record_correct_undo_and_export(session: Session) -> None:
    """The doubles sample's first game (the library's bundled file, teams and a substitute's half weight) recorded,
    corrected to plain places, the correction undone: teams and weights come back as recorded; the export's
    records read back as the same games (ratings.GameHistory.from_records, the readers' one rule)."""
    from ratings import GameHistory
    from sources.record import NewGame

    doubles = load_sample("doubles")
    first = doubles.games[0]
    group, _ = service.create_group(session, "pairs", "Pairs", titles=["Doubles"])
    (title,) = group.titles
    row = service.record_game(session, title, NewGame(first.date, first.entries), who="a", public_id=first.id)
    session.commit()
    assert service.history(session, title).games[0].entries == first.entries
    plain = new_game(None, [(e.player, e.place if e.place is not None else "DNF") for e in first.entries])
    service.correct_game(session, row.id, plain, who="a")
    session.commit()
    assert {e.team for e in service.history(session, title).games[0].entries} == {None}
    correction = service.change_log(session, group)[-1]
    assert correction.before is not None and any(len(e) == 4 for e in correction.before["entries"])
    service.undo(session, correction.id, who="a")
    session.commit()
    assert service.history(session, title).games[0].entries == first.entries
    exported = GameHistory.from_records(service.export_records(session, title))
    assert exported.games[0].entries == first.entries


def test_times_of_day_are_kept_by_the_tables(session: Session) -> None:
    """A game's time of day (column played_time) through import, the history read, correction and undo, on SQLite and
    PostgreSQL; games of one date played by their times (worked out by hand: 18:00 before 20:00)."""
    import datetime as dt

    from ratings import Entry, Game, GameHistory

    file = GameHistory(
        [
            Game("a", (Entry("Ann", 1), Entry("Bob", 2)), dt.date(2024, 3, 1), dt.time(18)),
            Game("b", (Entry("Bob", 1), Entry("Ann", 2)), dt.date(2024, 3, 1), dt.time(20, 15, 30)),
        ]
    )
    group, _ = service.create_group(session, "timed", "Timed", titles=["Races"])
    (title,) = group.titles
    service.import_history(session, title, file, who="cli")
    session.commit()
    assert service.history(session, title).games == file.games
    a = service.game_named(session, title, "a")
    service.correct_game(session, a.id, new_game("2024-03-01 21:00", [("Ann", 1), ("Bob", 2)]), who="a")
    session.commit()
    assert [(g.id, g.time) for g in service.history(session, title).games] == [
        ("b", dt.time(20, 15, 30)),
        ("a", dt.time(21)),
    ]
    service.undo(session, service.change_log(session, group)[-1].id, who="a")
    session.commit()
    assert service.history(session, title).games == file.games


def test_an_organisers_alias_merges_a_name_in_every_title_and_can_be_undone(session: Session) -> None:
    """'Bobby' declared an alias of Bob: every game of every title reads Bobby as Bob (the same history as games
    written with Bob throughout, read by the readers' rule), a game with both names is refused, and the alias is
    logged, undone and undone again; the export names it."""
    from ratings import GameHistory

    group, catan, _ = _three_games(session)
    chess = service.add_title(session, group, "Chess")
    service.record_game(session, catan, new_game("2024-01-26", [("Bobby", 1), ("Cid", 2)]), who="a")
    service.record_game(session, chess, new_game("2024-02-01", [("Ann", 1), ("bobby", 2)]), who="a")
    session.commit()
    assert "Bobby" in service.history(session, catan).players

    with pytest.raises(service.GroupError, match="no player 'Robert'"):
        service.declare_alias(session, group, "Bobby", "Robert", who="a")
    with pytest.raises(service.GroupError, match="one name already"):
        service.declare_alias(session, group, "BOBBY", "bobby", who="a")
    with pytest.raises(service.GroupError, match="'Ann' and 'Bob' both play in game 'g1' of Catan"):
        service.declare_alias(session, group, "Ann", "Bob", who="a")
    declared = service.declare_alias(session, group, " bobby ", "bob", who="organiser")
    session.commit()
    assert service.aliases(session, group) == {"bobby": "Bob"}
    with pytest.raises(service.GroupError, match="already an alias of 'Bob'"):
        service.declare_alias(session, group, "Bobby", "Ann", who="a")
    with pytest.raises(service.GroupError, match="itself an alias of 'Bob'"):
        service.declare_alias(session, group, "Cid", "Bobby", who="a")

    written_as_bob = [
        {"game": g.id, "date": g.date, "player": "Bob" if e.player in ("Bob", "Bobby") else e.player, "place": e.place}
        for g in _games_as_recorded(session, catan)
        for e in g.entries
    ]
    merged = service.history(session, catan)
    assert merged.to_records() == GameHistory.from_records(written_as_bob).to_records()
    assert "Bobby" not in merged.players and "Bobby" not in service.history(session, chess).players
    assert service.history(session, chess).games[0].entries[1].player == "Bob"
    with pytest.raises(service.GroupError, match="'Bob' and 'Bobby' are one player"):
        service.record_game(session, chess, new_game("2024-02-02", [("Bob", 1), ("Bobby", 2)]), who="a")
    session.rollback()

    assert service.last_change(session, group) is not None and service.last_change(session, group).id == declared.id
    assert service.export_manifest(session, group)["aliases"] == {"bobby": "Bob"}
    undone = service.undo(session, declared.id, who="organiser")
    session.commit()
    assert service.aliases(session, group) == {} and "Bobby" in service.history(session, catan).players
    service.undo(session, undone.id, who="organiser")
    session.commit()
    assert service.aliases(session, group) == {"bobby": "Bob"}
    actions = [(c.action, c.before, c.after) for c in service.change_log(session, group)[-3:]]
    assert actions == [
        ("aliased", None, {"alias": "bobby", "player": "Bob"}),
        ("undone", {"alias": "bobby", "player": "Bob"}, None),
        ("undone", None, {"alias": "bobby", "player": "Bob"}),
    ]


def _games_as_recorded(session: Session, title):  # type: ignore[no-untyped-def]
    """The title's games as the change log recorded them (names as typed), not deleted, in recording order."""
    from ratings import Entry
    from ratings import Game as Played

    rows = session.scalars(
        select(Game).where(Game.title_id == title.id, Game.deleted.is_(False)).order_by(Game.position)
    )
    return [
        Played(row.public_id, tuple(Entry(e.player.name, e.place) for e in row.entries), row.played_on) for row in rows
    ]
