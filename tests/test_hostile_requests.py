"""Crafted callback requests (issue: one visitor can take the hosted app down): never a 500, never a traceback,
never another user's data, never a body larger than the server accepts.

Each case posts what a visitor could send by replaying the page's own requests with other values.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.dash_requests import post

POKER = {"kind": "sample", "name": "poker"}
SETTINGS = {"system": "multielo", "params": {}}
CSV = "game,date,player,place\n1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n2,2024-03-08,Yan,1\n2,2024-03-08,Xia,2\n"


@pytest.fixture(scope="module")
def client() -> Any:
    import app

    return app.server.test_client()


def _ok(response: Any) -> dict[str, Any] | None:
    """The response is an answer (200 with JSON, or 204 no update), never a server error or a traceback."""
    assert response.status_code in (200, 204), response.status_code
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and 'File "' not in text
    return json.loads(text) if response.status_code == 200 else None


def _error_banner(body: dict[str, Any] | None) -> str:
    return str(((body or {}).get("sideUpdate") or {}).get("page-error", {}).get("children", ""))


def _leaderboard(client: Any, source: Any, current: Any, **more: Any) -> dict[str, Any] | None:
    values = {"data-source.data": source, "params-settings.data": current}
    values.update({f"{k.replace('_', '-')}": v for k, v in more.items()})
    return _ok(post(client, "standings-leaderboard", values))


@pytest.mark.parametrize(
    "current",
    [
        {"system": "nope", "params": {}},
        {"system": ["multielo"], "params": {}},
        {"system": "multielo", "params": {"k": "1e999"}},
        {"system": "multielo", "params": {"k": [1, 2]}},
        {"system": "multielo", "params": "x"},
        "multielo",
        7,
    ],
)
def test_forged_settings_get_an_answer_not_a_500(client: Any, current: Any) -> None:
    _leaderboard(client, POKER, current)


@pytest.mark.parametrize(
    "source",
    [
        {"kind": "upload", "records": "x"},
        {"kind": "upload", "id": "0" * 32, "records": [{"game": "g", "player": "A", "place": 1}]},
        {"kind": "upload", "id": ["x"]},
        {"kind": "nope"},
        {"kind": "sample", "name": {"x": 1}},
        ["sample"],
        "poker",
    ],
)
def test_forged_sources_get_an_answer_not_a_500(client: Any, source: Any) -> None:
    _leaderboard(client, source, SETTINGS)


def test_unknown_system_in_pinned_baseline(client: Any) -> None:
    pinned = {"source": POKER, "system": "nope", "params": {}}
    body = _leaderboard(client, POKER, SETTINGS, **{"baseline-store.data": pinned})
    assert body is not None and "standings-leaderboard" in body["response"]  # drawn without the baseline


@pytest.mark.parametrize("min_games", [float("nan"), float("inf"), -float("inf"), "x", [3], 1e308])
def test_min_games_of_any_value(client: Any, min_games: Any) -> None:
    body = _leaderboard(client, POKER, SETTINGS, **{"standings-min-games.value": min_games})
    assert body is not None and "standings-leaderboard" in body["response"]


@pytest.mark.parametrize("click", [{"points": "x"}, {"points": [5]}, {"points": [{"customdata": "x"}]}, "x", 3])
def test_click_data_of_any_shape(client: Any, click: Any) -> None:
    values = {"data-source.data": POKER, "params-settings.data": SETTINGS, "standings-trajectories.clickData": click}
    body = _ok(post(client, "standings-game", values, changed=["standings-trajectories.clickData"]))
    assert body is not None and body["response"]["standings-game"]["value"] == 149  # the last game, as without a click


@pytest.mark.parametrize("players", [5, "Ann", [{"a": 1}], [None, 3], ["x"] * 10_000])
def test_predicted_players_of_any_type(client: Any, players: Any) -> None:
    values = {"data-source.data": POKER, "params-settings.data": SETTINGS, "predict-players.value": players}
    _ok(post(client, "predict-figure", values))


@pytest.mark.parametrize("place", [1e308, 10**20, "1e308", "99999999999999999999", -1, 0.5, "NaN"])
def test_edit_grid_places_out_of_range(client: Any, place: Any) -> None:
    from ratings.samples import load_sample
    from sources.edits import grid_rows

    rows = grid_rows(load_sample("poker"))[:20]
    rows[3]["place"] = place
    values = {
        "edit-apply.n_clicks": 1,
        "edit-grid.rowData": rows,
        "edit-store.data": {"base": POKER, "rows": None, "undo": []},
    }
    body = _ok(post(client, "edit-status", values, changed=["edit-apply.n_clicks"]))
    assert body is not None
    text = json.dumps(body["response"])
    assert "place" in text and "game '" in text and "player '" in text  # the problem is named, nothing applied


def test_a_body_over_the_limit_is_refused_before_parsing(client: Any) -> None:
    from web.security import MAX_REQUEST_BYTES

    response = client.post(
        "/_dash-update-component", data=b"{" + b" " * MAX_REQUEST_BYTES + b"}", content_type="application/json"
    )
    assert response.status_code == 413


@pytest.mark.parametrize("contents", [[1, 2], 3, {"a": 1}, "data:text/csv;base64,!!!", None])
def test_upload_contents_of_any_type(client: Any, contents: Any) -> None:
    values = {"data-upload.contents": contents, "data-upload.filename": "x.csv", "data-source.data": POKER}
    _ok(post(client, "data-source", values, changed=["data-upload.contents"]))


# ------------------------------------------------------------------ uploads are the server's, by content
def _data_url(text: str) -> str:
    return "data:text/csv;base64," + base64.b64encode(text.encode()).decode()


def _upload(client: Any, text: str, name: str) -> dict[str, Any]:
    values = {"data-upload.contents": _data_url(text), "data-upload.filename": name, "data-source.data": POKER}
    body = _ok(post(client, "data-source", values, changed=["data-upload.contents"]))
    assert body is not None
    return body["response"]


def test_forged_records_under_a_known_id_change_nothing(client: Any) -> None:
    first = _upload(client, CSV, "club.csv")["data-source"]["data"]
    forged = dict(first, records=[{"game": "g", "player": "Mallory", "place": 1}], hash=first["id"])
    body = _leaderboard(client, forged, SETTINGS)
    assert body is not None
    text = json.dumps(body["response"])
    assert "Mallory" not in text and "Zed" in text  # the stored content, whatever the request claims
    again = _upload(client, CSV, "mine.csv")
    assert again["data-source"]["data"]["id"] == first["id"]
    assert "mine.csv" in json.dumps(again["data-summary"]) and "club.csv" not in json.dumps(again["data-summary"])


def test_an_unknown_data_id_is_a_clear_message(client: Any) -> None:
    source = {"kind": "upload", "id": "f" * 32, "filename": "gone.csv"}
    values = {"page-url-state.data": {"source": source}, "data-source.data": None}
    body = _ok(post(client, "data-source", values, changed=["page-url-state.data"]))
    assert body is not None
    text = json.dumps(body["response"]["data-messages"])
    assert "no longer on the server" in text and "Showing sample" in text
    assert body["response"]["data-source"]["data"] == POKER


def test_the_upload_bytes_are_not_kept_in_the_page(client: Any) -> None:
    response = _upload(client, CSV, "club.csv")
    assert response["data-upload"]["contents"] is None
    assert set(response["data-source"]["data"]) == {"kind", "id", "filename"}


def test_security_headers_on_every_response_type(client: Any) -> None:
    responses = [
        client.get("/"),
        client.get("/_dash-layout"),
        client.get("/_dash-dependencies"),
        client.get("/assets/app.css"),
        client.get("/no-such-page-at-all/x"),
        post(client, "standings-leaderboard", {"data-source.data": POKER, "params-settings.data": SETTINGS}),
    ]
    for response in responses:
        headers = response.headers
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert "'unsafe-eval'" not in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer"


def test_development_routes_are_off(client: Any) -> None:
    assert client.get("/_reload-hash").status_code == 404


@pytest.mark.parametrize(
    ("players", "places", "said"),
    [(["Ann", "Bob"], ["1", "second"], "second"), (["Ann"], ["1"], "two"), (["Ann", "Ann"], ["1", "2"], "Ann")],
)
def test_a_mistake_in_the_record_form_is_a_message_not_a_500(client: Any, players: list, places: list, said: str):
    def rows(kind: str, values: list) -> list[dict[str, Any]]:
        return [{"id": {"index": i, "type": kind}, "property": "value", "value": v} for i, v in enumerate(values)]

    values = {
        "record-submit.n_clicks": 1,
        "record-date.value": "2024-05-22",
        '{"index": ["ALL"], "type": "record-player"}.value': rows("record-player", players),
        '{"index": ["ALL"], "type": "record-place"}.value': rows("record-place", places),
        "record-token.data": "hostile-token",
        "data-source.data": POKER,
    }
    body = _ok(post(client, "record-confirm-box", values, changed=["record-submit.n_clicks"]))
    assert body is not None
    status = json.dumps(body["response"]["record-status"])
    assert "Not recorded" in status and said in status


#: The hostile files sent through the upload callback: (writer in tests/fixtures/io/hostile.py, file name).
HOSTILE_UPLOADS = [("xlsx_empty_rows", "empty.xlsx"), ("xlsx_far_cell", "far.xlsx"), ("csv_blank_lines", "blank.csv")]

# One capped process for them all (importing the app took most of each case's time), one file after the other;
# each file's peak is its own: the kernel's high-water mark (VmHWM) is reset before each file after the first.
CALLBACK_UPLOADS = """
import base64, json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
sys.path.insert(0, {root!r})
import app
from tests.dash_requests import post
from tests.fixtures.io import hostile
client = app.server.test_client()
for number, (maker, name) in enumerate({cases!r}):
    if number:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    data = getattr(hostile, maker)()
    contents = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    del data
    values = {{"data-upload.contents": contents, "data-upload.filename": name}}
    values["data-source.data"] = {{"kind": "sample", "name": "poker"}}
    start = time.perf_counter()
    response = post(client, "data-source", values, changed=["data-upload.contents"])
    seconds = time.perf_counter() - start
    del contents, values
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    answer = {{"status": response.status_code, "body": response.get_data(as_text=True)}}
    print(json.dumps({{"maker": maker, **answer, "seconds": seconds, "peak_mb": peak}}), flush=True)
