"""Snapshots of a run's numbers, for the tests that pin a system's output at an earlier commit.

:func:`digest` holds a run bit for bit.  The Thurstonian model's kernels sum with fastmath's reassociation
(:data:`ratings.kernels.jit.reassociated`), so the order of a sum's terms, and the last bits, follow the machine's
vector width: numba's code for an AVX-512 machine moves its runs on the bundled samples by up to 3e-14 from the AVX2
code their digests were taken on (measured 2026-11-28 on an AVX-512 machine, with numba's CPU features set both ways:
without AVX-512 the digests are reproduced exactly).  Its snapshots are :func:`projections` instead, taken from the
run that reproduces the digest (numba built without AVX-512 features) and held to :data:`PROJECTION_TOLERANCE`.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ratings import RatingRun

#: The two builds' projections differ by at most 3.4e-13 (the racing sample's 32,344 values); any one rating moved
#: by 1e-9 moves a projection past this unless its weight is under 0.1 in both.
PROJECTION_TOLERANCE = 1e-10


def digest(run: RatingRun) -> str:
    """SHA-256 (first 16 hex digits) of every rating before and after every game and of every extra series (sorted
    by name)."""
    sha = hashlib.sha256()
    for values in [run.before, run.after] + [x for key in sorted(run.extras) for x in run.extras[key]]:
        sha.update(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return sha.hexdigest()[:16]


def projections(run: RatingRun) -> np.ndarray:
    """Two projections of every rating before and after every game onto weights uniform in [-1, 1] drawn from
    ``default_rng(2026)`` (a run without extra series: the Thurstonian model has none)."""
    assert not run.extras
    values = np.concatenate([run.before, run.after])
    return np.random.default_rng(2026).uniform(-1.0, 1.0, (2, len(values))) @ values
