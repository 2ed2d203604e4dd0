"""Fifty people at once: simulated users over real HTTP against the app served by gunicorn as the Procfile runs it.

Run (from the repository root, with the development requirements: Playwright and Debian's Chromium record the
page's own requests once)::

    .venv/bin/python benchmarks/load.py                      # 50 users, 30 s per system, the Procfile's workers
    .venv/bin/python benchmarks/load.py --systems multielo,thurstonian --users 50 --duration 30 \
        --configs procfile,procfile@RATINGS_PREWARM_SECONDS=0,gthread:2x8,sync:2 --markdown /tmp/load.md

``--peer main`` measures another commit side by side: every row runs on this checkout, then on that commit's tree
(exported with ``git archive``, served with this checkout's environment), rows interleaved so both meet the same
machine.  ``--configs`` compares servers in one run: ``procfile`` is the Procfile as it is,
``CLASS:WORKERS[xTHREADS]`` another gunicorn worker class (``gthread`` is gunicorn's own threaded worker, without the
app's lanes), and ``@NAME=VALUE``
sets an environment variable of that server.

It prints a Markdown table (``--markdown PATH`` also writes it) and asserts nothing.  ``--cost`` measures instead what
one first visit costs the server, by kind of request (the recorded page load replayed one request after another,
CPU of gunicorn's process tree).

What a simulated user does
--------------------------
1. **Recording (once per system, before the load, on a server of its own).**  Headless Chromium opens
   ``/?sample=racing&system=NAME`` and records every request the page makes until it is drawn and quiet (the page
   load), then presses ArrowRight once on the slider of a parameter every result depends on (``PARAMETER`` of
   ``page_latency.py``) and records every callback request that one move fires.  The generator therefore replays
   exactly the requests the real page fires, whatever the callbacks of the day are.
2. **Page load.**  Every request of the recording, in *waves*: requests the browser had in flight together are sent
   together (up to 6 at once, as Chromium does per host); a request sent after an earlier one's answer arrived
   waits for the previous wave.  Every callback body is rebuilt from this user's own answers (the values of the
   stores, the controls), as Dash's renderer does.  The scripts are fetched too (a first visit, compressed).
3. **Moves**, until the run ends: think for a time drawn uniformly from ``--think`` (default 2-6 s, mean 4 s), then
   (one time in ten) load the page again as a returning visitor, whose browser kept the files the server called
   ``immutable``, or else move the parameter to a new value ``old ± n steps`` (n from -10 to 10, within the
   slider's range, so users sometimes meet values another user already computed, as people on a shared slider do)
   and send the move's requests in waves as above.  The time of a move runs from its first request to its last
   answer.
Users start spread over the first ``--ramp`` seconds (default 5), on a server started afresh for each system and
configuration with an empty store, as after a deploy: every user's first page load is a first visit.  An error is a
transport failure, a status other than 200/204, or an answer that is not Dash's JSON; a refusal by the overload
guard (an answer with ``Retry-After`` that shows "the server is busy") is counted on its own, and a move or page
load with a refusal is not timed.  A page whose HTML is refused (the busy page, ``web.security.busy_page``) is a page
load refused whole: like a browser, the user fetches nothing else of it, and tries again after a think.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

UPDATE = "/_dash-update-component"
#: Systems measured by default: the Elo family, Kerby's three models, the others.
SYSTEMS = ("multielo", "pairwise-elo", "plackett-luce", "thurstonian", "trueskill", "glicko2", "elo-mmr")
FAMILY = {
    "multielo": "Elo family",
    "pairwise-elo": "Kerby",
    "plackett-luce": "Kerby",
    "thurstonian": "Kerby",
    "trueskill": "others",
    "glicko2": "others",
    "elo-mmr": "others",
}
#: Concurrent requests a browser sends to one host.
BROWSER_CONNECTIONS = 6


# ------------------------------------------------------------------------------------------------- recording
@dataclass
class Req:
    """One request the page made: relative times from the start of its phase."""

    method: str
    path: str
    body: str | None
    start: float
    end: float


@dataclass
class Script:
    """What the page did for one system: its load and one move of ``parameter`` from ``before`` to ``after``."""

    system: str
    query: str
    parameter: str
    before: float
    after: float
    low: float
    high: float
    load: list[Req]
    move: list[Req]


def _chromium_flags() -> list[str]:
    from tests.browser.conftest import FLAGS

    return FLAGS


class _Recorder:
    def __init__(self, page: Any) -> None:
        self.page = page
        self.reqs: dict[Any, Req] = {}
        self.t0 = time.perf_counter()
        self.last = time.perf_counter()
        page.on("request", self._sent)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)

    def reset(self) -> None:
        self.reqs = {}
        self.t0 = time.perf_counter()

    def _sent(self, request: Any) -> None:
        split = urlsplit(request.url)
        if split.scheme not in ("http", "https"):
            return
        path = split.path + (f"?{split.query}" if split.query else "")
        body = request.post_data if request.method == "POST" else None
        now = time.perf_counter()
        self.reqs[request] = Req(request.method, path, body, now - self.t0, float("inf"))
        self.last = now

    def _done(self, request: Any) -> None:
        now = time.perf_counter()
        if request in self.reqs:
            self.reqs[request].end = now - self.t0
        self.last = now

    def quiet(self, seconds: float, timeout: float) -> None:
        """Wait until nothing is pending and nothing happened for ``seconds``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            pending = any(r.end == float("inf") for r in self.reqs.values())
            busy = self.page.evaluate("() => !!document.querySelector('[data-dash-is-loading]')")
            if not pending and not busy and time.perf_counter() - self.last > seconds:
                return
        raise TimeoutError("the page did not become quiet")

    def taken(self) -> list[Req]:
        return sorted(self.reqs.values(), key=lambda r: r.start)


