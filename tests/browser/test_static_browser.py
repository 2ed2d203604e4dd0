"""What a first visit's browser fetches by itself: the lazily loaded chunks are exactly those compressed at start-up."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from dash.fingerprint import check_fingerprint

from tests.browser.test_app_browser import open_app
from web import static_files

pytestmark = pytest.mark.browser

SUITES = "/_dash-component-suites/"


def test_a_first_visit_fetches_exactly_the_declared_lazy_scripts_compressed_before_it(browser, app_url):
    # The session's server was made ready as gunicorn's start-up makes it (serving.make_ready, tests/browser/
    # conftest.py), so every chunk the page loads by itself must already have its strong copy; a chunk missing from
    # static_files.LAZY_SCRIPTS would be compressed by each worker while its first visitors wait.
    context = browser.new_context(viewport={"width": 1366, "height": 900})  # a fresh context: an empty HTTP cache
    page = context.new_page()
    fetched: dict[str, object] = {}

    def seen(response) -> None:
        path = urlsplit(response.url).path
        if path.startswith(SUITES) and path.endswith(".js") and not check_fingerprint(path)[1]:
            fetched[path] = response

    page.on("response", seen)
    open_app(page, app_url, "?sample=racing")
    sent = {
        path: (r.headers.get("content-encoding"), r.request.sizes()["responseBodySize"]) for path, r in fetched.items()
    }
    context.close()

    assert sorted(sent) == sorted(static_files.LAZY_SCRIPTS)
    strong = {key[0].rstrip("?"): len(data) for key, data in static_files._compressed.items() if key[1] == "zstd"}
    # each was answered with the copy compressed at start-up (flask-compress's quick level is larger)
    assert sent == {path: ("zstd", strong.get(path)) for path in static_files.LAZY_SCRIPTS}
