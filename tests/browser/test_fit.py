"""Fit to our games and Compare all systems in a real browser: background jobs with a moving progress bar, a
result that can be applied, and a Cancel that leaves the page usable (diskcache manager: no REDIS_URL here)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import TIMEOUT, leaderboard_text, open_app, settle

pytestmark = pytest.mark.browser

JOB_TIMEOUT = 90_000


def _open_fit(page, budget_key: str) -> None:
    page.click("#page-tabs >> text=Fit")
    thumb = page.locator("#fit-budget [role=slider]")
    thumb.wait_for(timeout=TIMEOUT)
    thumb.focus()
    page.keyboard.press(budget_key)  # Home: 5 s; End: 120 s


def _progress_seen(page) -> list[str]:
    """Poll the progress bar's label while the job runs; every distinct label seen."""
    seen: list[str] = []
    for _ in range(400):
        label = page.inner_text("#fit-progress")
        if label and label not in seen:
            seen.append(label)
        if page.locator("#fit-cancel").is_disabled() and seen:
            break
        page.wait_for_timeout(100)
    return seen


def _wait_running(page) -> None:
    """Wait until the job has reported progress from its worker (it is running, not only queued)."""
    page.wait_for_function(
        "() => document.querySelector('#fit-progress').innerText.includes('evaluations')", timeout=JOB_TIMEOUT
    )


def test_fit_shows_progress_and_a_result_that_can_be_applied(page, app_url):
    open_app(page, app_url, "?system=plackett-luce")
    _open_fit(page, "Home")
    page.click("#fit-run")
    page.wait_for_selector("#fit-cancel:not([disabled])", timeout=TIMEOUT)
    seen = _progress_seen(page)
    assert any("evaluations" in label for label in seen), seen
    assert len(seen) >= 2, f"the progress bar moved: {seen}"
    page.wait_for_selector("text=Use the fitted settings", timeout=JOB_TIMEOUT)
    view = page.inner_text("#fit-view")
    assert "settings tried" in view and "fitted settings" in view and "defaults" in view
    # every held-out figure with its interval, and a verdict in words (layouts.fit.FIT_VERDICTS)
    assert view.count("±") >= 3 and ("beyond noise" in view or "keep yours" in view), view
    page.wait_for_selector("#fit-figure .scatterlayer .trace", timeout=TIMEOUT)
    screenshot(page, "fit-result")

    page.click("text=Use the fitted settings")
    page.wait_for_function(
        "() => (document.querySelector('#baseline-status') || {innerText: ''}).innerText.includes('Baseline:')",
        timeout=TIMEOUT,
    )
    page.wait_for_function("() => location.search.includes('eta=')", timeout=TIMEOUT)
    assert page.console_errors == []


def test_cancel_stops_the_job_and_the_page_stays_usable(page, app_url):
    open_app(page, app_url)
    _open_fit(page, "End")
    page.click("#fit-run")
    page.wait_for_selector("#fit-cancel:not([disabled])", timeout=TIMEOUT)
    _wait_running(page)
    page.click("#fit-cancel")
    page.wait_for_selector("#fit-run:not([disabled])", timeout=TIMEOUT)  # far sooner than the 120 s budget
    assert page.locator("#fit-cancel").is_disabled()
    assert "Use the fitted settings" not in page.inner_text("#fit-view")
    page.click("#page-tabs >> text=Standings")
    settle(page)
    assert "Marta" in leaderboard_text(page)


def test_compare_all_systems_lists_each_with_a_use_button(page, app_url, browser):
    open_app(page, app_url)
    _open_fit(page, "Home")
    page.keyboard.press("ArrowRight")  # 10 s shared by the seven systems
    page.click("#fit-compare")
    page.wait_for_selector("#fit-view table", timeout=JOB_TIMEOUT)
    rows = page.locator("#fit-view tbody tr")
    assert rows.count() == 7
    view = page.inner_text("#fit-view")
    assert "than the runner-up" in view and view.count("±") >= 7 * 4, view  # 3 figures and a verdict a row
    screenshot(page, "fit-compare")
    rows.nth(0).locator("text=use").click()
    page.wait_for_function(
        "() => (document.querySelector('#baseline-status') || {innerText: ''}).innerText.includes('Baseline:')",
        timeout=TIMEOUT,
    )
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        small = phone.new_page()
        open_app(small, app_url)
        small.click("#page-tabs >> text=Fit")
        small.wait_for_selector("#fit-run", timeout=TIMEOUT)
        assert small.evaluate("() => document.documentElement.scrollWidth") <= 391
        screenshot(small, "fit-phone")
    finally:
        phone.close()
