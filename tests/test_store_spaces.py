"""What one visitor can do to the shared store (issue 30): derived results never push out user data, Redis gets a
memory cap and a policy sparing user data, a client's additions are bounded, and a faulty store is one plain line
and no obstacle to starting.

Runs on a diskcache directory and on real ``redis-server`` processes (tests/redis_server.py); a full or read-only
disk is simulated where the machine cannot make one (the tests run as root, whom permissions do not stop).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ratings import GameHistory
from sources.histories import fetch, keep
from sources.store import (
    FULL,
    READ_ONLY,
    UNAVAILABLE,
    DiskStore,
    RedisStore,
    StoreError,
    is_derived,
    open_store,
)
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[1]


def _history(tag: str) -> GameHistory:
    return GameHistory.from_records(
        [{"game": 1, "player": f"Ann {tag}", "place": 1}, {"game": 1, "player": "Bo", "place": 2}]
    )


def test_the_keys_of_derived_results_are_told_from_user_data() -> None:
    # The prefixes the writers use (sources/runs.py shared_name, sources/answers.py AnswerMemo.name) against those
    # of user data (sources/histories.py keep and keep_json, sources/model.py's sheet pointer, web/guard.py's limits).
    assert is_derived("run:0123") and is_derived("answer:abcd:gzip")
    for key in ("history:x", "view:x", "aliases:x", "pointer:sheet", "limit:write:1.2.3.4", "quota:1.2.3.4", "lock:x"):
        assert not is_derived(key), key


def test_a_stream_of_derived_results_never_evicts_user_data_on_disk(tmp_path: Path) -> None:
    # Issue 30: three streams of new parameter values (about 870 kB each) filled the 512 MB store in 111 s and
    # another user's upload was gone.  Here: a 1 MB cap for derived results, 4 MB of them written.
    store = DiskStore(str(tmp_path / "store"), size_limit=1 << 20, user_limit=1 << 20)
    cid = keep(_history(uuid.uuid4().hex), store)
    store.put("view:kept", b"a pinned baseline")
    value = os.urandom(100_000)  # incompressible, as packed runs are
    for n in range(40):
        store.put(f"run:{n:04d}", value)
    assert fetch(cid, store).n_games == 1
    assert store.get("view:kept") == b"a pinned baseline"
    kept_runs = sum(store.get(f"run:{n:04d}") is not None for n in range(40))
    assert 0 < kept_runs < 40, "the derived results were culled to their own cap"


def test_user_data_has_a_cap_of_its_own(tmp_path: Path) -> None:
    store = DiskStore(str(tmp_path / "store"), size_limit=1 << 20, user_limit=1 << 20)
    value = os.urandom(100_000)
    for n in range(40):
        store.put(f"history:{n:04d}", value)
    kept = sum(store.get(f"history:{n:04d}") is not None for n in range(40))
    assert 0 < kept < 40


def test_a_clients_additions_are_bounded_in_a_moving_window(tmp_path: Path, redis_url: str) -> None:
    client = f"203.0.113.{uuid.uuid4().int % 250}-{uuid.uuid4().hex[:6]}"
    for store in (DiskStore(str(tmp_path / "store")), RedisStore(redis_url)):
        # 1,000 bytes a second at most: 600 + 400 fit, 1 more does not; another client is counted apart.
        assert store.quota(client, 600, window=1.0, limit=1_000) is None
        assert store.quota(client, 400, window=1.0, limit=1_000) is None
        wait = store.quota(client, 1, window=1.0, limit=1_000)
        assert wait is not None and 0 < wait <= 1.0
        assert store.quota(client + "-other", 1_000, window=1.0, limit=1_000) is None
        # More than the whole quota at once never fits: the wait is the whole window.
        assert store.quota(client + "-big", 1_001, window=1.0, limit=1_000) == 1.0
        time.sleep(wait + 0.05)
        assert store.quota(client, 600, window=1.0, limit=1_000) is None, "the first 600 bytes left the window"
        client += "-again"


def test_redis_is_given_a_cap_and_a_policy_that_spares_user_data(own_redis: RedisServer) -> None:
    import redis

    raw = redis.Redis.from_url(own_redis.url)
    assert int(raw.config_get("maxmemory")["maxmemory"]) == 0, "a fresh redis-server has no cap"
    store = RedisStore(own_redis.url, max_memory=4 << 20)
    store.put("history:user", b"an upload")
    settings = raw.config_get("maxmemory*")
    assert int(settings["maxmemory"]) == 4 << 20 and settings["maxmemory-policy"] == "volatile-ttl"
    # Derived results expire within a day of their last use, user data after RATINGS_STORE_DAYS (30 by default).
    store.put("run:x", b"a run")
    assert 0 < raw.pttl("ratings:run:x") <= 24 * 3600 * 1000
    assert raw.pttl("ratings:history:user") > 29 * 24 * 3600 * 1000


def test_derived_results_filling_redis_leave_user_data_in_place(own_redis: RedisServer) -> None:
    import redis

    raw = redis.Redis.from_url(own_redis.url)
    store = RedisStore(own_redis.url, max_memory=8 << 20)
    uploads = [f"history:{n}" for n in range(5)]
    for key in uploads:
        store.put(key, os.urandom(100_000))
    value = os.urandom(200_000)
    for n in range(200):  # 40 MB of derived results into 8 MB
        store.put(f"run:{n:04d}", value)
    assert all(store.get(key) is not None for key in uploads), "an upload was evicted by derived results"
    assert sum(store.get(f"run:{n:04d}") is not None for n in range(200)) < 200
    assert int(raw.info("memory")["used_memory"]) <= 9 << 20


def test_a_redis_without_config_is_used_and_the_log_says_what_the_host_must_set(
    own_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    import redis

    raw = redis.Redis.from_url(own_redis.url)
    raw.execute_command("ACL", "SETUSER", "app", "on", ">secret", "~*", "+@all", "-config")
    url = own_redis.url.replace("redis://", "redis://app:secret@")
    store = RedisStore(url)
    with caplog.at_level("WARNING", logger="sources.store"):
        store.put("history:x", b"kept")
    assert store.get("history:x") == b"kept"
    assert any("maxmemory-policy volatile-ttl" in r.getMessage() for r in caplog.records)
    assert int(raw.config_get("maxmemory")["maxmemory"]) == 0


def test_a_full_redis_is_one_plain_line(own_redis: RedisServer) -> None:
    import redis

    raw = redis.Redis.from_url(own_redis.url)
    raw.config_set("maxmemory", 2 << 20)
    raw.config_set("maxmemory-policy", "noeviction")  # the host's choice, which the app may not change
    raw.execute_command("ACL", "SETUSER", "app", "on", ">secret", "~*", "+@all", "-config")
    store = RedisStore(own_redis.url.replace("redis://", "redis://app:secret@"))
    with pytest.raises(StoreError) as full:
        for n in range(100):
            store.put(f"history:{n}", os.urandom(100_000))
    assert str(full.value) == FULL


@pytest.mark.parametrize(
    ("cause", "message"),
    [
        (sqlite3.OperationalError("attempt to write a readonly database"), READ_ONLY),
        (OSError(30, "Read-only file system"), READ_ONLY),
        (sqlite3.OperationalError("database or disk is full"), FULL),
        (OSError(28, "No space left on device"), FULL),
        (sqlite3.DatabaseError("file is not a database"), UNAVAILABLE),
    ],
)
def test_a_disk_fault_is_one_plain_line_saying_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cause: Exception, message: str
) -> None:
    import diskcache

    def fail(*_: object, **__: object) -> None:
        raise cause

    store = DiskStore(str(tmp_path / "store"))
    store.put("history:x", b"v")
    monkeypatch.setattr(diskcache.Cache, "set", fail)
    with pytest.raises(StoreError) as error:
        store.put("history:y", b"w")
    assert str(error.value) == message and error.value.__cause__ is None and "\n" not in message


def test_the_store_opens_with_an_unusable_directory_and_says_so_when_used(tmp_path: Path) -> None:
    # Issue 30: a read-only store directory at start stopped the app from starting (the store opened its directory
    # when the process first asked for it).  As root nothing is read-only by permissions, so the directory is a path
    # under a file (it cannot be created).  In a fresh process: the handle opens, and each use says what is wrong.
    a_file = tmp_path / "a file"
    a_file.write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update({"RATINGS_STORE_DIR": str(a_file / "store"), "PYTHONPATH": str(ROOT)})
    code = (
        "from sources.store import shared_store, StoreError\n"
        "store = shared_store()\n"
        "print('opened')\n"
        "for _ in range(2):\n"
        "    try:\n"
        "        store.put('history:x', b'v')\n"
        "    except StoreError as exc:\n"
        "        print('store:', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["opened", f"store: {UNAVAILABLE}", f"store: {UNAVAILABLE}"]


def test_open_store_reads_the_caps(tmp_path: Path) -> None:
    store = open_store({"RATINGS_STORE_DIR": str(tmp_path), "RATINGS_STORE_MB": "3", "RATINGS_STORE_USER_MB": "2"})
    assert isinstance(store, DiskStore) and store._limits == (2 << 20, 3 << 20)
