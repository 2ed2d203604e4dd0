"""Thurstonian crowds beyond the hosted bound: one first game of n players with equal ratings, its CPU, peak memory
and error against the expected normal order statistics (David and Nagaraja, eq. 2.1.6, by adaptive quadrature:
``tests.test_thurstonian.expected_normal_order_statistic``), with ``Thurstonian.crowd_cells = None`` as the command
line sets it for a local file; and the same order's gradient through the kernel's whole-grid crowd (``_crowd``, the
computation before the banded one) and through the banded one (``_banded``), their CPU and largest difference.
Run from the repository root (``--banded-only`` skips the whole grid, about 90 s at 20,000)::

    python benchmarks/thurstonian_crowds.py 4096 8000 20000

``--contests c0005 c0010`` instead rates the scale-1 contests history (``benchmarks/contests.py``) with its ties up to
the last contest named, each contest resumed from the run before it (``rate(..., resume=)``), and prints the named
contests' CPU (``rate()`` of that one game), their tied groups, the process's peak RSS and the largest update::

    python benchmarks/thurstonian_crowds.py --contests c0001 c0002 c0003 c0004 c0005
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numba import njit  # noqa: E402

from ratings import Entry, Game, GameHistory, create  # noqa: E402
from ratings.base import ComputationError  # noqa: E402
from ratings.kernels import thurstonian as kernel  # noqa: E402
from ratings.systems.thurstonian import Thurstonian  # noqa: E402
from tests.test_thurstonian import expected_normal_order_statistic  # noqa: E402


@njit
def _gradient(r: np.ndarray, chain: np.ndarray, bottom: np.ndarray, banded: bool) -> np.ndarray:
    """One order's gradient through ``_banded`` or ``_crowd`` (NaN where it declines)."""
    lo, step, g, _ = kernel._plan(r, chain, bottom)
    out = np.zeros(len(r))
    if not banded:
        if not kernel._crowd(r, chain, bottom, 1.0, out, lo, step, g):
            out[:] = np.nan
        return out
    coincide = np.empty(len(chain) - 1 + len(bottom))
    if not kernel._banded(r, chain, bottom, lo, step, g, coincide, kernel._NEGLIGIBLE):
        out[:] = np.nan
        return out
    for k in range(len(chain) - 1):
        out[chain[k]] -= coincide[k]
        out[chain[k + 1]] += coincide[k]
    for d in range(len(bottom)):
        out[bottom[d]] -= coincide[len(chain) - 1 + d]
        out[chain[0]] += coincide[len(chain) - 1 + d]
    return out


def _paths(n: int, whole: bool) -> str:
    """CPU of one order of n equal ratings through each path, and their largest difference."""
    r = np.zeros(n)
    chain, bottom = np.arange(n - 2, -1, -1), np.array([n - 1])
    started = time.process_time()
    banded = _gradient(r, chain, bottom, True)
    banded_cpu = time.process_time() - started
    if not whole:
        return f"banded {banded_cpu:.2f} s"
    started = time.process_time()
    reference = _gradient(r, chain, bottom, False)
    whole_cpu = time.process_time() - started
    difference = np.max(np.abs(banded - reference))
    return f"whole grid {whole_cpu:.2f} s, banded {banded_cpu:.2f} s, largest difference {difference:.1e}"


def contests(names: list[str]) -> None:
    """Rate the scale-1 contests history with its ties up to the last of ``names``, each contest resumed from the run
    before it; print each named contest's CPU, tied groups and largest update."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from contests import contests as drawn_contests

    drawn = drawn_contests(1.0)  # (as contests_history(1.0) names them: c0001 the first; only those rated are built)
    last = max(int(name[1:]) for name in names) - 1
    games = []
    for c in range(last + 1):
        s, e = drawn.offsets[c], drawn.offsets[c + 1]
        places = drawn.places[s:e].tolist()
        games.append(
            Game(
                f"c{c + 1:04d}",
                tuple(Entry(f"p{p:06d}", q) for p, q in zip(drawn.players[s:e].tolist(), places, strict=True)),
            )
        )
    history = GameHistory(games)
    system = create("thurstonian")
    assert isinstance(system, Thurstonian)
    system.crowd_cells = None
    run = None
    total = 0.0
    for c in range(last + 1):
        game = history.games[c]
        started = time.process_time()
        try:
            run = system.rate(GameHistory(history.games[: c + 1]), resume=run)
        except ComputationError as error:
            print(f"{game.id}: refused after {time.process_time() - started:.1f} s CPU: {error}", flush=True)
            return
        cpu = time.process_time() - started
        total += cpu
        if game.id not in names:
            continue
        places = np.array([e.place for e in game.entries])
        sizes = np.unique(places, return_counts=True)[1]
        change = (run.after - run.before)[run.history.offsets[c] :] / system.params.eta
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{game.id}: {len(places):>6,} players, tied groups {int(np.sum(sizes > 1)):,} (largest {sizes.max()}, "
            f"{int(np.sum(sizes > 5))} beyond five): {cpu:6.1f} s CPU, peak RSS {peak:5.0f} MB, largest update "
            f"{np.abs(change).max():.3f}, finite {bool(np.all(np.isfinite(change)))}",
            flush=True,
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    results = int(history.offsets[-1])
    print(f"c0001-{history.games[last].id}: {results:,} results, {total:.1f} s CPU in rate(), peak RSS {peak:.0f} MB")


def main() -> None:
    if "--contests" in sys.argv:
        contests([a for a in sys.argv[1:] if not a.startswith("--")])
        return
    whole = "--banded-only" not in sys.argv
    sizes = [int(a) for a in sys.argv[1:] if not a.startswith("--")] or [4096, 8000, 20000]
    system = create("thurstonian")
    assert isinstance(system, Thurstonian)
    system.crowd_cells = None
    system.rate(GameHistory([Game("g", tuple(Entry(f"p{q}", q + 1) for q in range(500)))]))  # loads the kernels
    _paths(500, whole)  # compiles the two paths
    for n in sizes:
        history = GameHistory([Game("g", tuple(Entry(f"p{q}", q + 1) for q in range(n)))])
        started = time.process_time()
        run = system.rate(history)
        cpu = time.process_time() - started
        change = (run.after - run.before) / system.params.eta
        places = (1, 2, n // 4, n // 2, n - 1, n)
        error = max(abs(change[n - k] - expected_normal_order_statistic(k, n)) for k in places)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"n {n:>6,}: {cpu:6.1f} s CPU, peak RSS {peak:5.0f} MB, finite {bool(np.all(np.isfinite(change)))}, "
            f"largest error {error:.1e} (places {places}); one order: {_paths(n, whole)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