def record(base_url: str, systems: list[str], timeout: float = 180.0) -> dict[str, Script]:
    """Record, in headless Chromium, each system's page load and one parameter move (see the module docstring)."""
    from page_latency import DRAWN_SCRIPT, PARAMETER, slider_selector
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM

    scripts: dict[str, Script] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=_chromium_flags())
        for system in systems:
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            page = context.new_page()
            recorder = _Recorder(page)
            query = f"/?sample=racing&system={system}"
            page.goto(base_url + query)
            page.wait_for_function(DRAWN_SCRIPT, timeout=timeout * 1000)
            recorder.quiet(0.6, timeout)
            load = recorder.taken()
            parameter = PARAMETER[system]
            thumb = page.locator(slider_selector(parameter))
            before = float(thumb.get_attribute("aria-valuenow") or "nan")
            low = float(thumb.get_attribute("aria-valuemin") or "nan")
            high = float(thumb.get_attribute("aria-valuemax") or "nan")
            recorder.reset()
            thumb.press("ArrowRight")
            page.wait_for_timeout(300)
            recorder.quiet(0.6, timeout)
            after = float(thumb.get_attribute("aria-valuenow") or "nan")
            move = [r for r in recorder.taken() if r.method == "POST"]
            scripts[system] = Script(system, query, parameter, before, after, low, high, load, move)
            context.close()
        browser.close()
    return scripts


def _script_path(directory: Path, commit: str, system: str) -> Path:
    return directory / f"{commit}-{system}.json"


def _read_script(directory: Path, commit: str, system: str) -> Script | None:
    """A recording kept by :func:`_write_script`, or None."""
    try:
        raw = json.loads(_script_path(directory, commit, system).read_text())
    except (OSError, ValueError):
        return None
    for phase in ("load", "move"):
        raw[phase] = [Req(**req) for req in raw[phase]]
    return Script(**raw)


def _write_script(directory: Path, commit: str, script: Script) -> None:
    import dataclasses

    directory.mkdir(parents=True, exist_ok=True)
    _script_path(directory, commit, script.system).write_text(json.dumps(dataclasses.asdict(script)))


