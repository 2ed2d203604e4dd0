"""The replay loop shared by every single-rating system (the Elo family and Kerby's models).

It is the compiled twin of :meth:`ratings.systems._single.SingleRatingSystem._play`, game by
game over the flat arrays of :class:`ratings.base.Replay`: gather the participants' ratings,
append the dummy player tied with the last entrant (Kerby's never-updated dummy; with the
censored dummy every player of the worst rank and the dummy are marked censored, like DNFs), ask
the system's gradient kernel for the update direction, step by the learning rate (constant, or
piecewise linear in the rating through ``knots``/``values`` and clamped at the ends, as
``numpy.interp``), and hold the result above the floor.

Team games (:class:`Teams`, :mod:`ratings.systems._teams`) run in the same loop: with ``team_strength`` the game is
rated between the teams' weighted sums (or means) of ratings and each member takes its share of its team's
gradient; with a composite ``team_method`` (multiplayer Elo) each member's gradient comes from a game of one
virtual opponent per other team.  The arithmetic is the reference path's, in the same order, so that a kernel and
the per-game hooks agree to the last bit or nearly (tests/test_kernels.py holds them to 1e-9).

A gradient kernel is a compiled function ``gradient(ratings, ranks, dnf, theta, out) -> bool`` that
writes the update direction of every participant (the dummy included) into ``out``, or returns
False for a game it does not handle (then the loop stops there, the system replays that game
through its per-game hooks and the loop resumes after it); ``theta`` carries the system's own
parameters as floats.

One loop serves every gradient: each gradient kernel is wrapped in a :func:`numba.cfunc` of one
signature (:data:`SIGNATURE`, arrays as pointers and lengths), cached on disk like the loop, and the
loop receives its address as an integer argument and calls it there (:func:`_gradient_call`).  The
loop is therefore compiled once for the four systems, and its compile does not re-optimise the
gradient's machine code, which numba would otherwise link into the loop and optimise again (with
every function it calls) for each of four loops: the costliest part of the compile.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numba import carray, cfunc, types
from numba.extending import intrinsic

from ratings.base import NO_DATE
from ratings.kernels.elo import multielo_gradient, pairwise_gradient
from ratings.kernels.jit import entry, helper
from ratings.kernels.numerics import idle_days, interp, largest_game
from ratings.kernels.plackett_luce import plackett_luce_gradient
from ratings.kernels.thurstonian import thurstonian_gradient

__all__ = [
    "COMPOSITE_OPPONENT",
    "COMPOSITE_TEAM",
    "MEAN",
    "MULTIELO",
    "PAIRWISE",
    "PLACKETT_LUCE",
    "SIGNATURE",
    "SUM",
    "THURSTONIAN",
    "Dynamics",
    "Games",
    "Rules",
    "Teams",
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
#: ``(team_game, team, weight, mode)``: per game of the replay whether it is a team game; per entry (indexed as
#: ``players``) its team in its game and its weight; how teams are rated (:data:`SUM` ... :data:`COMPOSITE_OPPONENT`).
Teams = tuple[np.ndarray, np.ndarray, np.ndarray, int]

#: ``mode`` of :data:`Teams`: a team's strength is the sum or the mean of its ratings (Kerby's models), or each
#: member meets the other teams as composite opponents (multiplayer Elo).
SUM = 0
MEAN = 1
COMPOSITE_TEAM = 2
COMPOSITE_OPPONENT = 3
#: ``(eta, knots, values, dummy, has_dummy, floor, has_floor, censored)``: the rules every single-rating
#: system shares (``censored``: the dummy's tie for the worst rank is an unobserved order).
Rules = tuple[float, np.ndarray, np.ndarray, float, bool, float, bool, bool]
#: ``(days, last_day, experience, (boost, boost_games, forget_per_day, pull_per_day, initial), experience_before,
#: experience_after)``: the time and experience rules (:mod:`ratings.systems._single`); ``days`` (per game) and
#: ``last_day`` (per player) are read only when an idle rule is on, ``experience`` (per player) and the per-entry
#: series of it around each game only with a boost.
Dynamics = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

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


def _gradient_call(
    typingctx: Any, address: Any, r: Any, ranks: Any, dnf: Any, n: Any, theta: Any, k: Any, out: Any
) -> Any:
    """``_call_gradient(address, r, ranks, dnf, n, theta, k, out)``: call the gradient at ``address`` (its
    :func:`numba.cfunc`'s ``address``) with :data:`SIGNATURE`'s arguments.

    The loop takes the gradient as an address rather than as the cfunc itself: numba types a cfunc argument and
    asks Python for its addresses on every call of the loop (about 11 us of the 12.6 us a call of the loop cost
    with no game to replay, against 1.8 us for the same arguments without it), where an address is an integer.
    The call is the one numba makes through a first-class function's address (``c_addr``), so the gradient's
    machine code and its results are the same.
    """
    signature = SIGNATURE.return_type(types.int64, *SIGNATURE.args)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = context.get_value_type(types.FunctionPrototype(SIGNATURE.return_type, SIGNATURE.args))
        return builder.call(builder.inttoptr(args[0], pointer), args[1:])

    return signature, codegen


#: :func:`_gradient_call` as numba's intrinsic (typed ``Any``: numba's stubs count the typing context among its
#: arguments).
_call_gradient: Any = intrinsic(_gradient_call)

_ENTRIES = {MULTIELO: _multielo, PAIRWISE: _pairwise, PLACKETT_LUCE: _plackett_luce, THURSTONIAN: _thurstonian}


@functools.cache
def compiled_gradient(kind: int) -> Any:
    """The :func:`numba.cfunc` of the gradient ``kind`` (compiled, or loaded from the cache, on first use:
    a process compiles only the gradients its systems use), cached in the kernels' own cache directory."""
    from ratings.kernels import caching_here

    with caching_here():
        return cfunc(SIGNATURE, cache=True, error_model="numpy")(_ENTRIES[kind])


@helper
def _add_dummy(r: Any, rk: Any, fail: Any, n: int, dummy: float, censored: bool) -> None:
    """Append the dummy after the ``n`` entrants, tied with the first of the worst rank (as numpy.argmax picks)."""
    last = 0
    for i in range(1, n):
        if rk[i] > rk[last]:
            last = i
    r[n] = dummy
    rk[n] = rk[last]
    fail[n] = False  # the dummy finishes (ratings.systems._single.SingleRatingSystem._with_dummy says why)
    if censored:
        for i in range(n + 1):
            if rk[i] == rk[last]:
                fail[i] = True


@helper
def _team_gradient(
    gradient: int,
    theta: np.ndarray,
    s: int,
    n: int,
    r: np.ndarray,
    rk: np.ndarray,
    fail: np.ndarray,
    g: np.ndarray,
    member: np.ndarray,
    share: np.ndarray,
    work: np.ndarray,
    work_rk: np.ndarray,
    work_fail: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    team: np.ndarray,
    weight: np.ndarray,
    mode: int,
    dummy: float,
    has_dummy: bool,
    censored: bool,
) -> bool:
    """Each member's update direction in a team game (into ``share``), from its rating in ``member``.

    The twin of :meth:`SingleRatingSystem._team_gradient` and :meth:`MultiElo._team_gradient`; ``work`` (two
    rows), ``work_rk`` and ``work_fail`` are work space of the game's size.
    """
    count = 0
    for i in range(n):
        count = max(count, team[s + i] + 1)
    total = work[0]
    mean = work[1]
    for t in range(count):
        total[t] = 0.0
        mean[t] = 0.0
    for i in range(n):  # weighted sums in entry order, as numpy.bincount adds them
        t = team[s + i]
        mean[t] += weight[s + i] * member[i]
        total[t] += weight[s + i]
        rk[t] = ranks[s + i]
        fail[t] = dnf[s + i]
    team_rk = work_rk
    team_fail = work_fail
    for t in range(count):
        team_rk[t] = rk[t]
        team_fail[t] = fail[t]
    if mode < COMPOSITE_TEAM:  # SUM or MEAN
        for t in range(count):
            r[t] = mean[t] / total[t] if mode == MEAN else mean[t]
        m = count
        if has_dummy:
            _add_dummy(r, rk, fail, count, dummy, censored)
            m = count + 1
        if not _call_gradient(gradient, r.ctypes, rk.ctypes, fail.ctypes, m, theta.ctypes, len(theta), g.ctypes):
            return False
        for i in range(n):
            t = team[s + i]
            share[i] = g[t] * (weight[s + i] / total[t] if mode == MEAN else weight[s + i])
        return True
    for t in range(count):
        mean[t] = mean[t] / total[t]
    for i in range(n):  # composite opponents (design document 002), one virtual game per member
        own = team[s + i]
        for t in range(count):
            if t == own:
                r[t] = member[i]
            elif mode == COMPOSITE_TEAM:
                r[t] = mean[t] + (member[i] - mean[own])
            else:
                r[t] = mean[t]
            rk[t] = team_rk[t]
            fail[t] = team_fail[t]
        m = count
        if has_dummy:
            _add_dummy(r, rk, fail, count, dummy, censored)
            m = count + 1
        if not _call_gradient(gradient, r.ctypes, rk.ctypes, fail.ctypes, m, theta.ctypes, len(theta), g.ctypes):
            return False
        share[i] = g[own] * weight[s + i]
    return True


@entry
def _loop(
    gradient: int,
    theta: np.ndarray,
    games: Games,
    rating: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    rules: Rules,
    teams: Teams,
    start: int,
    dynamics: Dynamics,
) -> int:
    offsets, players, ranks, dnf = games
    team_game, team, weight, mode = teams
    eta, knots, values, dummy, has_dummy, floor, has_floor, censored = rules
    days, last_day, experience, rates, experience_before, experience_after = dynamics
    boost, boost_games, forget, pull, r0 = rates[0], rates[1], rates[2], rates[3], rates[4]
    forgets = boost > 0.0 and forget > 0.0
    idle_rules = pull > 0.0 or forgets
    n_games = len(offsets) - 1
    largest = largest_game(offsets)
    r = np.empty(largest + 1)
    rk = np.empty(largest + 1, dtype=np.int64)
    fail = np.empty(largest + 1, dtype=np.bool_)
    g = np.empty(largest + 1)
    member = np.empty(largest + 1)
    share = np.empty(largest + 1)
    work = np.empty((2, largest + 1))
    work_rk = np.empty(largest + 1, dtype=np.int64)
    work_fail = np.empty(largest + 1, dtype=np.bool_)
    for game in range(start, n_games):
        s = offsets[game]
        n = offsets[game + 1] - s
        if idle_rules and days[game] != NO_DATE:  # SingleRatingSystem._prepare: only players idle a day or more
            today = float(days[game])
            for i in range(n):
                p = players[s + i]
                elapsed = idle_days(last_day, p, today)
                if elapsed > 0.0:
                    if pull > 0.0:
                        rating[p] = r0 + (rating[p] - r0) * math.pow(1.0 - pull, elapsed)
                    if forgets:
                        experience[p] = experience[p] * math.pow(1.0 - forget, elapsed)
        for i in range(n):
            member[i] = rating[players[s + i]]
            before[s + i] = member[i]
            if boost > 0.0:
                experience_before[s + i] = experience[players[s + i]]
        if n >= 2:
            if team_game[game]:
                handled = _team_gradient(
                    gradient,
                    theta,
                    s,
                    n,
                    r,
                    rk,
                    fail,
                    g,
                    member,
                    share,
                    work,
                    work_rk,
                    work_fail,
                    ranks,
                    dnf,
                    team,
                    weight,
                    mode,
                    dummy,
                    has_dummy,
                    censored,
                )
            else:
                for i in range(n):
                    r[i] = member[i]
                    rk[i] = ranks[s + i]
                    fail[i] = dnf[s + i]
                m = n
                if has_dummy:
                    _add_dummy(r, rk, fail, n, dummy, censored)
                    m = n + 1
                handled = _call_gradient(
                    gradient, r.ctypes, rk.ctypes, fail.ctypes, m, theta.ctypes, len(theta), g.ctypes
                )
                for i in range(n):
                    share[i] = g[i]
            if not handled:
                return game
            for i in range(n):
                step = eta if len(knots) == 0 else interp(member[i], knots, values)
                if boost > 0.0:  # the new-player boost
                    step = step * (1.0 + boost * math.exp(-experience[players[s + i]] / boost_games))
                x = member[i] + step * share[i]
                if has_floor and x < floor:
                    x = floor
                rating[players[s + i]] = x
            if boost > 0.0:
                for i in range(n):
                    experience[players[s + i]] += 1.0
        for i in range(n):
            after[s + i] = rating[players[s + i]]
            if boost > 0.0:
                experience_after[s + i] = experience[players[s + i]]
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
    teams: Teams,
    dynamics: Dynamics,
) -> int:
    """Replay the games from ``start`` with the gradient ``kind``, updating ``rating`` in place and
    filling ``before``/``after``; team games as ``teams`` says, the time and experience rules as ``dynamics``
    (updating its ``last_day`` and ``experience`` in place).

    Returns the number of games (all replayed) or the first game the gradient did not handle.

    ``games`` is ``(offsets, players, ranks, dnf)``; ``rules`` is ``(eta, knots, values, dummy,
    has_dummy, floor, has_floor, censored)``.
    """
    return int(
        _loop(compiled_gradient(kind).address, theta, games, rating, before, after, rules, teams, start, dynamics)
    )
