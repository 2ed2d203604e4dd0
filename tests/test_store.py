"""The shared store (sources.store) and the histories kept in it (sources.histories), over both backends.

Every contract test runs on a diskcache directory and on a real ``redis-server`` (started for the session by
tests/conftest.py, fixture ``redis_url``); "another worker" is a real Python process started by the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ratings import Entry, Game, GameHistory
from sources import answers, histories
from sources.histories import MissingHistory, content_id, fetch, keep, serialise
from sources.store import DiskStore, RedisStore, Store, StoreError, open_store, shared_store, use_store
from tests.redis_server import RedisServer, closed_port

ROOT = Path(__file__).resolve().parents[1]
UNAVAILABLE = "the server's data store is unavailable; try again in a minute"


@dataclass(frozen=True)
class Backend:
    """One place the store lives: how this process opens it, and the environment another process opens it with."""

    name: str
    make: Callable[..., Store]
    environ: dict[str, str]


@pytest.fixture(params=["disk", "redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "disk":
        directory = str(tmp_path / "store")
        return Backend(
            "disk", lambda expire=3600.0: DiskStore(directory, expire=expire), {"RATINGS_STORE_DIR": directory}
        )
    url = request.getfixturevalue("redis_url")
    return Backend("redis", lambda expire=3600.0: RedisStore(url, expire=expire), {"REDIS_URL": url})


@pytest.fixture
def key() -> str:
    """A key no other test (or earlier session on the same Redis) uses."""
    return f"test:{uuid.uuid4().hex}"


def _other_process(backend: Backend, code: str, *args: str) -> str:
    """Run ``code`` in a new Python process whose environment points ``open_store()`` at ``backend``."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "RATINGS_STORE_DIR")}
    env.update(backend.environ)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---------------------------------------------------------------- the store contract, on both backends


def test_an_answer_that_writes_user_data_or_finds_it_missing_is_never_memoised(backend: Backend) -> None:
    """Every store notes it, so no service has to: a write of user data must happen for every request (the memo
    would skip it), and missing user data may be kept again under its key; derived results say nothing."""
    store = backend.make()
    tag = uuid.uuid4().hex
    for doing in (
        lambda: store.put(f"history:{tag}", b"x"),
        lambda: store.get(f"upload:{tag}-missing"),
        lambda: store.put(f"pointer:{tag}", b"x"),
    ):
        with answers.tracking() as reads:
            doing()
        assert reads.volatile is not None
    store.put(f"history:{tag}", b"x")
    for doing in (
        lambda: store.put(f"run:{tag}", b"x"),
        lambda: store.get(f"run:{tag}-missing"),
        lambda: store.get(f"answer:{tag}-missing"),
        lambda: store.get(f"generation:{tag}"),  # a signal between workers, not what the answer says
        lambda: store.get(f"history:{tag}"),  # user data found: the answer may be kept
    ):
        with answers.tracking() as reads:
            doing()
        assert reads.volatile is None


def test_put_then_get_round_trips_bytes(backend: Backend, key: str) -> None:
    store = backend.make()
    value = bytes(range(256)) * 3  # every byte value, NUL included
    store.put(key, value)
    assert store.get(key) == value
    store.put(key, b"second")
    assert store.get(key) == b"second"
    assert backend.make().get(key) == b"second"  # a new handle on the same place sees it


def test_missing_key_is_none(backend: Backend, key: str) -> None:
    store = backend.make()
    assert store.get(key) is None
    store.put(key + ":other", b"x")
    assert store.get(key) is None


def test_open_store_follows_the_environment(backend: Backend, key: str) -> None:
    backend.make().put(key, b"from the test")
    opened = open_store(backend.environ)
    assert isinstance(opened, DiskStore if backend.name == "disk" else RedisStore)
    assert opened.get(key) == b"from the test"


