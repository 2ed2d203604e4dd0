"""How the app is put together: settings from the environment, ids in one place, no per-user globals."""

from __future__ import annotations

import json
import logging
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

import app as app_module
import callbacks
from layouts import ids, page
from sources import settings

ROOT = Path(__file__).resolve().parents[1]


def _components(node) -> Iterator:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, (list, tuple)):
        for child in children:
            yield from _components(child)
    elif children is not None and hasattr(children, "to_plotly_json"):
        yield from _components(children)
    for attr in ("label",):  # dbc components may hold components in other props
        value = getattr(node, attr, None)
        if hasattr(value, "to_plotly_json"):
            yield from _components(value)


def _all_id_values() -> set[str]:
    return {
        m.value for cls in vars(ids).values() if isinstance(cls, type) for m in getattr(cls, "__members__", {}).values()
    }


def test_server_is_the_flask_app_dash_uses():
    assert isinstance(app_module.server, Flask)
    assert app_module.server is app_module.app.server
    assert app_module.server.secret_key


def test_serving_is_local_and_compressed():
    assert app_module.app.config.serve_locally is True
    assert app_module.app.css.config.serve_locally is True
    client = app_module.server.test_client()
    response = client.get(
        "/_dash-component-suites/plotly/package_data/plotly.min.js", headers={"Accept-Encoding": "gzip"}
    )
    if response.status_code == 200:  # Dash fingerprints paths; fall back to the page itself
        assert response.headers.get("Content-Encoding") in ("gzip", "br")
    response = client.get("/_dash-layout", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and response.headers.get("Content-Encoding") == "gzip"
    css = (ROOT / "assets" / "00-bootstrap.min.css").read_text()
    assert "Bootstrap  v5.3" in css[:200] and "sourceMappingURL" not in css


def test_settings_from_environment(caplog):
    with caplog.at_level(logging.WARNING, logger="sources.settings"):
        fresh = settings.load({})
    assert len(fresh.secret_key) == 64 and "SECRET_KEY is not set" in caplog.text
    assert settings.load({}).secret_key != fresh.secret_key  # random each time: set it for several workers
    given = settings.load(
        {"SECRET_KEY": "s3", "PORT": "9000", "RATINGS_SHEET": " https://x/y ", "RATINGS_SAMPLE": "racing"}
    )
    assert (given.secret_key, given.port, given.sheet, given.sample) == ("s3", 9000, "https://x/y", "racing")
    assert (given.host, given.system, given.debug) == ("127.0.0.1", "multielo", False)
    with pytest.raises(settings.SettingError, match="PORT must be a whole number"):
        settings.load({"SECRET_KEY": "s", "PORT": "eighty"})


@pytest.mark.parametrize(
    ("text", "debug", "memo"),
    [("1", True, True), ("Yes", True, True), ("on", True, True), ("0", False, False), ("OFF", False, False)],
)
def test_on_off_settings_read_the_same_words(text, debug, memo):
    # Before one reader, DASH_DEBUG=on was off and RATINGS_ANSWER_MEMO=nope was on: two word lists.
    read = settings.load({"SECRET_KEY": "s", "DASH_DEBUG": text, "RATINGS_ANSWER_MEMO": text})
    assert (read.debug, read.answer_memo) == (debug, memo)
    unset = settings.load({"SECRET_KEY": "s", "DASH_DEBUG": " ", "RATINGS_ANSWER_MEMO": ""})
    assert (unset.debug, unset.answer_memo) == (False, True)
    with pytest.raises(settings.SettingError, match="RATINGS_ANSWER_MEMO must be on or off .*got 'nope'"):
        settings.load({"SECRET_KEY": "s", "RATINGS_ANSWER_MEMO": "nope"})


def test_layout_is_built_per_page_load_from_ids_in_one_place():
    first, second = page.layout(), page.layout()
    assert first is not second
    known = _all_id_values()
    seen = []
    for component in _components(first):
        cid = getattr(component, "id", None)
        if cid is None:
            continue
        if isinstance(cid, dict):
            assert cid["type"] in known, f"pattern id type {cid['type']!r} is not declared in layouts/ids.py"
        else:
            assert cid in known, f"component id {cid!r} is not declared in layouts/ids.py"
            seen.append(cid)
    assert len(seen) == len(set(seen)), "an id is used twice"


def _outputs(dep: dict) -> list[str]:
    """The ids of a dependency's outputs (``a.children`` or ``..a.children...b.data..``; ``@`` duplicates named)."""
    text = dep["output"]
    parts = text.strip(".").split("...") if text.startswith("..") else [text]
    return [part.rsplit(".", 1)[0] for part in parts if part]


def test_every_callback_refers_to_components_on_the_page():
    """Every id a callback names is on the page once every tab is open (Dash does not check this in the browser:
    the lazy tabs' components are not on the first page, app.py)."""
    on_page = {c.id for c in _components(page.full_layout()) if isinstance(getattr(c, "id", None), str)}
    deps = app_module.server.test_client().get("/_dash-dependencies").get_json()
    assert deps
    for dep in deps:
        items = [item["id"] for item in [*dep["inputs"], *dep["state"]]] + _outputs(dep)
        for item in items:
            if item.startswith("{"):
                assert json.loads(item)["type"] in _all_id_values()
            elif item not in {ids.Fit.FIGURE}:  # drawn with a fit's result (layouts.fit.fit_view)
                assert item in on_page, (item, dep["output"])


def _ids(node) -> set[str]:
    return {c.id for c in _components(node) if isinstance(getattr(c, "id", None), str)}


def test_the_first_page_mounts_only_the_shown_tabs():
    """The tabs not shown first hold an empty box; their controls (the edit grid, the player picker...) are not on
    the first page, and about 200 of the page's components wait for their tab."""
    first, whole = page.layout(), page.full_layout()
    first_ids = _ids(first)
    for tab in ids.LAZY_TABS:
        content = _ids(page.tab_content(tab))
        assert content and not content & first_ids, tab
        assert ids.tab_body(tab) in first_ids
    for shown in (ids.Standings.LEADERBOARD, ids.Standings.TRAJECTORIES, ids.Standings.HEATMAP, ids.Params.SYSTEM):
        assert shown in first_ids
    for hidden in (ids.Edit.GRID, ids.PlayerPage.PLAYER, ids.Predict.PLAYERS, ids.GamesList.GRID, ids.Compare.GRID):
        assert hidden in _ids(whole) and hidden not in first_ids
    assert len(list(_components(whole))) - len(list(_components(first))) >= 180


def test_a_tab_is_mounted_once_with_its_content():
    from dash import no_update
    from dash.exceptions import PreventUpdate

    from callbacks.page import mount

    *boxes, mounted = mount(ids.Tab.PLAYER, [ids.Tab.EDIT])
    assert mounted == [ids.Tab.EDIT, ids.Tab.PLAYER]
    for tab, box in zip(ids.LAZY_TABS, boxes, strict=True):
        if tab == ids.Tab.PLAYER:
            assert ids.PlayerPage.PLAYER in _ids(box)
        else:
            assert box is no_update  # the Edit tab's content (and what was typed in it) stays as it is
    for tab, done in ((ids.Tab.PLAYER, [ids.Tab.PLAYER]), (ids.Tab.STANDINGS, []), (ids.Tab.OVERVIEW, None)):
        with pytest.raises(PreventUpdate):
            mount(tab, done)


def test_the_tabs_are_found_by_name_in_the_order_of_their_ids():
    """A tab is three files (layouts/ids.py, layouts/<feature>.py, callbacks/<feature>.py; README's recipe): the
    page finds each tab's layout and registers every callbacks module without a list to extend."""
    import dash_bootstrap_components as dbc

    tabs = [c for c in _components(page.layout()) if isinstance(c, dbc.Tab)]
    assert [t.tab_id for t in tabs] == list(ids.Tab)
    # the labels a visitor reads, left to right (as on the screenshots tests/browser take)
    labels = ["Standings", "All games", "Edit history", "Predictions", "Games", "Player", "Compare", "Fit"]
    assert [t.label for t in tabs] == labels
    on_disk = sorted(p.stem for p in (Path(callbacks.__file__).parent).glob("*.py") if p.stem != "__init__")
    assert list(callbacks.FEATURES) == on_disk


def test_no_per_user_state_in_module_globals():
    """Mutable module-level values in callbacks would be shared by all users of a worker; only pure caches may be."""
    allowed = {("runs", "_HISTORIES"), ("runs", "_RUNS")}
    callbacks.register()
    for name in callbacks.FEATURES + ("runs",):
        module = __import__(f"callbacks.{name}", fromlist=["_"])
        for attr, value in vars(module).items():
            if attr.startswith("__") or isinstance(value, (types.ModuleType, type, types.FunctionType)):
                continue
            if isinstance(value, (dict, list, set, bytearray)) or (name, attr) in allowed:
                assert (name, attr) in allowed, f"callbacks.{name}.{attr} is mutable module state"