def is_page(req: Req) -> bool:
    """Whether ``req`` asks for a page's HTML (as ``web.serving.is_page`` tells)."""
    return req.method == "GET" and not req.path.startswith(("/_dash-", "/_reload", "/_favicon", "/assets/"))


def waves(reqs: list[Req]) -> list[list[Req]]:
    """Requests grouped as the browser sent them: a request sent after an answer of the current group arrived
    starts a new group (it may depend on that answer)."""
    groups: list[list[Req]] = []
    for req in reqs:
        if groups and all(req.start < r.end for r in groups[-1]):
            groups[-1].append(req)
        else:
            groups.append([req])
    return groups


# ------------------------------------------------------------------------------------------------- replaying
def _key(ident: Any, prop: str) -> str:
    if isinstance(ident, str) and ident.startswith("{"):
        ident = json.loads(ident)
    name = json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else str(ident)
    return f"{name}.{prop}"


def _fill(entries: list[Any], state: dict[str, Any], override: dict[str, Any]) -> list[Any]:
    """A callback's inputs or states with this user's current values."""
    out: list[Any] = []
    for entry in entries:
        if isinstance(entry, list):
            out.append(_fill(entry, state, override))
            continue
        if not isinstance(entry, dict) or "id" not in entry:
            out.append(entry)
            continue
        key = _key(entry["id"], entry.get("property", ""))
        item = dict(entry)
        if key in override:
            item["value"] = override[key]
        elif key in state:
            item["value"] = state[key]
        out.append(item)
    return out


def _absorb(answer: Any, state: dict[str, Any]) -> None:
    """Remember the values a callback answer set (Dash's ``{"multi": true, "response": {id: {prop: value}}}``)."""
    response = answer.get("response") if isinstance(answer, dict) else None
    if not isinstance(response, dict):
        return
    for ident, props in response.items():
        if isinstance(props, dict):
            for prop, value in props.items():
                state[_key(ident, prop)] = value


def _parameter_keys(script: Script) -> list[str]:
    """The ids of the moved parameter's controls (slider and number box) as they appear in the recorded move."""
    keys = []
    for kind in ("param-slider", "param"):
        keys.append(_key({"name": script.parameter, "type": kind}, "value"))
    return keys


@dataclass
class Outcome:
    ok: bool
    refused: bool
    status: int
    error: str = ""


@dataclass
class Tally:
    """Everything measured in one run."""

    moves: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    refused: int = 0
    retried: int = 0
    #: Page loads refused whole (their HTML answered with the busy page).
    pages_refused: int = 0
    #: First visits ended, timed or not (a refusal or an error leaves one untimed).
    visited: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: Outcome) -> None:
        with self.lock:
            self.requests += 1
            if outcome.refused:
                self.refused += 1
            elif not outcome.ok:
                self.errors.append(outcome.error)


