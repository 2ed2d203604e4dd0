"""Each piece of the hosting machinery beside its removal, in one run with the variants interleaved (issue 26 step 4).

Run (from the repository root; each scenario a minute or two on 2 cores)::

    .venv/bin/python benchmarks/machinery.py lanes --rounds 3     # ThreadWorker against stock gthread
    .venv/bin/python benchmarks/machinery.py drag --rounds 3      # generations against none
    .venv/bin/python benchmarks/machinery.py gate --rounds 2 --users 50,200   # the estimator against a bounded wait

It prints one line per round and variant and asserts nothing.  The machine is shared: only ratios within one run
mean anything, so every round runs every variant, one after another, on a server started afresh.

``lanes``
    One web worker of 8 threads, refusals off (``RATINGS_BUSY_SECONDS=0``, so every replay asked for is computed),
    an uploaded history of 8,000 races (the racing sample four times over) in the store.  For ``--seconds``, 8 client
    threads ask one after another for the Elo-MMR leaderboard with a ``beta`` nobody asked before (a replay of about
    0.4 s of CPU each), while one more thread loads a page's first requests (the HTML, ``/_dash-layout``,
    ``/_dash-dependencies``) every 50 ms.  Variants: the Procfile's worker (``web.serving.ThreadWorker``: a light lane
    of 4 threads for pages and memoised answers, 8 heavy threads) and gunicorn's own ``gthread`` with the same 8
    threads.  Printed: page-load wall time (p50, p95) during the replays, replays served and their median wall time.

``drag``
    The Procfile's server (2 workers).  One page drags a slider: ``--changes`` parameter changes (Elo-MMR ``beta``
    on the 8,000-race history, new values each round) sent ``--spacing`` seconds apart, each a standings request
    that does not wait for the one before (as Dash's renderer sends a callback again while the previous answer is
    still pending, and drops that answer when it comes).  Variants: the requests carry the page's change number
    (``standings-generation``, so a superseded request stops: :mod:`sources.generations`) or none (never stopped:
    what the callback does with generations removed).  Printed: server CPU (gunicorn's process tree) for the whole
    drag, requests that computed (200) and stopped (204), and the wall time until the last answer.

``gate``
    The Procfile's server (2 workers) under ``benchmarks/load.py``'s simulated users (its recorded page loads and
    moves, ``--users`` each), with the admission estimator as it is (:mod:`sources.admission`, budget 5 s) and with
    a bounded wait instead: the estimator off (``RATINGS_BUSY_SECONDS=0``) and a replay that waits more than 5 s for
    its process's replay lock refused with the busy banner (a copy of the checkout edited by :data:`BOUNDED_WAIT`):
    p50/p95 of page loads and moves served, share of requests refused.

``flood``
    One Procfile worker; ``--requests`` heavy requests at once (Elo-MMR leaderboards of the 8,000-race history, each
    with its own beta): the estimator with a 1.5 s budget against the bounded wait of 1.5 s on the replay lock.
    Printed: served and refused, and the wall time until each got its answer.

``page``
    As ``gate``, the estimator as it is in ``--ref`` against ``--peer`` (the commit before the page rule: a page
    load refused whole when its HTML request waited too long, :meth:`sources.admission.Gate.page_refused`).

``memory``
    The Procfile's server (2 workers): PSS (``/proc/<pid>/smaps_rollup``) of the master, the two web workers together
    and every process (a Fit job's too), the largest sampled every 0.25 s: idle after the first page, under the
    ``--users`` simulated users, and during one Fit (multielo on the poker sample, 30 trials).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-100) by linear interpolation, NaN for no values."""
    from load import percentile

    return percentile(values, q)


def upload_store() -> tuple[str, dict[str, Any]]:
    """A fresh store directory holding an uploaded history of 8,000 races, and the page's source for it."""
    from ratings import GameHistory
    from ratings.samples import load_sample
    from sources.histories import keep
    from sources.store import DiskStore

    store = tempfile.mkdtemp(prefix="machinery-store-")
    racing = load_sample("racing")
    laps = [dataclasses.replace(g, id=f"{g.id} (lap {k})", date=None) for k in range(4) for g in racing.games]
    source = {"kind": "upload", "id": keep(GameHistory(laps), DiskStore(store)), "filename": "laps.csv"}
    return store, source


