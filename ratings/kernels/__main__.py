"""Compile every kernel into the on-disk cache: ``python -m ratings.kernels`` (a build or install step), and the
large-file CSV reader's loops into theirs (:func:`ratings.io.long_bytes.warm_up`).

Run where the app will run (the same sources, the same kind of CPU), the app's start-up then only loads
machine code (:func:`ratings.kernels.warm_up` finds the cache warm).  Prints the cache directory and the
first-call seconds of each system; a second run prints milliseconds.
"""

from __future__ import annotations

import time

from ratings.kernels import CACHE_DIR, warm_up


def main() -> None:
    started, used = time.perf_counter(), time.process_time()
    seconds = warm_up()
    from ratings.io import long_bytes  # the large-file reader's loops (cached beside their own source)

    reader = long_bytes.warm_up()
    wall, cpu = time.perf_counter() - started, time.process_time() - used
    print(f"numba kernels cached in {CACHE_DIR}")
    print(", ".join(f"{name} {s:.2f} s" for name, s in seconds.items()) + f"; the CSV reader {reader:.2f} s")
    print(f"warm_up: {wall:.1f} s wall, {cpu:.1f} s CPU in this process (a compiling child's not counted)")


if __name__ == "__main__":
    main()