class User:
    """One simulated visitor: a page load, then moves with think time until the run ends."""

    def __init__(
        self,
        base_url: str,
        script: Script,
        tally: Tally,
        rng: random.Random,
        *,
        think: tuple[float, float],
        timeout: float,
        reload: float = 0.1,
    ) -> None:
        import requests

        self.base = base_url.rstrip("/")
        self.script = script
        self.tally = tally
        self.pool = ThreadPoolExecutor(max_workers=BROWSER_CONNECTIONS)
        self.rng = rng
        self.think = think
        self.timeout = timeout
        self.reload = reload
        self.session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=BROWSER_CONNECTIONS)
        self.session.mount("http://", adapter)
        self.state: dict[str, Any] = {}
        self.value = script.after
        #: Files the server allowed this browser to keep (``immutable``): a returning visit does not ask again.
        self.cached: set[str] = set()
        #: Whether the last page load was refused whole (its HTML answered with the busy page).
        self.page_refused = False

    def _send(self, req: Req, override: dict[str, Any]) -> Outcome:
        import requests

        try:
            return self._send_once(req, override)
        except requests.ConnectionError:
            # A kept-alive connection the server closed while the user was thinking: a browser sends the request
            # again on a new connection, and so does this user, once (counted as a retry, not an error).
            with self.tally.lock:
                self.tally.retried += 1
            self.session.close()
        except requests.RequestException as exc:
            # An answer cut short after it began (its worker killed while sending it): an error, not sent again.
            self.session.close()
            return Outcome(False, False, 0, f"{req.method} {req.path[:60]}: {type(exc).__name__}")
        try:
            return self._send_once(req, override)
        except Exception as exc:  # a transport failure is an error of the run, reported with its kind
            return Outcome(False, False, 0, f"{req.method} {req.path[:60]}: {type(exc).__name__}")

    def _send_once(self, req: Req, override: dict[str, Any]) -> Outcome:
        if req.method == "POST" and req.path.startswith(UPDATE) and req.body:
            body = json.loads(req.body)
            body["inputs"] = _fill(body.get("inputs", []), self.state, override)
            body["state"] = _fill(body.get("state", []), self.state, override)
            response = self.session.post(
                self.base + req.path,
                data=json.dumps(body),
                headers={"Content-Type": "application/json"},
                timeout=self.timeout,
            )
            if response.status_code == 200:
                try:
                    _absorb(response.json(), self.state)
                except ValueError:
                    return Outcome(False, False, 200, f"{req.path}: not JSON")
        elif req.method == "POST":
            response = self.session.post(self.base + req.path, data=req.body, timeout=self.timeout)
        else:
            response = self.session.get(self.base + req.path, timeout=self.timeout)
            if "immutable" in response.headers.get("Cache-Control", ""):
                self.cached.add(req.path)
        if "Retry-After" in response.headers:  # refused by the overload guard (security.busy_answer)
            return Outcome(False, True, response.status_code)
        if response.status_code in (200, 204, 304):
            return Outcome(True, False, response.status_code)
        return Outcome(False, False, response.status_code, f"{req.method} {req.path[:60]}: {response.status_code}")

    def _phase(self, reqs: list[Req], override: dict[str, Any]) -> bool:
        ok = True
        for group in waves(reqs):
            outcomes = list(self.pool.map(lambda r: self._send(r, override), group))
            for outcome in outcomes:
                self.tally.add(outcome)
                ok = ok and outcome.ok
            if any(o.refused and is_page(r) for o, r in zip(outcomes, group, strict=True)):
                # the page's HTML refused (security.busy_page): a browser shows the busy page and fetches nothing else
                with self.tally.lock:
                    self.tally.pages_refused += 1
                self.page_refused = True
                return False
        return ok

    def page_load(self, returning: bool = False) -> bool:
        """The page's requests; a returning visitor skips the files its browser kept and starts from fresh state.
        Whether the page was loaded without a refusal or an error."""
        reqs = self.script.load
        if returning:
            reqs = [r for r in reqs if r.method != "GET" or r.path not in self.cached]
            self.state = {}
        started = time.perf_counter()
        ok = self._phase(reqs, {})
        with self.tally.lock:
            if ok:
                (self.tally.returns if returning else self.tally.loads).append(time.perf_counter() - started)
            if not returning:
                self.tally.visited += 1
        return ok

    def move(self) -> None:
        s = self.script
        step = (s.after - s.before) or 1.0
        value = s.after + step * self.rng.randint(-10, 10)
        if s.low == s.low and s.high == s.high:  # not NaN: keep within the slider
            value = min(max(value, s.low), s.high)
        value = round(value, 10)
        override = {key: value for key in _parameter_keys(s)}
        started = time.perf_counter()
        if self._phase(s.move, override):
            with self.tally.lock:
                self.tally.moves.append(time.perf_counter() - started)

    def run(self, start_delay: float, until: float) -> None:
        time.sleep(start_delay)
        if time.monotonic() >= until:
            return
        self.page_refused = False
        while not self.page_load() and self.page_refused:
            self.page_refused = False
            # told the server is busy: try again after a while, as a visitor would (a first visit again)
            pause = self.rng.uniform(*self.think)
            if time.monotonic() + pause >= until:
                return
            time.sleep(pause)
        while True:
            pause = self.rng.uniform(*self.think)
            if time.monotonic() + pause >= until:
                return
            time.sleep(pause)
            if self.rng.random() < self.reload:
                self.page_load(returning=True)
            else:
                self.move()