def leaderboard(client: Any, source: Any, beta: float | None, generation: Any = None) -> Any:
    """The standings callback's request for the Elo-MMR leaderboard with ``beta`` (the system's default if None)."""
    from tests.dash_requests import post

    settings = {"system": "elo-mmr", "params": {} if beta is None else {"beta": beta}}
    values = {"data-source.data": source, "params-settings.data": settings}
    if generation is not None:
        values["standings-generation.data"] = generation
    return post(client, "standings-leaderboard", values)


def warm(url: str, source: Any) -> None:
    """Kernels loaded and the history read in every worker (a few requests each), the page's files served once."""
    from tests.dash_requests import HttpClient

    clients = [HttpClient(url) for _ in range(4)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda c: leaderboard(c, source, None), clients))
    for path in ("/", "/_dash-layout", "/_dash-dependencies"):
        clients[0].get(path)


# ------------------------------------------------------------------------------------------------- lanes
def lanes_round(worker_class: str, seconds: float) -> str:
    from load import serve

    from tests.dash_requests import HttpClient

    store, source = upload_store()
    env = {"RATINGS_STORE_DIR": store, "RATINGS_BUSY_SECONDS": "0", "RATINGS_PREWARM_SECONDS": "0"}
    with serve(worker_class, 1, 8, env) as url:
        warm(url, source)
        stop = time.monotonic() + seconds
        lock = threading.Lock()
        betas = iter(range(int(time.time() * 1000) % 10**6, 10**7))
        replays: list[float] = []
        pages: list[float] = []

        def flood() -> None:
            client = HttpClient(url)
            while time.monotonic() < stop:
                with lock:
                    beta = 100 + next(betas) / 1000
                started = time.monotonic()
                leaderboard(client, source, beta)
                replays.append(time.monotonic() - started)

        def visit() -> None:
            client = HttpClient(url)
            time.sleep(0.5)  # the replays are under way
            while time.monotonic() < stop:
                started = time.monotonic()
                for path in ("/", "/_dash-layout", "/_dash-dependencies"):
                    client.get(path)
                pages.append(time.monotonic() - started)
                time.sleep(0.05)

        with concurrent.futures.ThreadPoolExecutor(9) as pool:
            for done in [pool.submit(flood) for _ in range(8)] + [pool.submit(visit)]:
                done.result()
    return (
        f"page loads {len(pages)}: p50 {quantile(pages, 50) * 1000:.0f} ms, p95 {quantile(pages, 95) * 1000:.0f} ms"
        f" | replays served {len(replays)} ({len(replays) / seconds:.2f}/s), median {statistics.median(replays):.2f} s"
    )


# ------------------------------------------------------------------------------------------------- drag
def drag_round(with_generation: bool, changes: int, spacing: float, first_beta: float) -> str:
    import secrets

    from load import _served, serve, tree_cpu

    from tests.dash_requests import HttpClient

    store, source = upload_store()
    env = {"RATINGS_STORE_DIR": store, "RATINGS_BUSY_SECONDS": "0", "RATINGS_PREWARM_SECONDS": "0"}
    with serve("", 2, 1, env) as url:
        warm(url, source)
        time.sleep(1.0)
        pid = _served[url]
        page = secrets.token_hex(16)
        statuses: list[int] = []
        before = tree_cpu(pid)
        started = time.monotonic()

        def change(n: int) -> None:
            generation = {"page": page, "n": n} if with_generation else None
            answer = leaderboard(HttpClient(url), source, first_beta + n / 100, generation)
            statuses.append(answer.status_code)

        threads = []
        for n in range(1, changes + 1):
            thread = threading.Thread(target=change, args=(n,))
            thread.start()
            threads.append(thread)
            time.sleep(spacing)
        for thread in threads:
            thread.join()
        wall = time.monotonic() - started
        time.sleep(0.3)
        cpu = tree_cpu(pid) - before
    other = changes - statuses.count(200) - statuses.count(204)
    return (
        f"server CPU {cpu:.2f} s for {changes} changes ({cpu / changes * 1000:.0f} ms each)"
        f" | computed {statuses.count(200)}, stopped {statuses.count(204)}, other {other}"
        f" | last answer after {wall:.2f} s"
    )