def test_reading_renews_the_expiry(backend: Backend, key: str) -> None:
    """An entry read within its expiry lives on; one left alone expires.

    With expiry E, ``read`` is put at 0 and read at 0.6 E and 1.2 E; ``idle`` is put at 0 and read at 1.2 E only.
    The checks hold only if each wait really took less than 0.4 E more than asked, so a scenario the machine stalled
    in is run again (up to three times) rather than judged.
    """
    expire = 1.0
    store = backend.make(expire=expire)
    for attempt in range(3):
        read, idle = f"{key}:{attempt}:read", f"{key}:{attempt}:idle"
        start = time.monotonic()
        store.put(read, b"r")
        store.put(idle, b"i")
        time.sleep(0.6 * expire)
        first = store.get(read)
        middle = time.monotonic()
        time.sleep(0.6 * expire)
        second = store.get(read)
        end = time.monotonic()
        left_alone = store.get(idle)
        if middle - start < 0.95 * expire and end - middle < 0.95 * expire:
            break
    else:
        pytest.fail("the machine stalled for most of a second in three attempts in a row; nothing was judged")
    assert first == b"r"
    assert second == b"r", "a read did not renew the expiry"
    assert left_alone is None, "an entry outlived its expiry"


def test_a_sub_second_expiry_works(backend: Backend, key: str) -> None:
    """Expiry is kept in milliseconds: 0.4 s is neither refused (Redis refuses an expiry of 0 s) nor made longer."""
    expire = 0.4
    store = backend.make(expire=expire)
    for attempt in range(3):
        start = time.monotonic()
        store.put(f"{key}:{attempt}", b"v")
        found = store.get(f"{key}:{attempt}")
        if time.monotonic() - start < 0.75 * expire:
            break  # else the machine stalled past the expiry: try again rather than judge
    assert found == b"v"
    time.sleep(expire + 0.3)
    assert store.get(f"{key}:{attempt}") is None