"""


@pytest.fixture(scope="module")
def hostile_upload_answers() -> dict[str, dict[str, Any]]:
    """Each hostile file's answer through the upload callback, by writer name, from one process capped at 1.5 GB."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    script = CALLBACK_UPLOADS.format(limit=1536 << 20, root=root, cases=HOSTILE_UPLOADS)
    timeout = 120 * len(HOSTILE_UPLOADS)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"maker"')]
    return {answer["maker"]: answer for answer in answers}


@pytest.mark.slow
@pytest.mark.parametrize(("maker", "name"), HOSTILE_UPLOADS)
def test_a_hostile_file_through_the_upload_callback_is_refused_within_bounds(
    maker: str, name: str, hostile_upload_answers: dict[str, dict[str, Any]]
) -> None:
    """The whole path a visitor uses (the Dash callback, the guarded reader), in a process capped at 1.5 GB."""
    result = hostile_upload_answers[maker]
    assert result["status"] == 200
    body = json.loads(result["body"])["response"]
    messages = json.dumps(body["data-messages"])
    assert f"Could not read {name}" in messages and "Still using the previous data" in messages
    assert "data-source" not in body  # nothing changed
    assert result["seconds"] < 30 and result["peak_mb"] < 600  # a hang or a gigabyte would show here


