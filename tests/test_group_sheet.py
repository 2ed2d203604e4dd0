"""A Google Sheet as a group title's live source of truth (issue 24): an organiser sets a title to read its games from
a Sheet (read as ``/`` reads one: cached, the last good copy with a message when Google fails); a game recorded into
it by an organiser or a member is appended to the Sheet, never to the database; a visitor cannot record into it, nor
set it; the setting is in the change log, undone by Undo, exported and restored.  Against the suite's local stand-in
for Google (tests/sheets_server.py), the server's private Sheet written through a service account as the sheet tests
configure it (tests/test_workers.private_sheet_env); in process, and the visitor's refusal through gunicorn."""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ratings import GameHistory
from sources.access import group_mark
from sources.groups import pages, service
from sources.groups.database import database_url, engine_for, process_sessions, sessions, upgrade
from sources.model import GroupTitle
from sources.record import new_game
from tests.dash_requests import post
from tests.sheets_server import FakeSheets
from tests.test_workers import private_sheet_env

SECRET = "key"
HEADER = ["game", "date", "player", "place"]
SHEET_ROWS = [
    HEADER,
    ["s1", "2024-03-01", "Xia", "1"],
    ["s1", "2024-03-01", "Yul", "2"],
    ["s2", "2024-03-08", "Yul", "1"],
    ["s2", "2024-03-08", "Xia", "2"],
]


def _database_games(slug: str = "club") -> list[str]:
    with process_sessions()() as session:
        group = service.find_group(session, slug)
        assert group is not None
        return [g.id for g in service.history(session, group.titles[0]).games]


