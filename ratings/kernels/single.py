"""The replay loop shared by every single-rating system (the Elo family and Kerby's models).

It is the compiled twin of :meth:`ratings.systems._single.SingleRatingSystem._play`, game by
game over the flat arrays of :class:`ratings.base.Replay`: gather the participants' ratings,
append the dummy player tied with the last entrant (Kerby's never-updated dummy; with the
censored dummy every player of the worst rank and the dummy are marked censored, like DNFs), ask the
system's gradient kernel for the update direction, step by the learning rate (constant, or
piecewise linear in the rating through ``knots``/``values`` and clamped at the ends, as
``numpy.interp``), and hold the result above the floor.

A gradient kernel is a compiled function ``gradient(ratings, ranks, dnf, theta, out) -> bool`` that
writes the update direction of every participant (the dummy included) into ``out``, or returns
False for a game it does not handle (then the loop stops there, the system replays that game
through its per-game hooks and the loop resumes after it); ``theta`` carries the system's own
parameters as floats.  The loop picks the gradient by the integer
``kind`` (:data:`MULTIELO`, :data:`PAIRWISE`, ...) rather than taking the function as an
argument: a dispatcher argument makes numba refuse to cache the compiled loop on disk.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ratings.kernels.elo import multielo_gradient, pairwise_gradient
from ratings.kernels.numerics import interp
from ratings.kernels.plackett_luce import plackett_luce_gradient
from ratings.kernels.thurstonian import thurstonian_gradient

__all__ = ["MULTIELO", "PAIRWISE", "PLACKETT_LUCE", "THURSTONIAN", "Games", "Rules", "gradient", "replay_single"]

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


@njit(cache=True)
def gradient(kind: int, r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, theta: np.ndarray, out: np.ndarray) -> bool:
    """The update direction of one game (dummy included) by the system ``kind``; False if not handled."""
    if kind == MULTIELO:
        multielo_gradient(r, ranks, dnf, theta, out)
    elif kind == PAIRWISE:
        pairwise_gradient(r, ranks, dnf, theta, out)
    elif kind == PLACKETT_LUCE:
        return plackett_luce_gradient(r, ranks, dnf, theta, out)
    elif kind == THURSTONIAN:
        return thurstonian_gradient(r, ranks, dnf, theta, out)
    return True


@njit(cache=True)
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
    """Replay the games from ``start``, updating ``rating`` in place and filling ``before``/``after``.

    Returns the number of games (all replayed) or the first game the gradient did not handle.

    ``games`` is ``(offsets, players, ranks, dnf)``; ``rules`` is ``(eta, knots, values, dummy,
    has_dummy, floor, has_floor, censored)``.
    """
    offsets, players, ranks, dnf = games
    eta, knots, values, dummy, has_dummy, floor, has_floor, censored = rules
    n_games = len(offsets) - 1
    largest = 1
    for game in range(n_games):
        largest = max(largest, offsets[game + 1] - offsets[game])
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
            if not gradient(kind, r[:m], rk[:m], fail[:m], theta, g[:m]):
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
