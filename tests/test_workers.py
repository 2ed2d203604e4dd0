"""Several gunicorn workers share one store: a game recorded through one worker shows on every worker at once.

The app runs as the Procfile runs it (gunicorn, two sync workers) against the local fake of Google (real HTTP,
``RATINGS_GOOGLE_ENDPOINT``), signed in with a freshly generated service-account key the fake accepts.  Each
worker keeps its own copy of the sheet for ``RATINGS_SHEET_CACHE_SECONDS`` (here 300 s): without the shared store,
the worker that did not record the game would keep showing the old sheet for five minutes.  gunicorn's access log
names the worker (pid) that answered each request, so the test knows both workers answered before and after.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.dash_requests import HttpClient, post, record_form
from tests.servers import gunicorn
from tests.sheets_server import FakeSheets

KEY = "1WorkersShareOneStore0123456789abcdefghijk"
EMAIL = "ratings-app@game-night.iam.gserviceaccount.com"
GAMES = [
    ["date", "1st", "2nd", "3rd"],
    ["2024-05-01", "Uma", "Vic", "Wen"],
    ["2024-05-08", "Vic", "Wen", "Uma"],
    ["2024-05-15", "Wen", "Uma", "Vic"],
]
SHEET = {"kind": "sheet", "url": KEY, "worksheet": "Games"}
SETTINGS = {"system": "multielo", "params": {}}
ADMIN_SECRET = "workers-test-organisers-secret"
PID = re.compile(r"^pid=<?(\d+)>? .*POST /_dash-update-component", re.MULTILINE)


def private_sheet_env(fake: FakeSheets, key: str, store: Path, **extra: str) -> dict[str, str]:
    """The environment of a server configured with ``key``'s worksheet 'Games', private and read through a freshly
    made service account the stand-in for Google accepts, with its own store directory."""
    return {
        "RATINGS_SHEET": key,
        "RATINGS_WORKSHEET": "Games",
        "GOOGLE_SERVICE_ACCOUNT_JSON": _service_account(fake),
        "RATINGS_GOOGLE_ENDPOINT": fake.base_url,
        "RATINGS_STORE_DIR": str(store),
        **extra,
    }


def _service_account(fake: FakeSheets) -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    fake.accept_key("workers-test", private.public_key())
    info = {
        "type": "service_account",
        "client_email": EMAIL,
        "private_key": pem,
        "private_key_id": "workers-test",
        "token_uri": fake.base_url + "/token",
    }
    return json.dumps(info)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HttpClient, FakeSheets, Path]]:
    fake = FakeSheets().start()
    fake.add_spreadsheet(KEY, {"Games": GAMES}, public=False)
    logs = tmp_path_factory.mktemp("gunicorn")
    env = {
        "RATINGS_SHEET": KEY,
        "RATINGS_WORKSHEET": "Games",
        "GOOGLE_SERVICE_ACCOUNT_JSON": _service_account(fake),
        "RATINGS_GOOGLE_ENDPOINT": fake.base_url,
        "RATINGS_SHEET_CACHE_SECONDS": "300",
        "RATINGS_STORE_DIR": str(tmp_path_factory.mktemp("store")),
        "RATINGS_ADMIN_SECRET": ADMIN_SECRET,
    }
    try:
        with gunicorn(env, logs) as url:
            yield HttpClient(url), fake, logs / "access.log"
    finally:
        fake.stop()


def _leaderboards(client: HttpClient, log: Path, count: int = 16, rounds: int = 12) -> tuple[list[str], set[str]]:
    """Leaderboard requests, ``count`` at once, until both workers have answered (at most ``rounds`` rounds);
    every answer's text and the workers (pids) that answered.

    Each round opens new connections (a client of its own): a kept-alive connection stays with the worker that
    accepted it, and identical requests are answered from the shared answer memo in about a millisecond, so with
    one client's pool every round could go to the worker that accepted the first (CI saw one worker in six rounds).
    """

    def one(round_client: HttpClient) -> str:
        body = {"data-source.data": SHEET, "params-settings.data": SETTINGS}
        response = post(round_client, "standings-leaderboard", body)
        assert response.status_code == 200, response.get_data(as_text=True)[:500]
        return json.dumps(response.get_json()["response"])

    start = len(log.read_text()) if log.exists() else 0
    texts: list[str] = []
    for _ in range(rounds):
        round_client = HttpClient(client.base_url)
        with concurrent.futures.ThreadPoolExecutor(max_workers=count) as pool:
            texts += pool.map(one, [round_client] * count)
        round_client.session.close()
        if len(_workers(log, start)) >= 2:
            break
    return texts, _workers(log, start)


def _workers(log: Path, since: int) -> set[str]:
    text = log.read_text()[since:]
    return set(PID.findall(text))


def _form(trigger: str, pending: Any = None) -> dict[str, Any]:
    return record_form(trigger, "workers-test-token-1", pending, SHEET)


def test_a_game_recorded_through_one_worker_shows_on_every_worker(served: tuple[HttpClient, FakeSheets, Path]) -> None:
    client, fake, log = served
    before, workers = _leaderboards(client, log)
    assert all("Uma" in text and "Newbie" not in text for text in before)
    assert len(workers) == 2, "both workers answered (from the sheet's shared copy or the answer memo)"

    signed = post(client, "record-access", {"record-secret.value": ADMIN_SECRET}, changed=["record-sign-in.n_clicks"])
    assert "signed in as an organiser" in json.dumps(signed.get_json())  # only organisers record (issue 29)
    asked = post(client, "record-confirm-box", _form("record-submit"), changed=["record-submit.n_clicks"])
    assert asked.status_code == 200, asked.get_data(as_text=True)[:500]
    assert "record-pending" in asked.get_json()["response"], asked.get_json()
    pending = asked.get_json()["response"]["record-pending"]["data"]
    assert pending and "Write this game" in json.dumps(asked.get_json()["response"])
    written = post(client, "record-confirm-box", _form("record-confirm", pending), changed=["record-confirm.n_clicks"])
    assert written.status_code == 200, written.get_data(as_text=True)[:500]
    assert any(row[:3] == ["2024-05-22", "Newbie", "Uma"] for row in fake.values(KEY, "Games"))  # in the sheet

    after, workers = _leaderboards(client, log)
    assert all("Newbie" in text for text in after), "every answer, from either worker, shows the recorded game"
    assert len(workers) == 2, "both workers answered after the game was recorded"
