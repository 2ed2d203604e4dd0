"""Real headless Chromium (Debian's, driven by Playwright) against the app served from a thread."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/lib/chromium/chromium"
SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"
#: Flags that keep a headless Chromium off the network (machine-facts.md: the last one matters most).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--metrics-recording-only",
    "--no-pings",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not os.access(CHROMIUM, os.X_OK):
        skip = pytest.mark.skip(reason=f"Chromium is not installed at {CHROMIUM} (run `make chromium`)")
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """The app served by werkzeug from a thread on a free loopback port, ready as gunicorn serves it.

    gunicorn's start-up (serving.prewarm, which runs only under gunicorn) computes the sample's default runs and
    compresses the page's scripts before serving; done here too (serving.make_ready), before the first test, so that
    no test's first page load pays for them within its timeout (compressing took 28 s at load average 10, and the
    first test to open the page failed waiting for its leaderboard).
    """
    from werkzeug.serving import make_server

    import app as app_module
    import serving

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    # a bound, not a wait: each step returns as soon as it is done
    serving.make_ready(app_module.server, time.monotonic() + 300, [app_module.config.sample])

    server = make_server("127.0.0.1", 0, app_module.server, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _close_contexts_left_open(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close every browser context a test opened and left open (a second visitor's page, or one a failing test
    never reached closing): its page would otherwise stay loaded, running its timers in the session's browser, for
    the rest of the session."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A desktop-sized page (1366x900) that records console errors on ``page.console_errors``."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})  # type: ignore[attr-defined]
    pg = context.new_page()
    errors: list[str] = []
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.console_errors = errors
    yield pg
    context.close()


def screenshot(pg: object, name: str) -> Path:
    """Save a full-page screenshot into tests/screenshots/ (gitignored) and return its path."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path