def run_load(
    base_url: str,
    script: Script,
    *,
    users: int,
    duration: float,
    think: tuple[float, float] = (2.0, 6.0),
    ramp: float = 5.0,
    timeout: float = 60.0,
    seed: int = 14,
    tally: Tally | None = None,
) -> tuple[Tally, float]:
    """``users`` simulated users on one system for ``duration`` seconds; the tally and the wall time it took
    (the last moves may finish after ``duration``: nothing is cut short)."""
    tally = Tally() if tally is None else tally
    until = time.monotonic() + duration
    started = time.perf_counter()
    threads = []
    for i in range(users):
        user = User(base_url, script, tally, random.Random(seed * 1000 + i), think=think, timeout=timeout)
        delay = ramp * i / max(1, users)
        thread = threading.Thread(target=user.run, args=(delay, until), daemon=True)
        threads.append(thread)
        thread.start()
    for thread in threads:
        thread.join(timeout=duration + 3 * timeout)
    return tally, time.perf_counter() - started


# ------------------------------------------------------------------------------------------------- serving
def procfile_command(workers: int, root: Path = ROOT) -> list[str]:
    """The ``web`` command of ``root``'s Procfile with its worker count set (as tests/servers.py reads it)."""
    for line in (root / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == "web":
            return shlex.split(re.sub(r"\$\{[A-Z_]+_CONCURRENCY:-\d+\}", str(workers), command))
    raise LookupError(f"{root / 'Procfile'} has no 'web' process")


def export(ref: str) -> Path:
    """The tree of the commit ``ref`` of this repository, written to a new temporary directory (``git archive``:
    the repository and its worktrees are left as they are)."""
    target = Path(tempfile.mkdtemp(prefix=f"load-{re.sub(r'[^A-Za-z0-9]+', '-', ref)}-"))
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def commit_of(ref: str) -> str:
    """The short commit ``ref`` names here."""
    found = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True)
    return found.stdout.strip() or ref


@contextlib.contextmanager
def serve(
    worker_class: str = "",
    workers: int = 2,
    threads: int = 1,
    env: dict[str, str] | None = None,
    root: Path = ROOT,
) -> Iterator[str]:
    """gunicorn as ``root``'s Procfile runs it (``worker_class`` empty: the Procfile's own class), on a free loopback
    port, with a fresh store directory; yields its base URL.  ``root`` is this checkout or an exported peer
    (:func:`export`), served with this checkout's environment (the same requirements)."""
    from tests.servers import free_port

    port = free_port()
    command = [str(Path(sys.executable).parent / "gunicorn"), *procfile_command(workers, root)[1:]]
    command += ["--bind", f"127.0.0.1:{port}", "--access-logfile", "/dev/null"]
    if worker_class:
        command += ["--worker-class", worker_class]
    if threads > 1:
        command += ["--threads", str(threads)]
    store = tempfile.mkdtemp(prefix="load-store-")
    environ = {**os.environ, "SECRET_KEY": "load-benchmark", "RATINGS_STORE_DIR": store, **(env or {})}
    environ.pop("PORT", None)
    log = Path(store) / "gunicorn.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=root, env=environ, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        import requests

        deadline = time.monotonic() + 600  # a peer's first start compiles its kernels
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(url + "/_dash-layout", timeout=5).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start: {shlex.join(command)}\n{log.read_text()[-2000:]}")
            time.sleep(0.25)
        _served[url] = proc.pid
        yield url
    finally:
        _served.pop(url, None)
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


