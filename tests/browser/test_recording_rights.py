"""Recording into the group's sheet in a real browser (issue 29): the record form says who may record, a visitor is
asked for the organisers' secret in plain words, a wrong secret is refused, and the organiser records a game that
reaches the sheet and the leaderboard.  Served by gunicorn (the Procfile's workers) against the local stand-in for
Google; desktop and phone widths, with screenshots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sources.access import ASK_FOR_SECRET
from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import TIMEOUT, leaderboard_text, open_app, settle
from tests.servers import gunicorn
from tests.sheets_server import FakeSheets
from tests.test_workers import private_sheet_env

pytestmark = pytest.mark.browser

KEY = "1BrowserRecordingRights0123456789abcdefgh"
SECRET = "our club's organisers only"
GAMES = [
    ["game", "date", "1st", "2nd", "3rd"],
    ["n1", "2024-05-01", "Uma", "Vic", "Wen"],
    ["n2", "2024-05-08", "Vic", "Wen", "Uma"],
    ["n3", "2024-05-15", "Wen", "Uma", "Vic"],
]


@pytest.fixture(scope="module")
def sheet_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeSheets]]:
    fake = FakeSheets().start()
    fake.add_spreadsheet(KEY, {"Games": GAMES}, public=False)
    # RATINGS_PROXY_HOPS=0: the browser talks to gunicorn directly
    env = private_sheet_env(
        fake, KEY, tmp_path_factory.mktemp("rights-store"), RATINGS_ADMIN_SECRET=SECRET, RATINGS_PROXY_HOPS="0"
    )
    try:
        with gunicorn(env, tmp_path_factory.mktemp("rights-logs")) as url:
            yield url, fake
    finally:
        fake.stop()


def _open_record_form(page, url: str) -> None:  # type: ignore[no-untyped-def]
    open_app(page, url)
    page.click("text=Edit history")
    page.wait_for_selector("#record-access .alert", timeout=TIMEOUT)
    settle(page)


def test_a_visitor_is_asked_for_the_secret_and_the_organiser_records(page, sheet_app):  # type: ignore[no-untyped-def]
    url, fake = sheet_app
    _open_record_form(page, url)
    assert ASK_FOR_SECRET in page.inner_text("#record-access")
    assert page.locator("#record-secret").is_visible()
    screenshot(page, "record-rights-visitor", "#record-access >> xpath=..")

    # a visitor pressing Record game is told who may record, and nothing is offered to confirm
    page.fill("#record-date", "2024-05-22")
    for i, (player, place) in enumerate([("Newbie", "1"), ("Uma", "2")]):
        page.fill(f'[id=\'{{"index":{i},"type":"record-player"}}\']', player)
        page.fill(f'[id=\'{{"index":{i},"type":"record-place"}}\']', place)
    page.click("#record-submit")
    page.wait_for_selector("#record-status .alert-danger", timeout=TIMEOUT)
    assert "Only the group's organisers may record" in page.inner_text("#record-status")
    assert not page.locator("#record-confirm").is_visible()

    page.fill("#record-secret", "a guess")
    page.click("#record-sign-in")
    page.wait_for_function(
        "() => document.querySelector('#record-access').innerText.includes('not the organisers')", timeout=TIMEOUT
    )
    assert page.locator("#record-secret").input_value() == ""  # the box never keeps what was typed

    page.fill("#record-secret", SECRET)
    page.press("#record-secret", "Enter")
    page.wait_for_function(
        "() => document.querySelector('#record-access').innerText.includes('signed in as an organiser')",
        timeout=TIMEOUT,
    )
    settle(page)
    assert not page.locator("#record-secret").is_visible() and page.locator("#record-sign-out").is_visible()
    assert page.inner_text("#record-status").strip() == ""  # the refusal from before signing in is gone
    screenshot(page, "record-rights-organiser", "#record-access >> xpath=..")

    rows = len(fake.values(KEY, "Games"))
    page.click("#record-submit")
    page.wait_for_selector("#record-confirm", state="visible", timeout=TIMEOUT)
    settle(page)  # the confirm box has finished opening: a click while it slides open can miss the moving button
    page.click("#record-confirm")
    # the write reads the sheet back before and after appending (each read bounded by the sheet deadline, 20 s), so
    # on a loaded machine it may take longer than a view; wait for its answer or the page's banner, and say which
    page.wait_for_function(
        """() => document.querySelector('#record-status .alert-success, #record-status .alert-danger') !== null
            || (document.querySelector('#page-error') || {}).innerText""",
        timeout=3 * TIMEOUT,
    )
    status = page.inner_text("#record-status")
    banner = page.inner_text("#page-error") if page.locator("#page-error").is_visible() else ""
    assert "Recorded the game: 1 row added" in status, (status, banner)
    assert len(fake.values(KEY, "Games")) == rows + 1
    page.click("#page-tabs >> text=Standings")
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard').innerText.includes('Newbie')", timeout=TIMEOUT
    )
    assert "Newbie" in leaderboard_text(page)
    assert page.console_errors == []


def test_the_record_form_on_a_phone(browser, sheet_app):  # type: ignore[no-untyped-def]
    url, _ = sheet_app
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = phone.new_page()
    _open_record_form(page, url)
    assert ASK_FOR_SECRET in page.inner_text("#record-access")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width} px)"
    box = page.locator("#record-secret").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    screenshot(page, "record-rights-phone")
    phone.close()
