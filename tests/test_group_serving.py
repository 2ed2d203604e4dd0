"""A group's home served as the host serves it (gunicorn, the Procfile's two workers, SQLite under RATINGS_DATA_DIR):
who may write, tried as a hostile visitor would (crafted callback requests, forged and expired cookies, a revoked
member link, a cross-site POST), and what survives a restart with the cache directory deleted (issue 24)."""

from __future__ import annotations

import base64
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sources.access import group_mark
from sources.groups import service
from sources.groups.database import database_url, engine_for, sessions, upgrade
from sources.record import new_game
from tests.dash_requests import HttpClient, callback_spec, post, record_form, session_cookie
from tests.servers import gunicorn

pytestmark = pytest.mark.slow

SECRET_KEY = "test-secret-shared-by-workers"  # what tests/servers.py gives gunicorn
SOURCE = {"kind": "group", "group": "club", "title": "Catan"}


class Client(HttpClient):
    """An HTTP client speaking from its own address (as the PaaS router reports it)."""

    def __init__(self, base_url: str, address: str) -> None:
        super().__init__(base_url)
        self.session.headers["X-Forwarded-For"] = address


def _setup(data: Path) -> dict[str, Any]:
    """The database with 'club' (Catan, one game; a member link 'Kim', another 'Old' revoked) and 'other'."""
    url = database_url({"RATINGS_DATA_DIR": str(data)})
    upgrade(url)
    engine = engine_for(url)
    with sessions(engine)() as session:
        club, passphrase = service.create_group(session, "club", "The Club", titles=["Catan", "Go"])
        other, _ = service.create_group(session, "other", "Other", titles=["Catan"])
        service.record_game(session, club.titles[0], new_game("2024-01-05", [("Ann", 1), ("Bob", 2)]), who="setup")
        service.record_game(session, other.titles[0], new_game("2024-01-05", [("Zed", 1), ("Yan", 2)]), who="setup")
        _, member = service.make_member_link(session, club, "Kim")
        old, revoked = service.make_member_link(session, club, "Old")
        service.revoke_member_link(session, club, old.id)
        session.commit()
        info = {"url": url, "passphrase": passphrase, "member": member, "revoked": revoked, "admin": club.admin_hash}
    engine.dispose()
    return info


def _games(url: str, slug: str = "club", title: int = 0) -> list[str]:
    engine = engine_for(url)
    try:
        with sessions(engine)() as session:
            group = service.find_group(session, slug)
            assert group is not None
            return [g.id for g in service.history(session, group.titles[title]).games]
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    data = tmp_path_factory.mktemp("group-data")
    info = _setup(data)
    env = {"RATINGS_DATA_DIR": str(data), "RATINGS_STORE_DIR": str(tmp_path_factory.mktemp("group-store"))}
    info["logs"] = tmp_path_factory.mktemp("group-logs")
    with gunicorn(env, info["logs"]) as base:
        yield base, info


def _record(client: Client, token: str, correcting: str | None = None) -> str:
    form = record_form("record-submit", token, None, SOURCE)
    form["group-game.value"] = correcting
    response = post(client, "record-confirm-box", form, changed=["record-submit.n_clicks"])
    if response.status_code != 200:
        return f"{response.status_code} {response.get_data(as_text=True)}"
    return json.dumps(response.get_json()["response"].get("record-status"))


def _fragment(client: Client, fragment: str) -> str:
    values = {"page-location.hash": fragment, "page-location.pathname": "/g/club"}
    return json.dumps(post(client, "group-message", values, changed=["page-location.hash"]).get_json())


def _cookie(value: dict[str, Any], *, key: str = SECRET_KEY, age: float = 0.0) -> str:
    return session_cookie(value, key=key, age=age)


def _organiser(admin_hash: str) -> dict[str, Any]:
    return {"groups": {"club": {"role": "organiser", "mark": group_mark(SECRET_KEY, "club", "organiser", admin_hash)}}}


REFUSED = "Not recorded: only the group's organisers and members"


def test_an_unknown_group_is_a_plain_404_and_the_group_opens(served) -> None:  # type: ignore[no-untyped-def]
    base, _ = served
    client = Client(base, "203.0.113.1")
    answer = client.get("/g/nobody-here")
    assert answer.status_code == 404 and answer.get_data(as_text=True).startswith("There is no group at /g/nobody-here")
    assert client.get("/g/club?title=Go").status_code == 200


