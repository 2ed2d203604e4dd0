"""Peak memory and wall time of reading the hostile inputs of issue 13 (items 2 and 4).

Each input is read in a fresh subprocess (address space limited to 1 GB with ``resource.setrlimit``, as the
tests do) and the subprocess's peak resident memory (``VmHWM``) and wall time are printed.  Files go
through ``sources.uploads.read_upload`` (the upload path); sheet answers come from the fake Sheets server
(tests/sheets_server.py) over loopback HTTP and go through ``SheetSource.read``.  Run from the repository root::

    .venv/bin/python benchmarks/hostile_inputs.py
    .venv/bin/python benchmarks/hostile_inputs.py --only csv    # names containing "csv"

The baseline (an empty Python importing the readers) is printed first: the figures include it.
Timings are wall-clock on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.sheets_server import FakeSheets  # noqa: E402

_spec = importlib.util.spec_from_file_location("hostile_files", ROOT / "tests" / "fixtures" / "io" / "hostile.py")
assert _spec is not None and _spec.loader is not None
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)

LIMIT = 1024**3
KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF"

PRELUDE = f"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
from ratings.history import HistoryError
from sources.uploads import read_upload
from sources.sheets import SheetError
"""

UPLOAD = """
import base64
with open(sys.argv[1], "rb") as handle:
    contents = "data:application/octet-stream;base64," + base64.b64encode(handle.read()).decode()
started = time.monotonic()
try:
    outcome = f"read {read_upload(contents, sys.argv[2]).history.n_games} games"
except HistoryError as error:
    outcome = str(error.problems[0])
"""

SHEET = """
import gspread
from sources.cache import LastGoodCache
from sources.sheets import GspreadBackend, PublicCsvBackend, RetryPolicy, SheetRef, SheetSource
from tests.sheets_server import routed_session
base, mode = sys.argv[1], sys.argv[2]
if mode == "csv":
    backend = PublicCsvBackend(routed_session(base, token=None))
    ref = SheetRef(sys.argv[3], gid=0)
else:
    backend = GspreadBackend(gspread.Client(auth=None, session=routed_session(base)))
    ref = SheetRef(sys.argv[3], worksheet="Games")
source = SheetSource(ref, backend, cache=LastGoodCache(), retry=RetryPolicy(1, 0.0))
started = time.monotonic()
try:
    outcome = f"read {source.read().history.n_games} games"
except (SheetError, HistoryError) as error:
    outcome = str(error)
"""

REPORT = """
elapsed = time.monotonic() - started
with open("/proc/self/status") as status:  # VmHWM: ru_maxrss would include the parent's image before exec
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
print(json.dumps({"outcome": outcome, "seconds": elapsed, "max_rss_mb": peak}))
"""


def run(script: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + script + REPORT, *args], capture_output=True, text=True, env=env, cwd=ROOT
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        return {"outcome": "CRASHED: " + done.stderr.strip().splitlines()[-1], "seconds": wall, "max_rss_mb": None}
    result: dict[str, object] = json.loads(done.stdout)
    return result


def show(name: str, size: str, result: dict[str, object]) -> None:
    rss = result["max_rss_mb"]
    memory = f"{rss:7.0f} MB" if isinstance(rss, float) else "      -   "
    seconds = result["seconds"]
    assert isinstance(seconds, float)
    print(f"{name:34} {size:>9} {memory} {seconds:7.2f} s   {str(result['outcome'])[:110]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only the inputs whose name contains this text")
    args = parser.parse_args()
    print(f"{'input':34} {'size':>9} {'peak RSS':>10} {'time':>9}   outcome")
    show("(baseline: imports only)", "-", run("started = time.monotonic(); outcome = 'nothing read'"))
    files = dict(hostile.HOSTILE)
    files["xlsx-32M-empty-rows (0.3 MB)"] = ("rows32.xlsx", lambda: hostile.xlsx_empty_rows(32_000_000))
    with tempfile.TemporaryDirectory() as folder:
        for name, (filename, make) in files.items():
            if args.only not in name:
                continue
            path = Path(folder) / filename
            path.write_bytes(make())
            show(name, f"{path.stat().st_size / 1e3:.0f} kB", run(UPLOAD, str(path), filename))
            path.unlink()
    sheets = [
        ("sheet-csv-50MB-declared", "csv", "huge", {"size": 50 * 2**20, "declared": True}),
        ("sheet-csv-50MB-blank-lines", "csv", "huge", {"size": 50 * 2**20}),
        ("sheet-csv-9MB-blank-lines", "csv", "huge", {"size": 9 * 2**20}),
        ("sheet-api-50MB-json", "api", "huge", {"size": 50 * 2**20}),
        ("sheet-csv-drip-1-byte-per-2s", "csv", "drip", {"seconds": 2.0}),
        ("sheet-api-drip-1-byte-per-2s", "api", "drip", {"seconds": 2.0}),
    ]
    for name, mode, action, options in sheets:
        if args.only not in name:
            continue
        with FakeSheets() as fake:
            fake.add_spreadsheet(KEY, {"Games": [["date", "1st", "2nd"], ["2024-03-01", "Ann", "Bob"]]})
            fake.plan(action, match="/export" if mode == "csv" else "/values/", **options)  # type: ignore[arg-type]
            show(name, "-", run(SHEET, fake.base_url, mode, KEY))


if __name__ == "__main__":
    main()
