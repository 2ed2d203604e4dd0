"""Who may write a group's games (issue 29), tried as a hostile visitor would: against the Procfile's server (gunicorn,
two workers) and the local stand-in for Google (real HTTP), with crafted callback requests as well as the page's own.

The service account can write to two private sheets: the group's, which the server is configured with, and another
group's.  Each test speaks from its own client address (``X-Forwarded-For``, read one proxy hop back as behind a
PaaS router), so the per-client limits of one test never touch another's.
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sources.access import ASK_FOR_SECRET, RECORDING_OFF, organiser_mark
from tests.dash_requests import HttpClient, post, record_form, session_cookie
from tests.servers import gunicorn
from tests.sheets_server import FakeSheets
from tests.test_workers import private_sheet_env

pytestmark = pytest.mark.slow

KEY = "1GroupSheetOfTheWriteTests0123456789abcdef"
OTHER = "1AnotherGroupsPrivateSheet0123456789abcdef"
SECRET = "the organisers' own secret, long enough"
SECRET_KEY = "test-secret-shared-by-workers"  # what tests/servers.py gives gunicorn
# The wide shape with a game column: one row per game, the submission token as its id (so each crafted confirm
# with its own token is its own game, and a repeated one is recognised).
GAMES = [
    ["game", "date", "1st", "2nd", "3rd"],
    ["n1", "2024-05-01", "Uma", "Vic", "Wen"],
    ["n2", "2024-05-08", "Vic", "Wen", "Uma"],
]
SHEET = {"kind": "sheet", "url": KEY, "worksheet": "Games"}


class Client(HttpClient):
    """An HTTP client speaking from its own address (as the PaaS router reports it)."""

    def __init__(self, base_url: str, address: str) -> None:
        super().__init__(base_url)
        self.session.headers["X-Forwarded-For"] = address


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeSheets]]:
    fake = FakeSheets().start()
    fake.add_spreadsheet(KEY, {"Games": GAMES}, public=False)
    fake.add_spreadsheet(OTHER, {"Games": GAMES}, public=False)
    env = private_sheet_env(fake, KEY, tmp_path_factory.mktemp("write-store"), RATINGS_ADMIN_SECRET=SECRET)
    try:
        with gunicorn(env, tmp_path_factory.mktemp("write-logs")) as url:
            yield url, fake
    finally:
        fake.stop()


def _form(trigger: str, token: str, pending: Any = None, source: Any = SHEET) -> dict[str, Any]:
    return record_form(trigger, token, pending, source)


def _pending(token: str, source: Any = SHEET) -> dict[str, Any]:
    """A confirmation as the page would hold it after Record game (crafted: no submit step needed)."""
    return {"date": "2024-05-22", "results": [["Newbie", 1], ["Uma", 2]], "token": token, "source": source}


def _confirm(client: HttpClient, token: str, source: Any = SHEET) -> Any:
    form = _form("record-confirm", token, _pending(token, source), source)
    return post(client, "record-confirm-box", form, changed=["record-confirm.n_clicks"])


def _sign_in(client: HttpClient, secret: str) -> Any:
    return post(client, "record-access", {"record-secret.value": secret}, changed=["record-sign-in.n_clicks"])


def _text(answer: Any) -> str:
    return json.dumps(answer.get_json())


def _rows(fake: FakeSheets, key: str = KEY) -> int:
    return len(fake.values(key, "Games"))


def test_a_visitor_cannot_record_through_the_page_or_a_crafted_request(served: tuple[str, FakeSheets]) -> None:
    url, fake = served
    visitor = Client(url, "203.0.113.1")
    shown = post(visitor, "record-access", {}, changed=[])
    assert ASK_FOR_SECRET in _text(shown)
    before = _rows(fake)
    asked = post(visitor, "record-confirm-box", _form("record-submit", "v-1"), changed=["record-submit.n_clicks"])
    assert asked.get_json()["response"].get("record-pending", {}).get("data") is None  # no confirm step offered
    assert "Not recorded: " + ASK_FOR_SECRET in _text(asked)
    crafted = _confirm(visitor, "v-2")
    assert "Not recorded: " + ASK_FOR_SECRET in _text(crafted)
    wrong = _sign_in(visitor, SECRET + "x")
    assert "not the organisers' secret" in _text(wrong) and "set-cookie" not in {h.lower() for h in wrong.headers}
    assert "Not recorded" in _text(_confirm(visitor, "v-3"))
    assert _rows(fake) == before


def _cookie(mark: str, *, key: str = SECRET_KEY, age: float = 0.0) -> str:
    """A session cookie naming an organiser by ``mark``, as Flask signs it, ``age`` seconds old."""
    return session_cookie({"organiser": mark}, key=key, age=age)


@pytest.mark.parametrize(
    ("case", "cookie"),
    [
        ("signed with another key", _cookie(organiser_mark("another key", SECRET), key="another key")),
        ("the mark of another secret", _cookie(organiser_mark(SECRET_KEY, "an old secret"))),
        ("expired (31 days old)", _cookie(organiser_mark(SECRET_KEY, SECRET), age=31 * 24 * 3600)),
        ("garbage", "not.a.cookie"),
    ],
)
def test_a_forged_or_expired_cookie_cannot_record(served: tuple[str, FakeSheets], case: str, cookie: str) -> None:
    url, fake = served
    client = Client(url, f"203.0.113.{10 + len(case)}")
    client.session.cookies.set("session", cookie)
    before = _rows(fake)
    assert "Not recorded: " + ASK_FOR_SECRET in _text(_confirm(client, f"forged-{len(case)}")), case
    assert _rows(fake) == before


def test_the_same_cookie_made_fresh_would_record(served: tuple[str, FakeSheets]) -> None:
    """The forged-cookie test's control: a cookie made the same way with the server's key and the right mark works
    (so the refusals above are for the reasons named, not for a cookie this test cannot make)."""
    url, fake = served
    client = Client(url, "203.0.113.40")
    client.session.cookies.set("session", _cookie(organiser_mark(SECRET_KEY, SECRET)))
    before = _rows(fake)
    assert "Recorded the game" in _text(_confirm(client, "fresh-cookie-1"))
    assert _rows(fake) == before + 1


def test_the_organiser_records_exactly_one_row(served: tuple[str, FakeSheets]) -> None:
    url, fake = served
    organiser = Client(url, "203.0.113.2")
    signed = _sign_in(organiser, SECRET)
    cookie = signed.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and SECRET not in cookie
    assert "signed in as an organiser" in _text(signed)
    before = _rows(fake)
    asked = post(organiser, "record-confirm-box", _form("record-submit", "o-1"), changed=["record-submit.n_clicks"])
    pending = asked.get_json()["response"]["record-pending"]["data"]
    written = post(
        organiser, "record-confirm-box", _form("record-confirm", "o-1", pending), ["record-confirm.n_clicks"]
    )
    assert "Recorded the game: 1 row added" in _text(written)
    assert _rows(fake) == before + 1 and fake.values(KEY, "Games")[-1][:4] == ["o-1", "2024-05-22", "Newbie", "Uma"]
    signed_out = post(organiser, "record-access", {}, changed=["record-sign-out.n_clicks"])
    assert "Signed out" in _text(signed_out)
    assert "Not recorded" in _text(_confirm(organiser, "o-2")) and _rows(fake) == before + 1


def test_a_forged_confirm_naming_another_sheet_writes_nothing_and_says_why(served: tuple[str, FakeSheets]) -> None:
    url, fake = served
    organiser = Client(url, "203.0.113.3")  # even an organiser of this group
    _sign_in(organiser, SECRET)
    before, other_before = _rows(fake), _rows(fake, OTHER)
    for source in (
        {"kind": "sheet", "url": OTHER, "worksheet": "Games"},
        {"kind": "sheet", "url": f"https://docs.google.com/spreadsheets/d/{OTHER}/edit", "worksheet": "Games"},
    ):
        answer = _confirm(organiser, f"forged-{len(source['url'])}", source)
        assert "only into the group's own sheet" in _text(answer) and "nothing was written" in _text(answer)
    # and a read of the other private sheet as the app's account is refused too: it is read only as a public link
    shown = post(organiser, "data-source", {"data-sheet-url.value": OTHER}, changed=["data-sheet-load.n_clicks"])
    assert "Newbie" not in _text(shown) and "Uma" not in _text(shown)
    assert (_rows(fake), _rows(fake, OTHER)) == (before, other_before)


@pytest.mark.parametrize(
    "headers", [{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}, {"Origin": "http://evil.example"}]
)
def test_a_cross_site_post_is_refused(served: tuple[str, FakeSheets], headers: dict[str, str]) -> None:
    url, fake = served
    organiser = Client(url, "203.0.113.4")
    _sign_in(organiser, SECRET)  # the cookie a browser would attach, had SameSite not kept it
    organiser.session.headers.update(headers)
    before = _rows(fake)
    answer = _confirm(organiser, f"cross-{len(str(headers))}")
    assert answer.status_code == 403 and "cross-site" in answer.get_data(as_text=True)
    assert _rows(fake) == before


def test_the_31st_write_within_a_minute_is_refused_with_a_message(served: tuple[str, FakeSheets]) -> None:
    url, fake = served
    organiser = Client(url, "203.0.113.5")
    _sign_in(organiser, SECRET)
    before = _rows(fake)
    answers = [_confirm(organiser, f"burst-{i}") for i in range(31)]
    assert all("Recorded the game" in _text(a) for a in answers[:30])
    last = answers[30]
    assert "Too many games written to the group's sheet from your address: at most 30" in _text(last)
    assert int(last.headers["Retry-After"]) >= 1
    assert _rows(fake) == before + 30
    elsewhere = Client(url, "203.0.113.6")  # another client is not limited by this one
    _sign_in(elsewhere, SECRET)
    assert "Recorded the game" in _text(_confirm(elsewhere, "burst-elsewhere"))


def test_sign_in_tries_are_limited(served: tuple[str, FakeSheets]) -> None:
    url, _ = served
    guesser = Client(url, "203.0.113.7")
    answers = [_sign_in(guesser, f"guess {i}") for i in range(11)]
    assert all("not the organisers' secret" in _text(a) for a in answers[:10])
    assert "Too many tries of the organisers' secret" in _text(answers[10])
    assert "Too many tries" in _text(_sign_in(guesser, SECRET))  # even the right one, until the window moves


def _upload(client: HttpClient, data: bytes, name: str) -> Any:
    contents = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    values = {"data-upload.contents": contents, "data-upload.filename": name}
    return post(client, "data-source", values, changed=["data-upload.contents"])


def test_an_inflating_upload_is_refused_while_another_client_is_served(served: tuple[str, FakeSheets]) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("hostile", Path(__file__).parent / "fixtures" / "io" / "hostile.py")
    assert spec is not None and spec.loader is not None
    hostile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hostile)
    url, _ = served
    uploader, reader = Client(url, "203.0.113.8"), Client(url, "203.0.113.9")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        refused = [pool.submit(_upload, uploader, hostile.xlsx_many_elements(), "elements.xlsx") for _ in range(2)]
        pages = [reader.get(path) for _ in range(5) for path in ("/", "/_dash-layout", "/_dash-dependencies")]
        answers = [f.result(timeout=120) for f in refused]
    assert all(p.status_code == 200 for p in pages)  # served meanwhile (how fast: benchmarks, not asserted here)
    for answer in answers:
        assert "times its size" in _text(answer) and "elements.xlsx" in _text(answer)


def test_uploads_are_limited_per_client(served: tuple[str, FakeSheets]) -> None:
    url, _ = served
    uploader = Client(url, "203.0.113.11")
    small = b"game,player,place\ng1,Ann,1\ng1,Bob,2\n"
    answers = [_upload(uploader, small, f"u{i}.csv") for i in range(21)]
    assert "Too many uploaded files from your address: at most 20" in _text(answers[20])
    assert all("Too many" not in _text(a) for a in answers[:20])


@pytest.fixture(scope="module")
def no_secret(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeSheets]]:
    fake = FakeSheets().start()
    fake.add_spreadsheet(KEY, {"Games": GAMES}, public=False)
    env = private_sheet_env(fake, KEY, tmp_path_factory.mktemp("write-store-2"))
    try:
        with gunicorn(env, tmp_path_factory.mktemp("write-logs-2"), workers=1) as url:
            yield url, fake
    finally:
        fake.stop()


def test_without_a_secret_a_hosted_server_records_nothing_and_says_how_to_turn_it_on(
    no_secret: tuple[str, FakeSheets],
) -> None:
    url, fake = no_secret
    client = Client(url, "203.0.113.12")
    assert RECORDING_OFF in _text(post(client, "record-access", {}, changed=[]))
    before = _rows(fake)
    assert "Not recorded: " + RECORDING_OFF in _text(_confirm(client, "off-1"))
    assert "RATINGS_ADMIN_SECRET" in _text(_sign_in(client, "anything"))
    assert _rows(fake) == before
