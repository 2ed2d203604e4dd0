"""Does a page load wait for the replays running in the same worker?  The light lane measured under replays.

Run: ``.venv/bin/python benchmarks/light_lane.py [--peer DIR] [--rounds 2] [--seconds 6]``.  It prints one line per
round and tree and asserts nothing.

One gunicorn worker exactly as the Procfile runs it (``web.serving.ThreadWorker``, 8 heavy threads, the light lane),
with refusals off (``RATINGS_BUSY_SECONDS=0``) so that every replay asked for is computed.  An uploaded history of
8,000 races (the racing sample four times over) is kept in the server's store, as the upload callback keeps a file.
For ``--seconds``, 8 client threads ask one after another for the leaderboard under Elo-MMR with a ``beta`` nobody
asked before (a replay of about 0.4 s CPU each, none memoised), while one more client thread fetches the page's
layout (``/_dash-layout``, served on the light lane) every 50 ms.  Printed: the layout fetches' median, p95 and
slowest wall time (what a visitor opening the page meanwhile waits for), and how many replays were served and
their median wall time.

``--peer DIR`` measures another checkout the same way (its own ``.venv`` and code, in a process of its own), in
alternating rounds.  Wall times on a shared machine move with its load: compare the trees within one run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(seconds: float) -> str:
    """One round on this checkout (run inside the tree being measured); the result line."""
    sys.path.insert(0, str(ROOT))
    from ratings import GameHistory
    from ratings.samples import load_sample
    from sources.histories import keep
    from sources.store import DiskStore
    from tests.dash_requests import HttpClient, post
    from tests.servers import gunicorn

    store = tempfile.mkdtemp(prefix="light-lane-store-")
    racing = load_sample("racing")
    laps = [dataclasses.replace(g, id=f"{g.id} (lap {k})", date=None) for k in range(4) for g in racing.games]
    source = {"kind": "upload", "id": keep(GameHistory(laps), DiskStore(store)), "filename": "laps.csv"}
    env = {"RATINGS_STORE_DIR": store, "RATINGS_BUSY_SECONDS": "0", "RATINGS_PREWARM_SECONDS": "0"}

    def leaderboard(client: HttpClient, beta: float | None) -> None:
        params = {} if beta is None else {"beta": beta}
        settings = {"system": "elo-mmr", "params": params}
        post(client, "standings-leaderboard", {"data-source.data": source, "params-settings.data": settings})

    with gunicorn(env, Path(tempfile.mkdtemp(prefix="light-lane-logs-")), workers=1) as url:
        warm = HttpClient(url)
        leaderboard(warm, None)  # kernels loaded, the history read: what follows is replays only
        for path in ("/", "/_dash-layout", "/_dash-dependencies"):
            warm.get(path)
        stop = time.monotonic() + seconds
        lock = threading.Lock()
        betas = iter(range(100, 100_000))
        replays: list[float] = []
        layouts: list[float] = []

        def flood() -> None:
            client = HttpClient(url)
            while time.monotonic() < stop:
                with lock:
                    beta = float(next(betas))
                started = time.monotonic()
                leaderboard(client, beta)
                replays.append(time.monotonic() - started)

        def pages() -> None:
            client = HttpClient(url)
            time.sleep(0.5)  # the replays are under way
            while time.monotonic() < stop:
                started = time.monotonic()
                client.get("/_dash-layout")
                layouts.append(time.monotonic() - started)
                time.sleep(0.05)

        with concurrent.futures.ThreadPoolExecutor(9) as pool:
            for done in [pool.submit(flood) for _ in range(8)] + [pool.submit(pages)]:
                done.result()
    p95 = statistics.quantiles(layouts, n=20)[18] if len(layouts) >= 2 else float("nan")
    return (
        f"layout fetched during replays: {len(layouts)} times, median {statistics.median(layouts) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, slowest {max(layouts) * 1000:.0f} ms; replays served {len(replays)}, "
        f"median {statistics.median(replays):.2f} s"
    )


def _round(tree: Path, seconds: float) -> str:
    python = tree / ".venv" / "bin" / "python"
    code = [str(python), str(tree / "benchmarks" / "light_lane.py"), "--inside", "--seconds", str(seconds)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(code, cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    return lines[-1] if done.returncode == 0 and lines else f"failed: {done.stderr.strip()[-400:]}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, help="another checkout, measured in alternating rounds")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=6.0, help="how long the replays are asked for per round")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inside:
        print(measure(args.seconds), flush=True)
        return
    trees = [ROOT] + ([args.peer.resolve()] if args.peer else [])
    print(f"# light lane under replays, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for number in range(1, args.rounds + 1):
        for tree in trees:
            load = os.getloadavg()[0]
            print(f"round {number} | {tree} | {_round(tree, args.seconds)} | load {load:.1f}", flush=True)


if __name__ == "__main__":
    main()
