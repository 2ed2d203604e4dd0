"""The app as gunicorn serves it: two workers, a full page load and one real callback over HTTP."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest

from ratings import get_system
from tests.servers import gunicorn


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.status, response.read().decode()


def _post(url: str, payload: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read().decode())


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return tmp_path_factory.mktemp("gunicorn-logs")


@pytest.fixture(scope="module")
def gunicorn_url(logs):  # type: ignore[no-untyped-def]
    with gunicorn({"RATINGS_PREWARM_SECONDS": "20"}, logs) as url:  # as the Procfile starts it
        yield url


def _script_paths() -> list[str]:
    """Every script the page asks for, as the page names them (rendered here, in this test's own process)."""
    import re

    import app

    with app.server.test_request_context("/"):
        html = app.app.index()
    return re.findall(r'src="(/_dash-component-suites/[^"]+)"', html)


def test_fresh_workers_serve_scripts_asked_for_at_once(gunicorn_url):
    # First in this module, so one worker has answered only the start-up poll and the other nothing.  Dash's
    # first-request setup registers the script paths but marks itself done first: threads of a fresh threaded
    # worker answering meanwhile gave 500 "not a registered library" (found by the load benchmark).
    import concurrent.futures

    paths = _script_paths() * 3
    assert len(paths) >= 15
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(lambda path: _get(gunicorn_url + path)[0], paths))
    assert statuses == [200] * len(paths)


def test_page_layout_and_dependencies(gunicorn_url):
    status, html = _get(gunicorn_url + "/")
    assert status == 200
    assert 'id="_dash-config"' in html and "Game-group ratings" in html
    assert "cdn" not in html.lower()  # everything is served locally
    status, layout = _get(gunicorn_url + "/_dash-layout")
    assert status == 200 and "params-system" in layout
    status, deps = _get(gunicorn_url + "/_dash-dependencies")
    assert status == 200 and "params-settings.data" in deps


def test_a_real_callback_answers(gunicorn_url):
    _, text = _get(gunicorn_url + "/_dash-dependencies")
    deps = json.loads(text)
    # The parameter callback: every parameter control -> settings store and the error line.
    dep = next(d for d in deps if d["output"].startswith("..params-settings.data"))
    inputs = []
    for spec in dep["inputs"]:
        wanted = json.loads(spec["id"])
        if wanted["type"] == "param":
            chosen = {"k": 20, "base": 1.5, "dummy": 1000, "floor": 1000, "season_days": 90}
            # every parameter multielo declares has a control on the page (its default unless chosen above)
            values = [(spec.name, chosen.get(spec.name, spec.default)) for spec in get_system("multielo").parameters()]
            inputs.append([{"id": {"name": n, "type": "param"}, "property": "value", "value": v} for n, v in values])
        elif wanted["type"] == "param-on":
            inputs.append(
                [
                    {"id": {"name": n, "type": "param-on"}, "property": "value", "value": False}
                    for n in ("dummy", "floor", "season_days")
                ]
            )
        else:
            inputs.append([])
    payload = {
        "output": dep["output"],
        # a pattern-matching output (each number's box and slider, kept together) is a list: none here
        "outputs": [
            [] if o.startswith("{") else {"id": o.split(".")[0], "property": o.split(".")[1].split("@")[0]}
            for o in dep["output"].strip(".").split("...")
        ],
        "inputs": inputs,
        # the system, the page's change number (none yet) and the error line's state; the sliders' ranges are a
        # pattern-matching state, a list, empty as the sliders are
        "state": [
            []
            if s["id"].startswith("{")
            else {"id": s["id"], "property": s["property"], "value": "multielo" if s["id"] == "params-system" else None}
            for s in dep["state"]
        ],
        "changedPropIds": ['{"name":"k","type":"param"}.value'],
    }
    # Several requests so that both workers are likely to answer at least one.
    for _ in range(4):
        status, body = _post(gunicorn_url + "/_dash-update-component", payload)
        assert status == 200
        assert "params-settings" in body["response"], body
        settings = body["response"]["params-settings"]["data"]
        assert settings == {
            "system": "multielo",
            "params": {
                "k": 20.0,
                "d": 400.0,
                "base": 1.5,
                "initial": 1000.0,
                "dummy": None,
                "floor": None,
                "dummy_tie": "censored",
                "team_method": "composite team",
                "boost": 0.0,
                "boost_games": 10.0,
                "forget_per_day": 0.0,
                "pull_per_day": 0.0,
                "season_days": None,
                "season_shrink": 1.0,
            },
        }


