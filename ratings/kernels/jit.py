"""How a kernel function is compiled: :data:`entry` (called from Python) or :data:`helper` (only called from
compiled code), and their few variants (:data:`inlined`, the raising error model, LLVM's fast-math flags for
the loops of one kernel that gain by them).

An entry caches its machine code (:data:`ratings.kernels.CACHE_DIR`) and releases the GIL while it runs
(``nogil``: it touches no Python object), so that a web worker's other threads go on serving pages while one of
them replays a history; the app still runs one replay at a time per process (:mod:`sources.runs`).

Both use numpy's error model: a division by zero gives an infinity or a NaN, as in the per-game reference code
on numpy arrays, instead of raising ``ZeroDivisionError`` (the replay's checks of finite results report it). One
error model also means numba compiles its own implementations (``np.empty``, ``max``, ...) once, not once per
model; the exception, Glicko-2 (:data:`raising_entry`), is measured below.

A :data:`helper` has no CPython wrapper (the code that unboxes Python arguments, which numba otherwise
generates, optimises and compiles for every function) and no C wrapper: a caller links the helper's code
and inlines it, and a cached caller loads with its helpers' code inside.  Calling a helper from Python
fails; tests call it through a compiled function of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit
from numba.extending import register_jitable

from ratings.kernels import caching_here

__all__ = ["contracted", "entry", "helper", "inlined", "raising_entry", "raising_helper", "reassociated"]


def _cached(**options: Any) -> Callable[[Any], Any]:
    """``njit(cache=True, **options)``, decorating inside :func:`ratings.kernels.caching_here`: numba picks a
    function's cache locator when it is decorated, and a kernel module is imported when its system first rates
    (not with :mod:`ratings.kernels`), whoever imports it first."""
    compile_cached = njit(cache=True, **options)

    def decorate(function: Any) -> Any:
        with caching_here():
            return compile_cached(function)

    return decorate


#: A function called from Python (a replay, or a function the tests compare with scipy).
entry = _cached(error_model="numpy", nogil=True)
#: A function called only from compiled code.
helper = register_jitable(error_model="numpy", no_cfunc_wrapper=True)
#: A function with one caller (a gradient, called by its ``cfunc``), inlined there by numba before typing: no
#: library of its own, which the caller's would link and optimise again (on the Thurstonian kernel alone,
#: 9.25 s of compile CPU against 9.96 s, medians of 3; from Python it compiles as an ordinary function).
inlined = njit(error_model="numpy", inline="always")
#: :data:`entry` and :data:`helper` with numba's default error model (a division by zero raises), for Glicko-2's
#: replay: it took 58 ms of CPU on compare.py's history L with numpy's model against 50 ms with this one (both
#: needed: either one alone on numpy's model was as slow; 2026-11-26, medians of 9 replays, alternating runs).
raising_entry = _cached(nogil=True)
raising_helper = register_jitable(no_cfunc_wrapper=True)
#: A :data:`helper` whose sums LLVM may reassociate, so that it vectorises them (LLVM's
#: ``reassoc`` flag only: NaNs, infinities and signed zeros keep their meaning, and the checks that read
#: them with it).  A sum in another order differs in its last bits, far inside the agreement of 1e-9.
reassociated = register_jitable(error_model="numpy", no_cfunc_wrapper=True, fastmath={"reassoc"})
#: A :data:`helper` whose ``a * b + c`` LLVM may fuse into one instruction (``contract``:
#: one rounding instead of two; nothing else changes).
contracted = register_jitable(error_model="numpy", no_cfunc_wrapper=True, fastmath={"contract"})
