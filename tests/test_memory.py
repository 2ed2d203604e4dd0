"""A worker's caches are bounded by bytes, not only by count (issue 26 step 5: two workers within 512 MB).

The figures (PSS idle, under 50 simulated users, during a fit) are ``benchmarks/machinery.py memory``'s, in
BENCHMARKS.md; here only the rules: what a bounded cache keeps, worked out by hand.
"""

from __future__ import annotations

import pytest

from sources import runs
from sources.model import LRU


def test_a_cache_bounded_by_bytes_drops_its_oldest_values_first() -> None:
    cache: LRU[bytes] = LRU(10, max_bytes=100, weigh=len)
    for key, size in (("a", 40), ("b", 40), ("c", 10)):
        cache.put(key, b"x" * size)
    assert cache.nbytes == 90
    cache.put("d", b"x" * 30)  # 120 > 100: the oldest ("a", 40) goes, 80 left
    assert [cache.get(k) is not None for k in "abcd"] == [False, True, True, True]
    assert cache.nbytes == 80
    cache.get("b")  # used: now the newest of the three, so "c" is the oldest
    cache.put("e", b"x" * 25)  # 105 > 100: "c" (10) goes, 95 left
    assert [cache.get(k) is not None for k in "bcde"] == [True, False, True, True]
    assert cache.nbytes == 95


def test_a_value_larger_than_the_bound_is_still_kept_alone() -> None:
    cache: LRU[bytes] = LRU(10, max_bytes=100, weigh=len)
    cache.put("a", b"x" * 10)
    assert cache.get_or_make("big", lambda: b"x" * 500) == b"x" * 500
    assert cache.get("a") is None and cache.get("big") is not None
    assert cache.nbytes == 500


def test_the_count_bound_still_holds_without_a_weight() -> None:
    cache: LRU[int] = LRU(2)
    for key in "abc":
        cache.put(key, 1)
    assert [cache.get(k) for k in "abc"] == [None, 1, 1]
    assert cache.nbytes == 0


def test_runs_kept_by_a_process_stay_within_their_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # Elo-MMR runs of the 2,000-race sample carry checkpoints (several MB each): twelve of them, by count alone,
    # would all be kept; with a budget of two runs' bytes, no more than that is.
    monkeypatch.setattr(runs, "_RUNS", LRU(64, max_bytes=1, weigh=runs.run_bytes))
    source = {"kind": "sample", "name": "racing"}
    first = runs.run_for(source, "elo-mmr", {"beta": 301.0})
    size = runs.run_bytes(first)
    assert size >= sum(c.nbytes for c in first.checkpoints) + first.before.nbytes + first.after.nbytes
    budget = 2 * size + size // 2
    monkeypatch.setattr(runs, "_RUNS", LRU(64, max_bytes=budget, weigh=runs.run_bytes))
    for k in range(12):
        runs.run_for(source, "elo-mmr", {"beta": 310.0 + k})
        assert runs._RUNS.nbytes <= budget


def test_the_web_process_uses_two_malloc_arenas() -> None:
    # glibc's mallopt answers 1 when it took the setting; the Procfile's server reads this module before the app
    import platform
    from pathlib import Path

    from web import gunicorn_conf

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("malloc arenas are glibc's")
    assert gunicorn_conf.fewer_malloc_arenas() is True
    procfile = (Path(__file__).resolve().parents[1] / "Procfile").read_text()
    assert "-c python:web.gunicorn_conf" in procfile
