"""Compiled replays (numba) of the rating systems, and their warm-up.

Each system with a kernel overrides the batch hook :meth:`ratings.base.RatingSystem._replay`;
its per-game hooks stay as the reference the kernel is tested against
(:meth:`ratings.base.RatingSystem.rate_per_game`).  Kernels are compiled with ``cache=True``:
the first call in a fresh installation compiles them (seconds), later processes load the
machine code from :data:`CACHE_DIR`.

numba checks a cached function against the file that defines it only (its content hash in numba
0.68, its time stamp before), not against the functions and constants it takes from other modules
(numba issue #6845), so an edited gradient or constant would silently keep its old machine code.
The cache therefore lives in a directory named by a digest of every source the kernels read (this package,
``ratings/systems``, ``ratings/base.py`` and ``ratings/numerics.py``): ``numba-<digest>`` under
``NUMBA_CACHE_DIR`` when set, else under this package's ``__pycache__`` (or ``~/.cache/ratings``
where that is read-only).  Every compiled function, the gradients' ``cfunc`` wrappers included, is
cached there (:func:`caching_here`), none in numba's default place beside its source, and the cache
does not depend on where the checkout lies (:class:`KernelCacheLocator`).

Importing this package loads no kernel: each kernel module is imported (and its machine code loaded from the
cache, or compiled) when a system that uses it first rates, so a process pays only for the systems it uses.
Every cached function is decorated inside :func:`caching_here` (:mod:`ratings.kernels.jit`), whichever module
imports it first.  Call :func:`warm_up` at start-up so that no user waits for a compile; ``python -m
ratings.kernels`` does it as a build step, so that the start-up only loads machine code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from numba.core import caching as numba_caching
from numba.core import config as numba_config
from numba.core.caching import UserProvidedCacheLocator

from ratings.history import Entry, Game, GameHistory

__all__ = [
    "CACHE_DIR",
    "SYSTEMS_WITH_KERNELS",
    "WARM_UP_GROUPS",
    "KernelCacheLocator",
    "caching_here",
    "source_digest",
    "warm_up",
]

_PACKAGE = Path(__file__).resolve().parent


#: The modules outside this package and ``ratings/systems`` whose values compiled code reads
#: (``NO_DATE`` in the Glicko-2 kernel, ``LOG_SQRT_2PI`` in the Thurstonian grid).
_ALSO_READ = ("base.py", "numerics.py")


def source_digest() -> str:
    """A digest of every source file the compiled kernels depend on."""
    digest = hashlib.sha256()
    sources = sorted(_PACKAGE.glob("*.py")) + sorted((_PACKAGE.parent / "systems").glob("*.py"))
    for path in sources + [_PACKAGE.parent / name for name in _ALSO_READ]:
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


class KernelCacheLocator(UserProvidedCacheLocator):
    """numba's cache locator for the kernels: :data:`CACHE_DIR`, one directory per source folder by its name
    alone (numba's own user-directory locator adds a hash of the folder's absolute path).

    So the cache does not depend on where the checkout lies: one compiled at build time in one directory
    loads in another (a platform's build directory, then the app's), as long as the sources are the same
    (the digest in :data:`CACHE_DIR`'s name) and the CPU is (numba keys each entry by the CPU's name and
    features, and compiles anew, correctly, on another).  numba 0.68 stamps each entry with its source
    file's content hash, not its time stamp, so a copy that changes time stamps keeps the cache valid too.
    """

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = str(CACHE_DIR / Path(py_file).parent.name)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KernelCacheLocator | None:
        if Path(py_file).resolve().parent not in _SOURCE_FOLDERS:
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


#: The folders whose compiled functions :class:`KernelCacheLocator` places (their names differ).
_SOURCE_FOLDERS = (_PACKAGE, _PACKAGE.parent / "systems")


#: Held while :func:`caching_here` has numba's (process-wide) locator setting swapped.
_LOCATOR_LOCK = threading.RLock()


@contextlib.contextmanager
def caching_here() -> Iterator[None]:
    """numba's cache locator set to :class:`KernelCacheLocator` inside, given back to any other numba code after.

    numba picks the locator when a function is decorated (``njit``, or ``cfunc``: the gradients'
    wrappers are created on first use, see :func:`ratings.kernels.single.compiled_gradient`), so every
    kernel is decorated inside this.  The setting is one global of numba's, so one thread at a time
    swaps it (a lock, re-entrant for nested use): two threads creating gradients at once would
    otherwise interleave, and the last to leave would give back the other's setting, ours, for good.
    """
    with _LOCATOR_LOCK:
        previous = numba_config.CACHE_LOCATOR_CLASSES  # type: ignore[attr-defined]
        # Ours first; any other cached function decorated meanwhile (a library imported here for the first
        # time) falls through to the locators numba would have used.
        others = previous or ",".join(cls.__name__ for cls in numba_caching.CacheImpl._locator_classes)
        numba_config.CACHE_LOCATOR_CLASSES = f"{__name__}.{KernelCacheLocator.__name__},{others}"  # type: ignore[attr-defined]
        try:
            yield
        finally:
            numba_config.CACHE_LOCATOR_CLASSES = previous  # type: ignore[attr-defined]


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


#: How :func:`warm_up` splits the compile on a cold cache: the first group in one child process, the second in the
#: calling process meanwhile.  Balanced by measurement: each group compiled alone in a fresh process took 11.2 and
#: 11.0 s of CPU (the Thurstonian gradient with TrueSkill, the rest), where the earlier split (Thurstonian with
#: Elo-MMR) took 13.2 and 9.0 s (2026-11-27, one run each, load 2.7-3.3).
WARM_UP_GROUPS: tuple[tuple[str, ...], ...] = (
    ("thurstonian", "trueskill"),
    ("multielo", "pairwise-elo", "plackett-luce", "glicko2", "elo-mmr"),
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


def _start_child(group: tuple[str, ...]) -> subprocess.Popen[str] | None:
    """A child process compiling ``group`` into the on-disk cache (None if it cannot start)."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(CACHE_DIR.parent),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(_PACKAGE.parent.parent), os.environ.get("PYTHONPATH")])),
    }
    script = "import json, sys; from ratings.kernels import _first_calls; print(json.dumps(_first_calls(sys.argv[1:])))"
    try:
        return subprocess.Popen(
            [sys.executable, "-c", script, *group],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError:
        return None


def _child_seconds(child: subprocess.Popen[str] | None) -> dict[str, float]:
    """The first-call seconds the child measured ({} if it failed: its systems are then compiled here)."""
    if child is None:
        return {}
    out, _ = child.communicate()
    if child.returncode == 0:
        with contextlib.suppress(ValueError, IndexError):
            return dict(json.loads(out.strip().splitlines()[-1]))
    return {}


def warm_up(processes: int | None = None) -> dict[str, float]:
    """Compile (or load from the on-disk cache) every kernel; seconds of the first call per system.

    numba compiles in the interpreter, one function at a time, so on a cold cache one process uses one
    core.  With a cold cache and more than one core (``processes``, default: the CPU count), one child
    process compiles the first of :data:`WARM_UP_GROUPS` into the cache while this process compiles the
    second (they share only small helpers), then this process loads the child's machine code from the
    cache: about the time of the costlier group instead of the sum.  The child's figures are reported for
    its systems.  With a warm cache no child starts and each figure is the time to load machine code
    (milliseconds).  Systems sharing compiled code are listed in :data:`SYSTEMS_WITH_KERNELS` order.
    """
    processes = (os.cpu_count() or 1) if processes is None else processes
    mark = CACHE_DIR / _WARM_MARK
    child = None
    here: dict[str, float] = {}
    if processes > 1 and not mark.exists():
        child = _start_child(WARM_UP_GROUPS[0])
        if child is not None:
            here = _first_calls(WARM_UP_GROUPS[1])
    compiled = _child_seconds(child)
    seconds = _first_calls([name for name in SYSTEMS_WITH_KERNELS if name not in here])
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        mark.touch()
    except OSError:
        pass
    return {name: here.get(name, compiled.get(name, seconds.get(name, 0.0))) for name in SYSTEMS_WITH_KERNELS}
