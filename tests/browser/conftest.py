"""Real headless Chromium (Debian's, driven by Playwright) against the app served from a thread."""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/lib/chromium/chromium"
#: How long (ms) any wait for the page may take before the test fails.
TIMEOUT = 20_000
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
    from web import serving

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


#: What a failed wait leaves to read: the page's address, its banner (a busy refusal or an error), Dash's queues of
#: callbacks not yet answered (by output), and the ids of elements still loading.
PAGE_STATE_JS = """() => {
  const banner = document.querySelector('#page-error');
  const queues = window.store ? window.store.getState().callbacks : {};
  const waiting = {};
  Object.entries(queues).forEach(([name, q]) => {
    if (Array.isArray(q) && q.length) waiting[name] = q.map(c => (c.callback || {}).output || '?');
  });
  const loading = [...document.querySelectorAll('[data-dash-is-loading="true"]')].map(e => e.id || e.className);
  // the standings' chain on a page load: the game, the player explained, what the page says it has drawn, and the
  // explanation table's rows (held, in the DOM, visible)
  const props = (id) => {
    const state = window.store ? window.store.getState() : null;
    const path = state && state.paths.strs[id];
    if (!path) return null;
    let node = state.layout;
    for (const k of path) node = node[k];
    return node.props;
  };
  const game = props('standings-game') || {}, player = props('game-explain-player') || {};
  const table = props('game-explain-table');
  const rows = [...document.querySelectorAll('#game-explain-table .ag-row')];
  const standings = {game: game.value, player: player.value, players: (player.options || []).length,
    drawn: (props('standings-drawn') || {}).data, tableRows: table ? (table.rowData || []).length : null,
    domRows: rows.length, shownRows: rows.filter(e => e.offsetParent !== null).length};
  return {url: location.href, banner: banner ? banner.innerText : null, waiting, loading, standings};
}"""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A browser test that failed gets a section "pages at the failure": each open page's state (PAGE_STATE_JS),
    for the in-process server how many callbacks its overload gate refused, and each running gunicorn's logs' tails
    (the app's tracebacks among them), so a timed-out wait says what the page was waiting for and why."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call" or not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    browser = funcargs.get("browser")
    if browser is None and funcargs.get("page") is not None:
        browser = funcargs["page"].context.browser
    lines = []
    for context in getattr(browser, "contexts", []):
        for pg in context.pages:
            try:
                lines.append(repr(pg.evaluate(PAGE_STATE_JS)))
            except Exception as exc:  # a closed or crashed page: say so, the report stays whole
                lines.append(f"{pg.url}: state not readable ({type(exc).__name__})")
    if "app_url" in funcargs:
        import app as app_module

        gate = app_module.server.extensions.get("ratings_gate")
        lines.append(f"in-process server: overload gate refused {getattr(gate, 'refused', '?')} callbacks so far")
    from tests.servers import RUNNING_LOGS

    for logs in RUNNING_LOGS:
        for log in (logs / "error.log", logs / "stderr.log"):
            text = log.read_text(errors="replace") if log.exists() else "(none)"
            lines.append(f"gunicorn's {log}, its last 4,000 characters:\n{text[-4000:]}")
    if lines:
        report.sections.append(("pages at the failure", "\n".join(lines)))


def screenshot(pg: object, name: str, selector: str | None = None) -> Path:
    """Save a full-page screenshot (or of the element ``selector`` picks, scrolled into view) into tests/screenshots/
    (gitignored) and return its path."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    if selector is None:
        pg.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    else:
        pg.locator(selector).screenshot(path=str(path))  # type: ignore[attr-defined]
    return path


#: True when Dash has no callback in flight: the renderer's queues (``window.store``'s ``callbacks``: requested,
#: prioritized, blocked, executing, watched, executed, stored; ``completed`` is a count) are empty and no element
#: carries ``data-dash-is-loading`` (set on a running callback's outputs).  dash[testing]'s ``wait_for_callbacks``
#: reads the same queues.
DASH_IDLE_JS = """() => {
  const store = window.store;
  if (!store) return false;
  const queues = store.getState().callbacks;
  const busy = Object.values(queues).some(q => Array.isArray(q) && q.length > 0);
  return !busy && !document.querySelector('[data-dash-is-loading="true"]');
}"""

#: True when no Bootstrap transition is under way: no collapse opening or closing (``.collapsing``) and no tab pane
#: fading in or out (active without ``show``).
TRANSITIONS_OVER_JS = "() => !document.querySelector('.collapsing, .tab-pane.fade.active:not(.show)')"

#: True once Dash has been idle (DASH_IDLE_JS) with no transition under way (TRANSITIONS_OVER_JS) without a break
#: for ``quiet`` ms, counted from the first such check of this wait (``token`` tells one wait from the last).  The
#: quiet spell covers what follows an answer a moment later instead of at once: a grid or a chart that sets a
#: property of its own after drawing (dash-ag-grid's virtualRowData, plotly's relayout), which requests the next
#: callback on a later tick.
SETTLED_JS = (
    """([token, quiet]) => {
  const idle = ("""
    + DASH_IDLE_JS
    + """)() && ("""
    + TRANSITIONS_OVER_JS
    + """)();
  const now = performance.now();
  const mark = window.__settle;
  if (!idle || !mark || mark.token !== token) {
    window.__settle = {token, since: idle ? now : null};
    return false;
  }
  if (mark.since === null) { mark.since = now; return false; }
  return now - mark.since >= quiet;
}"""
)

#: The quiet spell of :func:`settle`, in ms.
QUIET_MS = 100
_settles = itertools.count()


def settle(page: object, timeout: float = TIMEOUT) -> None:
    """Wait until Dash has finished what the last action started: no callback in flight and no panel opening,
    closing or fading, for :data:`QUIET_MS` without a break (checked every 20 ms).  Returns as soon as that holds;
    fails after ``timeout``.  Not for a debounced box (the leaderboard search, the games list's dates): its callback
    is asked for only after the box's delay (300-400 ms), so wait for what it changes instead."""
    page.wait_for_function(  # type: ignore[attr-defined]
        SETTLED_JS, arg=[next(_settles), QUIET_MS], polling=20, timeout=timeout
    )


def open_phone_controls(page: object) -> None:
    """Open the settings panel from a phone's top bar and wait until it has finished opening (a click meanwhile can
    miss a control that is still moving into place)."""
    page.click("#page-controls-toggle")  # type: ignore[attr-defined]
    page.wait_for_selector("#params-system", state="visible", timeout=TIMEOUT)  # type: ignore[attr-defined]
    settle(page)


def hover(page: object, graph: str, x: float, y: float) -> None:
    """Move the mouse to ``(x, y)`` over the plotly chart in ``graph`` and wait until plotly has taken it as a hover
    on a point (its ``_hoverdata``; a click is then a click on that point)."""
    page.mouse.move(x, y)  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "sel => (document.querySelector(sel + ' .js-plotly-plot')._hoverdata || []).length > 0",
        arg=graph,
        timeout=TIMEOUT,
    )