def test_scripts_are_gzipped_once_and_equal_to_the_files(gunicorn_url):
    import gzip

    import requests

    path = next(p for p in _script_paths() if "dash_renderer" in p)
    zipped = [requests.get(gunicorn_url + path, headers={"Accept-Encoding": "gzip"}, stream=True) for _ in range(3)]
    plain = requests.get(gunicorn_url + path, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    bodies = {r.raw.read(decode_content=False) for r in zipped}
    assert all(r.headers["Content-Encoding"] == "gzip" for r in zipped)
    assert len(bodies) == 1 and gzip.decompress(bodies.pop()) == plain.content


class _Req:
    """The parts of gunicorn's parsed request that the threaded worker reads."""

    def __init__(self, method: str, path: str, body: bytes = b"", query: str = "") -> None:
        self.method, self.path, self.query = method, path, query
        self.headers = [("CONTENT-LENGTH", str(len(body)))]
        self.body = io.BytesIO(body)


def test_the_threaded_worker_reads_which_callback_a_request_asks_for_and_leaves_the_body_readable() -> None:
    from web.serving import PEEK_BYTES, callback_kind

    body = json.dumps({"output": "standings-leaderboard.rowData", "inputs": []}).encode()
    req = _Req("POST", "/_dash-update-component", body)
    assert callback_kind(req) == "standings-leaderboard.rowData"
    assert req.body.read() == body  # the app still reads the whole body
    assert callback_kind(_Req("GET", "/")) is None  # pages, scripts: light
    assert callback_kind(_Req("GET", "/_dash-layout")) is None
    assert callback_kind(_Req("POST", "/_dash-update-component", body, query="cacheKey=1&job=2")) is None  # a poll
    assert callback_kind(_Req("POST", "/_dash-update-component", b"not json")) == ""  # unknown: heavy
    big = _Req("POST", "/_dash-update-component", b"x" * (PEEK_BYTES + 1))  # an upload: not read here
    assert callback_kind(big) == "" and big.body.tell() == 0


def test_light_threads_setting() -> None:
    from web.serving import light_threads

    assert light_threads({}) == 4
    assert light_threads({"RATINGS_LIGHT_THREADS": "2"}) == 2
    for bad in ("0", "many"):  # 0 was taken as 1 without a word; now it is refused like any other bad value
        with pytest.raises(SystemExit, match="RATINGS_LIGHT_THREADS must be a whole number from 1 to 64"):
            light_threads({"RATINGS_LIGHT_THREADS": bad})


def test_start_up_computes_the_samples_default_runs_and_compresses_the_scripts_once(gunicorn_url, logs) -> None:
    # serving.prewarm in the --preload master: 3 samples x 7 systems at default parameters, then the page's scripts.
    from ratings import SYSTEM_NAMES
    from ratings.samples import SAMPLES

    text = (logs / "error.log").read_text()
    total = len(SAMPLES) * len(SYSTEM_NAMES)
    lines = [line for line in text.splitlines() if "start-up:" in line]
    assert len(lines) == 1, text[-2000:]  # once, in the master, not once per worker
    assert f"{total} of {total} default runs computed" in lines[0]
    assert int(lines[0].split("computed, ")[1].split(" scripts")[0]) >= 10


def test_the_port_is_bound_before_the_start_up_work(tmp_path) -> None:
    """A platform kills a web process that has not bound its port within its boot timeout (60 s on Heroku): the
    prewarm (up to RATINGS_PREWARM_SECONDS) runs after binding (web/gunicorn_conf.py), so the port accepts
    connections while it is still under way and they are answered once the workers start.  Order, not timing."""
    import os
    import socket
    import subprocess
    import time

    from tests.servers import BIN, ROOT, free_port, procfile, stop_group

    port = free_port()
    log = tmp_path / "error.log"
    env = {**os.environ, "SECRET_KEY": "s", "RATINGS_PREWARM_SECONDS": "20", "RATINGS_STORE_DIR": str(tmp_path)}
    command = [
        str(BIN / "gunicorn"),
        *procfile("web", 1)[1:],
        "--bind",
        f"127.0.0.1:{port}",
        "--error-logfile",
        str(log),
    ]
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.02)
        text = log.read_text() if log.exists() else ""
        assert "start-up:" not in text, "the port was bound only after the start-up work"
        assert "replay kernels ready" not in text, "the port was bound only after the kernels were loaded"
        status, page = _get(f"http://127.0.0.1:{port}/")  # waits in the listen queue until a worker serves it
        assert status == 200 and "Game-group ratings" in page
        text = log.read_text()  # the workers started after the kernels and the prewarm, so both had finished
        assert "replay kernels ready" in text and "start-up:" in text
    finally:
        stop_group(proc)
