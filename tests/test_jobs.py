"""Long work with no one to run it (issue 26): with ``REDIS_URL`` set and no Celery worker, a Fit said nothing and
spun for ever; now the page says at once that no worker is running.  Against a real Redis (the suite's own) and the
Procfile's real Celery worker and gunicorn."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sources import jobs
from tests.dash_requests import HttpClient, post
from tests.servers import celery_worker, gunicorn

pytestmark = pytest.mark.slow


def _app(url: str, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("REDIS_URL", url)
    return jobs._celery()


def test_without_redis_a_job_always_has_a_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert jobs._celery() is None
    monkeypatch.setattr(jobs, "celery_app", None)
    assert jobs.workers_ready() is True


def test_a_broker_without_workers_is_found_out_within_seconds(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _app(redis_url, monkeypatch)
    started = time.monotonic()
    assert jobs.workers_ready(app) is False
    assert time.monotonic() - started < 30  # a hang detector (one ping of PING_SECONDS), not a speed test


def test_an_unreachable_broker_counts_as_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.servers import free_port

    app = _app(f"redis://127.0.0.1:{free_port()}/0", monkeypatch)
    app.conf.broker_connection_retry_on_startup = False
    app.conf.broker_connection_max_retries = 0
    assert jobs.workers_ready(app, timeout=0.5) is False


@pytest.fixture(scope="module")
def no_worker(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"REDIS_URL": redis_url, "RATINGS_STORE_DIR": str(tmp_path_factory.mktemp("jobs-store"))}
    with gunicorn(env, tmp_path_factory.mktemp("jobs-logs"), workers=1) as url:
        yield url


def test_fit_with_redis_but_no_worker_says_so_at_once(no_worker: str) -> None:
    client = HttpClient(no_worker)
    started = time.monotonic()
    answer = post(client, "fit-request", {"fit-run.n_clicks": 1}, changed=["fit-run.n_clicks"])
    body = json.dumps(answer.get_json())
    assert "No background worker is running" in body and "celery -A app.celery_app worker" in body
    assert "fit-request" not in answer.get_json()["response"]  # no job was sent
    assert time.monotonic() - started < 30  # a hang detector


def test_a_running_worker_answers(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"REDIS_URL": redis_url, "RATINGS_STORE_DIR": str(tmp_path / "store")}
    with celery_worker(env, tmp_path):
        assert jobs.workers_ready(_app(redis_url, monkeypatch), timeout=5.0) is True
