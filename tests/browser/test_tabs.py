"""The tabs not shown first are mounted when first opened: the first page holds only the Standings' components, a tab
opens filled with the current state (the upload, the parameters), what was typed in it survives switching tabs, and
a link naming a tab opens on it, filled."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import (
    BOARD_CHANGED_JS,
    TIMEOUT,
    leaderboard_text,
    open_app,
    param_selector,
    settle,
)
from tests.browser.test_persistence import CLUB  # the same three-game club file

pytestmark = pytest.mark.browser

#: Controls of the tabs not shown first (one of each).
HIDDEN_CONTROLS = ("#edit-grid", "#record-date", "#predict-players", "#fit-run", "#games-grid", "#player-player")


def _open_tab(page, label: str) -> None:
    page.click(f"#page-tabs .nav-link:text-is('{label}')")
    page.wait_for_function(
        "(label) => (document.querySelector('#page-tabs .nav-link.active') || {}).innerText === label",
        arg=label,
        timeout=TIMEOUT,
    )


def _grid_players(page) -> list[str]:
    return page.eval_on_selector_all(
        "#edit-grid .ag-center-cols-container [col-id='player']", "cells => cells.map(c => c.innerText.trim())"
    )


def test_the_first_page_holds_the_standings_only_and_a_tab_opens_with_the_current_state(page, app_url, tmp_path):
    open_app(page, app_url)
    for selector in HIDDEN_CONTROLS:
        assert page.locator(selector).count() == 0, selector
    assert page.locator("#page-tab-body-edit").count() == 1  # the empty box the Edit tab's content goes in
    mounted = page.evaluate("() => document.querySelectorAll('[id]').length")

    # an upload and a parameter change made before the tabs are opened
    club = tmp_path / "club.csv"
    club.write_text(CLUB)
    page.set_input_files("#data-upload input[type=file]", str(club))
    page.wait_for_function("() => document.querySelector('#data-summary').innerText.includes('club.csv')")
    settle(page)
    board = leaderboard_text(page)
    box = page.locator(param_selector("param", "k"))
    box.fill("40")
    box.press("Enter")
    page.wait_for_function(BOARD_CHANGED_JS, arg=board, timeout=TIMEOUT)
    settle(page)
    board = leaderboard_text(page)
    leader = board.split("\n")[1].split("\t")[1]

    # the Edit tab opens on that upload's rows
    _open_tab(page, "Edit history")
    page.wait_for_selector("#edit-grid [row-index='8'] [col-id='player']", timeout=TIMEOUT)
    assert sorted(_grid_players(page)) == sorted(["Zed", "Yan", "Xia"] * 3)
    assert page.evaluate("() => document.querySelectorAll('[id]').length") > mounted
    screenshot(page, "tabs-edit-opened")

    # the Player tab opens on the leader at the current parameters (K = 40), after the Edit tab
    _open_tab(page, "Player")
    page.wait_for_function(
        "(name) => (document.querySelector('#player-player') || {innerText: ''}).innerText.includes(name)",
        arg=leader,
        timeout=TIMEOUT,
    )
    page.wait_for_selector("#player-summary dl", timeout=TIMEOUT)
    assert page.locator("#player-trajectory .js-plotly-plot").count() == 1

    # what was typed in a tab stays when switching away and back (the content is mounted once)
    _open_tab(page, "Edit history")
    first = page.locator('[id=\'{"index":0,"type":"record-player"}\']')
    first.fill("Wim")
    page.locator("#record-date").fill("2024-04-01")
    _open_tab(page, "Standings")
    settle(page)
    _open_tab(page, "Edit history")
    assert first.input_value() == "Wim"
    assert page.locator("#record-date").input_value() == "2024-04-01"
    assert sorted(_grid_players(page)) == sorted(["Zed", "Yan", "Xia"] * 3)
    # nothing was recorded or applied by the tab's mounting
    assert page.inner_text("#record-status").strip() == "" and page.inner_text("#edit-status").strip() == ""
    assert "club.csv" in page.inner_text("#data-summary") and "what-if" not in page.inner_text("#data-summary")
    assert page.console_errors == []


@pytest.mark.parametrize("width", [1366, 390])
def test_a_link_naming_a_tab_opens_it_filled(browser, app_url, width):
    phone = width < 500
    context = browser.new_context(
        viewport={"width": width, "height": 900 if not phone else 844}, is_mobile=phone, has_touch=phone
    )
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(app_url + "/?sample=racing&system=trueskill&tab=player")
        page.wait_for_function(
            "() => (document.querySelector('#page-tabs .nav-link.active') || {}).innerText === 'Player'",
            timeout=TIMEOUT,
        )
        page.wait_for_selector("#player-summary dl", timeout=TIMEOUT)
        page.wait_for_selector("#player-trajectory .js-plotly-plot .scatterlayer .trace", timeout=TIMEOUT)
        page.wait_for_selector("#player-head-to-head .ag-row", timeout=TIMEOUT)
        assert page.inner_text("#player-player").strip().startswith("1. ")  # the leader, picked
        settle(page)
        assert "tab=player" in page.url and "system=trueskill" in page.url
        screenshot(page, f"tabs-link-player-{'phone' if phone else 'desktop'}")

        # another tab opened afterwards is named in the address instead; the Standings leave it out
        _open_tab(page, "Games")
        page.wait_for_selector("#games-grid .ag-row", timeout=TIMEOUT)
        page.wait_for_function("() => location.search.includes('tab=games')", timeout=TIMEOUT)
        screenshot(page, f"tabs-games-{'phone' if phone else 'desktop'}")
        _open_tab(page, "Standings")
        page.wait_for_function("() => !location.search.includes('tab=')", timeout=TIMEOUT)
        assert errors == []
    finally:
        context.close()


def test_a_link_naming_the_edit_tab_opens_it_on_the_linked_data(page, app_url, tmp_path: Path):
    open_app(page, app_url)
    club = tmp_path / "club.csv"
    club.write_text(CLUB)
    page.set_input_files("#data-upload input[type=file]", str(club))
    page.wait_for_function("() => document.querySelector('#data-summary').innerText.includes('club.csv')")
    _open_tab(page, "Edit history")
    page.wait_for_function("() => location.search.includes('tab=edit')", timeout=TIMEOUT)
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    page.wait_for_function(
        "() => (document.querySelector('#page-tabs .nav-link.active') || {}).innerText === 'Edit history'",
        timeout=TIMEOUT,
    )
    page.wait_for_selector("#edit-grid [row-index='8'] [col-id='player']", timeout=TIMEOUT)
    assert sorted(_grid_players(page)) == sorted(["Zed", "Yan", "Xia"] * 3)
    assert page.console_errors == []