def test_deeply_nested_json_is_a_400_not_a_500(client: Any) -> None:
    deep = "[" * 100_000 + "]" * 100_000  # 200 kB: deeper than the JSON parser's recursion limit (issue 30)
    response = client.post("/_dash-update-component", data=deep, content_type="application/json")
    assert response.status_code == 400 and b"nested too deeply" in response.data


@pytest.mark.parametrize(
    "path",
    [
        "/_dash-component-suites/../app.py",
        "/_dash-component-suites/dash/../../app.py",
        "/_dash-component-suites/dash/not-a-script.js",
        "/_dash-component-suites/no_such_package/x.js",
    ],
)
def test_a_script_path_dash_does_not_serve_is_a_404_not_a_500(client: Any, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and b"app.py" not in response.data and b"Traceback" not in response.data


def test_a_player_named_many_times_is_drawn_once() -> None:
    """issue 30: standings-players = ["Nova"] * 3000 (26 kB in) answered 72.5 MB; the drawn players are the
    history's own, each once."""
    import figures
    from ratings import create
    from ratings.samples import load_sample

    run = create("multielo").rate(load_sample("racing"))
    leader = run.leaderboard().iloc[0]["player"]
    assert figures.drawn_players(run, [leader] * 100_000) == [leader]
    assert figures.drawn_players(run, ["nobody", leader, 7, leader]) == [leader]
    assert len(figures.drawn_players(run, ["nobody"] * 10)) == 10  # none known: the leaderboard's top ten
