"""Shared fixtures: small game histories written as table-shaped literals."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import settings

from ratings import GameHistory

# CI runs each property test on a fixed sequence of examples, so a landing never depends on luck;
# local runs keep exploring new random examples (and remember failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _shared_store(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Every test session keeps uploaded and edited histories in a store of its own (never the host's)."""
    from sources.store import DiskStore, use_store

    directory = tmp_path_factory.mktemp("store")
    os.environ["RATINGS_STORE_DIR"] = str(directory)  # servers the tests start inherit it
    use_store(DiskStore(str(directory)))
    yield
    use_store(None)


def _installed(make, missing, what):  # type: ignore[no-untyped-def]
    """``make()`` (a test server not yet started); without its binaries the tests that need it are skipped on a
    developer's machine and fail in CI (``CI=true``), where ``make test`` installs them."""
    from tests.redis_server import in_ci

    try:
        return make()
    except missing as exc:
        if in_ci():
            pytest.fail(f"{exc}; CI must run the {what} tests")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def postgres():  # type: ignore[no-untyped-def]
    """A real PostgreSQL cluster started for this session on a free loopback port, removed after (``make test``
    installs Debian's PostgreSQL: target ``postgres``)."""
    from tests.postgres_server import PostgresMissing, PostgresServer

    with _installed(PostgresServer, PostgresMissing, "PostgreSQL") as server:
        yield server


def _redis_server():  # type: ignore[no-untyped-def]
    from tests.redis_server import RedisMissing, RedisServer

    return _installed(RedisServer, RedisMissing, "Redis")


@pytest.fixture(scope="session")
def redis_url():  # type: ignore[no-untyped-def]
    """The address of a real ``redis-server`` started for this session on a free loopback port, stopped after
    (``make test`` installs it: target ``redis``)."""
    with _redis_server() as server:
        yield server.url


@pytest.fixture
def own_redis():  # type: ignore[no-untyped-def]
    """A ``redis-server`` of the test's own, which the test may stop or reconfigure (skipped or failed as
    :func:`redis_url`)."""
    with _redis_server() as server:
        yield server


def history_from_rows(rows: list[tuple[str, str, object]]) -> GameHistory:
    """Build a history from ``(game, player, place)`` rows."""
    return GameHistory.from_records([{"game": g, "player": p, "place": pl} for g, p, pl in rows])


@pytest.fixture
def small_history() -> GameHistory:
    rows = [
        # game  player   place
        ("g1", "Ann", 1),
        ("g1", "Bob", 2),
        ("g1", "Cid", 3),
        ("g1", "Dee", "DNF"),
        ("g2", "Bob", 1),
        ("g2", "Ann", 1),
        ("g2", "Dee", 3),
        ("g3", "Cid", 1),
        ("g3", "Dee", 2),
        ("g3", "Eve", "DNF"),
        ("g3", "Ann", "DNF"),
        ("g4", "Eve", 1),
        ("g4", "Ann", 2),
    ]
    return history_from_rows(rows)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile (or load from the on-disk cache) the numba kernels once, before any test times a replay.

    The app does the same at start-up; without it the first test to replay a system would pay the compile
    (tens of seconds on a fresh clone), which tests with a time limit (test_bounded_cost.py) must not see.
    """
    from ratings.kernels import warm_up

    warm_up()


#: The Thurstonian learning rate at which :func:`failing_replay` makes the replay fail (valid, and used nowhere else).
FAILING_ETA = 1.2345


@pytest.fixture
def failing_replay(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Thurstonian with ``eta=FAILING_ETA`` stops at game 6 with a ComputationError, as a diverging replay does.

    Every accepted setting computes (the parameter declarations see to that), so a failed computation in the app
    is injected here: the page's handling of it is what the tests check.  Returns the settings to send.
    """
    from ratings import ComputationError
    from ratings.systems.thurstonian import Thurstonian

    original = Thurstonian.rate

    def rate(self, history, **kwargs):  # type: ignore[no-untyped-def]
        if self.params.eta == FAILING_ETA:
            raise ComputationError("the ratings spread over more than 60 performance standard deviations", game=5)
        return original(self, history, **kwargs)

    monkeypatch.setattr(Thurstonian, "rate", rate)
    return {"system": "thurstonian", "params": {"eta": FAILING_ETA}}


# ------------------------------------------------------------------------------ the two xdist workers, balanced
#: Seconds each test module took in a whole run (setup, call and teardown of its tests), as
#: ``pytest -n 2 --dist loadfile --write-module-seconds`` measured them last.
MODULE_SECONDS = Path(__file__).with_name("module_seconds.json")
#: What a module missing from MODULE_SECONDS is assumed to take (a new module is usually a small one).
UNKNOWN_MODULE_SECONDS = 5.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--write-module-seconds",
        action="store_true",
        help=f"after a whole run, write each test module's total seconds to {MODULE_SECONDS.name}",
    )


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest module first (its tests keep their order): with ``--dist loadfile --no-loadscope-reorder`` xdist
    hands out modules in this order, so a long module never starts last and leaves the other worker idle."""
    try:
        seconds = json.loads(MODULE_SECONDS.read_text())
    except (OSError, ValueError):
        return
    items.sort(key=lambda item: -float(seconds.get(_module(item.nodeid), UNKNOWN_MODULE_SECONDS)))


_measured: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _measured[_module(report.nodeid)] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    # On the xdist controller (or a run without xdist), which sees every worker's reports.
    if session.config.getoption("--write-module-seconds") and not hasattr(session.config, "workerinput"):
        ordered = dict(sorted(((m, round(s, 1)) for m, s in _measured.items()), key=lambda ms: -ms[1]))
        MODULE_SECONDS.write_text(json.dumps(ordered, indent=1) + "\n")
