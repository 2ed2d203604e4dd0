"""What-ifs that last: an upload, an edit and a pinned baseline survive a reload, and the copied link shows the same
view to someone else; two people uploading the same bytes each keep their own file name."""

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
    trajectory_data,
    wait_value,
)
from tests.browser.test_extras import edit_cell, standings_text

pytestmark = pytest.mark.browser

CLUB = (
    "game,date,player,place\n"
    "1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n1,2024-03-01,Xia,3\n"
    "2,2024-03-08,Yan,1\n2,2024-03-08,Xia,2\n2,2024-03-08,Zed,3\n"
    "3,2024-03-15,Xia,1\n3,2024-03-15,Zed,2\n3,2024-03-15,Yan,3\n"
)


def _view(page) -> dict[str, object]:
    """What the page shows: data summary, baseline status, K, dashed traces, leaderboard, min games, x axis."""
    settle(page)
    return {
        "summary": page.inner_text("#data-summary"),
        "baseline": page.inner_text("#baseline-status"),
        "k": page.locator(param_selector("param", "k")).input_value(),
        "dashed": sum(t["dash"] == "dash" for t in trajectory_data(page)),
        "leaderboard": leaderboard_text(page),
        "min_games": page.locator("#standings-min-games").input_value(),
    }


def test_upload_edit_and_baseline_survive_a_reload_and_travel_in_the_link(page, app_url, browser, tmp_path: Path):
    open_app(page, app_url)
    club = tmp_path / "club.csv"
    club.write_text(CLUB)
    page.set_input_files("#data-upload input[type=file]", str(club))
    page.wait_for_function("() => document.querySelector('#data-summary').innerText.includes('club.csv')")
    settle(page)
    upload_board = standings_text(page)

    # an edit: Zed wins game 3 instead of coming second
    page.click("text=Edit history")
    page.wait_for_selector("#edit-grid [row-index='7'] [col-id='place']", timeout=TIMEOUT)
    assert page.inner_text("#edit-grid [row-index='7'] [col-id='player']") == "Zed"
    edit_cell(page, 7, "place", "1")
    edit_cell(page, 6, "place", "2")
    page.click("#edit-apply")
    page.wait_for_selector("#edit-status .alert-success", timeout=TIMEOUT)
    page.click("#page-tabs >> text=Standings")
    page.wait_for_function(BOARD_CHANGED_JS, arg=upload_board)
    assert "what-if edit of upload club.csv" in page.inner_text("#data-summary")

    # pin the baseline, then change K and the minimum games
    page.click("#baseline-pin")
    page.wait_for_selector("#baseline-unpin:not([disabled])", timeout=TIMEOUT)
    box = page.locator(param_selector("param", "k"))
    box.fill("20")
    box.press("Enter")
    page.wait_for_function("() => location.search.includes('k=20') && location.search.includes('pin=')")
    games = page.locator("#standings-min-games")
    games.fill("2")
    games.press("Enter")
    page.wait_for_function("() => location.search.includes('min=2')")
    before = _view(page)
    assert before["dashed"] > 0 and "Baseline:" in before["baseline"]
    assert "data=" in page.url and "club.csv" not in page.url.split("from_file=")[0]

    page.reload()
    page.wait_for_selector(".leaderboard .ag-row", timeout=TIMEOUT)
    wait_value(page, param_selector("param", "k"), "20")
    page.wait_for_function(
        "() => (document.querySelector('#baseline-status') || {innerText: ''}).innerText.includes('Baseline:')"
    )
    after = _view(page)
    assert after == before
    screenshot(page, "reloaded-what-if")

    # the copied link, opened by someone else (a new browser context: no shared storage)
    link = page.locator("#page-share-url").input_value()
    assert link.startswith(app_url) and "data=" in link
    assert "holds the data itself" in page.inner_text("#page-share-text")
    other = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        them = other.new_page()
        them.goto(link)
        them.wait_for_selector(".leaderboard .ag-row", timeout=TIMEOUT)
        wait_value(them, param_selector("param", "k"), "20")
        them.wait_for_function(
            "() => (document.querySelector('#baseline-status') || {innerText: ''}).innerText.includes('Baseline:')"
        )
        assert _view(them) == before
    finally:
        other.close()
    assert page.console_errors == []


def test_two_people_uploading_the_same_bytes_each_see_their_own_name(browser, app_url, tmp_path: Path):
    names = ("ours.csv", "theirs.csv")
    contexts = [browser.new_context(viewport={"width": 1366, "height": 900}) for _ in names]
    try:
        pages = [c.new_page() for c in contexts]
        for pg, name in zip(pages, names, strict=True):
            path = tmp_path / name
            path.write_text(CLUB)
            open_app(pg, app_url)
            pg.set_input_files("#data-upload input[type=file]", str(path))
            pg.wait_for_function(
                "(name) => (document.querySelector('#data-summary') || {innerText: ''}).innerText.includes(name)",
                arg=name,
            )
        for pg, name in zip(pages, names, strict=True):
            pg.reload()
            pg.wait_for_function(
                "(name) => (document.querySelector('#data-summary') || {innerText: ''}).innerText.includes(name)",
                arg=name,
            )
            other = names[1 - names.index(name)]
            assert other not in pg.inner_text("#data-summary")
    finally:
        for c in contexts:
            c.close()


def test_an_unknown_data_id_in_a_link_says_so_and_shows_the_sample(page, app_url):
    page.goto(app_url + "/?data=" + "e" * 32 + "&file=gone.csv&system=multielo")
    page.wait_for_selector("#data-messages .alert-danger", timeout=TIMEOUT)
    text = page.inner_text("#data-messages")
    assert "no longer on the server" in text and "Showing sample 'poker' instead" in text
    page.wait_for_selector(".leaderboard .ag-row", timeout=TIMEOUT)
    assert "Marta" in leaderboard_text(page)
    assert page.console_errors == []
