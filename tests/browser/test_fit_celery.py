"""The Celery path of background work: two gunicorn workers and the Procfile's Celery worker sharing a real local
Redis (REDIS_URL), driven from a real browser: the job runs on the Celery worker, its progress reaches the page, the
result appears, and a cancelled job leaves the page usable."""

from __future__ import annotations

import pytest

from tests.browser.test_app_browser import TIMEOUT, leaderboard_text, open_app, settle
from tests.browser.test_fit import JOB_TIMEOUT, _open_fit, _progress_seen, _wait_running
from tests.servers import celery_worker, gunicorn

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def celery_app_url(redis_url: str, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    logs = tmp_path_factory.mktemp("celery-logs")
    env = {"REDIS_URL": redis_url, "RATINGS_STORE_DIR": str(tmp_path_factory.mktemp("celery-store"))}
    with celery_worker(env, logs), gunicorn(env, logs) as url:
        yield url, logs


def test_a_fit_runs_on_the_celery_worker(page, celery_app_url):
    url, logs = celery_app_url
    open_app(page, url, "?system=plackett-luce")
    _open_fit(page, "Home")
    page.click("#fit-run")
    page.wait_for_selector("#fit-cancel:not([disabled])", timeout=TIMEOUT)
    seen = _progress_seen(page)
    assert any("evaluations" in label for label in seen), seen
    page.wait_for_selector("text=Use the fitted settings", timeout=JOB_TIMEOUT)
    celery_log = (logs / "celery.log").read_text()
    assert "succeeded" in celery_log  # the job ran on the Celery worker, not in a web worker
    assert page.console_errors == []


def test_a_cancelled_celery_job_leaves_the_page_usable(page, celery_app_url):
    url, _ = celery_app_url
    open_app(page, url)
    _open_fit(page, "End")
    page.click("#fit-run")
    page.wait_for_selector("#fit-cancel:not([disabled])", timeout=TIMEOUT)
    _wait_running(page)
    page.click("#fit-cancel")
    page.wait_for_selector("#fit-run:not([disabled])", timeout=TIMEOUT)
    page.click("#page-tabs >> text=Standings")
    settle(page)
    assert "Marta" in leaderboard_text(page)
