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

import hashlib
import os
import shutil
import time
from pathlib import Path

from numba.core import config as numba_config

from ratings.history import Entry, Game, GameHistory

__all__ = ["CACHE_DIR", "SYSTEMS_WITH_KERNELS", "source_digest", "warm_up"]

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


def warm_up() -> dict[str, float]:
    """Compile (or load from the on-disk cache) every kernel; seconds of the first call per system.

    Systems sharing a kernel (the single-rating systems share one replay loop) are listed in
    :data:`SYSTEMS_WITH_KERNELS` order, and the first of them pays for the shared part.  With a
    warm cache each figure is the time to load the machine code (milliseconds).
    """
    from ratings.systems import create

    history = _tiny_history()
    seconds = {}
    for name in SYSTEMS_WITH_KERNELS:
        system = create(name)
        started = time.perf_counter()
        system.rate(history)
        seconds[name] = time.perf_counter() - started
    return seconds
