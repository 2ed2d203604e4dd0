"""Issue 11 in a real headless Chromium: clicking a trajectory point, edit-grid selection, dates and labels."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import hover, open_phone_controls, screenshot
from tests.browser.test_app_browser import TIMEOUT, open_app, param_selector, settle

pytestmark = pytest.mark.browser

#: Visible, enabled controls that have no accessible name (aria-label, aria-labelledby, a <label>, their own
#: text for buttons and links, or a title), described by tag, id, class and the nearest ancestor's id.
UNLABELLED_JS = """() => {
  const sel = 'input, select, textarea, button, [role=combobox], [role=slider], [role=switch], '
    + '[role=checkbox], [role=button], a[href]';
  const visible = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
     return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const name = el => {
    if (el.getAttribute('aria-label')?.trim()) return true;
    const by = el.getAttribute('aria-labelledby');
    if (by && by.split(/\\s+/).some(id => document.getElementById(id)?.textContent.trim())) return true;
    if (el.labels && Array.from(el.labels).some(l => l.textContent.trim())) return true;
    if (el.closest('label') && el.closest('label').textContent.trim()) return true;
    if (['BUTTON', 'A'].includes(el.tagName) || ['button'].includes(el.getAttribute('role')))
      if (el.textContent.trim()) return true;
    if (el.getAttribute('title')?.trim()) return true;
    if (el.tagName === 'INPUT' && ['button', 'submit'].includes(el.type) && el.value) return true;
    return false;
  };
  return Array.from(document.querySelectorAll(sel))
    .filter(el => visible(el) && !el.disabled && el.type !== 'hidden' && !name(el))
    .map(el => el.tagName + '#' + (el.id || '') + ' in ' + (el.parentElement.closest('[id]')?.id || ''));
}"""


def click_trajectory_point(page, trace: int, point: int) -> None:
    """Click the drawn marker ``point`` of trace ``trace`` with the mouse, as a user does."""
    marker = page.locator("#standings-trajectories .scatterlayer .trace").nth(trace).locator(".point").nth(point)
    marker.scroll_into_view_if_needed()
    box = marker.bounding_box()
    assert box is not None
    hover(page, "#standings-trajectories", box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
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
    # the third marker of the first player's line: a game other than the last one (customdata: [game, place, size])
    game = page.evaluate(
        "() => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData[0].customdata[2][0]"
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


def grid_cell(page, row: int, column: str):
    return page.locator(f"#edit-grid .ag-center-cols-container [row-index='{row}'] [col-id='{column}']")


def selected_count(page) -> int:
    return page.locator("#edit-grid .ag-center-cols-container .ag-row-selected").count()


def open_edit_tab(page, app_url: str) -> None:
    open_app(page, app_url)
    page.click("text=Edit history")
    page.wait_for_selector("#edit-grid [row-index='0'] [col-id='place']", timeout=TIMEOUT)
    settle(page)


def test_no_row_stays_selected_after_delete_and_apply(page, app_url):
    open_edit_tab(page, app_url)
    doomed = grid_cell(page, 2, "player").inner_text()
    page.locator("#edit-grid .ag-center-cols-container [row-index='2'] .ag-selection-checkbox input").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#edit-grid .ag-center-cols-container .ag-row-selected').length === 1",
        timeout=TIMEOUT,
    )
    rows_before = page.evaluate(
        "() => document.querySelector('#edit-grid .ag-center-cols-container').childElementCount"
    )
    page.click("#edit-delete-rows")
    page.wait_for_function(
        "(name) => document.querySelector(\"#edit-grid .ag-center-cols-container [row-index='2'] [col-id='player']\")"
        ".innerText !== name",
        arg=doomed,
        timeout=TIMEOUT,
    )
    assert selected_count(page) == 0
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-success", timeout=TIMEOUT)
    settle(page)
    # the rows are renumbered by Apply: the deleted row's id now names another row, which must not be selected
    assert selected_count(page) == 0
    kept = grid_cell(page, 2, "player").inner_text()
    page.click("#edit-delete-rows")  # nothing selected: deletes nothing
    settle(page)
    assert grid_cell(page, 2, "player").inner_text() == kept
    assert rows_before > 0
    assert page.console_errors == []


def test_a_date_typed_on_one_row_moves_the_whole_game(page, app_url):
    open_edit_tab(page, app_url)
    game = grid_cell(page, 0, "game").inner_text()
    same_game = [i for i in range(10) if grid_cell(page, i, "game").inner_text() == game]
    assert len(same_game) >= 2
    cell = grid_cell(page, 0, "date")
    cell.dblclick()
    editor = page.locator("#edit-grid .ag-cell-inline-editing input")
    assert editor.get_attribute("type") in (None, "text")  # not the browser's mm/dd/yyyy date field
    editor.fill("7 January 2023")
    editor.press("Enter")
    assert cell.inner_text() == "7 January 2023"  # typed text is kept until Apply
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-success", timeout=TIMEOUT)
    settle(page)
    rows = page.evaluate(
        """(game) => Array.from(document.querySelectorAll('#edit-grid .ag-center-cols-container .ag-row'))
            .filter(r => r.querySelector("[col-id='game']").innerText === game)
            .map(r => r.querySelector("[col-id='date']").innerText)""",
        arg=game,
    )
    assert rows and set(rows) == {"2023-01-07"}, rows
    # a date that is no date: the message names the game and the player
    player = grid_cell(page, 0, "player").inner_text()
    grid_cell(page, 0, "date").dblclick()
    editor = page.locator("#edit-grid .ag-cell-inline-editing input")
    editor.fill("next friday")
    editor.press("Enter")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-danger", timeout=TIMEOUT)
    status = page.inner_text("#edit-status")
    assert f"player '{player}', date: 'next friday' is not a date" in status
    assert "row" not in status.split("\n", 1)[1]
    screenshot(page, "fixes-edit-date-error")
    assert page.console_errors == []


@pytest.mark.parametrize("width", [1366, 390])
def test_every_visible_control_has_an_accessible_name_and_no_grid_warning(browser, app_url, width):
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    pg = context.new_page()
    warnings: list[str] = []
    pg.on("console", lambda m: warnings.append(m.text) if m.type in ("warning", "error") else None)
    open_app(pg, app_url)
    if width < 500:
        pg.click("#page-controls-toggle")
        pg.wait_for_selector("#params-system", state="visible", timeout=TIMEOUT)
    counted = 0
    for tab in ("Standings", "All games", "Edit history", "Predictions"):
        pg.click(f"#page-tabs >> text={tab}")
        settle(pg)  # the tab's callbacks answered and its pane has faded in
        assert pg.evaluate(UNLABELLED_JS) == [], tab
        counted += pg.evaluate(
            "() => document.querySelectorAll('input, [role=slider], [role=combobox], button').length"
        )
    assert counted > 50  # the check saw the page's controls
    assert not [w for w in warnings if "AG Grid" in w], warnings
    context.close()


def test_sample_dropdown_says_an_upload_is_in_use_and_enter_loads_a_sheet(page, app_url, tmp_path):
    open_app(page, app_url)
    assert page.inner_text("#data-sample").strip().startswith("poker")
    club = tmp_path / "club.csv"
    club.write_text("game,date,player,place\n1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n")
    page.set_input_files("#data-upload input[type=file]", str(club))
    page.wait_for_function(
        "() => document.querySelector('#data-sample').innerText.includes('none (using upload club.csv)')",
        timeout=TIMEOUT,
    )
    assert "poker" not in page.inner_text("#data-sample")
    screenshot(page, "fixes-upload-in-use")
    # Enter in the sheet box loads it (here an address that is no Google Sheet: the message says so)
    box = page.locator("#data-sheet-url")
    box.fill("https://example.com/not-a-sheet")
    box.press("Enter")
    page.wait_for_selector("#data-messages .alert-danger", timeout=TIMEOUT)
    assert "Still using the previous data (upload club.csv)" in page.inner_text("#data-messages")


def test_a_baseline_pinned_on_other_data_says_so(page, app_url):
    open_app(page, app_url)
    page.click("#baseline-pin")
    page.wait_for_selector("#baseline-unpin:not([disabled])", timeout=TIMEOUT)
    assert "Dashed lines show it" in page.inner_text("#baseline-status")
    page.click("#data-sample")
    page.get_by_role("option", name="chess", exact=True).click()
    page.wait_for_function(
        "() => document.querySelector('#baseline-status').innerText.includes('belongs to other data')",
        timeout=TIMEOUT,
    )
    status = page.inner_text("#baseline-status")
    assert "on sample 'poker'" in status and "(sample 'chess')" in status
    assert "Dashed lines show it" not in status
    settle(page)
    screenshot(page, "fixes-baseline-other-data")
    assert page.console_errors == []


def test_leaderboard_top_is_drawn_a_clicked_row_joins_and_search_filters(page, app_url):
    open_app(page, app_url, "?sample=chess")
    settle(page)
    page.wait_for_function("() => document.querySelector('#data-summary').innerText.includes('chess')", timeout=TIMEOUT)
    settle(page)
    names = page.locator("#standings-leaderboard .ag-center-cols-container [col-id='player']").all_inner_texts()
    top = page.locator("#standings-leaderboard .ag-pinned-left-cols-container [col-id='player']").all_inner_texts()
    shown = top or names
    drawn = [t["name"] for t in trajectory_names(page)]
    assert drawn == shown[:10]  # the leaderboard's top ten, in its order
    colours = page.evaluate(
        "() => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData.map(t => t.line.color)"
    )
    assert len(set(colours)) == len(colours)
    # a click on the 12th row draws that player
    twelfth = shown[11]
    page.locator(
        "#standings-leaderboard .ag-pinned-left-cols-container [row-index='11'] [col-id='player'], "
        "#standings-leaderboard .ag-center-cols-container [row-index='11'] [col-id='player']"
    ).first.click()
    page.wait_for_function(
        """(name) => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData
            .some(t => t.name === name)""",
        arg=twelfth,
        timeout=TIMEOUT,
    )
    # the search box keeps the rows whose text holds what was typed
    page.fill("#standings-leaderboard-search", twelfth[:4])
    page.wait_for_function(
        """(want) => { const rows = Array.from(document.querySelectorAll(
                "#standings-leaderboard .ag-pinned-left-cols-container [col-id='player']"));
            return rows.length > 0 && rows.every(r => r.innerText.toLowerCase().includes(want)); }""",
        arg=twelfth[:4].lower(),
        timeout=TIMEOUT,
    )
    screenshot(page, "fixes-leaderboard-search")
    assert page.console_errors == []


def trajectory_names(page) -> list[dict]:
    return page.evaluate(
        "() => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData.map(t => ({name: t.name}))"
    )


def test_phone_settings_fold_after_a_change_and_tables_fit(browser, app_url):
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    small = phone.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_app(small, app_url)
    settle(small)
    # the leaderboard keeps rank, player, rating and last change, all inside the screen
    headers = small.locator("#standings-leaderboard .ag-header-cell").all_inner_texts()
    assert [h.split("\n")[0].strip() for h in headers if h.strip()][:2] == ["#", "Player"]
    assert len([h for h in headers if h.strip()]) == 4, headers
    right = small.evaluate(
        """() => Math.max(...Array.from(document.querySelectorAll('#standings-leaderboard .ag-header-cell'))
            .map(c => c.getBoundingClientRect().right))"""
    )
    screenshot(small, "fixes-phone-standings")
    assert right <= 390, small.evaluate(
        """() => Array.from(document.querySelectorAll('#standings-leaderboard .ag-header-cell'))
            .map(c => [c.getAttribute('col-id'), c.getBoundingClientRect().left, c.getBoundingClientRect().right])"""
    )
    # a change made in the open Settings panel folds it away, so the result shows
    open_phone_controls(small)
    box = small.locator(param_selector("param", "k"))
    box.fill("40")
    box.press("Enter")
    small.wait_for_selector("#params-system", state="hidden", timeout=TIMEOUT)
    small.wait_for_function("() => location.search.includes('k=40')", timeout=TIMEOUT)
    settle(small)
    assert small.evaluate("() => window.scrollY") < 200
    screenshot(small, "fixes-phone-after-change")
    # the heatmap title fits the screen
    small.click("text=All games")
    small.wait_for_selector("#standings-heatmap .heatmaplayer", timeout=TIMEOUT)
    settle(small)
    title = small.evaluate("() => document.querySelector('#standings-heatmap .gtitle').getBoundingClientRect().right")
    assert title <= 390
    screenshot(small, "fixes-phone-all-games")
    # the edit grid's "exclude game" column is on screen
    small.click("text=Edit history")
    small.wait_for_selector("#edit-grid [row-index='0'] [col-id='exclude']", timeout=TIMEOUT)
    settle(small)
    edge = small.evaluate(
        """() => document.querySelector("#edit-grid .ag-center-cols-container [row-index='0'] [col-id='exclude']")
            .getBoundingClientRect().right"""
    )
    screenshot(small, "fixes-phone-edit")
    assert edge <= 390
    # ... and the cells show their text whole (not cut to "g...")
    cut = small.evaluate(
        """() => Array.from(document.querySelectorAll(
                "#edit-grid .ag-center-cols-container [row-index='0'] .ag-cell-value"))
            .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText)"""
    )
    assert cut == []
    assert errors == []
    phone.close()
