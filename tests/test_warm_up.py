"""After ``warm_up()`` no replay compiles: what the app (and gunicorn's --preload master) relies on.

numba announces every compile (not a load from its cache) as a ``numba:compile`` event; replays of every system
with every option family of the kernel agreement test, whole and resumed, on histories with ties, DNFs, dates
and one-player games, must not raise one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from numba import njit
from numba.core import event
from numba.core.caching import NullCache

from ratings import create
from ratings.kernels import warm_up
from ratings.samples import load_sample
from tests.test_kernels import CASES, random_history


def test_no_replay_compiles_after_warm_up() -> None:
    warm_up()
    racing = load_sample("racing")
    first_of_each = {name: params for name, params in reversed(CASES)}
    with event.install_recorder("numba:compile") as recorder:
        for name, params in CASES:
            system = create(name, **params)
            run = system.rate(random_history(11, n_games=100))
            system.rate(random_history(12, n_games=110), resume=run)
            if first_of_each[name] is params:
                system.rate(racing)

        @njit
        def fresh(x: float) -> float:  # the recorder does see a compile
            return x + 1.0

        fresh(1.0)
    compiled = sorted({e.data["dispatcher"].py_func.__qualname__ for _, e in recorder.buffer if e.is_start})
    assert compiled == [fresh.py_func.__qualname__]


def test_the_gradients_load_from_the_cache_after_warm_up() -> None:
    # The gradients are numba cfuncs, whose compiles the numba:compile events above do not announce: in a
    # fresh process after warm_up() each must come from the on-disk cache (numba counts those loads).
    warm_up()
    script = (
        "from ratings.kernels.single import compiled_gradient, MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN; "
        "print([compiled_gradient(k).cache_hits for k in (MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN)])"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=root)
    assert done.stdout.strip() == "[1, 1, 1, 1]"


def test_every_compiled_function_is_cached_under_the_source_digest() -> None:
    # numba checks a cached function only against its own file's time stamp; the digest-named directory is what
    # keeps an edited kernel from loading old machine code, so nothing may be cached anywhere else (the gradients'
    # cfunc wrappers, created on first use, once went to numba's default place beside single.py).
    from ratings.kernels import CACHE_DIR, elo, elo_mmr, glicko2, numerics, plackett_luce, single, thurstonian
    from ratings.kernels import trueskill as trueskill_kernel
    from ratings.kernels.single import MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN, compiled_gradient

    caches = [compiled_gradient(k)._cache for k in (MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN)]
    modules = (elo, elo_mmr, glicko2, numerics, plackett_luce, single, thurstonian, trueskill_kernel)
    dispatchers = [v for m in modules for v in vars(m).values() if hasattr(v, "_cache") and hasattr(v, "py_func")]
    # The gradients are inlined into their cfunc (ratings.kernels.jit.inlined) and cache nothing of their own.
    dispatchers = [d for d in dispatchers if not isinstance(d._cache, NullCache)]
    assert sorted(d.py_func.__name__ for d in dispatchers) == [
        "_loop",
        "replay_elo_mmr",
        "replay_glicko2",
        "replay_trueskill",
    ]
    caches += [d._cache for d in dispatchers]
    outside = [c._cache_path for c in caches if not Path(c._cache_path).is_relative_to(CACHE_DIR)]
    assert outside == []


def test_a_warm_cache_moved_with_the_sources_loads_without_compiling(tmp_path: Path) -> None:
    # What a build-time `python -m ratings.kernels` relies on: the package and its warm cache copied elsewhere
    # (a platform builds in one directory and runs in another; the copy's files get new time stamps) load there
    # with no compile at all.  numba's own user-directory cache would miss here: it names its folders by a hash
    # of their absolute path.
    import shutil

    from ratings.kernels import CACHE_DIR

    warm_up()
    root = Path(__file__).resolve().parent.parent
    copy = tmp_path / "elsewhere"
    shutil.copytree(
        root / "ratings", copy / "ratings", ignore=shutil.ignore_patterns("__pycache__"), copy_function=shutil.copy
    )
    shutil.copytree(CACHE_DIR, copy / "ratings" / "kernels" / "__pycache__" / CACHE_DIR.name, copy_function=shutil.copy)
    script = (
        "from numba.core import event\n"
        "from ratings import create\n"
        "from ratings.kernels import CACHE_DIR, SYSTEMS_WITH_KERNELS, _tiny_history\n"
        "from ratings.kernels.single import compiled_gradient, MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN\n"
        "with event.install_recorder('numba:compile') as recorder:\n"
        "    for name in SYSTEMS_WITH_KERNELS:\n"
        "        create(name).rate(_tiny_history())\n"
        "print(CACHE_DIR)\n"
        "print(sum(1 for _, e in recorder.buffer if e.is_start))\n"
        "print([compiled_gradient(k).cache_hits for k in (MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN)])\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["PYTHONPATH"] = str(copy)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=copy)
    cache_dir, compiles, hits = done.stdout.strip().splitlines()[-3:]
    assert Path(cache_dir).is_relative_to(copy)
    assert (compiles, hits) == ("0", "[1, 1, 1, 1]")


def test_caching_here_gives_back_numba_s_setting_when_threads_overlap() -> None:
    # numba's locator setting is one global: a second thread entering while the first is inside must not leave
    # the kernels' locator set for every other numba user once both are out.  Without a lock the second thread
    # enters during the first one's pause, records the kernels' setting as "previous", leaves last and restores it.
    import threading
    import time

    from numba.core import config as numba_config

    from ratings.kernels import caching_here

    original = numba_config.CACHE_LOCATOR_CLASSES  # type: ignore[attr-defined]
    inside, trying, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def first() -> None:
        with caching_here():
            inside.set()
            trying.wait(5)
            time.sleep(0.3)  # time for the second thread to enter, were nothing stopping it
        first_out.set()

    def second() -> None:
        inside.wait(5)
        trying.set()
        with caching_here():
            seen.append(numba_config.CACHE_LOCATOR_CLASSES)  # type: ignore[attr-defined]
            first_out.wait(5)  # leave after the first thread (which it follows anyway when they take turns)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    leftover = numba_config.CACHE_LOCATOR_CLASSES  # type: ignore[attr-defined]
    numba_config.CACHE_LOCATOR_CLASSES = original  # type: ignore[attr-defined]  # for the tests after this one, whatever happened
    assert seen and "KernelCacheLocator" in seen[0]
    assert leftover == original