@pytest.fixture
def club(tmp_path, monkeypatch) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """'club' (Catan: two games in the database) in a fresh SQLite database, a member link, the organiser's and the
    member's cookie entries; the local Google stand-in serving the server's private Sheet (worksheet 'Games', four
    rows of two games) and a public Sheet of another key."""
    monkeypatch.setenv("RATINGS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    upgrade(database_url())
    with process_sessions()() as session:
        group, passphrase = service.create_group(session, "club", "The Club", titles=["Catan"])
        for date, result in [("2024-01-05", [("Ann", 1), ("Bob", 2)]), ("2024-01-12", [("Bob", 1), ("Ann", 2)])]:
            service.record_game(session, group.titles[0], new_game(date, result), who="setup")
        _, member = service.make_member_link(session, group, "Kim")
        session.commit()
        organiser = {"role": "organiser", "mark": group_mark(SECRET, "club", "organiser", group.admin_hash)}
    key = f"1OwnSheet{secrets.token_hex(12)}"  # a key of its own: the suite's store is shared
    public = f"1PublicSheet{secrets.token_hex(12)}"
    from sources import sheets

    monkeypatch.setattr(sheets, "_CLIENTS", {})  # the service account's client is made for this stand-in
    with FakeSheets() as fake:
        fake.add_spreadsheet(key, {"Games": SHEET_ROWS}, public=False)
        fake.add_spreadsheet(public, {"Games": SHEET_ROWS}, public=True)
        # the host names this group as the one whose page may write the server's Sheet
        env = private_sheet_env(fake, key, tmp_path / "store", RATINGS_SHEET_ATTEMPTS="1", RATINGS_SHEET_GROUP="club")
        for name, value in env.items():
            if name != "RATINGS_STORE_DIR":
                monkeypatch.setenv(name, value)
        yield {
            "fake": fake,
            "key": key,
            "public": public,
            "organiser": organiser,
            "member": pages.join("club", member, SECRET),
            "passphrase": passphrase,
        }


def test_an_organiser_sets_a_title_to_its_sheet_and_members_record_into_the_sheet_only(club) -> None:  # type: ignore[no-untyped-def]
    fake, key = club["fake"], club["key"]
    organiser, member = club["organiser"], club["member"]
    url = f"https://docs.google.com/spreadsheets/d/{key}/edit"
    # neither a visitor nor a member may set it; nothing is read from Google for them
    asked = len(fake.requests)
    for entry in (None, member):
        with pytest.raises(service.GroupError, match="only the group's organisers"):
            pages.set_title_sheet("club", "Catan", url, "Games", entry=entry, secret_key=SECRET)
    assert len(fake.requests) == asked
    # a Sheet that cannot be read is refused with the reason, and nothing changes
    with pytest.raises(service.GroupError, match="the Sheet cannot be used"):
        pages.set_title_sheet("club", "Catan", url, "No such tab", entry=organiser, secret_key=SECRET)
    assert GroupTitle("club", "Catan").load().history.game_ids == ("g1", "g2")

    said = pages.set_title_sheet("club", "Catan", url, "Games", entry=organiser, secret_key=SECRET)
    assert "now reads its games from the Google Sheet" in said
    loaded = GroupTitle("club", "Catan").load()
    assert loaded.history.game_ids == ("s1", "s2") and loaded.label == "The Club: Catan (Google Sheet)"
    assert _database_games() == ["g1", "g2"]  # the database's games stay there

    # a member's game goes to the Sheet (once per submission), not to the database, and shows at once
    game = new_game("2024-03-15", [("Xia", 1), ("Kim", 2)])
    first = pages.record("club", "Catan", game, token="web k1", entry=member, secret_key=SECRET)
    again = pages.record("club", "Catan", game, token="web k1", entry=member, secret_key=SECRET)
    assert "recorded the game: 2 rows added to the sheet (long shape)" in first, first
    assert "this game was already recorded" in again and "it was not added again" in again, again
    rows = fake.values(key, "Games")
    assert rows[len(SHEET_ROWS) :] == [["web k1", "2024-03-15", "Xia", 1], ["web k1", "2024-03-15", "Kim", 2]]
    assert GroupTitle("club", "Catan").load().history.game_ids == ("s1", "s2", "web k1")
    assert _database_games() == ["g1", "g2"]
    assert pages.games_of("club", "Catan") == []  # nothing on the bar to correct: the Sheet's games are its own
    # a visitor records nothing anywhere
    with pytest.raises(service.GroupError, match="only the group's organisers and members"):
        pages.record("club", "Catan", game, token="web v1", entry=None, secret_key=SECRET)
    assert fake.values(key, "Games") == rows
    # corrections, deletions and imports would change only the database: refused in one line
    with pytest.raises(service.GroupError, match="reads its games from a Google Sheet"):
        pages.record("club", "Catan", game, token="t", correcting="g1", entry=organiser, secret_key=SECRET)
    with pytest.raises(service.GroupError, match="reads its games from a Google Sheet"):
        pages.delete_game("club", "Catan", "g1", entry=organiser, secret_key=SECRET)
    assert _database_games() == ["g1", "g2"]

    # the setting is in the change log and the export; Undo takes it back to the database
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        manifest = service.export_manifest(session, group)
    assert manifest["sheets"] == {"Catan": {"sheet": url, "worksheet": "Games"}}
    assert [c["action"] for c in manifest["changes"]][-1] == "sheet"
    assert "Undone: the sheet Sheet setting" in pages.undo_last("club", entry=organiser, secret_key=SECRET)
    assert GroupTitle("club", "Catan").load().history.game_ids == ("g1", "g2")
    # restored into another group, the title reads the same Sheet
    with process_sessions()() as session:
        service.create_group(session, "copy", "Copy")
        session.commit()
        copy = service.find_group(session, "copy")
        assert copy is not None
        copy_entry = {"role": "organiser", "mark": group_mark(SECRET, "copy", "organiser", copy.admin_hash)}
    history = GroupTitle("club", "Catan").load().history
    restored = pages.restore("copy", manifest, {"Catan.csv": history}, entry=copy_entry, secret_key=SECRET)
    assert "1 titles reading their Google Sheet" in restored
    assert GroupTitle("copy", "Catan").load().history.game_ids[:2] == ("s1", "s2")
    # but only the group the host names (RATINGS_SHEET_GROUP=club) writes the server's Sheet: not another group's
    # organiser, who could otherwise write the sheet of ``/`` or of the club by pointing a title at it
    rows = fake.values(key, "Games")
    with pytest.raises(service.GroupError, match="written only from the page of the group its host names"):
        pages.record("copy", "Catan", game, token="web c1", entry=copy_entry, secret_key=SECRET)
    assert fake.values(key, "Games") == rows


def test_the_groups_aliases_name_the_sheets_players(club: dict[str, Any]) -> None:
    """An alias the organiser declares ("Yul" is the group's Bob) names the Sheet's players too, as it names the
    database's; removed, the Sheet's own name is back.  Expected: the Sheet's rows with Yul written as Bob, rated from
    scratch (the same system on a hand-made history)."""
    from ratings import create
    from ratings.history import Entry, Game

    organiser = club["organiser"]
    pages.set_title_sheet("club", "Catan", club["key"], "Games", entry=organiser, secret_key=SECRET)
    assert "Yul" in GroupTitle("club", "Catan").load().history.players
    pages.declare_alias("club", "Yul", "Bob", entry=organiser, secret_key=SECRET)
    named = GroupTitle("club", "Catan").load().history
    assert set(named.players) == {"Xia", "Bob"}
    by_hand = GameHistory(
        [
            Game("s1", (Entry("Xia", 1), Entry("Bob", 2)), dt.date(2024, 3, 1)),
            Game("s2", (Entry("Bob", 1), Entry("Xia", 2)), dt.date(2024, 3, 8)),
        ]
    )
    system = create("multielo")
    a, b = system.rate(named), system.rate(by_hand)
    assert a.players == b.players and a.final.tolist() == b.final.tolist()
    pages.remove_alias("club", "Yul", entry=organiser, secret_key=SECRET)
    assert set(GroupTitle("club", "Catan").load().history.players) == {"Xia", "Yul"}


def test_a_sheet_that_fails_is_shown_from_its_last_copy_and_a_public_one_cannot_be_written(
    club: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on /: when Google fails, the last good copy with a message saying so; a Sheet other than the server's is
    read through its public link, which cannot be written: recording into it says so and writes nothing."""
    fake, organiser = club["fake"], club["organiser"]
    monkeypatch.setenv("RATINGS_SHEET_CACHE_SECONDS", "0")  # every look reads the Sheet
    pages.set_title_sheet("club", "Catan", club["key"], "Games", entry=organiser, secret_key=SECRET)
    assert GroupTitle("club", "Catan").load().history.game_ids == ("s1", "s2")
    fake.plan(500, times=5, match=club["key"])
    stale = GroupTitle("club", "Catan").load()
    assert stale.history.game_ids == ("s1", "s2")
    assert any("Showing the copy read" in w for w in stale.warnings), stale.warnings

    public = f"https://docs.google.com/spreadsheets/d/{club['public']}/edit"
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        service.add_title(session, group, "Go")
        session.commit()
    pages.set_title_sheet("club", "Go", public, "0", entry=organiser, secret_key=SECRET)  # its gid
    assert GroupTitle("club", "Go").load().history.game_ids == ("s1", "s2")
    game = new_game("2024-03-15", [("Xia", 1), ("Yul", 2)])
    with pytest.raises(service.GroupError, match="Not recorded in the title's Google Sheet"):
        pages.record("club", "Go", game, token="web p1", entry=organiser, secret_key=SECRET)
    assert fake.values(club["public"], "Games") == SHEET_ROWS


def test_the_page_sets_the_sheet_for_an_organiser_only(club) -> None:  # type: ignore[no-untyped-def]
    """The page's buttons (a crafted callback request as a visitor would send it, then the signed-in organiser)."""
    import app

    client = app.server.test_client()
    url = club["key"]

    def tool(trigger: str) -> str:
        body = {
            f"{trigger}.n_clicks": 1,
            "page-location.pathname": "/g/club",
            "data-source.data": None,
            "group-title-sheet-url.value": url,
            "group-title-sheet-tab.value": "Games",
        }
        return json.dumps(post(client, "group-new-link", body, changed=[f"{trigger}.n_clicks"]).get_json())

    assert "only the group's organisers may change" in tool("group-title-sheet-on")
    assert GroupTitle("club", "Catan").load().history.game_ids == ("g1", "g2")
    sign_in = {"group-passphrase.value": club["passphrase"], "page-location.pathname": "/g/club"}
    sign_in["group-sign-in.n_clicks"] = 1
    post(client, "group-message", sign_in, changed=["group-sign-in.n_clicks"])
    assert "now reads its games from the Google Sheet" in tool("group-title-sheet-on")
    assert GroupTitle("club", "Catan").load().history.game_ids == ("s1", "s2")
    assert "from the group's database again" in tool("group-title-sheet-off")
    assert GroupTitle("club", "Catan").load().history.game_ids == ("g1", "g2")


@pytest.mark.slow
def test_through_gunicorn_a_visitor_cannot_record_into_the_titles_sheet_and_a_member_can(tmp_path: Path) -> None:
    """The host's setup (gunicorn, two workers): a crafted record request from a visitor is refused and the Sheet
    is untouched; the member link's cookie records into the Sheet, and the database holds no new game."""
    from tests.servers import gunicorn
    from tests.test_group_serving import REFUSED, Client, _fragment, _record

    data = tmp_path / "data"
    url = database_url({"RATINGS_DATA_DIR": str(data)})
    upgrade(url)
    engine = engine_for(url)
    key = "1ServedSheetabcdefghijklmnopqrstuvwxyz0123"
    with FakeSheets() as fake:
        fake.add_spreadsheet(key, {"Games": SHEET_ROWS}, public=False)
        with sessions(engine)() as session:
            group, _ = service.create_group(session, "club", "The Club", titles=["Catan"])
            service.record_game(session, group.titles[0], new_game("2024-01-05", [("Ann", 1), ("Bob", 2)]), who="t")
            _, member = service.make_member_link(session, group, "Kim")
            service.set_title_sheet(session, group.titles[0], key, "Games", who="setup")
            session.commit()
        env = {"RATINGS_DATA_DIR": str(data), **private_sheet_env(fake, key, tmp_path / "store")}
        env["RATINGS_SHEET_GROUP"] = "club"
        with gunicorn(env, tmp_path) as base:
            visitor = Client(base, "203.0.113.90")
            assert REFUSED in _record(visitor, "web visitor")
            assert fake.values(key, "Games") == SHEET_ROWS
            kim = Client(base, "203.0.113.91")
            assert "Signed in with a member link" in _fragment(kim, "#member=" + member)
            said = _record(kim, "web kim")
            assert "recorded the game: 2 rows added to the sheet" in said, said
            assert [r[0] for r in fake.values(key, "Games")[len(SHEET_ROWS) :]] == ["web kim", "web kim"]
    with sessions(engine)() as session:
        held = service.find_group(session, "club")
        assert held is not None
        assert [g.id for g in service.history(session, held.titles[0]).games] == ["g1"]
    engine.dispose()


def test_the_host_sets_and_clears_a_titles_sheet_from_the_command_line(club: dict[str, Any]) -> None:
    """``flask --app app groups sheet``: the host's way to set a title's Sheet (no passphrase: the host runs the
    server), read first like the page's setting; errors are one line with exit status 2."""
    import app as app_module

    runner = app_module.server.test_cli_runner()
    url = f"https://docs.google.com/spreadsheets/d/{club['key']}/edit"

    refused = runner.invoke(args=["groups", "sheet", "club", url, "--title", "Catan", "--worksheet", "No such tab"])
    assert refused.exit_code == 2 and "the Sheet cannot be used" in refused.output, refused.output
    assert GroupTitle("club", "Catan").load().history.game_ids == ("g1", "g2")
    unknown = runner.invoke(args=["groups", "sheet", "club", url, "--title", "Chess"])
    assert unknown.exit_code == 2 and "/g/club has no title 'Chess'" in unknown.output, unknown.output

    done = runner.invoke(args=["groups", "sheet", "club", url, "--title", "Catan", "--worksheet", "Games"])
    assert done.exit_code == 0 and "now reads its games from the Google Sheet" in done.output, done.output
    assert GroupTitle("club", "Catan").load().history.game_ids == ("s1", "s2")
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        change = service.export_manifest(session, group)["changes"][-1]
    assert change["action"] == "sheet" and change["who"] == "command line"

    cleared = runner.invoke(args=["groups", "sheet", "club", "--title", "Catan"])
    assert cleared.exit_code == 0 and "from the group's database again" in cleared.output, cleared.output
    assert GroupTitle("club", "Catan").load().history.game_ids == ("g1", "g2")
