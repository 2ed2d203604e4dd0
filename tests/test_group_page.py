"""A group's page (issue 24): ``/g/<slug>`` shows a title's games read from the database, keyed by the group's change
counter; an unknown slug is a plain 404; writes through the page's callbacks need the right role from a signed
cookie entry; two groups never share games or cached results.  In process (Flask's test client, crafted callback
requests as a visitor could send them); tests/test_group_serving.py does the same through gunicorn."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sources.access import group_mark, group_role
from sources.groups import pages, service
from sources.groups.database import database_url, process_sessions, upgrade
from sources.model import GroupTitle, parse_source
from sources.record import new_game
from tests.dash_requests import post, record_form


@pytest.fixture
def groups(tmp_path, monkeypatch) -> Iterator[dict[str, str]]:  # type: ignore[no-untyped-def]
    """Two groups in a fresh SQLite database: 'club' (Catan: three games; Chess: none yet) and 'other'."""
    monkeypatch.setenv("RATINGS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    upgrade(database_url())
    with process_sessions()() as session:
        club, club_pass = service.create_group(session, "club", "The Club", titles=["Catan", "Chess"])
        other, other_pass = service.create_group(session, "other", "Other", titles=["Catan"])
        catan = club.titles[0]
        for date, result in [
            ("2024-01-05", [("Ann", 1), ("Bob", 2), ("Cid", 3)]),
            ("2024-01-12", [("Bob", 1), ("Ann", 2)]),
            ("2024-01-19", [("Cid", 1), ("Ann", 2)]),
        ]:
            service.record_game(session, catan, new_game(date, result), who="setup")
        service.record_game(session, other.titles[0], new_game("2024-01-05", [("Zed", 1), ("Yan", 2)]), who="setup")
        _, member = service.make_member_link(session, club, "Kim")
        session.commit()
    yield {"club": club_pass, "other": other_pass, "member": member}


@pytest.fixture
def client(groups):  # type: ignore[no-untyped-def]
    import app

    return app.server.test_client()


def test_an_unknown_group_is_one_plain_line_and_a_known_one_opens_the_page(client) -> None:  # type: ignore[no-untyped-def]
    missing = client.get("/g/no-such-group")
    assert missing.status_code == 404 and missing.mimetype == "text/plain"
    assert missing.get_data(as_text=True) == "There is no group at /g/no-such-group on this server.\n"
    assert client.get("/g/club").status_code == 200 and client.get("/").status_code == 200
    assert client.get("/g/Bad%20Slug").status_code == 404


def test_a_group_source_reads_the_title_and_a_write_changes_its_key(groups) -> None:  # type: ignore[no-untyped-def]
    first = parse_source({"kind": "group", "group": "club", "title": None}).load()
    assert first.history.n_games == 3 and sorted(first.history.players) == ["Ann", "Bob", "Cid"]
    assert first.label == "The Club: Catan"
    assert parse_source({"kind": "group", "group": "club", "title": "Catan"}).load().key == first.key  # cached
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        service.record_game(session, group.titles[0], new_game(None, [("Ann", 1), ("Dee", 2)]), who="t")
        session.commit()
    after = GroupTitle("club", "Catan").load()
    assert after.key != first.key and after.history.n_games == 4  # the counter moved: read anew
    other = GroupTitle("other", "Catan").load()
    assert other.key != after.key and sorted(other.history.players) == ["Yan", "Zed"]
    with pytest.raises(Exception, match="no game title 'Go'"):
        GroupTitle("club", "Go").load()
    with pytest.raises(Exception, match="no group at /g/nobody"):
        GroupTitle("nobody").load()


def test_the_cookie_entry_gives_a_role_only_while_the_database_agrees() -> None:
    """group_role's rule, by hand: a mark for another group, role, key or a revoked link gives nothing."""
    mark = group_mark("key", "club", "organiser", "scrypt$hash")
    entry = {"role": "organiser", "mark": mark}
    assert group_role(entry, secret_key="key", slug="club", admin_hash="scrypt$hash", link_hash=lambda _: None) == (
        "organiser"
    )
    for slug, key, admin in [
        ("other", "key", "scrypt$hash"),
        ("club", "other-key", "scrypt$hash"),
        ("club", "key", "new"),
    ]:
        assert group_role(entry, secret_key=key, slug=slug, admin_hash=admin, link_hash=lambda _: None) is None
    member = {"role": "member", "link": 3, "mark": group_mark("key", "club", "member", "abc")}
    assert group_role(member, secret_key="key", slug="club", admin_hash="x", link_hash={3: "abc"}.get) == "member"
    assert (
        group_role(member, secret_key="key", slug="club", admin_hash="x", link_hash=lambda _: None) is None
    )  # revoked
    forged = {"role": "organiser", "mark": member["mark"]}
    assert group_role(forged, secret_key="key", slug="club", admin_hash="abc", link_hash={3: "abc"}.get) is None
    assert group_role("organiser", secret_key="key", slug="club", admin_hash="x", link_hash=lambda _: None) is None


