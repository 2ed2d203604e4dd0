"""The page's scripts: the plotly.js bundle served from assets/, and static files compressed once, hard."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from plotly.offline import get_plotlyjs_version

from web import static_files

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    import app

    return app.server.test_client()


def test_the_vendored_plotly_bundle_is_the_version_plotly_py_expects():
    # dcc.Graph draws with window.Plotly when a script has defined it (else it fetches the full 4.8 MB bundle);
    # figures are written by plotly.py for its own plotly.js version, so the partial bundle must be that version.
    (bundle,) = (ROOT / "assets").glob("plotly-cartesian-*.min.js")
    header = bundle.read_text(encoding="utf-8")[:200]
    assert re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", header).group(1) == get_plotlyjs_version()
    assert bundle.name == f"plotly-cartesian-{get_plotlyjs_version()}.min.js"


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [("gzip, deflate, br, zstd", "zstd"), ("gzip, br;q=1.0", "br"), ("gzip", None), ("", None), ("ZSTD", "zstd")],
)
def test_strongest_encoding_the_browser_accepts(accept, chosen):
    assert static_files.strongest(accept) == chosen


def test_a_script_is_answered_at_once_then_compressed_hard(client):
    path = "/assets/labels.js"
    raw = client.get(path, headers={"Accept-Encoding": "identity"}).get_data()
    assert b"data-label" in raw
    first = client.get(path, headers={"Accept-Encoding": "zstd"})
    assert first.status_code == 200
    deadline = time.monotonic() + 30
    while True:  # the strong copy is made in a background thread
        answer = client.get(path, headers={"Accept-Encoding": "zstd"})
        body = answer.get_data()
        if answer.headers.get("Content-Encoding") == "zstd" and len(body) <= len(zstd.compress(raw, 3)):
            key = [k for k in static_files._compressed if k[0].startswith(path)]
            if key:
                break
        assert time.monotonic() < deadline, "the strong copy was never served"
        time.sleep(0.2)
    assert zstd.decompress(body) == raw
    assert answer.headers["Content-Length"] == str(len(body))
    assert "Accept-Encoding" in answer.headers["Vary"]


def test_callback_answers_are_not_kept(client):
    client.post("/_dash-update-component", json={}, headers={"Accept-Encoding": "zstd"})
    client.get("/_dash-layout", headers={"Accept-Encoding": "zstd"})
    time.sleep(0.5)
    assert [k for k in static_files._compressed if not k[0].startswith(static_files.STATIC_PREFIXES)] == []


@pytest.mark.parametrize("path", ["/_dash-layout", "/_dash-dependencies"])
def test_the_layout_and_callback_list_are_built_once_and_stay_what_dash_builds(client, path):
    """page_once serves the bytes built the first time; they are what Dash builds afresh (the layout from
    layouts.page.layout(), serialised by Dash's own to_json), in every encoding, with the security headers."""
    from dash._utils import to_json

    import app
    from layouts import page

    plain = [client.get(path, headers={"Accept-Encoding": "identity"}) for _ in range(2)]
    packed = [client.get(path, headers={"Accept-Encoding": "zstd"}) for _ in range(2)]
    assert plain[0].data == plain[1].data and "Content-Encoding" not in plain[1].headers
    assert packed[1].headers["Content-Encoding"] == "zstd"
    assert zstd.decompress(packed[1].data) == plain[1].data
    for response in (*plain, *packed):
        assert response.status_code == 200 and "Content-Security-Policy" in response.headers
    if path == "/_dash-layout":
        assert plain[1].data.decode() == to_json(page.layout())
    else:
        assert len(json.loads(plain[1].data)) == len(app.app.callback_map)


def test_the_page_is_built_for_every_visitor(client):
    """Dash signs a token of its own into each page load (end_id: background-job handles are bound to the page that
    started them); two visitors must not share one."""
    first, second = (client.get("/", headers={"Accept-Encoding": "identity"}) for _ in range(2))
    tokens = [re.search(rb'"end_id":"([^"]+)"', r.data) for r in (first, second)]
    assert tokens[0] and tokens[1] and tokens[0][1] != tokens[1][1]
