"""Server CPU of one whole standings answer (leaderboard, trajectories, one game's bars and explanation), computed:
what a group's page costs on each visit (its answers are never memoised), and any first draw of the charts.

Run: ``.venv/bin/python benchmarks/standings_answer.py [--sample racing] [--repeat 10]``.  The request is the one
the page sends (``tests/dash_requests.py``), posted through Flask's test client in this process with the answer
memo off; the time is this thread's CPU (``time.thread_time``) per answer, after three untimed answers (the run is
then cached).  To compare commits, run it at each in the same minute: it asserts nothing.

``--what-if``: instead, the answer to a change of K on a drawn page (the page's ``standings-drawn`` sent back, as
the browser does): each timed answer a K not rated before, so it includes the replay; the charts go as patches.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", default="racing")
    parser.add_argument("--system", default="multielo")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--what-if", action="store_true", help="time a change of K on a drawn page")
    args = parser.parse_args()
    os.environ.setdefault("RATINGS_STORE_DIR", tempfile.mkdtemp(prefix="standings-answer-"))

    import app as app_module
    from layouts.ids import Baseline, Data, Page, Params, Standings
    from tests.dash_requests import post
    from web import answer_memo

    memo = answer_memo.process_memo()
    if memo is not None:
        memo.enabled = False
    client = app_module.server.test_client()
    values = {
        f"{Data.SOURCE}.data": {"kind": "sample", "name": args.sample},
        f"{Params.SETTINGS}.data": {"system": args.system, "params": {}},
        f"{Baseline.STORE}.data": None,
        f"{Standings.MIN_GAMES}.value": 0,
        f"{Page.TABS}.active_tab": "standings",
    }
    for _ in range(3):
        answer = post(client, Standings.LEADERBOARD, values)
    assert answer.status_code == 200, answer.status_code
    changed = None
    if args.what_if:
        first = answer.get_json()["response"]
        values[f"{Standings.DRAWN}.data"] = first[Standings.DRAWN]["data"]
        # the player picker's value, as its own callback sets it on the page: the leaderboard's top ten
        values[f"{Standings.PLAYERS}.value"] = [row["player"] for row in first[Standings.LEADERBOARD]["rowData"][:10]]
        changed = [f"{Params.SETTINGS}.data"]
    times = []
    for i in range(args.repeat):
        if args.what_if:
            values[f"{Params.SETTINGS}.data"] = {"system": args.system, "params": {"k": 20.0 + i * 0.5}}
        start = time.thread_time()
        answer = post(client, Standings.LEADERBOARD, values, changed=changed)
        times.append(time.thread_time() - start)
        assert answer.status_code == 200, answer.status_code
    times.sort()
    what = f"{args.sample} / {args.system}{' what-if' if args.what_if else ''}"
    print(
        f"{what}: {len(answer.data) / 1024:.0f} KB answer; CPU ms per answer "
        f"median {1000 * times[len(times) // 2]:.1f}, best {1000 * times[0]:.1f} (of {args.repeat})"
    )


if __name__ == "__main__":
    main()
