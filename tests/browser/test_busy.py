"""The page when the server is too busy: the overload gate refuses a change and the page says so in plain words,
keeping the results it shows (real Chromium; screenshots at 1366 px and 390 px)."""

from __future__ import annotations

import pytest

from sources.admission import BUSY_MESSAGE
from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import TIMEOUT, leaderboard_text, open_app, param_selector, settle

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("width", "name"), [(1366, "busy-desktop"), (390, "busy-phone")])
def test_a_refused_change_says_the_server_is_busy_and_keeps_the_results(browser, app_url, width, name):
    import app

    phone = width < 500
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    gate = app.server.extensions["ratings_gate"]
    budget = gate.budget
    held = None
    try:
        open_app(page, app_url)
        before = leaderboard_text(page)
        if phone:  # the controls are folded away on a phone
            page.click("#page-controls-toggle")
            page.wait_for_selector("#params-system", state="visible", timeout=TIMEOUT)
        # Heavy work in flight (an idle worker refuses only a request that already waited past the budget), and
        # every callback would now finish too late: the gate refuses them all.
        held = gate.enter("heavy work elsewhere")
        assert held is not None
        gate.budget = 0.0
        thumb = page.locator(param_selector("param-slider", "k") + " [role=slider]")
        thumb.focus()
        page.keyboard.press("End")
        page.get_by_text("The server is busy").wait_for(timeout=TIMEOUT)
        settle(page)  # every refused callback has answered: nothing more can reach the leaderboard
        banner = page.locator("#page-error")
        assert BUSY_MESSAGE in banner.inner_text()
        # Rendered text is read where it is drawn: the grid's wrapper has content-visibility: auto, and below the
        # open phone controls the leaderboard can lie beyond the margin in which Chromium draws it (innerText
        # is then empty): scroll it into view and wait until it is drawn.
        page.locator("#standings-leaderboard").scroll_into_view_if_needed()
        page.wait_for_function(
            "() => document.querySelector('#standings-leaderboard .ag-cell')"
            ".checkVisibility({contentVisibilityAuto: true})",
            timeout=TIMEOUT,
        )
        assert leaderboard_text(page) == before, "the last results stay on screen"
        screenshot(page, name)
    finally:
        gate.budget = budget
        if held is not None:
            gate.leave(held)
        context.close()
