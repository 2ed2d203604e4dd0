"""The extra features in a real headless Chromium: history edits, win probabilities, metrics, CSV download."""

from __future__ import annotations

import pytest

from ratings.samples import load_sample
from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import BOARD_CHANGED_JS, TIMEOUT, leaderboard_text, open_app, settle

pytestmark = pytest.mark.browser


def edit_cell(page, row: int, column: str, text: str) -> None:
    """Type ``text`` into one grid cell (by row index and column id) and commit it with Enter."""
    cell = page.locator(f"#edit-grid .ag-center-cols-container [row-index='{row}'] [col-id='{column}']")
    cell.dblclick()
    editor = page.locator("#edit-grid .ag-cell-inline-editing input")
    editor.fill(text)
    editor.press("Enter")


def standings_text(page) -> str:
    """The leaderboard as shown on the Standings tab (opened first; a hidden grid draws no rows)."""
    page.click("#page-tabs >> text=Standings")
    page.wait_for_selector("#standings-leaderboard", state="visible", timeout=TIMEOUT)
    settle(page)
    return leaderboard_text(page)


def wait_standings_change(page, old: str) -> str:
    """Open the Standings tab and wait until the leaderboard differs from ``old``; returns the new text."""
    page.click("#page-tabs >> text=Standings")
    page.wait_for_function(BOARD_CHANGED_JS, arg=old, timeout=TIMEOUT)
    settle(page)
    return leaderboard_text(page)


def phone_predictions(browser, app_url: str):
    """A phone's context and page with the Predictions tab open and drawn."""
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    small = phone.new_page()
    open_app(small, app_url)
    small.click("text=Predictions")
    small.wait_for_selector("#predict-figure .heatmaplayer", timeout=TIMEOUT)
    settle(small)
    return phone, small


def test_edit_apply_invalid_edit_and_undo(page, app_url, browser):
    open_app(page, app_url)
    original = standings_text(page)
    page.click("text=Edit history")
    page.wait_for_selector("#edit-grid [row-index='0'] [col-id='place']", timeout=TIMEOUT)
    # game 1 of the poker sample: Marta won; make her last instead (8 players in that game)
    assert page.inner_text("#edit-grid [row-index='0'] [col-id='player']") == "Marta"
    edit_cell(page, 0, "place", "9")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-success", timeout=TIMEOUT)
    edited = wait_standings_change(page, original)
    assert "what-if edit" in page.inner_text("#data-summary")
    page.click("text=Edit history")

    # a place that is not a place: the error names the game and the player, the edited standings stay
    player = page.inner_text("#edit-grid .ag-center-cols-container [row-index='1'] [col-id='player']")
    edit_cell(page, 1, "place", "second")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-danger", timeout=TIMEOUT)
    status = page.inner_text("#edit-status")
    assert f"player '{player}', place: " in status and "'second'" in status
    screenshot(page, "extras-edit-error")
    assert standings_text(page) == edited

    page.click("text=Edit history")
    page.click("#edit-undo")
    assert wait_standings_change(page, edited) == original
    page.click("text=Edit history")
    assert page.inner_text("#edit-grid [row-index='0'] [col-id='place']") == "1"
    assert page.console_errors == []


def test_predictions_metrics_and_ratings_download(page, app_url, browser):
    open_app(page, app_url)
    page.click("text=Predictions")
    page.wait_for_selector("#predict-figure .heatmaplayer", timeout=TIMEOUT)
    settle(page)
    z = page.evaluate(
        "() => Array.from(document.querySelector('#predict-figure .js-plotly-plot')._fullData[0].z, r => Array.from(r))"
    )
    assert len(z) == 4 and all(len(row) == 4 for row in z)
    for row in z:
        assert sum(row) == pytest.approx(100.0, abs=1e-6)
    totals = page.locator("#predict-table tbody tr td:last-child").all_inner_texts()
    assert totals == ["100%"] * 4
    metrics = page.inner_text("#evaluate-panel")
    assert "Pairs called wrong" in metrics and "fewer is better" in metrics and "more is better" in metrics
    assert "lower is better" not in metrics
    assert page.locator("#evaluate-panel td.num").count() == 3
    screenshot(page, "extras-predictions")

    with page.expect_download() as info:
        page.click("#downloads-ratings-button")
    download = info.value
    assert download.suggested_filename == "ratings-sample-poker-multielo.csv"
    with open(download.path(), encoding="utf-8") as handle:
        text = handle.read()
    assert text.startswith("rank,player,rating (Elo points)")
    players = [line.split(",")[1] for line in text.splitlines()[1:]]
    assert sorted(players) == sorted(load_sample("poker").players)
    shown = standings_text(page)
    assert all(p in shown for p in players)
    assert page.console_errors == []

    phone, small = phone_predictions(browser, app_url)
    assert small.evaluate("() => document.documentElement.scrollWidth") <= 391
    screenshot(small, "extras-phone-predictions")
    small.click("text=Edit history")
    small.wait_for_selector("#edit-grid [row-index='0']", timeout=TIMEOUT)
    settle(small)
    screenshot(small, "extras-phone-edit")
    phone.close()