SOURCE = {"kind": "group", "group": "club", "title": "Catan"}


def _record(
    client: Any, token: str, correcting: str | None = None, players: tuple[str, ...] = ("Newbie", "Ann")
) -> Any:
    form = record_form("record-submit", token, None, SOURCE, players)
    form["group-game.value"] = correcting
    response = post(client, "record-confirm-box", form, changed=["record-submit.n_clicks"])
    assert response.status_code == 200
    return response.get_json()["response"]


def _status(answer: dict[str, Any]) -> str:
    return str(answer["record-status"]["children"])


def _sign_in(client: Any, passphrase: str) -> str:
    values = {"group-passphrase.value": passphrase, "page-location.pathname": "/g/club", "group-sign-in.n_clicks": 1}
    answer = post(client, "group-message", values, changed=["group-sign-in.n_clicks"]).get_json()["response"]
    return str(answer["group-message"]["children"])


def _join(client: Any, fragment: str) -> str:
    values = {"page-location.hash": fragment, "page-location.pathname": "/g/club"}
    answer = post(client, "group-message", values, changed=["page-location.hash"]).get_json()["response"]
    return str(answer["group-message"]["children"])


def _games() -> int:
    return GroupTitle("club", "Catan").load().history.n_games


def test_a_visitor_cannot_record_and_a_member_and_an_organiser_can(client, groups) -> None:  # type: ignore[no-untyped-def]
    assert "Not recorded: only the group's organisers and members" in _status(_record(client, "t1"))
    assert _games() == 3
    assert "not this group's passphrase" in _sign_in(client, groups["other"])  # another group's passphrase
    assert "does not open this group" in _join(client, "#member=" + groups["member"] + "x")
    assert _games() == 3
    assert "Signed in with a member link" in _join(client, "#member=" + groups["member"])
    answer = _record(client, "t2")
    assert "Recorded in The Club, Catan, as game 'g4'" in _status(answer)
    assert answer["data-source"]["data"]["changed"] == "t2"  # a new value: every view reads the games again
    assert "edit-store" not in answer  # left as it was, so the edit grid is filled with the new games (callbacks.edit)
    assert _status(_record(client, "t2")).count("g4") == 1 and _games() == 4  # the same submission: once
    # a member may not correct
    assert "only the group's organisers may change" in _status(_record(client, "t3", correcting="g1"))
    assert "Signed in as an organiser" in _sign_in(client, groups["club"])
    corrected = _record(client, "t4", correcting="g1", players=("Cid", "Bob"))
    assert "Game 'g1' of Catan corrected" in _status(corrected)
    assert corrected["group-game"]["value"] is None  # the bar's choice is cleared: the next game is a new one
    history = GroupTitle("club", "Catan").load().history
    g1 = next(g for g in history.games if g.id == "g1")
    assert [(e.player, e.place) for e in g1.entries] == [("Cid", 1), ("Bob", 2)]


def test_a_revoked_member_link_stops_at_once(client, groups) -> None:  # type: ignore[no-untyped-def]
    assert "Signed in with a member link" in _join(client, "#member=" + groups["member"])
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        (link,) = service.member_links(session, group)
        service.revoke_member_link(session, group, link.id)
        session.commit()
    assert "Not recorded: only the group's organisers and members" in _status(_record(client, "t5"))
    assert _games() == 3


