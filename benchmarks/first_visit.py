"""Server CPU of a first visit's callbacks, one by one: what fifty people opening the page at once cost the server.

Run: ``.venv/bin/python benchmarks/first_visit.py [--query "?sample=racing"] [--rounds 3]``.  It prints a table and
asserts nothing.

1. **Recording.**  Headless Chromium (Debian's, as the browser tests use) opens the page on a server of this process
   (werkzeug, a fresh temporary store) and records the body of every callback request the page sends until it is
   drawn and quiet: exactly the requests a first visit makes, whatever the callbacks of the day are.
2. **Replay.**  The same bodies are posted again, in order, through Flask's test client in this process, ``--rounds``
   times; each request's CPU time (``time.thread_time``: neither other processes on a shared machine nor this
   process's background threads, such as the scripts' compression, count) and
   its answer's size are taken.  The first round pays the replays and the memo's first reads; later rounds are what
   every later first visitor costs, with the runs memoised (the start-up prewarm makes that the case on gunicorn).
   The table shows the round of median total, slowest first, and the total of every round.  The rounds run twice:
   with the shared memo of answers turned off (each answer computed) and on (:mod:`answer_memo`: each answer sent as
   stored, compressed), so the table shows what a first visit costs before and after the first visitor.

The static files (scripts, style sheets) are not replayed: they are the same bytes for everyone, compressed once
(``static_files.py``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

CHROMIUM = "/usr/lib/chromium/chromium"
UPDATE = "/_dash-update-component"
#: What Chromium accepts.
ACCEPT = {"Accept-Encoding": "gzip, deflate, br, zstd"}


def record(base: str, query: str, timeout_s: float) -> list[str]:
    """The bodies of the callback requests a fresh browser sends while opening ``base + query``."""
    from playwright.sync_api import sync_playwright

    bodies: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page()
        page.on("request", lambda r: bodies.append(r.post_data or "") if UPDATE in r.url else None)
        page.goto(base + "/" + query)
        page.wait_for_selector(".leaderboard .ag-row", timeout=timeout_s * 1000)
        for _ in range(2):  # drawn, then quiet for a second (a late request still counts)
            page.wait_for_timeout(1000)
            page.wait_for_function("() => !document.querySelector('[data-dash-is-loading]')", timeout=timeout_s * 1000)
        browser.close()
    return bodies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--query", default="?sample=racing", help="the page address's query (default ?sample=racing)")
    parser.add_argument("--rounds", type=int, default=5, help="replays of the recorded requests (default 5)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the page")
    args = parser.parse_args()
    os.environ["RATINGS_STORE_DIR"] = tempfile.mkdtemp(prefix="first-visit-")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    from page_latency import commit
    from werkzeug.serving import make_server

    import app as app_module
    from web import answer_memo

    server = make_server("127.0.0.1", 0, app_module.server, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bodies = record(f"http://127.0.0.1:{server.server_port}", args.query, args.timeout)
    server.shutdown()
    client = app_module.server.test_client()
    memo = answer_memo.process_memo()
    assert memo is not None
    load = os.getloadavg()
    print(
        f"First visit of `/{args.query}`: {len(bodies)} callback requests; commit {commit()}; load average "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}."
    )
    medians: dict[str, list[tuple[float, int, int, str]]] = {}
    for label, enabled in (("computed (the answer memo off)", False), ("from the answer memo", True)):
        memo.enabled = enabled
        totals, rounds = replay(client, bodies, args.rounds)
        print(f"CPU of all the requests, {label}, per round: " + ", ".join(f"{t * 1000:.1f} ms" for t in totals))
        medians[label] = rounds[sorted(range(len(totals)), key=totals.__getitem__)[len(totals) // 2]]
    print()
    computed, memoised = medians.values()
    print("| callback (outputs) | CPU ms computed | CPU ms from the memo | status | answer KB (as sent) |")
    print("|---|---|---|---|---|")
    for (seconds, status, _size, output), (hit, _status, size, _output) in sorted(
        zip(computed, memoised, strict=True), reverse=True
    ):
        shown = output if len(output) <= 90 else output[:87] + "..."
        print(f"| {shown} | {seconds * 1000:.1f} | {hit * 1000:.2f} | {status} | {size / 1000:.1f} |")


def replay(client: Any, bodies: list[str], rounds: int) -> tuple[list[float], list[list[tuple[float, int, int, str]]]]:
    """Post ``bodies`` in order ``rounds`` times (compressed as a browser asks): each round's total CPU, and each
    request's (CPU seconds, status, bytes sent, outputs)."""
    totals: list[float] = []
    out: list[list[tuple[float, int, int, str]]] = []
    for _ in range(rounds):
        rows: list[tuple[float, int, int, str]] = []
        out.append(rows)
        for body in bodies:
            started = time.thread_time()
            answer = client.post(UPDATE, data=body, content_type="application/json", headers=ACCEPT)
            seconds = time.thread_time() - started
            output = str(json.loads(body).get("output", "?")).strip(".").replace("...", ", ")
            rows.append((seconds, answer.status_code, len(answer.data), output))
        totals.append(sum(r[0] for r in rows))
    return totals, out


if __name__ == "__main__":
    main()
