"""Server time of the history-edit steps: grid rows, Apply, Undo, CSV, on the racing sample and a 10,000-row upload.

Run: ``.venv/bin/python benchmarks/edit_apply.py [--rows N]`` (also run by ``make bench-page``).  For each history it
prints the best of three runs of each step and the JSON sizes an Apply moves between the page and the server.

- The histories: the bundled racing sample, and a generated racing community (:mod:`generated`) cut to the first
  ``--rows`` results (default 10,000) and kept on the server as an upload would be.
- Apply is :func:`sources.edits.apply_rows` on the rows of :func:`sources.edits.grid_rows` with one place changed
  (a different result each of the three times, so every Apply keeps a history the store has not seen); "Apply, whole
  callback" adds what the Apply callback does besides (the data summary, the status line) and the JSON encoding of
  its outputs.  The request size is the grid rows and the edit store the page posts with Apply; the response size is
  what the callback sends back (source, edit store, grid rows, status, summary).

Then the incremental replay (``RatingSystem.rate(..., resume=run)``, what Apply uses when this process has the run
before the edit) on the 10,000-row history, every system, in one run: a whole replay of the edited history, the
same resumed from the run before the edit when the edit is at the last game and when it is at game 5; each the
best of three.  ``--resume-only`` runs just that part.

The store is a fresh temporary directory, so nothing from an earlier run is reused.  Timings are noisy on a shared
machine: compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("RATINGS_STORE_DIR", tempfile.mkdtemp(prefix="edit-apply-store-"))

from generated import community_history  # noqa: E402
from plotly.utils import PlotlyJSONEncoder  # noqa: E402

from callbacks.runs import history_for, load_source  # noqa: E402
from layouts.edit import status_lines  # noqa: E402
from layouts.summary import summary_text  # noqa: E402
from ratings import SYSTEM_NAMES, Entry, GameHistory, create  # noqa: E402
from sources import edits  # noqa: E402
from sources.model import Upload, keep_history  # noqa: E402
from sources.reading import history_csv  # noqa: E402


def best(step: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """The shortest of ``repeats`` wall-clock times of ``step()`` and its last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return min(times), result


def best_of_distinct(steps: list[Callable[[], Any]]) -> tuple[float, Any]:
    """The shortest wall-clock time over ``steps`` (each run once) and the last result."""
    times, result = [], None
    for step in steps:
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return min(times), result


def size(value: Any) -> float:
    """Megabytes of ``value`` as Dash sends it (plotly's JSON encoder)."""
    return len(json.dumps(value, cls=PlotlyJSONEncoder)) / 1e6


def first_rows(history: GameHistory, rows: int) -> GameHistory:
    """The first games of ``history`` holding at least ``rows`` results."""
    games, total = [], 0
    for game in history.games:
        if total >= rows:
            break
        games.append(game)
        total += len(game.entries)
    return GameHistory(games)


def edited(rows: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """A copy of the grid rows with the place of row ``index`` changed (a finisher becomes a DNF, a DNF last)."""
    out = [dict(r) for r in rows]
    row = out[index]
    if row["place"] == "DNF":
        same = [int(r["place"]) for r in out if r["game"] == row["game"] and r["place"] != "DNF"]
        row["place"] = str(max(same, default=0) + 1)
    else:
        row["place"] = "DNF"
    return out


def whole_callback(rows: list[dict[str, Any]], state: dict[str, Any]) -> Any:
    """What the Apply callback computes and sends: the outcome, the status, the summary, encoded as JSON."""
    outcome = edits.apply_rows(rows, state)
    summary = summary_text(load_source(outcome.source)) if outcome.source is not None else None
    response = [outcome.source, outcome.state, outcome.rows, status_lines(outcome), summary]
    return json.dumps(response, cls=PlotlyJSONEncoder)


def report(label: str, source: dict[str, Any]) -> None:
    history = history_for(source)
    seconds, rows = best(lambda: edits.grid_rows(history))
    print(f"{label}: {history.n_games} games, {len(rows)} grid rows")
    print(f"  grid rows                {seconds * 1000:8.1f} ms   ({size(rows):.2f} MB of JSON)")
    state = edits.fresh_state(source)
    picks = [len(rows) // 4, len(rows) // 2, 3 * len(rows) // 4]
    variants = [edited(rows, i) for i in picks]
    seconds, outcome = best_of_distinct([lambda v=v: edits.apply_rows(v, state) for v in variants])
    if not outcome.ok:
        raise SystemExit(f"Apply failed: {outcome.message}")
    print(f"  Apply (apply_rows)       {seconds * 1000:8.1f} ms")
    more = [edited(rows, i + 1) for i in picks]
    seconds, response = best_of_distinct([lambda v=v: whole_callback(v, state) for v in more])
    print(f"  Apply, whole callback    {seconds * 1000:8.1f} ms")
    print(
        f"  Apply request  {size(variants[0]) + size(state):6.2f} MB of JSON (grid rows + edit store), "
        f"response {len(response) / 1e6:.2f} MB (of which the edit store {size(outcome.state):.2f} MB)"
    )
    seconds, _ = best(lambda: edits.undo(outcome.state))
    print(f"  Undo                     {seconds * 1000:8.1f} ms")
    seconds, _ = best(lambda: history_csv(outcome.source))
    print(f"  history CSV              {seconds * 1000:8.1f} ms")


def with_last_place_first(history: GameHistory, g: int) -> GameHistory:
    """``history`` with game ``g``'s last finisher moved to the top (an edit of one result)."""
    games = list(history.games)
    game = games[g]
    places = [e.place for e in game.entries if e.place is not None]
    worst = max(places, default=1)
    entries = tuple(
        Entry(e.player, None if e.place is None else (1 if e.place == worst else e.place + 1)) for e in game.entries
    )
    games[g] = type(game)(game.id, entries, game.date)
    return GameHistory(games)


def resume_report(history: GameHistory) -> None:
    """Whole replay vs resumed replay of an edit at the end and near the start, every system, one run."""
    n = history.n_games
    print(f"incremental replay, {n} games, {int(history.offsets[-1]):,} results (best of 3, ms):")
    print(f"  {'system':<15}{'whole':>10}{'edit at end':>14}{'ratio':>8}{'edit at game 5':>17}{'ratio':>8}")
    at_end, near_start = with_last_place_first(history, n - 1), with_last_place_first(history, 4)
    for name in SYSTEM_NAMES:
        system = create(name)
        parent = system.rate(history)
        whole, _ = best(lambda s=system: s.rate(at_end))
        end, _ = best(lambda s=system, p=parent: s.rate(at_end, resume=p))
        start, _ = best(lambda s=system, p=parent: s.rate(near_start, resume=p))
        figures = f"{whole * 1000:10.1f}{end * 1000:14.2f}{end / whole:8.3f}{start * 1000:17.1f}{start / whole:8.3f}"
        print(f"  {name:<15}{figures}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000, help="results in the generated history (default 10,000)")
    parser.add_argument("--resume-only", action="store_true", help="only the incremental replay figures")
    args = parser.parse_args()
    history = first_rows(community_history(max(50, args.rows // 6), max(20, args.rows // 40)), args.rows)
    if args.resume_only:
        resume_report(history)
        return
    report("racing sample", {"kind": "sample", "name": "racing"})
    upload = Upload(keep_history(history), "generated.csv").to_json()
    report(f"uploaded {int(history.offsets[-1]):,}-row history", upload)
    resume_report(history)


if __name__ == "__main__":
    main()
