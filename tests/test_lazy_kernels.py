"""A process pays for the systems it uses (issue 28 item 4): importing :mod:`ratings` loads no compiled code, and
rating with one system imports, compiles or loads only that system's kernels.

Each check runs in a fresh interpreter (what a command-line user starts), which reports what it imported and which
compiled functions hold machine code after one replay.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ratings.systems import SYSTEM_NAMES

ROOT = Path(__file__).resolve().parent.parent

#: What each system's replay may import of ratings.kernels (besides the package, ``jit`` and ``numerics``):
#: the four single-rating systems share one loop (``single``), which names every gradient kernel module; ``elo``
#: takes the Gaussian pair model's large-field sums from ``gaussian_pairs`` (helpers only: nothing compiled there).
_SINGLE = {"single", "elo", "gaussian_pairs", "plackett_luce", "thurstonian"}
_ALLOWED = {
    "multielo": _SINGLE,
    "pairwise-elo": _SINGLE,
    "plackett-luce": _SINGLE,
    "thurstonian": _SINGLE,
    "trueskill": {"trueskill"},
    "elo-mmr": {"elo_mmr"},
    "glicko2": {"glicko2", "elo", "gaussian_pairs"},
}
#: The gradient kind of each single-rating system in ``ratings.kernels.single``.
_KIND = {
    "multielo": "MULTIELO",
    "pairwise-elo": "PAIRWISE",
    "plackett-luce": "PLACKETT_LUCE",
    "thurstonian": "THURSTONIAN",
}

_SCRIPT = r"""
import json, sys
import ratings
before = sorted(m for m in sys.modules if m == "numba" or m.startswith(("numba.", "ratings.kernels")))
from ratings import Entry, Game, GameHistory, create
history = GameHistory([
    Game("1", (Entry("a", 1), Entry("b", 2), Entry("c", None))),
    Game("2", (Entry("b", 1), Entry("c", 2))),
])
create(sys.argv[1]).rate(history)
kernels = sorted(m.split(".")[2] for m in sys.modules if m.startswith("ratings.kernels."))
compiled = []
for name in kernels:
    for value in vars(sys.modules["ratings.kernels." + name]).values():
        if getattr(value, "_cache", None) is not None and getattr(value, "overloads", None):
            compiled.append(value.py_func.__name__)
gradients = None
single = sys.modules.get("ratings.kernels.single")
if single is not None:
    gradients = single.compiled_gradient.cache_info().currsize
print(json.dumps({"before": before, "kernels": kernels, "compiled": sorted(set(compiled)), "gradients": gradients}))
"""


def _report(system: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, system], env=env, capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.parametrize("system", SYSTEM_NAMES)
def test_rating_with_one_system_loads_only_its_kernels(system: str) -> None:
    report = _report(system)
    # `import ratings` alone: no numba, no kernel module
    assert report["before"] == []
    kernels = set(report["kernels"])
    assert kernels - {"jit", "numerics"} <= _ALLOWED[system], kernels
    assert _ALLOWED[system] & kernels, kernels  # the system did run a kernel of its own
    others = {"trueskill", "elo_mmr", "glicko2"} - _ALLOWED[system]
    assert not others & kernels
    compiled = report["compiled"]
    if system in _KIND:
        # the shared loop only, and the one gradient of this system (wrapped in its own cfunc)
        assert compiled == ["_loop"]
        assert report["gradients"] == 1
    else:
        assert compiled == [f"replay_{system.replace('-', '_')}"]
        assert report["gradients"] is None


def test_the_gradient_a_single_rating_system_loads_is_its_own() -> None:
    # Which gradient the one cached cfunc is: asking again for this system's kind is a cache hit, not a new entry.
    script = (
        "import sys\n"
        "from ratings import Entry, Game, GameHistory, create\n"
        "create('plackett-luce').rate(GameHistory([Game('1', (Entry('a', 1), Entry('b', 2)))]))\n"
        "from ratings.kernels import single\n"
        "single.compiled_gradient(single.PLACKETT_LUCE)\n"
        "info = single.compiled_gradient.cache_info()\n"
        "print(info.hits, info.currsize)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr
    hits, size = done.stdout.split()
    assert int(size) == 1 and int(hits) >= 1


#: Modules a ``rate`` command has no use for, each costing 0.3-0.6 s of import: the search's optimiser and design
#: (``tune``, ``compare``) and the quadrature of a large tie's win probability (``evaluate --metric log-loss``).
_SEARCH_ONLY = ("scipy.optimize", "scipy.stats", "scipy.integrate")


@pytest.mark.parametrize("argv", [["--help"], ["rate", "sample:poker", "--system", "multielo"]])
def test_a_command_line_start_imports_no_search_machinery(argv: list[str]) -> None:
    # The parser names every command's options (the scoring commands' metrics among them) for every command, so
    # building it must not import what only the search uses; before this, ``--help`` cost 1.1 s of CPU, 0.2 s after.
    script = (
        "import runpy, sys, json, contextlib, io\n"
        f"sys.argv = ['ratings', *{argv!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        runpy.run_module('ratings', run_name='__main__')\n"
        "    except SystemExit as stop:\n"
        "        assert not stop.code, stop.code\n"
        f"print(json.dumps(sorted(m for m in {_SEARCH_ONLY!r} if m in sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
