"""The replay loop shared by every single-rating system (the Elo family and Kerby's models).

It is the compiled twin of :meth:`ratings.systems._single.SingleRatingSystem._play`, game by
game over the flat arrays of :class:`ratings.base.Replay`: gather the participants' ratings,
append the dummy player tied with the last entrant (Kerby's never-updated dummy; with the
censored dummy every player of the worst rank and the dummy are marked censored, like DNFs), ask
the system's gradient kernel for the update direction, step by the learning rate (constant, or
piecewise linear in the rating through ``knots``/``values`` and clamped at the ends, as
``numpy.interp``), and hold the result above the floor.

A gradient kernel is a compiled function ``gradient(ratings, ranks, dnf, theta, out) -> bool`` that
writes the update direction of every participant (the dummy included) into ``out``, or returns
False for a game it does not handle (then the loop stops there, the system replays that game
through its per-game hooks and the loop resumes after it); ``theta`` carries the system's own
parameters as floats.

One loop serves every gradient: each gradient kernel is wrapped in a :func:`numba.cfunc` of one
signature (:data:`SIGNATURE`, arrays as pointers and lengths), cached on disk like the loop, and the
loop receives it as an argument (a first-class function) and calls it through its address.  The
loop is therefore compiled once for the four systems, and its compile does not re-optimise the
gradient's machine code, which numba would otherwise link into the loop and optimise again (with
every function it calls) for each of four loops: the costliest part of the compile.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import carray, cfunc, types

from ratings.kernels.elo import multielo_gradient, pairwise_gradient
from ratings.kernels.jit import entry
from ratings.kernels.numerics import interp, largest_game
from ratings.kernels.plackett_luce import plackett_luce_gradient
from ratings.kernels.thurstonian import thurstonian_gradient

__all__ = [
    "MULTIELO",
    "PAIRWISE",
    "PLACKETT_LUCE",
    "SIGNATURE",
    "THURSTONIAN",
    "Games",
    "Rules",
    "compiled_gradient",
    "replay_single",
]

#: ``kind`` of each gradient kernel.
MULTIELO = 0
PAIRWISE = 1
PLACKETT_LUCE = 2
THURSTONIAN = 3

#: ``(offsets, players, ranks, dnf)`` of :class:`ratings.base.Replay`.
Games = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: ``(eta, knots, values, dummy, has_dummy, floor, has_floor, censored)``: the rules every single-rating
#: system shares (``censored``: the dummy's tie for the worst rank is an unobserved order).
Rules = tuple[float, np.ndarray, np.ndarray, float, bool, float, bool, bool]

#: ``gradient(ratings, ranks, dnf, players, theta, parameters, out) -> handled``: the participants'
#: arrays as pointers to ``players`` values, ``theta`` as a pointer to ``parameters`` values.
SIGNATURE = types.boolean(
    types.CPointer(types.float64),
    types.CPointer(types.int64),
    types.CPointer(types.boolean),
    types.int64,
    types.CPointer(types.float64),
    types.int64,
    types.CPointer(types.float64),
)


def _multielo(r: Any, ranks: Any, dnf: Any, n: int, theta: Any, k: int, out: Any) -> bool:
    multielo_gradient(carray(r, n), carray(ranks, n), carray(dnf, n), carray(theta, k), carray(out, n))
    return True


def _pairwise(r: Any, ranks: Any, dnf: Any, n: int, theta: Any, k: int, out: Any) -> bool:
    pairwise_gradient(carray(r, n), carray(ranks, n), carray(dnf, n), carray(theta, k), carray(out, n))
    return True


def _plackett_luce(r: Any, ranks: Any, dnf: Any, n: int, theta: Any, k: int, out: Any) -> bool:
    return plackett_luce_gradient(carray(r, n), carray(ranks, n), carray(dnf, n), carray(theta, k), carray(out, n))


def _thurstonian(r: Any, ranks: Any, dnf: Any, n: int, theta: Any, k: int, out: Any) -> bool:
    return thurstonian_gradient(carray(r, n), carray(ranks, n), carray(dnf, n), carray(theta, k), carray(out, n))


_ENTRIES = {MULTIELO: _multielo, PAIRWISE: _pairwise, PLACKETT_LUCE: _plackett_luce, THURSTONIAN: _thurstonian}


@functools.cache
def compiled_gradient(kind: int) -> Any:
    """The :func:`numba.cfunc` of the gradient ``kind`` (compiled, or loaded from the cache, on first use:
    a process compiles only the gradients its systems use), cached in the kernels' own cache directory."""
    from ratings.kernels import caching_here

    with caching_here():
        return cfunc(SIGNATURE, cache=True, error_model="numpy")(_ENTRIES[kind])


@entry
def _loop(
    gradient: Any,
    theta: np.ndarray,
    games: Games,
    rating: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    rules: Rules,
    start: int,
) -> int:
    offsets, players, ranks, dnf = games
    eta, knots, values, dummy, has_dummy, floor, has_floor, censored = rules
    n_games = len(offsets) - 1
    largest = largest_game(offsets)
    r = np.empty(largest + 1)
    rk = np.empty(largest + 1, dtype=np.int64)
    fail = np.empty(largest + 1, dtype=np.bool_)
    g = np.empty(largest + 1)
    for game in range(start, n_games):
        s = offsets[game]
        n = offsets[game + 1] - s
        for i in range(n):
            r[i] = rating[players[s + i]]
            rk[i] = ranks[s + i]
            fail[i] = dnf[s + i]
            before[s + i] = r[i]
        if n >= 2:
            m = n
            if has_dummy:
                last = 0  # the first entrant with the worst rank, as numpy.argmax picks
                for i in range(1, n):
                    if rk[i] > rk[last]:
                        last = i
                r[n] = dummy
                rk[n] = rk[last]
                fail[n] = fail[last]
                if censored:
                    for i in range(n + 1):
                        if rk[i] == rk[last]:
                            fail[i] = True
                m = n + 1
            if not gradient(r.ctypes, rk.ctypes, fail.ctypes, m, theta.ctypes, len(theta), g.ctypes):
                return game
            for i in range(n):
                step = eta if len(knots) == 0 else interp(r[i], knots, values)
                x = r[i] + step * g[i]
                if has_floor and x < floor:
                    x = floor
                rating[players[s + i]] = x
        for i in range(n):
            after[s + i] = rating[players[s + i]]
    return n_games


def replay_single(
    kind: int,
    theta: np.ndarray,
    games: Games,
    rating: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    rules: Rules,
    start: int,
) -> int:
    """Replay the games from ``start`` with the gradient ``kind``, updating ``rating`` in place and
    filling ``before``/``after``.

    Returns the number of games (all replayed) or the first game the gradient did not handle.

    ``games`` is ``(offsets, players, ranks, dnf)``; ``rules`` is ``(eta, knots, values, dummy,
    has_dummy, floor, has_floor, censored)``.
    """
    return int(_loop(compiled_gradient(kind), theta, games, rating, before, after, rules, start))
