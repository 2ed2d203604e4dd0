"""Thurstonian crowds beyond the hosted bound: one first game of n players with equal ratings, its CPU, peak memory
and error against the expected normal order statistics (David and Nagaraja, eq. 2.1.6, by adaptive quadrature:
``tests.test_thurstonian.expected_normal_order_statistic``), with ``Thurstonian.crowd_cells = None`` as the command
line sets it for a local file.  Run from the repository root::

    python benchmarks/thurstonian_crowds.py 4096 8000 20000
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratings import Entry, Game, GameHistory, create  # noqa: E402
from ratings.systems.thurstonian import Thurstonian  # noqa: E402
from tests.test_thurstonian import expected_normal_order_statistic  # noqa: E402


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [4096, 8000, 20000]
    system = create("thurstonian")
    assert isinstance(system, Thurstonian)
    system.crowd_cells = None
    system.rate(GameHistory([Game("g", tuple(Entry(f"p{q}", q + 1) for q in range(500)))]))  # loads the kernels
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
            f"largest error {error:.1e} (places {places})",
            flush=True,
        )


if __name__ == "__main__":
    main()