# ------------------------------------------------------------------------------------------------- memory
def pss_mb(pid: int) -> dict[int, float]:
    """PSS in MB of ``pid`` and each of its descendants (``/proc/<pid>/smaps_rollup``: a page shared by n processes
    counts 1/n in each, so the values add up to what the processes hold together)."""
    import psutil

    out: dict[int, float] = {}
    for proc in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
        try:
            for line in Path(f"/proc/{proc.pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    out[proc.pid] = int(line.split()[1]) / 1024
        except OSError:
            continue
    return out


class Sampler:
    """The largest PSS seen of the master, its two web workers together, and everything (job processes too),
    sampled every 0.25 s while it runs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.master = self.workers = self.total = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                values = pss_mb(self.pid)
                web = [c.pid for c in psutil.Process(self.pid).children()]
                self.master = max(self.master, values.get(self.pid, 0.0))
                self.workers = max(self.workers, sum(values.get(w, 0.0) for w in web))
                self.total = max(self.total, sum(values.values()))
            self._stop.wait(0.25)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def line(self) -> str:
        return f"master {self.master:.0f}, 2 workers {self.workers:.0f}, all {self.total:.0f} MB"


def fit(url: str, budget: int = 30) -> None:
    """A Fit job (multielo on the poker sample, ``budget`` trials) as the page asks for it, polled until it ends."""
    import json

    from tests.dash_requests import HttpClient, post

    client = HttpClient(url, timeout=120)
    asked = post(client, "fit-request", {"fit-run.n_clicks": 1}, changed=["fit-run.n_clicks"]).get_json()["response"]
    values = {
        "fit-request.data": asked["fit-request"]["data"],
        "data-source.data": {"kind": "sample", "name": "poker"},
        "params-settings.data": {"system": "multielo", "params": {}},
        "fit-budget.value": budget,
        "fit-metric.value": "kendall-tau",
    }
    started = post(client, "fit-result", values, changed=["fit-request.data"])
    handle, body = started.get_json(), json.loads(started.response.request.body)
    path = f"/_dash-update-component?cacheKey={handle['cacheKey']}&job={handle['job']}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        answer = client.post(path, data=json.dumps(body), content_type="application/json")
        if answer.status_code == 200 and "fit-result" in json.dumps(answer.get_json().get("response", {})):
            return
        time.sleep(0.5)


def memory_round(script: Any, users: int, duration: float, root: Path = ROOT) -> str:
    from load import _served, measured_load, serve

    from tests.dash_requests import HttpClient

    with serve("", 2, 1, {}, root=root) as url:
        pid = _served[url]
        client = HttpClient(url)
        for path in ("/", "/_dash-layout", "/_dash-dependencies"):
            client.get(path)
        time.sleep(2.0)
        with Sampler(pid) as idle:
            time.sleep(1.0)
        with Sampler(pid) as loaded:
            measured_load(url, script, users=users, duration=duration)
        with Sampler(pid) as fitting:
            fit(url)
    return f"idle: {idle.line()} | {users} users: {loaded.line()} | a fit: {fitting.line()}"


# ------------------------------------------------------------------------------------------------- gate
#: The bounded-wait variant's edits to a copy of this checkout: (file, text as it is, text in the variant).
BOUNDED_WAIT = [
    (
        "sources/runs.py",
        """def _replay(rater: Any, history: GameHistory, parent: RatingRun | None) -> RatingRun:
    with _REPLAYING:
        return rater.rate(history, resume=parent)
""",
        """class ServerBusy(Exception):
    pass


def _replay(rater: Any, history: GameHistory, parent: RatingRun | None) -> RatingRun:
    import os

    if not _REPLAYING.acquire(timeout=float(os.environ.get("BOUNDED_WAIT_SECONDS", "5"))):
        raise ServerBusy
    try:
        return rater.rate(history, resume=parent)
    finally:
        _REPLAYING.release()
""",
    ),
    (
        "web/security.py",
        """    answers.volatile("an error")
    if isinstance(exc, DataError):""",
        """    answers.volatile("an error")
    if type(exc).__name__ == "ServerBusy":
        from flask import g

        g.ratings_busy = True
        set_props(Page.ERROR, {"children": BUSY_MESSAGE, "is_open": True})
        return None
    if isinstance(exc, DataError):""",
    ),
    (
        "web/security.py",
        """        headers = response.headers
        headers.setdefault("Content-Security-Policy", policy)""",
        """        headers = response.headers
        if g.get("ratings_busy"):
            headers["Retry-After"] = "5"
        headers.setdefault("Content-Security-Policy", policy)""",
    ),
]


def snapshot(ref: str) -> Path:
    """A copy of this checkout's working tree (kernel caches included, so nothing compiles again; no ``.venv``)
    with every tracked file that differs from commit ``ref`` put back as ``ref`` has it."""
    import shutil
    import subprocess

    target = Path(tempfile.mkdtemp(prefix=f"machinery-{ref}-")) / "tree"
    shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(".venv", ".git", "node_modules"), symlinks=True)
    changed = subprocess.run(
        ["git", "diff", "--name-only", ref], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in changed:
        shown = subprocess.run(["git", "show", f"{ref}:{name}"], cwd=ROOT, capture_output=True)
        if shown.returncode == 0:
            (target / name).write_bytes(shown.stdout)
        else:
            (target / name).unlink(missing_ok=True)
    return target


def bounded_wait_tree(ref: str) -> Path:
    """:func:`snapshot` of ``ref`` where a replay waits at most 5 s for the process's replay lock and is otherwise
    refused with the busy banner; served with ``RATINGS_BUSY_SECONDS=0`` so the estimator refuses nothing (it still
    learns costs: the worker's lanes use them)."""
    target = snapshot(ref)
    for name, old, new in BOUNDED_WAIT:
        path = target / name
        text = path.read_text()
        if old not in text:
            raise SystemExit(f"the bounded-wait variant no longer applies to {name}: {old.splitlines()[0]!r}")
        path.write_text(text.replace(old, new, 1))
    return target


def flood_round(env: dict[str, str], root: Path, requests: int) -> str:
    """One Procfile worker; ``requests`` Elo-MMR leaderboards of the 8,000-race history at once, each with its own
    beta (about 0.4 s of CPU each, none memoised): served and refused, and how long each waited for its answer."""
    from load import serve

    from tests.dash_requests import HttpClient

    store, source = upload_store()
    env = {"RATINGS_STORE_DIR": store, "RATINGS_PREWARM_SECONDS": "0", **env}
    with serve("", 1, 1, env, root=root) as url:
        warm(url, source)
        first = 100 + (time.time() * 1000) % 10**5 / 1000

        def one(k: int) -> tuple[bool, float]:
            started = time.monotonic()
            answer = leaderboard(HttpClient(url, timeout=120), source, first + k / 100)
            return "Retry-After" in answer.headers, time.monotonic() - started

        with concurrent.futures.ThreadPoolExecutor(requests) as pool:
            results = list(pool.map(one, range(requests)))
    served = [t for busy, t in results if not busy]
    refused = [t for busy, t in results if busy]
    return (
        f"served {len(served)}: p50 {quantile(served, 50):.2f} p95 {quantile(served, 95):.2f} slowest"
        f" {max(served, default=float('nan')):.2f} s | refused {len(refused)}: p50 {quantile(refused, 50):.2f}"
        f" slowest {max(refused, default=float('nan')):.2f} s"
    )


def gate_round(env: dict[str, str], users: int, duration: float, script: Any, root: Path = ROOT) -> str:
    from load import measured_load, serve

    with serve("", 2, 1, env, root=root) as url:
        tally, wall, cpu = measured_load(url, script, users=users, duration=duration)
    served = len(tally.loads) + len(tally.moves)
    share = tally.refused / max(tally.requests, 1)
    loads = f"p50 {quantile(tally.loads, 50):.2f} p95 {quantile(tally.loads, 95):.2f} s"
    moves = f"p50 {quantile(tally.moves, 50):.2f} p95 {quantile(tally.moves, 95):.2f} s"
    return (
        f"{users} users | requests {tally.requests} ({tally.requests / wall:.0f}/s), refused {tally.refused}"
        f" ({share:.1%}), errors {len(tally.errors)}"
        f" | first visits timed {len(tally.loads)}: {loads} | moves timed {len(tally.moves)}: {moves}"
        f" | pages refused whole {tally.pages_refused} | served page loads + moves {served}"
        f" | CPU s server {cpu.server:.0f}, load generator {cpu.client:.0f} (wall {wall:.0f} s)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=("lanes", "drag", "gate", "flood", "page", "memory"))
    parser.add_argument("--compare", action="store_true", help="memory: also a snapshot of --peer, interleaved")
    parser.add_argument("--requests", type=int, default=60, help="flood: requests sent at once")
    parser.add_argument("--ref", default="HEAD", help="gate, page: the commit measured (a snapshot of the checkout)")
    parser.add_argument("--peer", default="HEAD~1", help="page: the commit before the page rule")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0, help="lanes: how long the replays are asked for")
    parser.add_argument("--changes", type=int, default=12, help="drag: changes in one drag")
    parser.add_argument("--spacing", type=float, default=0.08, help="drag: seconds between changes")
    parser.add_argument("--users", default="50,200", help="gate: simulated users, comma-separated")
    parser.add_argument("--duration", type=float, default=20.0, help="gate: seconds of load per row")
    parser.add_argument("--system", default="elo-mmr", help="gate: the system the simulated users' page shows")
    parser.add_argument("--recordings", type=Path, help="gate: recorded requests kept by benchmarks/load.py")
    args = parser.parse_args(argv)
    print(f"# {args.scenario}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    for number in range(1, args.rounds + 1):
        if args.scenario == "lanes":
            for label, worker_class in (("ThreadWorker (Procfile)", ""), ("gthread 1x8", "gthread")):
                line = lanes_round(worker_class, args.seconds)
                print(f"round {number} | {label} | {line} | load {os.getloadavg()[0]:.1f}", flush=True)
        elif args.scenario == "drag":
            for label, flag in (("generations", True), ("none", False)):
                beta = 100 + number * 10 + (5 if flag else 0)
                line = drag_round(flag, args.changes, args.spacing, beta)
                print(f"round {number} | {label} | {line} | load {os.getloadavg()[0]:.1f}", flush=True)
        elif args.scenario == "flood":
            if number == 1:
                trees = [
                    ("estimator, budget 1.5 s", {"RATINGS_BUSY_SECONDS": "1.5"}, snapshot(args.ref)),
                    (
                        "bounded wait 1.5 s on the replay lock",
                        {"RATINGS_BUSY_SECONDS": "0", "BOUNDED_WAIT_SECONDS": "1.5"},
                        bounded_wait_tree(args.ref),
                    ),
                ]
            for label, env, root in trees:
                line = flood_round(env, root, args.requests)
                print(f"round {number} | {label} | {line} | load {os.getloadavg()[0]:.1f}", flush=True)
        else:
            from load import _read_script, _write_script, commit_of, record, serve

            commit = commit_of("HEAD")
            script = _read_script(args.recordings, commit, args.system) if args.recordings else None
            if script is None:
                with serve() as url:
                    script = record(url, [args.system])[args.system]
                if args.recordings:
                    _write_script(args.recordings, commit, script)
            if args.scenario == "memory":
                users = int(args.users.split(",")[0])
                if number == 1:
                    memory_trees = [("this checkout", ROOT)]
                    if args.compare:
                        memory_trees.append((args.peer, snapshot(args.peer)))
                for label, root in memory_trees:
                    line = memory_round(script, users, args.duration, root)
                    print(f"round {number} | {label} | {line} | load {os.getloadavg()[0]:.1f}", flush=True)
                continue
            if args.scenario == "page":
                variants = [("page rule", {}, snapshot(args.ref)), ("no page rule", {}, snapshot(args.peer))]
            else:
                variants = [
                    ("estimator", {}, snapshot(args.ref)),
                    ("bounded wait", {"RATINGS_BUSY_SECONDS": "0"}, bounded_wait_tree(args.ref)),
                ]
            for users in (int(u) for u in args.users.split(",")):
                for label, env, root in variants:
                    line = gate_round(env, users, args.duration, script, root)
                    print(f"round {number} | {label} | {line} | load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
