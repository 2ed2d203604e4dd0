"""Compiled replays (numba) of the rating systems, and their warm-up.

Each system with a kernel overrides the batch hook :meth:`ratings.base.RatingSystem._replay`;
its per-game hooks stay as the reference the kernel is tested against
(:meth:`ratings.base.RatingSystem.rate_per_game`).  Kernels are compiled with ``cache=True``:
the first call in a fresh installation compiles them (seconds), later processes load the
machine code from :data:`CACHE_DIR`.

numba checks a cached function against the time stamp of the file that defines it only, not
against the functions and constants it takes from other modules (numba issue #6845), so an
edited gradient or constant would silently keep its old machine code.  The cache therefore lives
in a directory named by a digest of every source the kernels read (this package and
``ratings/systems``): ``numba-<digest>`` under ``NUMBA_CACHE_DIR`` when set, else under this
package's ``__pycache__`` (or ``~/.cache/ratings`` where that is read-only).

Call :func:`warm_up` at start-up so that no user waits for a compile.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from numba.core import config as numba_config

from ratings.history import Entry, Game, GameHistory

__all__ = ["CACHE_DIR", "SYSTEMS_WITH_KERNELS", "WARM_UP_GROUPS", "source_digest", "warm_up"]

_PACKAGE = Path(__file__).resolve().parent


def source_digest() -> str:
    """A digest of every source file the compiled kernels depend on."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.glob("*.py")) + sorted((_PACKAGE.parent / "systems").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _cache_root() -> Path:
    configured = os.environ.get("NUMBA_CACHE_DIR")
    if configured:
        return Path(configured)
    local = _PACKAGE / "__pycache__"
    try:
        local.mkdir(exist_ok=True)
        if os.access(local, os.W_OK):
            return local
    except OSError:
        pass
    return Path.home() / ".cache" / "ratings"


def _prune(root: Path, keep: Path) -> None:
    """Remove the caches of earlier versions of the sources (best effort)."""
    for old in root.glob("numba-*"):
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)


#: Where the compiled kernels are cached.
CACHE_DIR = _cache_root() / f"numba-{source_digest()}"
_prune(CACHE_DIR.parent, CACHE_DIR)

# The cache location is read when a function is decorated, so the kernel modules are imported here,
# inside the setting, which is then given back to any other numba code of the process.
_previous = numba_config.CACHE_DIR  # type: ignore[attr-defined]
numba_config.CACHE_DIR = str(CACHE_DIR)  # type: ignore[attr-defined]
try:
    from ratings.kernels import (  # noqa: F401
        elo,
        elo_mmr,
        glicko2,
        numerics,
        plackett_luce,
        single,
        thurstonian,
        trueskill,
    )
finally:
    numba_config.CACHE_DIR = _previous  # type: ignore[attr-defined]

#: Registry names of the systems whose :meth:`~ratings.base.RatingSystem.rate` runs a kernel.
SYSTEMS_WITH_KERNELS: tuple[str, ...] = (
    "multielo",
    "pairwise-elo",
    "plackett-luce",
    "glicko2",
    "trueskill",
    "elo-mmr",
    "thurstonian",
)


def _tiny_history() -> GameHistory:
    """Two games with a tie and a DNF: enough to reach every compiled function once."""
    return GameHistory(
        [
            Game("1", (Entry("a", 1), Entry("b", 1), Entry("c", None))),
            Game("2", (Entry("b", 1), Entry("c", 2))),
        ]
    )


#: Systems whose kernels are compiled together in one process by :func:`warm_up`, the costliest first: the
#: single-rating systems share one replay loop (the first call compiles every gradient it dispatches to).
WARM_UP_GROUPS: tuple[tuple[str, ...], ...] = (
    ("multielo", "pairwise-elo", "plackett-luce", "thurstonian"),
    ("elo-mmr", "trueskill", "glicko2"),
)
#: Written into :data:`CACHE_DIR` once every kernel is compiled there: a restart then only loads machine code.
_WARM_MARK = "warm"


def _first_calls(names: list[str] | tuple[str, ...]) -> dict[str, float]:
    """Seconds of the first replay of each system in this process (a compile, or a load from the cache)."""
    from ratings.systems import create

    history = _tiny_history()
    seconds = {}
    for name in names:
        system = create(name)
        started = time.perf_counter()
        system.rate(history)
        seconds[name] = time.perf_counter() - started
    return seconds


def _compile_in_processes(processes: int) -> dict[str, float]:
    """Compile the :data:`WARM_UP_GROUPS` into the on-disk cache in up to ``processes`` child processes at once.

    numba compiles in the interpreter, one function at a time, so on a cold cache one process uses one core;
    the groups share no kernel, so children compiling them side by side fill the cache in about the time of the
    costliest group.  Returns each system's first-call seconds as its child measured them; a child that fails
    leaves its systems to be compiled in this process.
    """
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(CACHE_DIR.parent),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(_PACKAGE.parent.parent), os.environ.get("PYTHONPATH")])),
    }
    script = "import json, sys; from ratings.kernels import _first_calls; print(json.dumps(_first_calls(sys.argv[1:])))"
    pending = list(WARM_UP_GROUPS)
    running: list[subprocess.Popen[str]] = []
    seconds: dict[str, float] = {}
    while pending or running:
        while pending and len(running) < processes:
            group = pending.pop(0)
            running.append(
                subprocess.Popen(
                    [sys.executable, "-c", script, *group],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
            )
        child = running.pop(0)
        out, _ = child.communicate()
        if child.returncode == 0:
            with contextlib.suppress(ValueError, IndexError):  # an unreadable answer: compiled here instead
                seconds.update(json.loads(out.strip().splitlines()[-1]))
    return seconds


def warm_up(processes: int | None = None) -> dict[str, float]:
    """Compile (or load from the on-disk cache) every kernel; seconds of the first call per system.

    With a cold cache and more than one core (``processes``, default: the CPU count), the kernel groups are
    compiled side by side in child processes (:func:`_compile_in_processes`) and the figures are theirs; this
    process then loads the machine code from the cache.  With a warm cache each figure is the time to load the
    machine code (milliseconds).  Systems sharing a kernel (the single-rating systems share one replay loop)
    are listed in :data:`SYSTEMS_WITH_KERNELS` order, and the first of them pays for the shared part.
    """
    processes = (os.cpu_count() or 1) if processes is None else processes
    mark = CACHE_DIR / _WARM_MARK
    compiled: dict[str, float] = {}
    if processes > 1 and not mark.exists():
        compiled = _compile_in_processes(processes)
    seconds = _first_calls(SYSTEMS_WITH_KERNELS)
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        mark.touch()
    except OSError:
        pass
    return {name: compiled.get(name, seconds[name]) for name in SYSTEMS_WITH_KERNELS}
