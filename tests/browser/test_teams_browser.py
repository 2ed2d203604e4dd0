"""Team games in a real headless Chromium, at desktop and phone width: upload a doubles history, see its teams in
the games list, a player's partners, one team game's change explained, and the team option shown (screenshots saved
into tests/screenshots/ for a look)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import TIMEOUT, open_app, settle
from tests.browser.test_phone_fit import SCREENS, _open_grid, grid_problems

pytestmark = pytest.mark.browser

DOUBLES = Path(__file__).resolve().parents[2] / "ratings" / "samples" / "doubles.csv"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: The team option's block under the default system (multiplayer Elo), as Dash writes a dict id.
TEAM_BLOCK = f"[id='{json.dumps({'name': 'team_method', 'type': 'param-team-row'}, separators=(',', ':'))}']"


def upload_doubles(page, app_url: str) -> None:
    """Open the app (the poker sample: no teams, so the team option is hidden) and upload the doubles history."""
    open_app(page, app_url)
    settle(page)
    assert page.locator(TEAM_BLOCK).count() == 1 and not page.is_visible(TEAM_BLOCK)
    page.set_input_files("#data-upload input[type=file]", str(DOUBLES))
    page.wait_for_function(
        "() => document.querySelector('#data-summary').innerText.includes('doubles.csv')", timeout=TIMEOUT
    )
    settle(page)


def first_row(page) -> dict[str, str]:
    return page.evaluate(
        """() => Object.fromEntries(Array.from(
            document.querySelectorAll('#games-grid .ag-row[row-index="0"] .ag-cell'))
            .map(c => [c.getAttribute('col-id'), c.innerText]))"""
    )


def see_teams(page, name: str) -> None:
    """Games tab: the newest match lists its two teams as two places; the game view names them too."""
    page.click("#page-tabs .nav-link:text-is('Games')")
    page.wait_for_selector("#games-grid .ag-row", timeout=TIMEOUT)
    settle(page)
    order = first_row(page)["order"]
    # "1. Ann & Bob  2. Cid & Dee": two places of two players each
    places = order.split("  ")
    assert [p[:3] for p in places] == ["1. ", "2. "], order
    assert all(p.count(" & ") == 1 for p in places), order
    # the game view's line ends with the same order (a div folds the two spaces between places into one)
    page.wait_for_function(
        "o => (document.querySelector('#games-game') || {innerText: ''}).innerText.endsWith(o)",
        arg=" ".join(order.split()),
        timeout=TIMEOUT,
    )
    screenshot(page, f"teams-games-{name}")


def see_partners_and_explain(page, name: str) -> None:
    """Player tab: the leader's partners with a best and worst partner, and their newest (team) game explained."""
    page.click("#page-tabs .nav-link:text-is('Player')")
    page.wait_for_selector("#partners-grid .ag-row", timeout=TIMEOUT)
    page.wait_for_selector("#player-explain .ag-row", timeout=TIMEOUT)
    settle(page)
    summary = page.inner_text("#partners-summary")
    assert summary.startswith("Best partner: ") and "Worst: " in summary, summary
    assert page.locator("#partners-grid .ag-center-cols-container .ag-row").count() >= 3
    explanation = page.inner_text("#player-explain")
    assert "Team game (composite team)" in explanation, explanation
    assert "teammate " in explanation and "total" in explanation
    # the opposing team is one row of the split ("Cid & Dee"), after the header line
    assert " & " in explanation.split("\n", 1)[1]
    page.locator("#partners-grid").scroll_into_view_if_needed()
    screenshot(page, f"teams-player-{name}")
    screenshot(page, f"teams-partners-{name}", "#partners-grid")
    screenshot(page, f"teams-explain-{name}", "#player-explain")


def test_a_doubles_history_on_the_desktop(page, app_url):
    upload_doubles(page, app_url)
    assert page.is_visible(TEAM_BLOCK)  # the team option, now that the data has team games
    assert "Team games only." in page.inner_text(TEAM_BLOCK)
    see_teams(page, "desktop")
    see_partners_and_explain(page, "desktop")
    assert page.console_errors == []


def test_a_doubles_history_on_a_phone(browser, app_url):
    context = browser.new_context(**PHONE)
    small = context.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    upload_doubles(small, app_url)
    see_teams(small, "phone")
    width = small.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways at phone width ({width}px)"
    see_partners_and_explain(small, "phone")
    width = small.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways at phone width ({width}px)"
    screenshot(small, "teams-player-phone-full")
    assert errors == []
    context.close()


@pytest.mark.parametrize(("screen", "options"), SCREENS, ids=[name for name, _ in SCREENS])
def test_the_partners_and_a_team_edit_grid_are_whole_and_on_screen(browser, app_url, screen, options):
    # the doubles sample's leader has fifteen partners; the edit grid gains its team and weight columns (the sample
    # has substitutes who played half a match)
    pg, fit = _open_grid(browser, app_url, options, "?sample=doubles", "Player", "#partners-grid")
    screenshot(pg, f"partners-{screen}", "#partners-grid")
    assert fit["columns"] == ["partner", "games", "wins", "change_per_game"]
    assert grid_problems(fit) == [], fit
    pg.context.close()
    pg, fit = _open_grid(browser, app_url, options, "?sample=doubles", "Edit history", "#edit-grid")
    screenshot(pg, f"edit-grid-{screen}-doubles", "#edit-grid")
    assert "team" in fit["columns"], fit["columns"]  # weight, further right, is drawn when scrolled to
    # seven columns do not fit (layouts.edit.grid_columns): the grid scrolls sideways inside itself, the page does
    # not, and no text is cut short
    assert [p for p in grid_problems(fit) if not p.startswith("columns run")] == [], fit
    pg.context.close()