def test_processes_share_the_store(backend: Backend, key: str) -> None:
    """Two other processes (as two gunicorn workers) each write a key and read the one this process wrote."""
    backend.make().put(key, "written by the test, ✓".encode())
    code = (
        "import sys\n"
        "from sources.store import open_store\n"
        "store = open_store()\n"
        "store.put(sys.argv[1], sys.argv[1].encode())\n"
        "sys.stdout.write(store.get(sys.argv[2]).decode())\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "RATINGS_STORE_DIR")}
    env.update(backend.environ, PYTHONPATH=str(ROOT))
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", code, f"{key}:{i}", key],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(2)
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err.decode()
        assert out.decode() == "written by the test, ✓"
    store = backend.make()
    assert [store.get(f"{key}:{i}") for i in range(2)] == [f"{key}:0".encode(), f"{key}:1".encode()]


def test_a_lock_is_held_by_one_taker_until_released(backend: Backend, key: str) -> None:
    store, other = backend.make(), backend.make()
    assert store.acquire(key, 60.0) is True
    assert store.acquire(key, 60.0) is False
    assert other.acquire(key, 60.0) is False  # another handle on the same place
    held_elsewhere = _other_process(
        backend, "import sys\nfrom sources.store import open_store\nprint(open_store().acquire(sys.argv[1], 60.0))", key
    )
    assert held_elsewhere.strip() == "False"  # another process (another worker)
    store.release(key)
    assert other.acquire(key, 60.0) is True
    other.release(key)


def test_a_lock_lapses_after_its_time(backend: Backend, key: str) -> None:
    store = backend.make()
    assert store.acquire(key, 0.3) is True
    time.sleep(0.6)
    assert store.acquire(key, 60.0) is True  # the holder died without releasing: the lock lapsed
    store.release(key)


def test_uses_are_counted_in_a_moving_window_shared_by_every_handle(backend: Backend, key: str) -> None:
    store, other = backend.make(), backend.make()
    assert [store.spend(key, 0.8, 3) for _ in range(2)] == [None, None]
    assert other.spend(key, 0.8, 3) is None  # another handle (another worker) counts in the same window
    wait = store.spend(key, 0.8, 3)
    assert wait is not None and 0 < wait <= 0.8  # the fourth use waits until the first leaves the window
    time.sleep(0.9)
    assert store.spend(key, 0.8, 3) is None  # the window moved on
    assert store.spend(f"{key}:other", 0.8, 3) is None  # each key counts alone
    # another process (another worker) counts with this one; a minute's window outlasts its start-up on a busy machine
    for _ in range(3):
        assert store.spend(f"{key}:minute", 60, 3) is None
    counted_elsewhere = _other_process(
        backend,
        "import sys\nfrom sources.store import open_store\nprint(open_store().spend(sys.argv[1], 60, 3))",
        f"{key}:minute",
    )
    assert counted_elsewhere.strip() != "None"  # refused there too, with the wait


def test_a_lock_does_not_touch_a_value_of_another_key(backend: Backend, key: str) -> None:
    store = backend.make()
    store.put(key, b"value")
    assert store.acquire(f"lock:{key}", 60.0) is True
    store.release(f"lock:{key}")
    assert store.get(key) == b"value"


# ---------------------------------------------------------------- Redis unavailable


def _assert_plain(exc: StoreError, port: int) -> None:
    assert str(exc) == UNAVAILABLE
    assert str(port) not in str(exc) and "Error" not in str(exc)  # no address, no driver message for the user
    assert exc.__cause__ is None and exc.__suppress_context__


def test_redis_configured_but_not_listening_is_a_store_error() -> None:
    with closed_port() as sock:
        port = sock.getsockname()[1]
        store = open_store({"REDIS_URL": f"redis://127.0.0.1:{port}/0"})
        assert isinstance(store, RedisStore)
        start = time.monotonic()
        with pytest.raises(StoreError) as reading:
            store.get("anything")
        _assert_plain(reading.value, port)
        with pytest.raises(StoreError) as writing:
            store.put("anything", b"x")
        _assert_plain(writing.value, port)
        with pytest.raises(StoreError) as locking:
            store.acquire("lock:anything", 30.0)
        _assert_plain(locking.value, port)
        store.release("lock:anything")  # giving a lock back never fails: it lapses by itself
        history = GameHistory.from_records(
            [{"game": 1, "player": "Ann", "place": 1}, {"game": 1, "player": "Bo", "place": 2}]
        )
        with pytest.raises(StoreError):
            keep(history, store)
        # Unavailable is not "expired": the user is told to retry, not to upload again.
        with pytest.raises(StoreError):
            fetch(content_id(b"never stored"), store)
        assert time.monotonic() - start < 10  # refused at once, not a hang


def test_redis_going_down_while_in_use_is_a_store_error(own_redis: RedisServer, key: str) -> None:
    store = RedisStore(own_redis.url)
    store.put(key, b"v")
    assert store.get(key) == b"v"
    port = own_redis.port
    own_redis.stop()
    with pytest.raises(StoreError) as reading:
        store.get(key)
    _assert_plain(reading.value, port)
    with pytest.raises(StoreError) as writing:
        store.put(key, b"w")
    _assert_plain(writing.value, port)


# ---------------------------------------------------------------- histories kept by content


#: Another worker fetches a history by id and prints its serialisation.
FETCH = (
    "import sys\n"
    "from sources.histories import fetch, serialise\n"
    "sys.stdout.write(serialise(fetch(sys.argv[1])).decode())\n"
)


def _unique_history(*, out_of_date_order: bool = False) -> GameHistory:
    """A history no other test keeps (a fresh name), with a tie, a DNF, dates and a non-ASCII name."""
    tag = uuid.uuid4().hex[:8]
    rows = [
        # game  date          player       place
        ("g1", "2024-01-05", "Ann", 1),
        ("g1", "2024-01-05", f"Zoë {tag}", 1),
        ("g1", "2024-01-05", "Bob", "DNF"),
        ("2", "2024-01-12", "Bob", 1),
        ("2", "2024-01-12", "Ann", 2),
        ("2", "2024-01-12", "Cid", 3),
    ]
    history = GameHistory.from_records([{"game": g, "date": d, "player": p, "place": pl} for g, d, p, pl in rows])
    if out_of_date_order:
        # As an edit or a recorded game can leave it: a later game first.
        history = history.with_games(reversed(history.games))
    return history


def test_the_content_id_is_computed_by_the_server_from_the_content(backend: Backend) -> None:
    history = _unique_history()
    store = backend.make()
    cid = keep(history, store)
    data = serialise(history)
    assert cid == hashlib.sha256(data).hexdigest()[:32]
    assert zlib.decompress(store.get(f"history:{cid}") or b"") == data
    assert keep(_unique_history(), store) != cid  # other content, another id


@pytest.mark.parametrize("out_of_date_order", [False, True])
def test_another_process_fetches_exactly_what_was_kept(backend: Backend, out_of_date_order: bool) -> None:
    history = _unique_history(out_of_date_order=out_of_date_order)
    cid = keep(history, backend.make())
    fetched = _other_process(backend, FETCH, cid)
    assert fetched == serialise(history).decode()
    assert [g.id for g in history.games] == (["2", "g1"] if out_of_date_order else ["g1", "2"])


def test_this_process_fetches_what_another_kept(backend: Backend) -> None:
    tag = uuid.uuid4().hex
    code = (
        "import sys\n"
        "from ratings import GameHistory\n"
        "from sources.histories import keep\n"
        "rows = [{'game': 1, 'player': 'Ann', 'place': 1}, {'game': 1, 'player': sys.argv[1], 'place': 'DNF'}]\n"
        "sys.stdout.write(keep(GameHistory.from_records(rows)))\n"
    )
    cid = _other_process(backend, code, tag)
    history = fetch(cid, backend.make())
    assert [(e.player, e.place) for e in history.games[0].entries] == [("Ann", 1), (tag, None)]
    assert content_id(serialise(history)) == cid


def _stored_under(store: Store, cid: str, packed: bytes) -> str:
    store.put(f"history:{cid}", packed)
    return cid


DAMAGE: dict[str, Callable[[bytes], tuple[str, bytes]]] = {
    # name: data of the history -> (id asked for, value found under it)
    "not zlib": lambda data: (content_id(data), b"\x00 not a zlib stream"),
    "cut short": lambda data: (content_id(data), zlib.compress(data)[:-12]),
    "another history's content": lambda data: (content_id(data), zlib.compress(serialise(_unique_history()))),
    "one byte changed": lambda data: (content_id(data), zlib.compress(data.replace(b"Ann", b"Ana", 1))),
    "its own id but not JSON": lambda data: (content_id(b"\xff\xfe"), zlib.compress(b"\xff\xfe")),
    "its own id but not a history": lambda data: (content_id(b'{"v":1}'), zlib.compress(b'{"v":1}')),
    "its own id but a wrong place type": lambda data: (
        content_id(data.replace(b'"Bob",1', b'"Bob",true')),
        zlib.compress(data.replace(b'"Bob",1', b'"Bob",true')),
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_or_mismatching_value_is_never_served(backend: Backend, damage: str) -> None:
    data = serialise(_unique_history())
    assert b'"Bob",1' in data and b"Ann" in data  # what the damage cases edit is there
    cid, packed = DAMAGE[damage](data)
    store = backend.make()
    _stored_under(store, cid, packed)
    with pytest.raises(MissingHistory):
        fetch(cid, store)


def test_a_value_inflating_beyond_the_limit_is_never_served(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    data = serialise(_unique_history())
    store = backend.make()
    _stored_under(store, content_id(data), zlib.compress(data))
    monkeypatch.setattr(histories, "MAX_SERIALISED", len(data) - 1)
    with pytest.raises(MissingHistory):
        fetch(content_id(data), store)
    monkeypatch.setattr(histories, "MAX_SERIALISED", len(data))
    assert serialise(fetch(content_id(data), store)) == data  # at the limit it is served


class _Recording:
    """A store that records the keys it is asked for."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.asked: list[str] = []

    def get(self, key: str) -> bytes | None:
        self.asked.append(key)
        return self.inner.get(key)

    def put(self, key: str, value: bytes) -> None:
        self.inner.put(key, value)


@pytest.mark.parametrize("cid", [None, 12, "", "../history", "A" * 32, "0" * 31, "0" * 33, ["0" * 32], "0" * 31 + "g"])
def test_ids_not_shaped_like_content_ids_are_refused_before_the_store_is_asked(cid: object, tmp_path: Path) -> None:
    store = _Recording(DiskStore(str(tmp_path / "store")))
    with pytest.raises(MissingHistory):
        fetch(cid, store)
    assert store.asked == []


def test_an_unknown_id_is_missing(backend: Backend) -> None:
    store = _Recording(backend.make())
    cid = content_id(uuid.uuid4().bytes)
    with pytest.raises(MissingHistory):
        fetch(cid, store)
    assert store.asked == [f"history:{cid}"]


def test_histories_with_a_game_without_entries_or_dates_round_trip(backend: Backend) -> None:
    tag = uuid.uuid4().hex
    history = GameHistory([Game("only", (Entry(tag, 1), Entry("Bo", None))), Game("empty", ())])
    cid = keep(history, backend.make())
    assert json.loads(_other_process(backend, FETCH, cid)) == json.loads(serialise(history))


@pytest.mark.parametrize("ci", [True, False])
def test_a_missing_redis_server_fails_in_ci_and_is_skipped_elsewhere(ci: bool, tmp_path: Path) -> None:
    """The suite run with no redis-server on PATH: CI (CI=true) must fail; a developer's machine skips."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "REDIS_URL")}
    env["PATH"] = str(tmp_path)  # an empty directory: no redis-server (python is run by its full path)
    if ci:
        env["CI"] = "true"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "tests/test_store.py::test_missing_key_is_none[redis]",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if ci:
        assert done.returncode != 0 and "CI must run the Redis tests" in done.stdout, done.stdout
    else:
        assert done.returncode == 0 and "1 skipped" in done.stdout and "redis-server is not installed" in done.stdout


def test_the_process_handle_opens_once_from_the_environment(
    backend: Backend, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = shared_store()  # the session's own store (tests/conftest.py)
    monkeypatch.delenv("REDIS_URL", raising=False)
    for name, value in backend.environ.items():
        monkeypatch.setenv(name, value)
    try:
        use_store(None)
        opened = shared_store()
        assert isinstance(opened, DiskStore if backend.name == "disk" else RedisStore)
        assert shared_store() is opened  # one handle per process
        opened.put(key, b"via the handle")
        assert backend.make().get(key) == b"via the handle"
        use_store(previous)
        assert shared_store() is previous
    finally:
        use_store(previous)


def test_an_unusable_store_directory_is_a_store_error(tmp_path: Path, key: str) -> None:
    a_file = tmp_path / "a file"
    a_file.write_text("not a directory")
    unusable = DiskStore(str(a_file / "store"))  # opened on first use: the app starts whatever state it is in
    with pytest.raises(StoreError, match="^the server's data store is unavailable"):
        unusable.get(key)  # a path under a file cannot be created, even by root
    directory = tmp_path / "store"
    DiskStore(str(directory)).put(key, b"v")
    (directory / "cache.db").write_bytes(b"this is not an SQLite database" * 200)  # a damaged database file
    with pytest.raises(StoreError) as damaged:
        DiskStore(str(directory)).get(key)
    assert str(damaged.value) == UNAVAILABLE and damaged.value.__cause__ is None


def test_teams_and_weights_are_kept_and_a_history_without_them_keeps_its_content_id(backend: Backend) -> None:
    from ratings.samples import load_sample

    doubles = load_sample("doubles")  # pairs, and half-match substitutes (weight 0.5)
    assert any(e.team for g in doubles.games for e in g.entries) and any(
        e.weight < 1 for g in doubles.games for e in g.entries
    )
    store = backend.make()
    again = fetch(keep(doubles, store), store)
    assert [g.entries for g in again.games] == [g.entries for g in doubles.games]
    plain = GameHistory.from_records(
        [{"game": "g1", "player": "Ann", "place": 1}, {"game": "g1", "player": "Bob", "place": "DNF"}]
    )
    # the format a history without teams was kept in before teams existed, so its links still open it
    assert serialise(plain) == b'{"v":1,"games":[["g1",null,[["Ann",1],["Bob",null]]]]}'