#: The gunicorn master of each URL being served.
_served: dict[str, int] = {}


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by the process ``pid`` and its living descendants (Linux ``/proc``)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, p in parents.items() if p == parent and child not in tree]
        tree.update(children)
        frontier += children
    return sum(times.get(member, 0.0) for member in tree)


@dataclass
class Cpu:
    """CPU seconds of the server (gunicorn and its workers) and of this load generator: over the whole run, and
    until every user's first visit had ended (``burst``: its length in seconds, and the CPU in it)."""

    server: float = float("nan")
    client: float = float("nan")
    burst: float = float("nan")
    burst_server: float = float("nan")
    burst_client: float = float("nan")


def kill_a_worker(pid: int, after: float, stop: threading.Event) -> None:
    """``after`` seconds from now (unless ``stop`` is set first), SIGKILL one of the web workers of the gunicorn
    master ``pid``, as an out-of-memory killer would; the requests it held count as errors of the row."""
    import signal

    import psutil

    if stop.wait(after):
        return
    workers = psutil.Process(pid).children()
    if workers:
        victim = workers[0].pid
        os.kill(victim, signal.SIGKILL)
        print(f"# killed worker {victim} at {after:g} s", file=sys.stderr, flush=True)


def measured_load(
    url: str, script: Script, *, users: int, kill_after: float | None = None, **kwargs: Any
) -> tuple[Tally, float, Cpu]:
    """:func:`run_load`, and the CPU the server and this load generator used (:class:`Cpu`); with ``kill_after``,
    one web worker is SIGKILLed that many seconds into the run (:func:`kill_a_worker`)."""
    pid = _served.get(url)
    cpu = Cpu()
    stop_killer = threading.Event()
    if pid is not None and kill_after is not None:
        threading.Thread(target=kill_a_worker, args=(pid, kill_after, stop_killer), daemon=True).start()
    if pid is None:
        tally, wall = run_load(url, script, users=users, **kwargs)
        return tally, wall, cpu
    started = time.perf_counter()
    server_before, client_before = tree_cpu(pid), time.process_time()
    done = threading.Event()
    tally_box: list[Tally] = []

    def watch() -> None:  # until every first visit has ended (or failed), then note the CPU so far
        while not done.wait(0.25):
            if tally_box and tally_box[0].visited >= users:
                cpu.burst = time.perf_counter() - started
                cpu.burst_server = tree_cpu(pid) - server_before
                cpu.burst_client = time.process_time() - client_before
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    tally = Tally()
    tally_box.append(tally)
    tally, wall = run_load(url, script, users=users, tally=tally, **kwargs)
    stop_killer.set()
    done.set()
    watcher.join()
    cpu.server = tree_cpu(pid) - server_before
    cpu.client = time.process_time() - client_before
    return tally, wall, cpu


def visit_cost(url: str, script: Script, rounds: int = 10) -> dict[str, tuple[int, float]]:
    """Server CPU of one first visit, by kind of request: the recorded page load replayed ``rounds`` times one request
    after another on one connection (after one visit that fills the memos), as the browser asks (compressed).  Per
    kind (``static``, ``page``, ``callback``, ``all``): (requests per visit, server CPU seconds per visit)."""
    import http.client
    from urllib.parse import urlsplit

    pid = _served[url]
    split = urlsplit(url)
    conn = http.client.HTTPConnection(split.hostname or "127.0.0.1", split.port or 80, timeout=60)
    headers = {"Accept-Encoding": "gzip, deflate, br, zstd"}

    def kind(req: Req) -> str:
        if req.method == "POST":
            return "callback"
        return "static" if req.path.startswith(("/_dash-component-suites/", "/assets/")) else "page"

    def send(reqs: list[Req]) -> None:
        for req in reqs:
            extra = {"Content-Type": "application/json"} if req.method == "POST" else {}
            conn.request(req.method, req.path, body=req.body, headers=headers | extra)
            conn.getresponse().read()

    send(script.load)
    out: dict[str, tuple[int, float]] = {}
    for name in ("static", "page", "callback", "all"):
        reqs = [r for r in script.load if name == "all" or kind(r) == name]
        before = tree_cpu(pid)
        for _ in range(rounds):
            send(reqs)
        out[name] = (len(reqs), (tree_cpu(pid) - before) / rounds)
    conn.close()
    return out


