"""How long the history-edit steps take on the largest bundled sample (racing): grid rows, Apply, Undo, CSV.

Run: ``.venv/bin/python benchmarks/edit_apply.py``; prints the best of three runs of each step and the JSON size
of what the browser stores per edit.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from callbacks import downloads, edit
from callbacks.runs import history_for


def best(step: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    source = {"kind": "sample", "name": "racing"}
    history = history_for(source)
    seconds, rows = best(lambda: edit.grid_rows(history))
    print(f"racing: {history.n_games} games, {len(rows)} grid rows")
    print(f"grid rows            {seconds * 1000:8.1f} ms   ({len(json.dumps(rows)) / 1e6:.2f} MB of JSON)")
    rows[0]["place"] = "3"
    state = edit.fresh_state(source)
    seconds, outcome = best(lambda: edit.apply_rows(rows, state))
    size = len(json.dumps(outcome.source)) + len(json.dumps(outcome.state))
    print(f"apply (check+source) {seconds * 1000:8.1f} ms   (source + edit store {size / 1e6:.2f} MB of JSON)")
    seconds, _ = best(lambda: edit.undo(outcome.state))
    print(f"undo                 {seconds * 1000:8.1f} ms")
    seconds, _ = best(lambda: downloads.history_csv(outcome.source))
    print(f"history CSV          {seconds * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