def test_a_what_if_edit_of_the_group_never_writes_to_it(client, groups) -> None:  # type: ignore[no-untyped-def]
    """A visitor records into an edited copy of the group's games (the Edit tab's what-if): the browser's own
    history grows, the group's does not."""
    from sources.edits import fresh_state

    state = fresh_state(SOURCE)
    form = record_form("record-submit", "w1", None, SOURCE)
    form["data-source.data"] = {"kind": "edited", "id": "0" * 32, "base": SOURCE}
    form["edit-store.data"] = state
    response = post(client, "record-confirm-box", form, changed=["record-submit.n_clicks"])
    assert response.status_code == 200
    assert _games() == 3
    assert pages.identify("club", None, "key").role is None


def test_a_recorded_game_grows_the_cached_history_as_the_database_reads_it(groups, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """pages.record adds the game to the cached history instead of reading the title again: the result must be what
    reading the database gives (service.read_title, the one reader): a game dated between two others goes between
    them (the readers' stable order by date), a name typed in another case is the group's player, an undated game
    goes last."""
    from sources.groups import pages as group_pages

    secret = "key"
    with process_sessions()() as session:
        group = service.find_group(session, "club")
        assert group is not None
        entry = {"role": "organiser", "mark": group_mark(secret, "club", "organiser", group.admin_hash)}
    cached = GroupTitle("club", "Catan").load()  # the history before, cached under the current counter
    reads: list[int] = []
    real = service.read_title
    monkeypatch.setattr(service, "read_title", lambda *a: reads.append(1) or real(*a))
    for token, date, result, read_again in [
        ("a", "2024-01-13", [("bob", 1), ("Cid", 2)], False),
        ("b", "2024-01-19", [("Ann", 1), ("Dee", 2)], False),
        ("c", None, [("Ann", 1), ("Cid", 2)], True),  # the title turns to recording order: read from the database
    ]:
        said = group_pages.record("club", "Catan", new_game(date, result), token=token, entry=entry, secret_key=secret)
        assert "Recorded" in said
        reads.clear()
        grown = GroupTitle("club", "Catan").load()
        assert bool(reads) is read_again, token
        assert grown.key != cached.key
        with process_sessions()() as session:
            group = service.find_group(session, "club")
            assert group is not None
            read = service.history(session, group.titles[0])
        assert grown.history.to_records() == read.to_records(), token
        assert [g.id for g in grown.history.games] == [g.id for g in read.games]
        # another worker (this process's histories forgotten) follows the shared steps from the first history kept
        group_pages._LOADED.clear()
        reads.clear()
        elsewhere = GroupTitle("club", "Catan").load()
        assert elsewhere.history.to_records() == read.to_records() and not reads, token
        cached = grown
    assert [g.id for g in cached.history.games] == ["g1", "g2", "g3", "g4", "g5", "g6"]
    assert "bob" not in cached.history.players


def _data_url(text: str) -> str:
    import base64

    return "data:text/csv;base64," + base64.b64encode(text.encode()).decode()


#: A file holding the club's game g1 again (same id) and two new games, one with a new player.
IMPORT_CSV = """game,date,player,place
g1,2024-01-05,Ann,1
g1,2024-01-05,Bob,2
g1,2024-01-05,Cid,3
n1,2024-03-01,Ann,1
n1,2024-03-01,Eve,2
n2,2024-03-08,Bob,1
n2,2024-03-08,Cid,2
"""


def _preview(client: Any) -> dict[str, Any]:
    values = {
        "group-import-upload.contents": _data_url(IMPORT_CSV),
        "group-import-upload.filename": "more.csv",
        "page-location.pathname": "/g/club",
        "data-source.data": SOURCE,
    }
    answer = post(client, "group-import-preview", values, changed=["group-import-upload.contents"])
    return answer.get_json()["response"]


def _import(client: Any, pending: Any) -> str:
    values = {
        "group-import-confirm.n_clicks": 1,
        "group-import-pending.data": pending,
        "page-location.pathname": "/g/club",
        "data-source.data": SOURCE,
    }
    answer = post(client, "group-import-preview", values, changed=["group-import-confirm.n_clicks"])
    return str(answer.get_json()["response"]["group-import-preview"]["children"])


def test_an_organiser_imports_a_file_after_a_preview_and_nobody_else_can(client, groups) -> None:  # type: ignore[no-untyped-def]
    assert "only the group's organisers" in str(_preview(client)["group-import-preview"]["children"])
    assert "Signed in as an organiser" in _sign_in(client, groups["club"])
    shown = _preview(client)
    text = str(shown["group-import-preview"]["children"])
    assert "2 games to add to 'Catan' (4 players, 1 new to the group: Eve)" in text
    assert "1 games are in the title already (same id) and are left out: g1" in text
    pending = shown["group-import-pending"]["data"]
    assert _games() == 3  # a preview writes nothing

    import app

    member = app.server.test_client()  # another browser: a member may not import, even with the pending import
    assert "Signed in with a member link" in _join(member, "#member=" + groups["member"])
    assert "only the group's organisers" in _import(member, pending)
    assert _games() == 3

    assert "2 games imported into 'Catan'; 1 already there left out" in _import(client, pending)
    history = GroupTitle("club", "Catan").load().history
    assert [g.id for g in history.games] == ["g1", "g2", "g3", "n1", "n2"] and "Eve" in history.players


def test_an_organiser_restores_another_groups_export_from_the_page(client, groups) -> None:  # type: ignore[no-untyped-def]
    """The club's export (the files `groups export` writes: a CSV per title and changes.json) restored into 'other'
    by its organiser: its Catan gains the club's games whose ids it lacks (its own g1 stays), Chess is made."""
    import base64
    import json

    from ratings.io import write_csv

    with process_sessions()() as session:
        club = service.find_group(session, "club")
        assert club is not None
        manifest = service.export_manifest(session, club)
        files = {f"{service.title_file(t.name)}.csv": write_csv(service.history(session, t)) for t in club.titles}
    files["changes.json"] = json.dumps(manifest)
    urls = {name: "data:text/plain;base64," + base64.b64encode(text.encode()).decode() for name, text in files.items()}

    def restore(names: list[str]) -> str:
        values = {
            "group-restore-upload.contents": [urls[n] for n in names],
            "group-restore-upload.filename": names,
            "page-location.pathname": "/g/other",
            "data-source.data": {"kind": "group", "group": "other", "title": "Catan"},
        }
        answer = post(client, "group-restore-upload", values, changed=["group-restore-upload.contents"])
        return str(answer.get_json()["response"]["group-import-preview"]["children"])

    assert "only the group's organisers" in restore(list(urls))  # a visitor of 'other'
    values = {"group-passphrase.value": groups["other"], "page-location.pathname": "/g/other"}
    values["group-sign-in.n_clicks"] = 1
    post(client, "group-message", values, changed=["group-sign-in.n_clicks"])
    assert "Catan.csv were not chosen: nothing was restored" in restore(["changes.json", "Chess.csv"])
    assert "Restored: 2 games added in 2 titles" in restore(list(urls))
    catan = GroupTitle("other", "Catan").load().history
    assert [g.id for g in catan.games] == ["g1", "g2", "g3"] and "Zed" in catan.players  # its own g1 kept
    assert GroupTitle("other", "Chess").load().history.n_games == 0
    assert GroupTitle("club", "Catan").load().history.n_games == 3  # the club's games are untouched


def test_a_member_records_a_team_game_from_the_form(client, groups) -> None:  # type: ignore[no-untyped-def]
    """The record form's optional team field (one per player line, the files' one rule: same text, same team)."""
    assert "Signed in with a member link" in _join(client, "#member=" + groups["member"])
    form = record_form("record-submit", "team-1", None, SOURCE, ("Ann", "Bob", "Cid", "Dee"))
    form["group-game.value"] = None
    form['{"index": ["ALL"], "type": "record-place"}.value'] = [
        {"id": {"index": i, "type": "record-place"}, "property": "value", "value": place}
        for i, place in enumerate(["1", "1", "2", "2"])
    ]
    form['{"index": ["ALL"], "type": "record-team"}.value'] = [
        {"id": {"index": i, "type": "record-team"}, "property": "value", "value": team}
        for i, team in enumerate(["Red", "Red", "Blue", "Blue"])
    ]
    answer = post(client, "record-confirm-box", form, changed=["record-submit.n_clicks"]).get_json()["response"]
    assert "Recorded in The Club, Catan" in _status(answer)
    game = GroupTitle("club", "Catan").load().history.games[-1]
    teams = {e.player: e.team for e in game.entries}
    assert teams["Ann"] == teams["Bob"] != teams["Cid"] == teams["Dee"]
    # teammates must share a place: said in one line, nothing written
    form["record-token.data"] = "team-2"
    form['{"index": ["ALL"], "type": "record-place"}.value'][1]["value"] = "2"
    answer = post(client, "record-confirm-box", form, changed=["record-submit.n_clicks"]).get_json()["response"]
    assert "teammates share their team's place" in _status(answer) and _games() == 4


def test_a_history_held_as_arrays_is_shared_and_grown_as_the_game_objects_give_it() -> None:
    """The arrays shared in the store (pages._packed) read back as the same history, and a recorded game put in at
    any place from the arrays (pages._inserted: GameHistory.inserted) gives what the history built from its game
    objects gives (GameHistory's own constructor: every array, the players' numbering, the warnings); the racing
    sample (the library's bundled file) with a game of a new player and a known one, and a team game."""
    from ratings import Entry, Game, GameHistory
    from ratings.samples import load_sample
    from sources.groups import pages as group_pages

    racing = load_sample("racing")
    held = group_pages._unpacked(group_pages._packed(racing))
    assert held.games == racing.games and held.warnings == racing.warnings
    names = ("offsets", "flat_player", "flat_rank", "flat_dnf", "flat_place", "flat_position", "flat_game")
    for game in [
        Game("new", (Entry("Newcomer", 1), Entry(racing.players[3], 2), Entry(racing.players[0], None))),
        Game("pair", (Entry("A", 1, "x"), Entry("B", 1, "x"), Entry(racing.players[1], 2))),
    ]:
        for at in (0, racing.n_games // 2, racing.n_games):
            grown = group_pages._inserted(held, at, game)
            expected = GameHistory([*racing.games[:at], game, *racing.games[at:]], warnings=racing.warnings)
            for name in (*names, "flat_team", "flat_weight", "team_game"):
                assert getattr(grown, name).tolist() == getattr(expected, name).tolist(), (game.id, at, name)
            assert grown.players == expected.players and grown.games == expected.games, (game.id, at)


def test_only_an_organiser_declares_a_groups_alias_and_an_export_carries_it(groups) -> None:  # type: ignore[no-untyped-def]
    """A visitor, a forged organiser entry and a member are refused (nothing written); the organiser's alias reads
    in the group's page at once (a new change, a new key), Undo takes it back, and the export's changes.json brings
    it into another group by restore."""
    import base64

    from sources.groups import pages as group_pages

    secret = "key"
    with process_sessions()() as session:
        club = service.find_group(session, "club")
        assert club is not None
        organiser = {"role": "organiser", "mark": group_mark(secret, "club", "organiser", club.admin_hash)}
    forged = {"role": "organiser", "mark": group_mark(secret, "club", "organiser", "scrypt$guess")}
    member = group_pages.join("club", groups["member"], secret)
    for entry in (None, forged, member):
        with pytest.raises(service.GroupError, match="organisers"):
            group_pages.declare_alias("club", "Cid", "Ann", entry=entry, secret_key=secret)
    assert group_pages.aliases_of("club") == {}
    with pytest.raises(service.GroupError, match="'Cid' and 'Ann' both play in game 'g1'"):
        group_pages.declare_alias("club", "Cid", "Ann", entry=organiser, secret_key=secret)

    before = GroupTitle("club", "Catan").load()
    group_pages.record(
        "club",
        "Catan",
        new_game("2024-01-26", [("Annie", 1), ("Bob", 2)]),
        token="t",
        entry=organiser,
        secret_key=secret,
    )
    said = group_pages.declare_alias("club", "annie", "Ann", entry=organiser, secret_key=secret)
    assert said.startswith("'annie' is now 'Ann' in every game of The Club")
    merged = GroupTitle("club", "Catan").load()
    assert merged.key != before.key and "Annie" not in merged.history.players
    assert [e.player for e in merged.history.games[-1].entries] == ["Ann", "Bob"]

    csv_text, manifest = group_pages.export_files("club", "Catan")
    chess, _ = group_pages.export_files("club", "Chess")
    assert '"aliases": {\n  "annie": "Ann"\n }' in manifest
    assert "Undone: the aliased alias" in group_pages.undo_last("club", entry=organiser, secret_key=secret)
    assert "Annie" in GroupTitle("club", "Catan").load().history.players and group_pages.aliases_of("club") == {}

    with process_sessions()() as session:
        other = service.find_group(session, "other")
        assert other is not None
        other_organiser = {"role": "organiser", "mark": group_mark(secret, "other", "organiser", other.admin_hash)}
    files = [
        (n, "data:text/plain;base64," + base64.b64encode(t.encode()).decode())
        for n, t in [("Catan.csv", csv_text), ("Chess.csv", chess), ("changes.json", manifest)]
    ]
    read_manifest, histories = group_pages.read_export(files)
    said = group_pages.restore("other", read_manifest, histories, entry=other_organiser, secret_key=secret)
    assert "1 aliases declared" in said and group_pages.aliases_of("other") == {"annie": "Ann"}


def test_the_organisers_alias_tool_answers_through_the_callback(client, groups) -> None:  # type: ignore[no-untyped-def]
    """Crafted callback requests as the page sends them: a visitor's Merge is refused, the signed-in organiser's
    merges (the bar lists the alias), and Remove takes it out."""
    import json

    source = {"kind": "group", "group": "club", "title": "Catan"}

    def tool(trigger: str, **values: object) -> str:
        body = {"page-location.pathname": "/g/club", "data-source.data": source, **values}
        return json.dumps(post(client, "group-new-link", body, changed=[trigger]).get_json())

    merge = {"group-declare-alias.n_clicks": 1, "group-alias-name.value": "Annie", "group-alias-player.value": "Ann"}
    assert "only the group's organisers may change" in tool("group-declare-alias.n_clicks", **merge)
    values = {"group-passphrase.value": groups["club"], "page-location.pathname": "/g/club"}
    values["group-sign-in.n_clicks"] = 1
    post(client, "group-message", values, changed=["group-sign-in.n_clicks"])
    assert "'Annie' is now 'Ann' in every game of The Club" in tool("group-declare-alias.n_clicks", **merge)
    bar = post(client, "group-bar", {"page-location.pathname": "/g/club"}, changed=["page-location.pathname"])
    assert "Annie is Ann" in json.dumps(bar.get_json())
    from tests.dash_requests import callback_spec

    dep = callback_spec(client, "group-new-link", "group-declare-alias.n_clicks")
    clicked = {"id": {"index": "Annie", "type": "group-unalias"}, "property": "n_clicks", "value": 1}
    sent = {"page-location.pathname": "/g/club", "data-source.data": source}

    def entry(item: dict[str, str]) -> object:
        if item["id"].startswith("{"):  # the wildcard inputs: the Remove button clicked, no Revoke button
            return [clicked] if json.loads(item["id"])["type"] == "group-unalias" else []
        return {"id": item["id"], "property": item["property"], "value": sent.get(f"{item['id']}.{item['property']}")}

    body = {
        "output": dep["output"],
        "outputs": [
            {"id": p.split(".")[0], "property": p.split(".")[1]} for p in dep["output"].strip(".").split("...")
        ],
        "inputs": [entry(i) for i in dep["inputs"]],
        "state": [entry(i) for i in dep["state"]],
        "changedPropIds": [json.dumps(clicked["id"], separators=(",", ":")) + ".n_clicks"],
    }
    answer = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
    assert "is a player of its own again" in json.dumps(answer.get_json())
    from sources.groups import pages as group_pages

    assert group_pages.aliases_of("club") == {}


def test_an_organiser_imports_a_sheets_games_after_a_preview_and_a_visitor_cannot(client, groups, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A public Google Sheet (the suite's local sheets server, tests/sheets_server.py, as the sheet tests use it)
    read by the page's Sheet readers into the same preview and confirmation as a file: a visitor is refused before
    the Sheet is read, the organiser sees what would change, and Import adds the games the title lacks."""
    import json

    from tests.sheets_server import FakeSheets

    key = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"
    rows = [["game", "date", "player", "place"], ["g1", "2024-01-05", "Ann", "1"], ["g1", "2024-01-05", "Bob", "2"]]
    rows += [["s1", "2024-02-02", "Ann", "1"], ["s1", "2024-02-02", "Gus", "2"]]
    source = {"kind": "group", "group": "club", "title": "Catan"}
    with FakeSheets() as fake:
        fake.add_spreadsheet(key, {"Games": rows})
        monkeypatch.setenv("RATINGS_GOOGLE_ENDPOINT", fake.base_url)
        values = {
            "group-import-sheet.n_clicks": 1,
            "group-import-sheet-url.value": f"https://docs.google.com/spreadsheets/d/{key}/edit#gid=0",
            "page-location.pathname": "/g/club",
            "data-source.data": source,
        }

        def preview() -> dict[str, object]:
            answer = post(client, "group-import-preview", values, changed=["group-import-sheet.n_clicks"])
            return dict(answer.get_json()["response"])

        asked = len(fake.requests)
        assert "only the group's organisers may change" in json.dumps(preview())
        assert len(fake.requests) == asked  # refused before the Sheet was read
        sign_in = {"group-passphrase.value": groups["club"], "page-location.pathname": "/g/club"}
        sign_in["group-sign-in.n_clicks"] = 1
        post(client, "group-message", sign_in, changed=["group-sign-in.n_clicks"])
        shown = preview()
    said = json.dumps(shown["group-import-preview"])
    assert "1 games to add to 'Catan' (2 players, 1 new to the group: Gus)" in said
    assert "1 games are in the title already (same id) and are left out: g1" in said
    pending = shown["group-import-pending"]["data"]
    confirm = {"group-import-confirm.n_clicks": 1, "group-import-pending.data": pending}
    confirm |= {"page-location.pathname": "/g/club", "data-source.data": source}
    done = post(client, "group-import-preview", confirm, changed=["group-import-confirm.n_clicks"]).get_json()
    assert "1 games imported into 'Catan'; 1 already there left out." in json.dumps(done)
    assert [g.id for g in GroupTitle("club", "Catan").load().history.games][-1] == "s1"


def test_an_opt_in_mirror_appends_each_recorded_game_to_the_servers_sheet(
    client, groups, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """The group's mirror (off by default) on the suite's local sheets server, the server's private Sheet written
    through a service account as the sheet tests configure it (tests/test_workers.private_sheet_env): a visitor
    cannot turn it on, nor can an organiser on a server with no Sheet it may write, nor one of a group the host has
    not named (RATINGS_SHEET_GROUP: the sheet of ``/`` is not every group's); turned on, a game a member
    records is in the group and appended to the Sheet once (a repeated submission adds nothing); turned off, the
    next game stays in the group only."""
    import json

    from sources.groups import pages as group_pages
    from tests.sheets_server import FakeSheets
    from tests.test_workers import private_sheet_env

    def tool(trigger: str) -> str:
        body = {f"{trigger}.n_clicks": 1, "page-location.pathname": "/g/club", "data-source.data": None}
        return json.dumps(post(client, "group-new-link", body, changed=[f"{trigger}.n_clicks"]).get_json())

    assert "only the group's organisers may change" in tool("group-mirror-on")
    sign_in = {"group-passphrase.value": groups["club"], "page-location.pathname": "/g/club"}
    sign_in["group-sign-in.n_clicks"] = 1
    post(client, "group-message", sign_in, changed=["group-sign-in.n_clicks"])
    assert "this server has no Sheet it may write" in tool("group-mirror-on")

    key = "1MirrorMirrorOnTheWall0123456789abcdefghij"
    header = [["game", "date", "player", "place"]]
    member = group_pages.join("club", groups["member"], "key")
    with FakeSheets() as fake:
        fake.add_spreadsheet(key, {"Games": header}, public=False)
        for name, value in private_sheet_env(fake, key, tmp_path / "store").items():
            if name != "RATINGS_STORE_DIR":
                monkeypatch.setenv(name, value)
        # the server's Sheet is written only from the page of the group its host names (none yet, then another)
        for named in (None, "other-club"):
            if named is not None:
                monkeypatch.setenv("RATINGS_SHEET_GROUP", named)
            assert "written only from the page of the group its host names" in tool("group-mirror-on")
        monkeypatch.setenv("RATINGS_SHEET_GROUP", "club")
        assert "also appended to the server's Sheet" in tool("group-mirror-on")
        # the host names another group later: the mirror stays on but writes nothing, and says why
        monkeypatch.setenv("RATINGS_SHEET_GROUP", "other-club")
        game = new_game("2024-02-01", [("Ann", 1), ("Bob", 2)])
        said_before = group_pages.record("club", "Catan", game, token="web m0", entry=member, secret_key="key")
        assert "the group its host names" in said_before and fake.values(key, "Games") == header
        monkeypatch.setenv("RATINGS_SHEET_GROUP", "club")
        game = new_game("2024-02-02", [("Ann", 1), ("Bob", 2)])
        said = [  # the same submission twice: one game in the group, its rows once in the Sheet
            group_pages.record("club", "Catan", game, token="web m1", entry=member, secret_key="key") for _ in range(2)
        ]
        assert "Sheet mirror: recorded the game: 2 rows added to the sheet (long shape)" in said[0], said
        assert "Sheet mirror" not in said[1]
        rows = fake.values(key, "Games")
        assert rows == [*header, ["web m1", "2024-02-02", "Ann", 1], ["web m1", "2024-02-02", "Bob", 2]]  # RAW values
        assert "is off" in tool("group-mirror-off")
        group_pages.record(
            "club",
            "Catan",
            new_game("2024-02-03", [("Ann", 2), ("Bob", 1)]),
            token="web m2",
            entry=member,
            secret_key="key",
        )
        assert fake.values(key, "Games") == rows
    assert GroupTitle("club", "Catan").load().history.n_games == 6  # 2 before, web m0, web m1 (once), web m2


def _standings_answer(client: Any, source: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The standings request a group's page sends: how it was answered (memo header) and the leaderboard's players."""
    from sources.answers import HEADER

    values = {
        "data-source.data": source,
        "params-settings.data": {"system": "multielo", "params": {}},
        "standings-min-games.value": 0,
        "page-tabs.active_tab": "standings",
    }
    answer = post(client, "standings-leaderboard", values)
    assert answer.status_code == 200
    rows = answer.get_json()["response"]["standings-leaderboard"]["rowData"]
    return answer.headers.get(HEADER), sorted(str(row["player"]) for row in rows)


def test_a_groups_answers_are_memoised_until_the_group_changes(client, groups) -> None:  # type: ignore[no-untyped-def]
    """A group's page is answered from the memo of answers like a sample's, and never after the group changed: a
    game recorded through the page or written to the database by another process (the command line), an alias, a
    deleted game, each shows in the very next answer."""
    from web import answer_memo

    memo = answer_memo.process_memo()
    assert memo is not None
    enabled, memo.enabled = memo.enabled, True
    try:

        def settled() -> list[str]:
            """Ask until the answer comes from the memo (the first after a change reads the database and keeps the
            history in the store, so it is not kept itself); the players it shows."""
            how, players = _standings_answer(client, SOURCE)
            for _ in range(3):
                if how == "hit":
                    return players
                how, again = _standings_answer(client, SOURCE)
                assert again == players
            raise AssertionError(f"never answered from the memo (last: {how})")

        assert settled() == ["Ann", "Bob", "Cid"]
        _sign_in(client, groups["club"])
        said = _status(_record(client, "m1", players=("Newbie", "Ann")))
        assert "Recorded" in said
        recorded = said.split("as game '")[1].split("'")[0]
        how, players = _standings_answer(client, SOURCE)
        assert how != "hit" and players == ["Ann", "Bob", "Cid", "Newbie"]
        assert settled() == ["Ann", "Bob", "Cid", "Newbie"]
        with process_sessions()() as session:  # another process's write (the command line's, say)
            group = service.find_group(session, "club")
            assert group is not None
            service.record_game(session, group.titles[0], new_game(None, [("Dee", 1), ("Ann", 2)]), who="cli")
            session.commit()
        how, players = _standings_answer(client, SOURCE)
        assert how != "hit" and "Dee" in players
        settled()
        with process_sessions()() as session:
            group = service.find_group(session, "club")
            assert group is not None
            service.declare_alias(session, group, "Dee", "Bob", who="cli")
            session.commit()
        how, players = _standings_answer(client, SOURCE)
        assert how != "hit" and "Dee" not in players
        settled()
        with process_sessions()() as session:
            group = service.find_group(session, "club")
            assert group is not None
            service.delete_game(session, service.game_named(session, group.titles[0], recorded).id, who="cli")
            session.commit()
        how, players = _standings_answer(client, SOURCE)
        assert how != "hit" and "Newbie" not in players
        other = {"kind": "group", "group": "other", "title": "Catan"}
        assert _standings_answer(client, other)[1] == ["Yan", "Zed"]  # another group's own answer
    finally:
        memo.enabled = enabled