def test_excluding_a_game_and_recording_one_in_the_session(page, app_url):
    open_app(page, app_url)
    page.click("text=Edit history")
    page.wait_for_selector("#edit-grid [row-index='0'] [col-id='exclude']", timeout=TIMEOUT)
    page.locator("#edit-grid .ag-center-cols-container [row-index='0'] [col-id='exclude'] input").click()
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-success", timeout=TIMEOUT)
    assert "149 games" in page.inner_text("#data-summary")
    # the tick spreads over every row of the excluded game
    assert page.locator("#edit-grid .ag-center-cols-container [row-index='7'] [col-id='exclude'] input").is_checked()

    page.fill("#record-date", "2025-01-10")
    for i, (player, place) in enumerate([("Zoe", "1"), ("Marta", "2"), ("Luis", "DNF")]):
        page.fill(f'[id=\'{{"index":{i},"type":"record-player"}}\']', player)
        page.fill(f'[id=\'{{"index":{i},"type":"record-place"}}\']', place)
    page.click("#record-submit")
    page.wait_for_selector("#record-status .alert-success", timeout=TIMEOUT)
    assert "not saved anywhere" in page.inner_text("#record-status")
    page.click("#page-tabs >> text=Standings")
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard').innerText.includes('Zoe')", timeout=TIMEOUT
    )
    assert "150 games, 11 players" in page.inner_text("#data-summary")
    page.click("text=Edit history")
    assert page.locator('[id=\'{"index":0,"type":"record-player"}\']').input_value() == ""
    assert page.console_errors == []


CALIBRATION_Y = "() => Array.from(document.querySelector('#evaluate-calibration .js-plotly-plot')._fullData[1].y)"


def test_the_calibration_check_shows_the_latest_games_and_follows_the_settings(page, app_url, browser):
    """The Predictions tab's calibration check, asked for with its button: the chart's points are the library's
    reliability bins (ratings.predict.calibration, computed here in the test), and a new K redraws it."""
    from ratings import create
    from ratings.predict import calibration, win_probabilities
    from tests.browser.test_app_browser import param_selector

    history = load_sample("poker")
    run = create("multielo").rate(history)
    bins = calibration(history, win_probabilities(run))
    expected = [100.0 * v for v, n in zip(bins.observed, bins.count, strict=True) if n > 0]

    open_app(page, app_url)
    page.click("text=Predictions")
    page.wait_for_selector("#evaluate-panel td.num", timeout=TIMEOUT)
    assert page.locator("#evaluate-calibration .js-plotly-plot").count() == 0  # nothing computed before it is asked
    page.click("#evaluate-calibration-ask")
    page.wait_for_selector("#evaluate-calibration .scatterlayer .point", timeout=TIMEOUT)
    settle(page)
    assert page.evaluate(CALIBRATION_Y) == pytest.approx(expected, abs=1e-9)
    note = page.inner_text("#evaluate-calibration-note")
    assert note.startswith("Over the latest 150 games, a predicted chance to win was on average ")
    assert "log-loss" in note
    screenshot(page, "extras-calibration", "#evaluate-calibration")

    box = page.locator(param_selector("param", "k"))
    box.fill("90")
    box.press("Enter")
    page.wait_for_function(
        f"(old) => JSON.stringify(({CALIBRATION_Y})()) !== JSON.stringify(old)", arg=expected, timeout=TIMEOUT
    )
    assert page.console_errors == []

    phone, small = phone_predictions(browser, app_url)
    # nothing lies over the button (the empty team chart once drew 450 px over the metrics panel below it)
    small.locator("#evaluate-calibration-ask").scroll_into_view_if_needed()
    on_top = small.evaluate(
        """() => { const b = document.querySelector('#evaluate-calibration-ask').getBoundingClientRect();
        const top = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
        return top !== null && top.closest('#evaluate-calibration-ask') !== null; }"""
    )
    assert on_top, "something covers the calibration button on a phone"
    small.click("#evaluate-calibration-ask")
    small.wait_for_selector("#evaluate-calibration .scatterlayer .point", timeout=TIMEOUT)
    settle(small)
    assert small.evaluate("() => document.documentElement.scrollWidth") <= 391
    screenshot(small, "extras-phone-calibration", "#evaluate-calibration")
    phone.close()
