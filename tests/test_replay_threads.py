"""Replays and a web worker's other threads: the kernels release the GIL, and a process replays one history at a time.

A worker (``web.serving.ThreadWorker``) serves pages on its light lane while its heavy threads replay histories.  A
compiled kernel that kept the GIL stopped every other thread of the worker for as long as it ran (a page's layout
waited a median 139-158 ms during Elo-MMR replays of 8,000 races, against 3-4 ms with the GIL released:
``benchmarks/light_lane.py``).  Released, replays could all run at once and all finish late; :mod:`sources.runs`
keeps them one at a time, as the GIL did.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from ratings import RatingSystem
from ratings.samples import load_sample
from sources import runs


def test_every_replay_kernel_releases_the_gil() -> None:
    from ratings.kernels.elo_mmr import replay_elo_mmr
    from ratings.kernels.glicko2 import replay_glicko2
    from ratings.kernels.single import _loop
    from ratings.kernels.trueskill import replay_trueskill

    kernels = (_loop, replay_elo_mmr, replay_glicko2, replay_trueskill)
    holding = [k.py_func.__name__ for k in kernels if not k.targetoptions.get("nogil")]
    assert holding == []


def test_a_process_replays_one_history_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each replay here also sleeps 50 ms (releasing the GIL, as the kernels now do): without the process's replay
    # lock, the four threads' replays overlap.
    inside = 0
    most = 0
    count = threading.Lock()
    original = RatingSystem.rate

    def rate(self: RatingSystem, history: Any, **kwargs: Any) -> Any:
        nonlocal inside, most
        with count:
            inside += 1
            most = max(most, inside)
        try:
            time.sleep(0.05)
            return original(self, history, **kwargs)
        finally:
            with count:
                inside -= 1

    monkeypatch.setattr(RatingSystem, "rate", rate)
    source = {"kind": "sample", "name": "poker"}
    load_sample("poker")
    threads = [
        threading.Thread(target=runs.run_for, args=(source, "multielo", {"k": 10.0 + i + 0.123})) for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == 1
