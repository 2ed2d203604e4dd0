"""Compiled replays (numba) of the rating systems, and their warm-up.

Each system with a kernel overrides the batch hook :meth:`ratings.base.RatingSystem._replay`;
its per-game hooks stay as the reference the kernel is tested against
(:meth:`ratings.base.RatingSystem.rate_per_game`).  Kernels are compiled with ``cache=True``:
the first call in a fresh installation compiles them (seconds), later processes load the
machine code from ``__pycache__`` beside these modules (or ``NUMBA_CACHE_DIR``).

Call :func:`warm_up` at start-up so that no user waits for a compile.
"""

from __future__ import annotations

import time

from ratings.history import Entry, Game, GameHistory

__all__ = ["SYSTEMS_WITH_KERNELS", "warm_up"]

#: Registry names of the systems whose :meth:`~ratings.base.RatingSystem.rate` runs a kernel.
SYSTEMS_WITH_KERNELS: tuple[str, ...] = ("multielo", "pairwise-elo", "plackett-luce", "glicko2", "trueskill", "elo-mmr")


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
