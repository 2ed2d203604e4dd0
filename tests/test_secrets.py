"""Secrets never leave the server: a whole session against gunicorn (the Procfile's workers) and the local fake of
Google, signed in with a freshly generated service-account key, and every answer scanned.

The session: the page and every script it names, the layout and the dependencies, then EVERY callback the page
has (from ``/_dash-dependencies``) on the private sheet, on a sample, and with the sheet failing (500 from
Google), a sheet address nobody shared, an upload that cannot be read and a record-form mistake.  Every body and
every header is searched for the private key (its PEM text and each of its base64 lines), the service account's
e-mail address, the key id, SECRET_KEY, and the server's file paths.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.dash_requests import HttpClient, _ident, post
from tests.servers import ROOT, gunicorn
from tests.sheets_server import FakeSheets
from tests.test_workers import EMAIL, GAMES, KEY, _service_account

pytestmark = pytest.mark.slow

SECRET_KEY = "test-secret-shared-by-workers"  # what tests/servers.py gives gunicorn
SHEET = {"kind": "sheet", "url": KEY, "worksheet": "Games"}
SAMPLE = {"kind": "sample", "name": "poker"}
SETTINGS = {"system": "multielo", "params": {}}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HttpClient, FakeSheets, list[str]]]:
    fake = FakeSheets().start()
    fake.add_spreadsheet(KEY, {"Games": GAMES}, public=False)
    account = _service_account(fake)
    env = {
        "RATINGS_SHEET": KEY,
        "RATINGS_WORKSHEET": "Games",
        "GOOGLE_SERVICE_ACCOUNT_JSON": account,
        "RATINGS_GOOGLE_ENDPOINT": fake.base_url,
        "RATINGS_STORE_DIR": str(tmp_path_factory.mktemp("secrets-store")),
    }
    info = json.loads(account)
    pem_lines = [line for line in info["private_key"].splitlines() if line and "-----" not in line]
    secrets = [info["private_key"], EMAIL, info["private_key_id"], SECRET_KEY, *pem_lines, str(ROOT)]
    try:
        with gunicorn(env, tmp_path_factory.mktemp("secrets-logs")) as url:
            yield HttpClient(url), fake, secrets
    finally:
        fake.stop()


def _scan(where: str, response: Any, secrets: list[str]) -> None:
    text = response.get_data(as_text=True)
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    for secret in secrets:
        assert secret not in text and secret not in headers, f"{where} gives away {secret[:12]}..."
    assert "Traceback" not in text and "site-packages" not in text and not re.search(r'File "[^"]+\.py"', text)
    assert response.status_code in (200, 204), f"{where}: {response.status_code}"


def _scan_secrets_only(response: Any, secrets: list[str]) -> None:
    text = response.get_data(as_text=True) + str(dict(response.headers))
    assert not any(secret in text for secret in secrets) and "Traceback" not in text


def _every_callback(client: HttpClient, secrets: list[str], values: dict[str, Any], label: str) -> int:
    """POST every callback of the page once with ``values`` (the rest None); the number of answers scanned."""
    deps = client.get("/_dash-dependencies").get_json()
    count = 0
    for dep in deps:
        if dep.get("clientside_function") is not None:
            continue  # runs in the browser; the page never posts it
        outputs = dep["output"].strip(".").split("...")
        first = outputs[0].split("@")[0].rsplit(".", 1)[0]
        if first.startswith("{"):
            continue  # pattern-matching outputs need concrete components (tests/test_fuzz_requests.py posts those)
        trigger = dep["inputs"][0] if dep["inputs"] else None
        changed = (
            [f"{_ident(trigger)}.{trigger['property']}"] if trigger and not str(trigger["id"]).startswith("{") else None
        )
        response = post(client, first, values, changed=changed)
        _scan(f"{label}: {dep['output'][:60]}", response, secrets)
        count += 1
    return count


def test_no_secret_in_any_answer_of_a_whole_session(session: tuple[HttpClient, FakeSheets, list[str]]) -> None:
    client, fake, secrets = session
    answers = 0
    page = client.get("/?system=trueskill")
    _scan("the page", page, secrets)
    for path in ["/_dash-layout", "/_dash-dependencies", *re.findall(r'src="([^"]+)"', page.get_data(as_text=True))]:
        _scan(path, client.get(path), secrets)
        answers += 1

    base = {"params-settings.data": SETTINGS, "edit-store.data": None}
    answers += _every_callback(client, secrets, {**base, "data-source.data": SHEET}, "private sheet")
    answers += _every_callback(client, secrets, {**base, "data-source.data": SAMPLE}, "sample")

    # Error paths: the sheet failing at Google, a sheet nobody shared with the app, an unreadable upload.
    fake.plan(500, times=200)
    refresh = {"data-source.data": SHEET, "data-sheet-url.value": KEY, "data-sheet-refresh.n_clicks": 1}
    _scan(
        "a failed sheet reload", post(client, "data-source", refresh, changed=["data-sheet-refresh.n_clicks"]), secrets
    )
    answers += _every_callback(client, secrets, {**base, "data-source.data": SHEET}, "sheet failing")
    fake.plan(403, times=50)
    other = {"data-sheet-url.value": "1NobodySharedThisSheetWithTheApp0123456789ab", "data-sheet-load.n_clicks": 1}
    unshared = post(client, "data-source", other, changed=["data-sheet-load.n_clicks"])
    _scan("an unshared sheet", unshared, secrets)
    bad = "data:text/csv;base64," + base64.b64encode(b"\x00\x01 not a table").decode()
    upload = {"data-upload.contents": bad, "data-upload.filename": "x.csv", "data-source.data": SAMPLE}
    _scan("an unreadable upload", post(client, "data-source", upload, changed=["data-upload.contents"]), secrets)
    answers += 3
    made_up = post(client, "standings-leaderboard", {"data-source.data": SAMPLE})
    assert made_up.status_code in (200, 204)  # a real callback still answers
    for output in ["..page-url-writer.children...page-share-url.value..", "nothing.children", ""]:
        body = json.dumps({"output": output, "outputs": [], "inputs": [], "state": [], "changedPropIds": []})
        answer = client.post("/_dash-update-component", data=body, content_type="application/json")
        assert answer.status_code == 400, (output, answer.status_code)  # not a callback this server runs: no 500
        _scan_secrets_only(answer, secrets)
    assert answers > 60, answers
    print(f"\n{answers} answers scanned")


def test_two_visitors_never_see_each_others_upload(session: tuple[HttpClient, FakeSheets, list[str]]) -> None:
    """Two visitors (two HTTP sessions): what one uploads appears in none of the other's answers, and a guessed
    data id (random 128 bits, the size of a content id) finds nothing.  The browser-level check with two contexts
    is tests/browser/test_persistence.py."""
    import secrets as random_source

    client, _, _ = session
    ann, bob = HttpClient(client.base_url), HttpClient(client.base_url)
    csv = "game,date,player,place\n1,2024-03-01,Qzxwv Private,1\n1,2024-03-01,Jkhgf Private,2\n"
    contents = "data:text/csv;base64," + base64.b64encode(csv.encode()).decode()
    values = {"data-upload.contents": contents, "data-upload.filename": "ann.csv", "data-source.data": SAMPLE}
    kept = post(ann, "data-source", values, changed=["data-upload.contents"]).get_json()["response"]["data-source"]
    assert re.fullmatch(r"[0-9a-f]{32}", kept["data"]["id"]), "a data id is 128 bits, computed by the server"
    seen = []
    for output in ["standings-leaderboard", "standings-trajectories", "games-grid", "player-summary"]:
        seen.append(post(bob, output, {"data-source.data": SAMPLE, "params-settings.data": SETTINGS}))
    for _ in range(5):
        guess = {"kind": "upload", "id": random_source.token_hex(16), "filename": "x.csv"}
        seen.append(post(bob, "standings-leaderboard", {"data-source.data": guess, "params-settings.data": SETTINGS}))
    assert all(r.status_code in (200, 204) for r in seen)
    assert not any("Private" in r.get_data(as_text=True) or "ann.csv" in r.get_data(as_text=True) for r in seen)