def test_a_visitor_a_forged_or_expired_cookie_and_a_revoked_link_cannot_record(served) -> None:  # type: ignore[no-untyped-def]
    base, info = served
    before = _games(info["url"])
    cases = {
        "no cookie": None,
        "another key": _cookie(_organiser(info["admin"]), key="not-the-servers-key"),
        "expired (31 days old)": _cookie(_organiser(info["admin"]), age=31 * 24 * 3600),
        "a member mark as organiser": _cookie(
            {"groups": {"club": {"role": "organiser", "mark": group_mark(SECRET_KEY, "club", "member", "x")}}}
        ),
        "another group's entry": _cookie(
            {"groups": {"other": {"role": "organiser", "mark": group_mark(SECRET_KEY, "club", "organiser", "x")}}}
        ),
    }
    for i, (case, cookie) in enumerate(cases.items()):
        client = Client(base, f"203.0.113.{20 + i}")
        if cookie is not None:
            client.session.cookies.set("session", cookie)
        assert REFUSED in _record(client, f"visitor-{i}"), case
    revoked = Client(base, "203.0.113.40")
    assert "does not open this group" in _fragment(revoked, "#member=" + info["revoked"])
    assert REFUSED in _record(revoked, "revoked-1")
    assert _games(info["url"]) == before


def test_the_control_cookie_made_the_same_way_records(served) -> None:  # type: ignore[no-untyped-def]
    """The forged-cookie cases' control: the same cookie made with the server's key and the group's hash works."""
    base, info = served
    client = Client(base, "203.0.113.50")
    client.session.cookies.set("session", _cookie(_organiser(info["admin"])))
    assert "Recorded in The Club, Catan" in _record(client, "control-1")
    assert "control" not in " ".join(_games(info["url"]))  # ids are the group's own (g2, ...), not the token


def test_a_member_records_but_may_not_delete_and_a_cross_site_post_is_refused(served) -> None:  # type: ignore[no-untyped-def]
    base, info = served
    member = Client(base, "203.0.113.60")
    assert "Signed in with a member link" in _fragment(member, "#member=" + info["member"])
    count = len(_games(info["url"]))
    assert "Recorded in The Club, Catan" in _record(member, "member-1")
    assert len(_games(info["url"])) == count + 1
    values = {"group-delete.n_clicks": 1, "group-game.value": "g1", "page-location.pathname": "/g/club"}
    values["data-source.data"] = SOURCE
    answer = post(member, "group-new-link", values, changed=["group-delete.n_clicks"]).get_json()
    assert "only the group's organisers may change" in json.dumps(answer)
    assert "g1" in _games(info["url"])
    member.session.headers["Sec-Fetch-Site"] = "cross-site"
    crossed = _record(member, "member-2")
    assert crossed == "403 cross-site requests are refused"
    assert len(_games(info["url"])) == count + 1


def test_the_other_groups_games_are_untouched(served) -> None:  # type: ignore[no-untyped-def]
    _, info = served
    assert _games(info["url"], "other") == ["g1"]


def test_games_titles_and_links_survive_a_restart_without_the_cache(tmp_path: Path) -> None:
    """Record through gunicorn, stop every process, delete the cache directory, start again: the games, the titles,
    the member link and the group's share link are all there."""
    data, store = tmp_path / "data", tmp_path / "store"
    info = _setup(data)
    env = {"RATINGS_DATA_DIR": str(data), "RATINGS_STORE_DIR": str(store)}
    with gunicorn(env, tmp_path) as base:
        member = Client(base, "203.0.113.70")
        assert "Signed in with a member link" in _fragment(member, "#member=" + info["member"])
        for i in range(3):
            assert "Recorded in The Club, Catan" in _record(member, f"restart-{i}")
        cookie = member.session.cookies.get("session")
        member.session.close()  # no kept-alive connection: the graceful stop need not linger 2 s on it
    assert store.exists()
    shutil.rmtree(store)
    with gunicorn(env, tmp_path) as base:
        assert _games(info["url"]) == ["g1", "g2", "g3", "g4"]
        again = Client(base, "203.0.113.71")
        assert again.get("/g/club?title=Catan").status_code == 200  # the share link opens
        # the page's data callback on that address gives the title's four games
        values = {"page-url-state.data": {"source": None}, "page-location.pathname": "/g/club"}
        values["page-location.search"] = "?title=Catan"
        answer = post(again, "data-summary", values, changed=["page-url-state.data"]).get_json()["response"]
        assert answer["data-source"]["data"]["kind"] == "group"
        assert "4 games" in json.dumps(answer["data-summary"])
        # the member's cookie from before the restart still records (the database, not the cache, decides)
        kept = Client(base, "203.0.113.72")
        assert cookie is not None
        kept.session.cookies.set("session", cookie)
        assert "Recorded in The Club, Catan" in _record(kept, "after-restart")
        assert len(_games(info["url"])) == 5
        again.session.close()
        kept.session.close()


