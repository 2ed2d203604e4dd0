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

One loop is compiled per gradient (:func:`_compiled_loop`): the loop's source is shared, and the
gradient is picked by the integer ``kind`` (:data:`MULTIELO`, :data:`PAIRWISE`, ...), a constant
of each loop's closure, so that numba prunes the other gradients' branches before typing them.
A system therefore compiles only its own gradient (one loop holding every gradient compiled
all four, and re-optimised them once more in each enclosing function).  The kind is a constant
rather than an argument: a dispatcher argument makes numba refuse to cache the compiled loop on
disk, and numba's cache keys a closure by its constants, so the four loops cache side by side.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from ratings.kernels.elo import multielo_gradient, pairwise_gradient
from ratings.kernels.numerics import interp, largest_game
from ratings.kernels.plackett_luce import plackett_luce_gradient
from ratings.kernels.thurstonian import thurstonian_gradient

__all__ = ["MULTIELO", "PAIRWISE", "PLACKETT_LUCE", "THURSTONIAN", "Games", "Rules", "replay_single"]

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
#: ``loop(theta, games, rating, before, after, rules, start) -> int``.
Loop = Callable[[np.ndarray, Games, np.ndarray, np.ndarray, np.ndarray, Rules, int], int]


def _compiled_loop(kind: int) -> Loop:
    """The replay loop with the gradient ``kind``, compiled on its first call (see the module docstring)."""

    @njit(cache=True, error_model="numpy")
    def loop(
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
                handled = True
                if kind == MULTIELO:
                    multielo_gradient(r[:m], rk[:m], fail[:m], theta, g[:m])
                elif kind == PAIRWISE:
                    pairwise_gradient(r[:m], rk[:m], fail[:m], theta, g[:m])
                elif kind == PLACKETT_LUCE:
                    handled = plackett_luce_gradient(r[:m], rk[:m], fail[:m], theta, g[:m])
                else:
                    handled = thurstonian_gradient(r[:m], rk[:m], fail[:m], theta, g[:m])
                if not handled:
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

    return loop


_LOOPS = {kind: _compiled_loop(kind) for kind in (MULTIELO, PAIRWISE, PLACKETT_LUCE, THURSTONIAN)}


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
    return _LOOPS[kind](theta, games, rating, before, after, rules, start)
