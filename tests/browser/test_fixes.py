"""Issue 11 in a real headless Chromium: clicking a trajectory point, edit-grid selection, dates and labels."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import TIMEOUT, open_app, settle

pytestmark = pytest.mark.browser


def click_trajectory_point(page, trace: int, point: int) -> None:
    """Click the drawn marker ``point`` of trace ``trace`` with the mouse, as a user does."""
    marker = page.locator("#standings-trajectories .scatterlayer .trace").nth(trace).locator(".point").nth(point)
    marker.scroll_into_view_if_needed()
    box = marker.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(200)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def game_shown(page) -> str:
    """The title of the "One game" chart."""
    return page.evaluate(
        "() => document.querySelector('#standings-game-changes .js-plotly-plot').layout.title.text || ''"
    )


def test_clicking_a_trajectory_point_shows_that_game(page, app_url):
    open_app(page, app_url)
    page.wait_for_selector("#standings-game-changes .js-plotly-plot .bars", timeout=TIMEOUT)
    settle(page)
    before = game_shown(page)
    # the third marker of the first player's line: a game other than the last one
    game = page.evaluate(
        "() => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData[0].customdata[2]"
    )
    click_trajectory_point(page, 0, 2)
    page.wait_for_function(
        "(old) => (document.querySelector('#standings-game-changes .js-plotly-plot').layout.title.text || '') !== old",
        arg=before,
        timeout=TIMEOUT,
    )
    settle(page)
    assert re.match(rf"Game {game + 1}\b", game_shown(page)), game_shown(page)
    assert not re.match(rf"Game {game + 1}\b", before)
    screenshot(page, "fixes-clicked-point")
    assert page.console_errors == []
