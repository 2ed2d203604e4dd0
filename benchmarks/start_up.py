"""How a fresh start of the Procfile's web process looks to a platform: seconds until the port accepts connections,
until the page is served, and the memory of the master and its workers (PSS, idle after the first page).

Runs this checkout and, with ``--peer DIR``, another (for example the previous commit in a worktree) in alternating
rounds on the same machine, each with its own empty store and a warm kernel cache (built first, outside the timing).
Prints one line per start and the medians::

    .venv/bin/python benchmarks/start_up.py --peer /tmp/peer --rounds 3

Timings are wall-clock on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _command(root: Path, workers: int, port: int) -> list[str]:
    line = next(x for x in (root / "Procfile").read_text().splitlines() if x.startswith("web:"))
    words = shlex.split(re.sub(r"\$\{WEB_CONCURRENCY:-\d+\}", str(workers), line.partition(":")[2]))
    return [str(Path(sys.executable).parent / "gunicorn"), *words[1:], "--bind", f"127.0.0.1:{port}"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pss_mb(pid: int) -> float:
    """Proportional set size of ``pid`` and its children (a worker's pages shared with the master counted once)."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    total = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def start_once(root: Path, workers: int, prewarm: str) -> tuple[float, float, float]:
    """(seconds to a bound port, seconds to the page served, PSS in MB after the page)."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as store:
        env = {**os.environ, "SECRET_KEY": "bench", "RATINGS_STORE_DIR": store, "RATINGS_PREWARM_SECONDS": prewarm}
        started = time.monotonic()
        proc = subprocess.Popen(
            _command(root, workers, port),
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        bound = time.monotonic() - started
                        break
                except OSError:
                    time.sleep(0.02)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=300) as answer:
                answer.read()
            served = time.monotonic() - started
            time.sleep(1.0)
            return bound, served, _pss_mb(proc.pid)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, help="another checkout to start in alternating rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--prewarm", default="20", help="RATINGS_PREWARM_SECONDS (default 20, the app's default)")
    args = parser.parse_args()
    roots = {"this": ROOT, **({"peer": args.peer.resolve()} if args.peer else {})}
    for root in roots.values():  # the kernel cache built outside the timing (a build step does it on a PaaS)
        subprocess.run([sys.executable, "-m", "ratings.kernels"], cwd=root, check=True, capture_output=True)
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in roots}
    print(f"load {os.getloadavg()[0]:.1f}; {args.workers} workers; RATINGS_PREWARM_SECONDS={args.prewarm}")
    for round_ in range(args.rounds):
        for name, root in roots.items():
            bound, served, pss = start_once(root, args.workers, args.prewarm)
            results[name].append((bound, served, pss))
            figures = f"port bound {bound:6.2f} s  page served {served:6.2f} s  PSS {pss:6.0f} MB"
            print(f"round {round_ + 1} {name:5s} {figures}")
    for name, rows in results.items():
        bound, served, pss = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"median {name:5s} port bound {bound:6.2f} s  page served {served:6.2f} s  PSS {pss:6.0f} MB")
    print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
