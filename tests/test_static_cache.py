"""Fingerprinted static files are cached for a year, and a changed file gets a new URL (static_files.py).

The header value is the one MDN and RFC 8246 give for a versioned file that never changes under its URL:
``public, max-age=31536000, immutable``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from dash import Dash, html

from web import static_files

YEAR = "public, max-age=31536000, immutable"


def _urls(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/(?:assets|_dash-component-suites)/[^"]+)"', page)


@pytest.fixture(scope="module")
def client():
    import app

    return app.server.test_client()


def test_every_script_and_style_sheet_of_the_page_is_cached_for_a_year(client) -> None:
    urls = _urls(client.get("/").get_data(as_text=True))
    assert any(u.startswith("/assets/") for u in urls) and any(u.startswith("/_dash-component-suites/") for u in urls)
    for url in urls:
        response = client.get(url.replace("&amp;", "&"))
        assert response.status_code == 200, url
        assert response.headers["Cache-Control"] == YEAR, url


def test_a_file_named_without_its_current_fingerprint_is_not_cached_long(client) -> None:
    (url,) = [u for u in _urls(client.get("/").get_data(as_text=True)) if "/assets/app.css" in u]
    bare = url.split("?")[0]
    for stale in (bare, bare + "?m=1.0"):
        response = client.get(stale)
        assert response.status_code == 200
        assert "immutable" not in response.headers.get("Cache-Control", ""), stale
    unfingerprinted = "/_dash-component-suites/dash/deps/react@18.3.1.min.js"
    response = client.get(unfingerprinted)
    if response.status_code == 200:  # Dash serves a registered script under its plain name too
        assert "immutable" not in response.headers.get("Cache-Control", "")


def _app(folder: Path) -> Dash:
    app = Dash(__name__, assets_folder=str(folder), serve_locally=True)
    app.layout = html.Div("x")
    static_files.compress_static(app.server)
    return app


def test_a_changed_asset_gets_a_new_url_and_the_old_one_is_no_longer_immutable(tmp_path: Path) -> None:
    sheet = tmp_path / "site.css"
    sheet.write_text("body { color: black; }")
    os.utime(sheet, (1_700_000_000.5, 1_700_000_000.5))
    first = _app(tmp_path).server.test_client()
    (old,) = [u for u in _urls(first.get("/").get_data(as_text=True)) if "site.css" in u]
    assert first.get(old).headers["Cache-Control"] == YEAR

    sheet.write_text("body { color: navy; }")  # an edit: a new modification time
    os.utime(sheet, (1_700_000_100.25, 1_700_000_100.25))
    second = _app(tmp_path).server.test_client()  # the app as started after the deploy
    (new,) = [u for u in _urls(second.get("/").get_data(as_text=True)) if "site.css" in u]
    assert new != old
    assert second.get(new).headers["Cache-Control"] == YEAR
    assert second.get(new).get_data(as_text=True) == "body { color: navy; }"
    assert "immutable" not in second.get(old).headers.get("Cache-Control", "")  # old URL: no longer the file
