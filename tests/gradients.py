"""The compiled gradient kernels called from Python through the replay's own cached cfuncs
(:func:`ratings.kernels.single.compiled_gradient`, by ctypes).

A gradient kernel is compiled to be inlined into its cfunc (:data:`ratings.kernels.jit.inlined`): called directly
from Python it is compiled afresh in every test process, without a cache (2.5 s of CPU for multiplayer Elo's, 3.6 s
for Plackett-Luce's, 8.9 s for pairwise Elo's on a quiet machine).  Through its cfunc a test runs the machine code
the replay runs, loaded from the kernels' cache that ``make kernels`` built.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ratings.kernels.single import MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN, compiled_gradient

__all__ = ["MULTIELO", "PAIRWISE", "PLACKETT_LUCE", "THURSTONIAN", "call_gradient"]

_DOUBLE, _INT64, _BOOL = (ctypes.POINTER(t) for t in (ctypes.c_double, ctypes.c_int64, ctypes.c_bool))


def call_gradient(
    kind: int, r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray
) -> bool:
    """``gradient(r, ranks, dnf, theta, out)`` of the kernel ``kind`` (:data:`MULTIELO` ...): writes the update
    direction into ``out`` (float64, contiguous: written in place) and returns what the kernel returns (False for
    a game it declines; multiplayer and pairwise Elo's always True)."""
    n = len(r)
    if out.dtype != np.float64 or not out.flags.c_contiguous or len(out) != n:
        raise ValueError("out must be a contiguous float64 array as long as r")
    r = np.ascontiguousarray(r, dtype=np.float64)
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    dnf = np.ascontiguousarray(dnf, dtype=np.bool_)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    if len(ranks) != n or len(dnf) != n:
        raise ValueError("r, ranks and dnf must be as long as each other")
    function = compiled_gradient(kind).ctypes
    return bool(
        function(
            r.ctypes.data_as(_DOUBLE),
            ranks.ctypes.data_as(_INT64),
            dnf.ctypes.data_as(_BOOL),
            n,
            theta.ctypes.data_as(_DOUBLE),
            len(theta),
            out.ctypes.data_as(_DOUBLE),
        )
    )