# ------------------------------------------------------------------------------------------------- report
def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-100) by linear interpolation (numpy's default), NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


@dataclass
class Line:
    users: int
    config: str
    system: str
    tally: Tally
    wall: float
    posts_per_move: int
    cpu: Cpu = field(default_factory=lambda: Cpu())

    def cells(self) -> list[str]:
        t = self.tally
        mv = [percentile(t.moves, q) for q in (50, 95, 99)]
        ld = [percentile(t.loads, q) for q in (50, 95, 99)]
        rt = [percentile(t.returns, q) for q in (50, 95)]
        return [
            str(self.users),
            self.config,
            f"{self.system} ({FAMILY.get(self.system, '?')})",
            f"{t.requests / self.wall:.0f}",
            f"{len(t.moves)} ({self.posts_per_move})",
            " / ".join(f"{v:.2f}" for v in mv),
            f"{len(t.loads)}: " + " / ".join(f"{v:.2f}" for v in ld),
            f"{len(t.returns)}: " + " / ".join(f"{v:.2f}" for v in rt),
            str(len(t.errors)),
            f"{t.refused} ({t.pages_refused})",
            str(t.retried),
            f"{self.cpu.burst:.1f}: {self.cpu.burst_server:.1f} / {self.cpu.burst_client:.1f}",
            f"{self.cpu.server:.0f} / {self.cpu.client:.0f}",
        ]


HEADER = [
    "users",
    "workers",
    "system",
    "req/s",
    "moves (requests each)",
    "move p50 / p95 / p99 s",
    "first visits: page load p50 / p95 / p99 s",
    "returning: page load p50 / p95 s",
    "errors",
    "refused (busy) (of which page loads refused whole)",
    "resent (closed keep-alive)",
    "first visits: all ended at s: CPU s server / load generator",
    "whole run: CPU s server / load generator",
]


def table(lines: list[Line]) -> list[str]:
    rows = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    rows += ["| " + " | ".join(line.cells()) + " |" for line in lines]
    return rows


def parse_configs(text: str) -> list[tuple[str, int, int, dict[str, str]]]:
    """``sync:2,gthread:2x4`` -> [("sync", 2, 1, {}), ("gthread", 2, 4, {})]; ``procfile`` is the Procfile as it
    is; ``@NAME=VALUE`` after either sets an environment variable of that server
    (``procfile@RATINGS_PREWARM_SECONDS=0``)."""
    out = []
    for part in text.split(","):
        head, *assignments = part.strip().split("@")
        env = {}
        for assignment in assignments:
            name, equals, value = assignment.partition("=")
            if not equals or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
                raise SystemExit(f"--configs: '{assignment}' is not NAME=VALUE")
            env[name] = value
        if head == "procfile":
            out.append(("", 2, 1, env))
            continue
        match = re.fullmatch(r"([\w.]+):(\d+)(?:x(\d+))?", head)
        if not match:
            raise SystemExit(f"--configs: '{head}' is not CLASS:WORKERS or CLASS:WORKERSxTHREADS")
        out.append((match[1], int(match[2]), int(match[3] or 1), env))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--think", default="2,6", help="think time between moves: LOW,HIGH seconds (uniform)")
    parser.add_argument("--configs", default="procfile", help="worker classes and counts, e.g. sync:2,gthread:2x4")
    parser.add_argument("--busy", help="RATINGS_BUSY_SECONDS for the server (the overload budget; 0 turns it off)")
    parser.add_argument(
        "--peer",
        help="a commit (e.g. main) measured side by side: each row runs on it too, right after this checkout's",
    )
    parser.add_argument(
        "--recordings",
        type=Path,
        help="a directory keeping the recorded requests per commit and system, reused by later runs",
    )
    parser.add_argument(
        "--cost",
        action="store_true",
        help="instead of the load: the server CPU of one first visit by kind of request (one after another, 10 times)",
    )
    parser.add_argument(
        "--kill-after",
        type=float,
        help="SIGKILL one web worker this many seconds into each row (its lost requests are the row's errors)",
    )
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    low, high = (float(x) for x in args.think.split(","))
    lines: list[Line] = []
    trees = [("this checkout", ROOT)] + (
        [(f"{args.peer} ({commit_of(args.peer)})", export(args.peer))] if args.peer else []
    )
    scripts: dict[str, dict[str, Script]] = {}
    for tree, root in trees:
        # Recorded once per tree, on a server of its own (recording computes runs, compresses scripts and fills
        # memos: the measured servers must start cold); each tree replays the requests its own page makes.
        commit = commit_of(args.peer) if root != ROOT else commit_of("HEAD")
        saved = {name: _read_script(args.recordings, commit, name) for name in systems} if args.recordings else {}
        missing = [name for name in systems if saved.get(name) is None]
        if missing:
            with serve(root=root) as url:
                print(f"# recording {', '.join(missing)} in Chromium on {tree}", file=sys.stderr, flush=True)
                saved |= record(url, missing)
        scripts[tree] = {name: script for name, script in saved.items() if script is not None}
        if args.recordings:
            for script in scripts[tree].values():
                _write_script(args.recordings, commit, script)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.cost:
        print(f"Server CPU of one first visit (ms), replayed one request after another; started {started}.")
        print("| tree | system | static files | page, layout, dependencies | callbacks | all |")
        print("|---|---|---|---|---|---|")
        for system in systems:
            for tree, root in trees:
                with serve(root=root) as url:
                    cost = visit_cost(url, scripts[tree][system])
                cells = [f"{cost[k][1] * 1000:.0f} ({cost[k][0]})" for k in ("static", "page", "callback", "all")]
                print(f"| {tree} | {system} | " + " | ".join(cells) + f" | load {os.getloadavg()[0]:.1f}", flush=True)
        return
    for system in systems:
        for worker_class, workers, threads, extra in parse_configs(args.configs):
            label = f"{worker_class or 'Procfile'} {workers}" + (f"x{threads}" if threads > 1 else "")
            label += "".join(f", {name}={value}" for name, value in extra.items())
            if args.busy is not None:
                label += f", budget {args.busy} s"
            if args.kill_after is not None:
                label += f", a worker killed at {args.kill_after:g} s"
            env = ({} if args.busy is None else {"RATINGS_BUSY_SECONDS": args.busy}) | extra
            for tree, root in trees:
                # A fresh server for each row, started as a host starts it: its first visitors are first visits.
                with serve(worker_class, workers, threads, env, root=root) as url:
                    script = scripts[tree][system]
                    tally, wall, cpu = measured_load(
                        url,
                        script,
                        users=args.users,
                        duration=args.duration,
                        think=(low, high),
                        kill_after=args.kill_after,
                    )
                shown = label if len(trees) == 1 else f"{tree}: {label}"
                line = Line(args.users, shown, system, tally, wall, len(script.move), cpu)
                lines.append(line)
                load = os.getloadavg()[0]
                print(" | ".join(line.cells()) + f" | load {load:.1f}", file=sys.stderr, flush=True)
                for error in sorted(set(tally.errors))[:5]:
                    print(f"    error: {error}", file=sys.stderr)
    load = os.getloadavg()
    text = "\n".join(
        [
            f"{args.users} users, {args.duration:.0f} s per row, commit {commit_of('HEAD')}"
            + (f" beside {args.peer} ({commit_of(args.peer)})" if args.peer else "")
            + f"; started {started}, load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}.",
            "",
            *table(lines),
        ]
    )
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()
