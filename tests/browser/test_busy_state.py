"""A result being recomputed looks busy: dimmed under a spinner after a short delay, and back as soon as the new
result is drawn (real Chromium; screenshots at 1366 px and 390 px).  The page's stylesheet does it from the
``data-dash-is-loading`` marks Dash puts on the elements a running callback will set (layouts/busy.py)."""

from __future__ import annotations

import time

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import BOARD_CHANGED_JS, TIMEOUT, leaderboard_text, open_app, param_selector, settle

pytestmark = pytest.mark.browser

#: K values whose replay is made slow (valid, typed into the box, used by no other test; one per screen width, as a
#: run once computed is remembered by the server and comes back at once).
SLOW_K = {1366: 37.125, 390: 37.375}
#: How long that replay takes: long enough for the busy look, which starts 150 ms into a change, to be seen.
SLOW_SECONDS = 2.5

#: Opacity of the leaderboard grid, whether the spinner of its block shows, and the opacity of the game's explanation
#: table (a grid too: neither carries Dash's mark on its own element).
LOOK = """() => {
    const grid = document.querySelector('#standings-leaderboard');
    const spinner = grid.closest('.busy').querySelector(':scope > .busy-spinner');
    const explained = document.querySelector('#game-explain-table');
    return [parseFloat(getComputedStyle(grid).opacity), getComputedStyle(spinner).visibility === 'visible',
            parseFloat(getComputedStyle(explained).opacity)];
}"""


@pytest.fixture
def slow_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Multiplayer Elo with ``k`` in SLOW_K takes SLOW_SECONDS to replay (the app runs in this process)."""
    from ratings.systems.multielo import MultiElo

    original = MultiElo.rate

    def rate(self, history, **kwargs):  # type: ignore[no-untyped-def]
        if self.params.k in SLOW_K.values():
            time.sleep(SLOW_SECONDS)
        return original(self, history, **kwargs)

    monkeypatch.setattr(MultiElo, "rate", rate)


@pytest.mark.parametrize(("width", "name"), [(1366, "recomputing-desktop"), (390, "recomputing-phone")])
def test_a_slow_change_dims_the_results_under_a_spinner_until_the_new_ones_are_drawn(
    browser, app_url, slow_replay, width, name
):
    phone = width < 500
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    try:
        open_app(page, app_url)
        # a settled page is not dimmed (its last fade back may still be running for a tenth of a second)
        page.wait_for_function(
            f"() => {{ const [o, s, e] = ({LOOK})(); return o === 1 && !s && e === 1; }}", timeout=TIMEOUT
        )
        before = leaderboard_text(page)
        if phone:  # the controls are folded away on a phone
            page.click("#page-controls-toggle")
            page.wait_for_selector("#params-system", state="visible", timeout=TIMEOUT)
        box = page.locator(param_selector("param", "k"))
        box.fill(str(SLOW_K[width]))
        box.press("Enter")
        # while the server replays (SLOW_SECONDS), the leaderboard block dims and shows its spinner, and the game's
        # explanation table under the charts dims too
        page.wait_for_function(
            f"() => {{ const [o, s, e] = ({LOOK})(); return o < 0.6 && s && e < 0.6; }}", timeout=TIMEOUT
        )
        page.evaluate("() => window.scrollTo(0, 0)")
        screenshot(page, name)
        # the new result is drawn, and the block is clear again
        page.wait_for_function(BOARD_CHANGED_JS, arg=before, timeout=TIMEOUT)
        settle(page)
        page.wait_for_function(
            f"() => {{ const [o, s, e] = ({LOOK})(); return o === 1 && !s && e === 1; }}", timeout=TIMEOUT
        )
    finally:
        context.close()
