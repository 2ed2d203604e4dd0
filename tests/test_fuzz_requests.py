"""A fuzz corpus for what a visitor types or crafts: the address bar, edited grid cells, the record form, and the
command line.  The app is served over real HTTP (werkzeug on a loopback port, from a thread); every answer must
be 200 or 204 with no traceback, no server path and no markup made from the input (a ``javascript:`` link, HTML
let through); the command line must exit 0 or 2 with one plain line.
"""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.dash_requests import HttpClient, post

ROOT = Path(__file__).resolve().parents[1]
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
POKER = {"kind": "sample", "name": "poker"}

# Values a person or a crafted link may put anywhere.
nasty_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1e999",
            "-1",
            "0",
            "1e-320",
            "99999999999999999999",
            "1_000",
            "٣",
            "1,5",
            "javascript:alert(1)",
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "%{y}",
            "../../etc/passwd",
            "x" * 10_000,
            "true",
            "null",
            "[]",
            "{}",
            "sample:poker",
            "data:text/html,<b>x</b>",
        ]
    ),
)
json_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    nasty_text,
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@pytest.fixture(scope="module")
def client() -> Iterator[HttpClient]:
    from werkzeug.serving import make_server

    import app

    server = make_server("127.0.0.1", 0, app.server, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield HttpClient(f"http://127.0.0.1:{server.server_port}", timeout=60)
    server.shutdown()
    thread.join(5)


def answered(response: Any) -> dict[str, Any] | None:
    """200 (JSON) or 204; nothing a visitor should never see."""
    assert response.status_code in (200, 204), response.status_code
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and not re.search(r'File "[^"]+\.py"', text) and str(ROOT) not in text
    # markup from data: a link to javascript:, or HTML let through to be rendered as HTML
    assert not re.search(r'"href":\s*"\s*javascript:', text, re.IGNORECASE)
    assert '"dangerously_allow_html": true' not in text
    return json.loads(text) if response.status_code == 200 else None


# ------------------------------------------------------------------------------------------------------ address bar
KEYS = [
    "sample",
    "system",
    "data",
    "file",
    "edited",
    "from_sample",
    "pin",
    "min",
    "x",
    "k",
    "eta",
    "beta",
    "tau",
    "gid",
    "sheet",
    "ws",
    "initial",
    "dummy",
    "eta_knots",
    "mode",
    "draw",
]


@FUZZ
@given(query=st.lists(st.tuples(st.sampled_from(KEYS), nasty_text), max_size=6))
def test_any_address_opens_a_page_or_says_what_is_wrong(client: HttpClient, query: list[tuple[str, str]]) -> None:
    search = "?" + urlencode(query)
    body = answered(post(client, "page-url-state", {"page-location.search": search}))
    state = (body or {}).get("response", {}).get("page-url-state", {}).get("data")
    system = (body or {}).get("response", {}).get("params-system", {}).get("value", "multielo")
    answered(post(client, "params-controls", {"params-system.value": system, "page-url-state.data": state}))
    answered(post(client, "data-source", {"page-url-state.data": state}, changed=["page-url-state.data"]))


@FUZZ
@given(settings_value=json_value, source=st.one_of(json_value, st.just(POKER)), min_games=json_value)
def test_crafted_store_values_in_the_leaderboard(client: HttpClient, settings_value: Any, source: Any, min_games: Any):
    values = {
        "data-source.data": source,
        "params-settings.data": settings_value,
        "standings-min-games.value": min_games,
    }
    answered(post(client, "standings-leaderboard", values))


# ------------------------------------------------------------------------------------------------------ grid cells
@FUZZ
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 11), st.sampled_from(["game", "date", "player", "place", "_id"]), json_value),
        min_size=1,
        max_size=6,
    )
)
def test_any_edited_cells_are_applied_or_named(client: HttpClient, edits: list[tuple[int, str, Any]]) -> None:
    from ratings.samples import load_sample
    from sources.edits import grid_rows

    rows = grid_rows(load_sample("poker"))[:12]
    for index, column, value in edits:
        rows[index][column] = value
    values = {"edit-apply.n_clicks": 1, "edit-grid.rowData": rows, "edit-store.data": {"base": POKER, "rows": None}}
    answered(post(client, "edit-status", values, changed=["edit-apply.n_clicks"]))


# ------------------------------------------------------------------------------------------------------ record form
@FUZZ
@given(
    players=st.lists(json_value, min_size=0, max_size=5),
    places=st.lists(json_value, min_size=0, max_size=5),
    date=json_value,
    token=json_value,
)
def test_any_record_form_is_recorded_or_named(client: HttpClient, players: list, places: list, date: Any, token: Any):
    def rows(kind: str, items: list) -> list[dict[str, Any]]:
        return [{"id": {"index": i, "type": kind}, "property": "value", "value": v} for i, v in enumerate(items)]

    values = {
        "record-submit.n_clicks": 1,
        "record-date.value": date,
        '{"index": ["ALL"], "type": "record-player"}.value': rows("record-player", players),
        '{"index": ["ALL"], "type": "record-place"}.value': rows("record-place", places),
        "record-token.data": token,
        "data-source.data": POKER,
    }
    answered(post(client, "record-confirm-box", values, changed=["record-submit.n_clicks"]))


# ------------------------------------------------------------------------------------------------------ command line
@FUZZ
@given(
    data=st.binary(max_size=600),
    suffix=st.sampled_from([".csv", ".xlsx", ".ods", ".tsv", ".txt", ""]),
    command=st.sampled_from(["rate", "evaluate"]),
    system=st.one_of(st.sampled_from(["multielo", "trueskill", "glicko2", "plackett-luce"]), nasty_text),
    sets=st.lists(st.tuples(st.sampled_from(["k", "eta", "beta", "tau", "d", "dummy", "x"]), nasty_text), max_size=3),
)
def test_the_command_line_exits_2_with_one_line(
    tmp_path_factory: pytest.TempPathFactory,
    data: bytes,
    suffix: str,
    command: str,
    system: str,
    sets: list[tuple[str, str]],
) -> None:
    from ratings.cli import main

    path = tmp_path_factory.mktemp("cli") / f"games{suffix}"
    path.write_bytes(data)
    argv = [command, str(path), "--system", system]
    for name, value in sets:
        argv += ["--set", f"{name}={value}"]
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, out=out, err=err)
    assert status in (0, 2), status
    said = err.getvalue()
    assert "Traceback" not in said
    if status == 2 and said:  # (argparse's own usage errors go to the process's stderr with the usage line)
        lines = said.split("\n")
        assert lines[-1] == "" and lines[-2].startswith("ratings: error:"), repr(said)  # the error: one line, last
        assert all(line.startswith("ratings: ") for line in lines[:-1]), repr(said)  # warnings before it, one each
