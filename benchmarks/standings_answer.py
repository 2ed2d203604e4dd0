"""Server CPU of one whole standings answer (leaderboard, trajectories, one game's bars and explanation), computed:
what any first draw of the charts costs, and (``--group``) what a group's page cost on every visit before its
answers were memoised.

Run: ``.venv/bin/python benchmarks/standings_answer.py [--sample racing] [--repeat 10]``.  The request is the one
the page sends (``tests/dash_requests.py``), posted through Flask's test client in this process with the answer
memo off; the time is this thread's CPU (``time.thread_time``) per answer, after three untimed answers (the run is
then cached).  To compare commits, run it at each in the same minute: it asserts nothing.

``--what-if``: instead, the answer to a change of K on a drawn page (the page's ``standings-drawn`` sent back, as
the browser does): each timed answer a K not rated before, so it includes the replay; the charts go as patches.

``--group``: the same answer on a group's page, the sample's games imported into a group of a temporary SQLite
database: computed (memo off: what every visit of a group's page cost while a group's answers were never memoised),
then from the memo of answers (each hit checks the group's latest change in the database).

``--floor``: also what a memo of the view builders keyed by content (issue 26 step 2) would cost at the least on a
hit, beside the memo of answers' hit: the views it would keep are the answer's own dictionaries, so a hit must at
least load them (``pickle.loads``, as from the store) and have Dash encode them (``dash._utils.to_json``) and
compress them (as the page asks: zstd); the memo of answers sends the kept compressed bytes (its hit timed through
the same test client with the memo on).
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", default="racing")
    parser.add_argument("--system", default="multielo")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--what-if", action="store_true", help="time a change of K on a drawn page")
    parser.add_argument("--floor", action="store_true", help="also a view memo's least cost against a memo hit")
    parser.add_argument("--group", action="store_true", help="the sample imported into a group, and its memo hits")
    args = parser.parse_args()
    os.environ.setdefault("RATINGS_STORE_DIR", tempfile.mkdtemp(prefix="standings-answer-"))
    source: dict[str, Any] = {"kind": "sample", "name": args.sample}
    if args.group:
        source = _group_of(args.sample)

    import app as app_module
    from layouts.ids import Baseline, Data, Page, Params, Standings
    from tests.dash_requests import post
    from web import answer_memo

    memo = answer_memo.process_memo()
    if memo is not None:
        memo.enabled = False
    client = app_module.server.test_client()
    values = {
        f"{Data.SOURCE}.data": source,
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
    what = f"{'group of ' if args.group else ''}{args.sample} / {args.system}{' what-if' if args.what_if else ''}"
    print(
        f"{what}: {len(answer.data) / 1024:.0f} KB answer; CPU ms per answer "
        f"median {1000 * times[len(times) // 2]:.1f}, best {1000 * times[0]:.1f} (of {args.repeat})"
    )
    if args.group and memo is not None:
        memo.enabled = True
        ask = lambda: post(client, Standings.LEADERBOARD, values)  # noqa: E731
        status = [ask().headers.get("X-Ratings-Answer") for _ in range(3)]
        print(f"  from the memo: {_median_ms(ask, args.repeat):.2f} ms of CPU ({'/'.join(map(str, status))})")
    if args.floor and memo is not None:
        _floor(answer.get_json(), lambda: post(client, Standings.LEADERBOARD, values, changed=changed), memo, args)


def _group_of(sample: str) -> dict[str, Any]:
    """A group in a temporary SQLite database holding ``sample``'s games; the source its page reads."""
    os.environ["RATINGS_DATA_DIR"] = tempfile.mkdtemp(prefix="standings-answer-db-")
    os.environ.pop("DATABASE_URL", None)
    from ratings.samples import load_sample
    from sources.groups import service
    from sources.groups.database import database_url, process_sessions, upgrade

    upgrade(database_url())
    with process_sessions()() as session:
        group, _ = service.create_group(session, "club", "Club", titles=[sample])
        service.import_history(session, group.titles[0], load_sample(sample), who="benchmark")
        session.commit()
    return {"kind": "group", "group": "club", "title": sample}


def _median_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        work()
        times.append(time.thread_time() - start)
    return 1000 * sorted(times)[len(times) // 2]


def _floor(body: dict[str, Any], ask: Callable[[], Any], memo: Any, args: argparse.Namespace) -> None:
    """A view memo's least cost on a hit (load, encode, compress the answer's views) beside a memo-of-answers hit."""
    from dash._utils import to_json

    from sources.compression import encode

    kept = pickle.dumps(body["response"])
    load = _median_ms(lambda: pickle.loads(kept), args.repeat)
    text = to_json(body).encode()
    dump = _median_ms(lambda: to_json(pickle.loads(kept)), args.repeat) - load
    pack = _median_ms(lambda: encode(text, "zstd"), args.repeat)
    memo.enabled = True
    first = ask()
    hits = [ask() for _ in range(3)]
    hit = _median_ms(ask, args.repeat)
    status = [first.headers.get("X-Ratings-Answer"), *(h.headers.get("X-Ratings-Answer") for h in hits)]
    extra = load + dump + pack  # besides the request's own handling, which both pay
    print(
        f"  memo of answers' hit {hit:.2f} ms of CPU ({'/'.join(map(str, status))}); a view memo's hit at least that "
        f"+ load {load:.2f} + encode {dump:.2f} + compress {pack:.2f} = {hit + extra:.2f} ms "
        f"({(hit + extra) / hit:.1f}x)"
    )


if __name__ == "__main__":
    main()