def _revoke(client: Client, link_id: int, values: dict[str, Any]) -> str:
    """The Revoke button of member link ``link_id`` pressed, as the page sends it (a pattern-matching input)."""
    dep = callback_spec(client, "group-new-link", "group-delete.n_clicks")
    sent = {"page-location.pathname": "/g/club", "data-source.data": SOURCE, **values}

    def entries(items: list[dict[str, Any]]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            if item["id"].startswith("{"):  # the Revoke buttons' list; none of the other wildcard inputs
                revoke = json.loads(item["id"])["type"] == "group-revoke"
                out.append(sent['{"index": ["ALL"], "type": "group-revoke"}.n_clicks'] if revoke else [])
            else:
                out.append(
                    {
                        "id": item["id"],
                        "property": item["property"],
                        "value": sent.get(f"{item['id']}.{item['property']}"),
                    }
                )
        return out

    body = {
        "output": dep["output"],
        "outputs": [
            {"id": p.split(".")[0], "property": p.split(".")[1]} for p in dep["output"].strip(".").split("...")
        ],
        "inputs": entries(dep["inputs"]),
        "state": entries(dep["state"]),
        "changedPropIds": [json.dumps({"index": link_id, "type": "group-revoke"}, separators=(",", ":")) + ".n_clicks"],
    }
    answer = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
    return json.dumps(answer.get_json())


def _tool(client: Client, trigger: str, **values: Any) -> str:
    body = {f"{trigger}.n_clicks": 1, "page-location.pathname": "/g/club", "data-source.data": SOURCE, **values}
    if trigger.startswith("{"):
        body = {"page-location.pathname": "/g/club", "data-source.data": SOURCE, **values}
    answer = post(client, "group-new-link", body, changed=[f"{trigger}.n_clicks"])
    return json.dumps(answer.get_json())


def test_a_visitor_can_neither_delete_undo_make_nor_revoke_links_nor_alias_nor_import(served) -> None:  # type: ignore[no-untyped-def]
    base, info = served
    visitor = Client(base, "203.0.113.80")
    before = _games(info["url"])
    refused = "only the group's organisers may change"
    assert refused in _tool(visitor, "group-delete", **{"group-game.value": "g1"})
    assert refused in _tool(visitor, "group-undo")
    assert refused in _tool(visitor, "group-make-link", **{"group-link-label.value": "Mallory"})
    revoke = {
        '{"index": ["ALL"], "type": "group-revoke"}.n_clicks': [
            {"id": {"index": 1, "type": "group-revoke"}, "property": "n_clicks", "value": 1}
        ]
    }
    assert refused in _revoke(visitor, 1, revoke)
    alias = {"group-alias-name.value": "Mallory", "group-alias-player.value": "Ann"}
    assert refused in _tool(visitor, "group-declare-alias", **alias)
    assert refused in _tool(visitor, "group-mirror-on")
    sheet = {"group-import-sheet.n_clicks": 1, "group-import-sheet-url.value": "https://docs.google.com/x"}
    sheet |= {"page-location.pathname": "/g/club", "data-source.data": SOURCE}
    answer = post(visitor, "group-import-preview", sheet, changed=["group-import-sheet.n_clicks"])
    assert refused in json.dumps(answer.get_json())  # told before the Sheet is read
    csv = base64.b64encode(b"game,player,place\nx1,Mal,1\nx1,Lory,2\n").decode()
    values: dict[str, Any] = {"group-import-upload.contents": "data:text/csv;base64," + csv}
    values["group-import-upload.filename"] = "x.csv"
    values |= {"page-location.pathname": "/g/club", "data-source.data": SOURCE}
    answer = post(visitor, "group-import-preview", values, changed=["group-import-upload.contents"])
    assert refused in json.dumps(answer.get_json())  # told before the file is read or kept
    assert _games(info["url"]) == before
    member = Client(base, "203.0.113.81")  # Kim's member link is still there: nobody revoked it
    assert "Signed in with a member link" in _fragment(member, "#member=" + info["member"])


def test_secrets_never_reach_the_logs(served) -> None:  # type: ignore[no-untyped-def]
    """The passphrase (typed, and in an #admin= link) and a member link's token travel in request bodies only: the
    access and error logs hold neither."""
    base, info = served
    client = Client(base, "203.0.113.90")
    values = {"group-passphrase.value": info["passphrase"], "page-location.pathname": "/g/club"}
    values["group-sign-in.n_clicks"] = 1
    assert "Signed in as an organiser" in json.dumps(
        post(client, "group-message", values, changed=["group-sign-in.n_clicks"]).get_json()
    )
    assert "Signed in as an organiser" in _fragment(client, "#admin=" + info["passphrase"])
    assert "Signed in with a member link" in _fragment(Client(base, "203.0.113.91"), "#member=" + info["member"])
    time.sleep(0.5)  # the access log is written after each answer
    logs = "".join(p.read_text(errors="replace") for p in Path(info["logs"]).glob("*.log"))
    assert "_dash-update-component" in logs  # the requests were logged, without what they carried
    assert info["passphrase"] not in logs and info["member"] not in logs
