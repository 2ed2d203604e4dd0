"""Elo-MMR: Bayesian ratings for massive multiplayer competitions.

Ebtekar and Liu, "An Elo-like System for Massive Multiplayer Competitions", WWW 2021
(doi:10.1145/3442381.3450091); section, algorithm and equation numbers below are the paper's.

Every game is processed in two phases (section 3), after the skill drift of section 4:

0. *Drift* (section 4, Algorithm 2).  Before a game each participant's skill uncertainty grows
   from ``sigma^2`` to ``sigma^2 + gamma^2``.  Elo-MM-chi adds the variance; Elo-MMR(rho)
   applies the *pseudodiffusion*: with ``kappa = sigma^2 / (sigma^2 + gamma^2)`` the Gaussian
   prior keeps ``kappa^rho`` of its weight, the rest of the total weight is moved onto it centred at
   the current rating, the Gaussian's weight is then multiplied by ``kappa`` and every logistic term's by
   ``kappa^(1 + rho)`` (equation 11).
1. *Performance* (section 3.1, Theorem 3.2).  Player ``i``'s performance is the unique zero of
   ``Q_i(p) = sum_{j beat i} l_j(p) + sum_{j tied i} d_j(p) + sum_{i beat j} v_j(p)``, where the
   sums run over every participant (``i`` itself is tied with itself) and ``F_j`` is the prior
   distribution of ``j``'s performance: mean ``mu_j``, variance ``delta_j^2 = sigma_j^2 + beta^2``,
   Gaussian (chi) or logistic (rho).
2. *Belief update* (section 3.2).  chi: the Gaussian posterior of the prior ``N(mu, sigma^2)`` and the
   observation ``N(p, beta^2)``.  rho: the performance joins the player's list of logistic terms and the
   rating is the zero of ``L'`` in equation (10); ``1 / sigma^2`` is the total weight (equation 8).

Ties and did-not-finish.  Theorem 3.2 has a tie term ``d_j``: in the logistic model it equals
``l_j + v_j`` (a tie counts as a win plus a loss, section 3.1).  A game's dense ranks give the ties
directly; every DNF shares the rank after the last finisher (the :class:`~ratings.history.GameHistory`
convention), so DNFs lose to every finisher and tie with each other.

Team games.  The paper rates individuals only; a team game is rated with each team as one entrant whose
performance is the pool of its members': its prior has the members' (weighted) mean skill and mean variance,
``mu_T = sum w_i mu_i / W`` and ``delta_T^2 = sum w_i sigma_i^2 / W + beta^2``, and phase 1 (Theorem 3.2) finds
each team's performance from the teams' order.  Phase 2 then updates each member as if that performance were
its own, with the observation's weight scaled by the member's weight ``w_i`` (partial play: ``w_i / beta^2`` in
the Gaussian update and in equation (8), and as the weight of the logistic term), as the ``weight`` parameter
scales a whole contest.  One player per team with weight 1 is the free-for-all game exactly.

Parameters.  ``beta`` is the spread of one performance around the skill and ``sigma_limit`` the
uncertainty a regular player settles at.  The drift ``gamma`` is the one for which ``sigma_limit``
is the fixed point of "drift, then update" (section 5.2's steady state):
``1 / sigma_limit^2 = 1 / (sigma_limit^2 + gamma^2) + 1 / beta^2``, i.e. with the *contest weight*
``w = sigma_limit^2 / (beta^2 - sigma_limit^2)`` one has ``beta^2 = sigma_limit^2 (1 + 1/w)`` and
``gamma^2 = w sigma_limit^2``.  The ``weight`` parameter multiplies ``w`` (a heavier contest moves
ratings more), exactly as the authors' implementation and the ``elommr`` package do with their
``weight_limit`` and per-round weight.  The defaults beta = 200, sigma_limit = 80 give
``gamma = 34.9``: the performance spread 200 and drift 35 of the paper's synthetic data (section 6.1).

Time between contests (``drift_per_day``, off by default).  Section 4 leaves the drift ``gamma_t`` open: Glicko
sets ``gamma_t^2`` in proportion to the time since the last update, Codeforces and Topcoder a constant per contest.
Both are offered: before a dated game a player's drift is ``gamma^2 (1 + drift_per_day x days)``, ``days`` since the
player's previous rated dated game, so ``drift_per_day`` counts contests' worth of drift per idle day and 0 keeps the
per-contest drift alone (today's rule; also for undated games and a player's first).  The drifted variance never
passes a newcomer's (or the per-contest drift's, if that is larger), as Glickman's Glicko caps the deviation that
grows with time ("The Glicko system", 1995).  The rho variant's pseudodiffusion takes the drift as its size, as
Algorithm 2 takes any ``gamma_t``.

Display rating.  The paper rates a player by mu, the MAP skill (section 2), and defines no other
displayed number.  The shown rating is ``mu - display_k (sigma - sigma_limit)``: with the default
``display_k = 0`` it is mu itself; a positive ``display_k`` gives a conservative rating that equals mu for a
settled player and starts a newcomer lower (the ``elommr`` package's ``display_rating`` uses this form with 2).
The conservative form is not the default because a newcomer's sigma falls so fast (350 to about 174 after
one four-player game) that with ``display_k = 3`` even the last of an even field *gains* about 270 shown
points, which breaks "the loser of an even field loses" (tests/test_contract.py) and reads badly on a chart.

State.  ``mu`` and ``sigma`` for both variants.  The rho variant also keeps each player's Gaussian
prior term (``p0``, ``w0``) and a padded table of logistic terms (``hist_p``, ``hist_w``: one row per
player, the first ``hist_len`` columns used, weights ``w_k = omega_k / beta^2``); the table widens as
histories grow.  At most ``max_history`` logistic terms are kept: the oldest is then folded into the
Gaussian term with its weight (the history compression of section 5.3; the paper's experiments use 500).
At the defaults a term's weight shrinks by ``kappa^(1 + rho) = 0.71`` per game (section 4.2), so the default of
100 terms drops nothing above 1e-15 of a term's weight while keeping long histories fast.

Bounded by weight too: a term whose weight has fallen below :data:`FOLD_SHARE` of the player's total
(``w0 + sum_k w_k``) is folded the same way, whatever ``max_history`` says.  At the defaults that is a term
about 60 games old.  Why: the robust average sums every kept term at each Newton step (the kernel's takes
one exponential per term and call and about 2.8 cheaper passes, :func:`ratings.kernels.elo_mmr.robust_average`),
so a game's cost grows with its entrants' history lengths until they are full; with 100 terms a history of
games of 4-10 players from 500 fills at about 7,000 games, where it now fills by about 4,300 games
(benchmarks/elo_mmr_history.py and BENCHMARKS.md: the replay's time against the history's length).  What a
fold changes: the term ``-w out_scale tanh((x - p) arg)`` of ``L'`` becomes ``w (p - x)``, a change of at most
``w (|x - p| + beta pi / sqrt 3)``, and ``L'`` falls at least as fast as ``w0``, so the root moves by at most
``FOLD_SHARE (W / w0) (|x - p| + beta pi / sqrt 3)`` per fold (about 1e-7 rating points at the defaults;
measured on 40,000 games: BENCHMARKS.md).  A term of the histories the tests compare with Elo-MMR-Py (up to
about 40 games a player) keeps more than 1e-7 of the total, so those comparisons are untouched.

Speed.  A usual game has a few players, where the cost is the microsecond or so of overhead of each
numpy call, not arithmetic.  So each game's fixed tables (who beat whom, the doubled tie weights) are
built once, an objective is a dozen in-place array calls per Newton step for all rank groups at once,
and the bookkeeping of a step (bracket, Newton or bisection, convergence) runs on Python floats
(:func:`_solve_dense`); fields of more than :data:`DENSE_LIMIT` groups keep array steps and cache-sized
blocks (``benchmarks/elo_mmr_scaling.py`` times both).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from ratings.base import GameView, RatingSystem, Replay, State, idle_days
from ratings.params import Declared, Interval, Limit, Rule, param
from ratings.systems._teams import strength, team_view

__all__ = ["FOLD_SHARE", "EloMMR", "EloMMRParams", "solve_decreasing"]

#: pi / sqrt(3): a logistic distribution with standard deviation delta has scale delta / TANH_SCALE.
TANH_SCALE = math.pi / math.sqrt(3.0)
#: Ratings after a game are reported to this absolute tolerance (rating points).
TOLERANCE = 1e-10
#: A logistic term holding less than this share of its player's total weight is folded into the Gaussian term
#: (module docstring: the bound on the history's length by weight, and what it changes).
FOLD_SHARE = 1e-10
#: Elements per block of a game's all-pairs matrix (512 kB per temporary: cache-sized blocks run 2-4x faster).
BLOCK = 65536
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: Root problems up to this many are solved all together every step (see :func:`solve_decreasing`).
DENSE_LIMIT = 64


@dataclass(frozen=True, kw_only=True)
class EloMMRParams(Declared):
    RULES = (
        Rule(
            ("beta", "sigma_limit"),
            lambda p: p.beta > p.sigma_limit,
            "must exceed sigma_limit so that the drift between games is finite",
            limits={
                "beta": lambda p: Limit(low=p.sigma_limit, open_low=True),
                "sigma_limit": lambda p: Limit(high=p.beta, open_high=True),
            },
        ),
    )

    variant: str = param(
        "rho",
        "Performance model: 'rho' is Elo-MMR(rho) with logistic performances (robust to outliers); "
        "'chi' is Elo-MM-chi with Gaussian performances (simpler, not robust).",
        choices=("rho", "chi"),
        label="variant",
    )
    mu: float = param(
        1500.0,
        "Skill estimate mu of a new player.",
        valid=Interval(-1e6, 1e6),
        low=0.0,
        high=3000.0,
        step=50.0,
        label="initial mu",
    )
    sigma: float = param(
        350.0,
        "Uncertainty sigma of a new player's skill.",
        valid=Interval(1e-2, 1e5),
        low=50.0,
        high=1000.0,
        step=10.0,
        label="initial sigma",
    )
    beta: float = param(
        200.0,
        "Performance spread beta: how far one game's performance typically strays from the skill "
        "(must exceed sigma limit).",
        valid=Interval(1e-2, 1e5),
        low=85.0,  # above the default sigma limit (80), which it must exceed
        high=600.0,
        step=5.0,
        label="beta",
    )
    sigma_limit: float = param(
        80.0,
        "Uncertainty floor: the sigma a regular player settles at, where the drift between games balances "
        "what a game teaches.",
        valid=Interval(1e-2, 1e5),
        low=10.0,
        high=195.0,  # below the default beta (200), which must exceed it
        step=5.0,
        label="sigma limit",
    )
    weight: float = param(
        1.0,
        "Contest weight: multiplies how much one game counts (and the drift before it); 1 is the standard.",
        valid=Interval(1e-3, 1e3),
        low=0.1,
        high=5.0,
        step=0.1,
        label="contest weight",
    )
    rho: float = param(
        1.0,
        "Pseudodiffusion rate rho (rho variant): how fast old performances turn into a Gaussian prior; "
        "small rho gives more momentum to players whose results swing.",
        valid=Interval(0.0, 100.0),
        low=0.0,
        high=5.0,
        step=0.1,
        label="rho",
    )
    display_k: float = param(
        0.0,
        "Shown rating is mu - k (sigma - sigma limit): 0 shows mu; 2-3 start newcomers lower until they settle.",
        valid=Interval(0.0, 10.0),
        low=0.0,
        high=3.0,
        step=0.5,
        label="k in mu - k (sigma - limit)",
    )
    drift_per_day: float = param(
        0.0,
        "Drift that grows with time between contests: before a dated game the per-contest drift gamma^2 becomes "
        "gamma^2 (1 + this x days since the player's previous dated game), never taking sigma past a newcomer's "
        "(Ebtekar and Liu 2021, section 4: Glicko's drift in proportion to elapsed time beside Codeforces' per "
        "contest); 0: per contest only; undated games: per contest.",
        valid=Interval(0.0, 100.0),
        low=0.0,
        high=1.0,
        step=0.01,
        label="drift per idle day",
        time_rule=True,
    )
    max_history: int = param(
        100,
        "Logistic terms kept per player (rho variant); older ones are folded into the Gaussian prior "
        "(at the defaults a term keeps 0.71 of its weight per game, so after 100 games under 1e-15).",
        valid=Interval(1, 1000),
        low=10.0,
        high=500.0,
        step=10.0,
        label="history length",
    )

    # ------------------------------------------------------------ derived
    @property
    def contest_weight(self) -> float:
        """``w`` with ``beta^2 = sigma_limit^2 (1 + 1/w)`` at weight 1, times ``weight``."""
        return self.weight * self.sigma_limit**2 / (self.beta**2 - self.sigma_limit**2)

    @property
    def beta_game(self) -> float:
        """The performance spread of one game of this weight (equals ``beta`` at weight 1)."""
        return self.sigma_limit * math.sqrt(1.0 + 1.0 / self.contest_weight)

    @property
    def gamma(self) -> float:
        """The skill drift before each game: ``gamma^2 = w sigma_limit^2``."""
        return self.sigma_limit * math.sqrt(self.contest_weight)


# ---------------------------------------------------------------------- root finding
def solve_decreasing(
    func: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    lo: np.ndarray,
    hi: np.ndarray,
    guess: np.ndarray,
    *,
    tol: float = TOLERANCE,
    max_iter: int = 200,
) -> np.ndarray:
    """Zeros of many strictly decreasing functions at once, by safeguarded Newton on brackets.

    ``func(x, idx)`` returns the values and derivatives of functions ``idx`` at ``x``.  The
    caller guarantees ``f(lo) > 0 > f(hi)`` (a sure bracket).  Each step tries Newton and falls
    back to bisection when Newton would leave the shrinking bracket, so convergence is certain;
    a function is done when its step or its bracket is below ``tol``.
    """
    # Small problems (the usual game of a few players) re-evaluate every function each step, which is
    # cheaper than gathering the unfinished ones; big fields only evaluate the unfinished ones.
    if len(guess) <= DENSE_LIMIT:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _solve_dense(func, lo, hi, guess, tol, max_iter)
    lo = np.array(lo, dtype=float)
    hi = np.array(hi, dtype=float)
    x = np.clip(np.array(guess, dtype=float), lo, hi)
    x = np.where((x <= lo) | (x >= hi), 0.5 * (lo + hi), x)
    active = np.arange(len(x))
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(max_iter):
            xa = x[active]
            value, slope = func(xa, active)
            la = np.where(value > 0, xa, lo[active])
            ha = np.where(value < 0, xa, hi[active])
            newton = xa - value / slope
            # A Newton step below tol means converged (it may round onto a bracket end: accept it).
            ok = np.isfinite(newton)
            small = ok & (np.abs(newton - xa) <= tol)
            inside = ok & (newton > la) & (newton < ha)
            nxt = np.where(inside | small, newton, 0.5 * (la + ha))
            done = (value == 0) | small | (ha - la <= tol)
            nxt = np.where(value == 0, xa, nxt)
            x[active], lo[active], hi[active] = nxt, la, ha
            active = active[~done]
            if len(active) == 0:
                break
    return x


def _solve_dense(
    func: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    lo: np.ndarray,
    hi: np.ndarray,
    guess: np.ndarray,
    tol: float,
    max_iter: int,
) -> np.ndarray:
    """The dense branch of :func:`solve_decreasing`: every function is evaluated every step, as one array.

    The same safeguarded step as the sparse branch, but its bookkeeping runs on Python floats one function
    at a time: for up to :data:`DENSE_LIMIT` functions a dozen scalar operations each cost less than the
    twenty-odd numpy calls (about a microsecond each, whatever the length) of an array step.  It is the
    same IEEE double arithmetic, so the answers are those of an array step.  The functions are independent,
    so a finished one is simply no longer updated; a zero slope gives no Newton point (where an array step
    gets an infinite or NaN one, which fails the same tests).
    """
    los = np.asarray(lo, dtype=float).tolist()
    his = np.asarray(hi, dtype=float).tolist()
    # Start at the guess, clipped into the bracket; at (or beyond) an end, at the middle instead.
    xs = [min(max(g, a), b) for g, a, b in zip(np.asarray(guess, dtype=float).tolist(), los, his, strict=True)]
    xs = [0.5 * (a + b) if x <= a or x >= b else x for x, a, b in zip(xs, los, his, strict=True)]
    everyone = np.arange(len(xs))
    todo = list(range(len(xs)))
    for _ in range(max_iter):
        value, slope = func(np.array(xs), everyone)
        values, slopes = value.tolist(), slope.tolist()
        left = []
        for k in todo:
            xk, v, s = xs[k], values[k], slopes[k]
            if v == 0.0:  # an exact zero: done where it stands
                continue
            if v > 0.0:
                los[k] = xk
            elif v < 0.0:  # (a NaN value moves neither end)
                his[k] = xk
            a, b = los[k], his[k]
            newton = xk - v / s if s != 0.0 else math.nan
            small = abs(newton - xk) <= tol
            # Newton where it is safe, else bisection.
            xs[k] = newton if small or a < newton < b else 0.5 * (a + b)
            if not (small or b - a <= tol):
                left.append(k)
        if not left:
            break
        todo = left
    return np.array(xs)


def _mills(x: np.ndarray) -> np.ndarray:
    """phi(x) / Phi(x) for any x: directly where Phi(x) is safely away from 0, else via erfcx (no underflow).

    Call it with floating-point warnings off (``np.errstate(all="ignore")``): far left the direct
    formula divides 0 by 0 before its value is replaced.
    """
    out = np.exp(-0.5 * x * x) / (special.ndtr(x) * math.sqrt(2.0 * math.pi))
    far = x < -20.0
    if far.any():
        out[far] = _SQRT_2_OVER_PI / special.erfcx(-x[far] / math.sqrt(2.0))
    return out


def _row_blocks(rows: int, cols: int) -> list[slice]:
    if rows * cols <= BLOCK:
        return [slice(None)]
    step = max(1, BLOCK // max(cols, 1))
    return [slice(s, min(s + step, rows)) for s in range(0, rows, step)]


# ---------------------------------------------------------------------- phase one
def _groups(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each player's rank group (0 = best distinct rank) and the size of every group.

    Q_i depends on i only through who beat i, tied with i and lost to i, so tied players share one
    equation: one root per distinct rank.  A game's ranks are dense already (GameView), so they are
    their own group indices; a single ``bincount`` confirms it, far cheaper than ``np.unique``.
    """
    ranks = np.asarray(ranks)
    if ranks.dtype.kind in "iu" and len(ranks) and ranks.min() >= 0:
        counts = np.bincount(ranks)
        if counts.all():
            return ranks, counts
    _, group, counts = np.unique(ranks, return_inverse=True, return_counts=True)
    return group, counts


def logistic_performances(mu: np.ndarray, delta: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Performance of every player in the logistic model: the zero of Q_i (section 3.1, Theorem 3.2).

    With ``F_j(p) = (1 + tanh((p - mu_j) / (2 s_j))) / 2`` and scale ``s_j = sqrt(3) delta_j / pi``:
    ``l_j = -F_j / s_j``, ``v_j = (1 - F_j) / s_j`` and ``d_j = l_j + v_j``; so, times two,
    ``2 Q_g(p) = -sum_all t_j / s_j - sum_{tied} t_j / s_j + sum_{worse} 1/s_j - sum_{better} 1/s_j``
    with ``t_j = tanh((p - mu_j) / (2 s_j))``.  Cost: O(n * distinct ranks) per Newton step.
    """
    n = len(mu)
    group, counts = _groups(ranks)
    g = len(counts)
    inv_s = TANH_SCALE / delta  # 1 / s_j
    half = 0.5 * inv_s  # 1 / (2 s_j)
    group_sum = np.bincount(group, weights=inv_s, minlength=g)
    below = np.cumsum(group_sum) - group_sum  # sum over better players (lower rank)
    above = group_sum.sum() - below - group_sum  # sum over worse players
    constant = above - below
    slope_weight = inv_s * half  # d t_j / dp / s_j = (1 - t_j^2) / (2 s_j^2)

    if g * n <= BLOCK:
        # The usual game: one (groups x players) table of the weights of t_j in 2 Q_g, doubled for the
        # players tied with the group (a tie is a win plus a loss), so one step is a handful of array calls.
        twice = 1.0 + (group == np.arange(g)[:, None])
        weights, slopes = inv_s * twice, slope_weight * twice

        def table(x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            w, s, c = (weights, slopes, constant) if len(idx) == g else (weights[idx], slopes[idx], constant[idx])
            t = np.subtract.outer(x, mu)
            t *= half
            np.tanh(t, out=t)
            value = c - np.vecdot(t, w)  # row by row: sum_j t[k, j] w[k, j]
            np.square(t, out=t)
            np.subtract(1.0, t, out=t)
            return value, -np.vecdot(t, s)

    def func(x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        value = np.empty(len(x))
        slope = np.empty(len(x))
        for block in _row_blocks(len(x), n):
            t = np.subtract.outer(x[block], mu)
            t *= half
            np.tanh(t, out=t)
            value[block] = -(t @ inv_s)
            np.square(t, out=t)
            np.subtract(1.0, t, out=t)
            slope[block] = -(t @ slope_weight)
        # The tied players' second copy of -t_j / s_j (a tie is a win plus a loss).
        mine: slice | np.ndarray
        if len(idx) == g:
            mine, pos = slice(None), group
        else:
            mine = np.isin(group, idx)
            pos = np.searchsorted(idx, group[mine])
        t_tie = np.tanh((x[pos] - mu[mine]) * half[mine])
        value += constant[idx] - np.bincount(pos, weights=t_tie * inv_s[mine], minlength=len(x))
        slope -= np.bincount(pos, weights=(1.0 - t_tie**2) * slope_weight[mine], minlength=len(x))
        return value, slope

    # A sure bracket: beyond K scales from every mean each tanh is within 2 e^(-2K) of +-1, so the
    # player's own tie term 2 tanh(K) / s outweighs the n opposite tails when e^(2K) >= 8 n s_max / s_min.
    scale = 1.0 / inv_s
    k = 0.5 * math.log(8.0 * n * scale.max() / scale.min()) + 1.0
    lo = np.full(g, (mu - 2.0 * k * scale).min())
    hi = np.full(g, (mu + 2.0 * k * scale).max())
    return solve_decreasing(table if g * n <= BLOCK else func, lo, hi, _guess(mu, counts))[group]


def gaussian_performances(mu: np.ndarray, delta: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Performance of every player in the Gaussian model: the zero of Q_i (section 3.1, Theorem 3.2).

    With ``z = (p - mu_j) / delta_j`` and the Mills ratio ``m(x) = phi(x) / Phi(x)``:
    ``v_j = m(z) / delta_j`` (a win), ``l_j = -m(-z) / delta_j`` (a loss), ``d_j = -z / delta_j`` (a tie).
    """
    n = len(mu)
    group, counts = _groups(ranks)
    g = len(counts)
    inv_d = 1.0 / delta
    inv_d2 = inv_d * inv_d

    if g * n <= BLOCK:
        # The usual game: who beat whom is fixed for the game, so the sign table (below) is built once,
        # and one step is a dozen array calls.
        side_all = -np.sign(np.subtract.outer(np.arange(g), group).astype(float))
        tie_all = side_all * side_all  # 1 where j beat or lost to the group, 0 where tied
        off_all = tie_all - 1.0  # -1 where tied, 0 elsewhere

        def table(x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            if len(idx) == g:
                side, tie, off = side_all, tie_all, off_all
            else:
                side, tie, off = side_all[idx], tie_all[idx], off_all[idx]
            z = np.subtract.outer(x, mu)
            z *= inv_d
            sz = side * z
            m = _mills(sz)
            v = side * m
            v += off * z  # a tie contributes -z
            value = v @ inv_d
            sz += m  # the slope, as in func below
            sz *= m
            sz *= tie
            sz -= off
            return value, -(sz @ inv_d2)

    def func(x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        value = np.empty(len(x))
        slope = np.empty(len(x))
        for block in _row_blocks(len(x), n):
            z = np.subtract.outer(x[block], mu)
            z *= inv_d
            side = np.sign(np.subtract.outer(idx[block], group).astype(float))
            side *= -1.0  # +1 where j is worse than the group (a win), -1 where better (a loss), 0 tied
            tie = side * side
            sz = side * z
            m = _mills(sz)
            v = side * m
            tie -= 1.0  # now -1 on ties, 0 elsewhere
            v += tie * z  # a tie contributes -z
            value[block] = v @ inv_d
            # d/dp [s m(s z) / delta] = -m (m + s z) / delta^2; d/dp [-z / delta] = -1 / delta^2.
            sz += m
            sz *= m
            sz *= tie + 1.0
            sz -= tie
            slope[block] = -(sz @ inv_d2)
        return value, slope

    # A sure bracket: K deltas below every mean the own tie term is at least K / delta_max while the
    # n loss terms are at most phi(K) / (Phi(K) delta_min) each; K = sqrt(2 ln(n r)) + 1 suffices.
    k = math.sqrt(2.0 * math.log(max(n * delta.max() / delta.min(), 2.0))) + 1.0
    lo = np.full(g, (mu - k * delta).min())
    hi = np.full(g, (mu + k * delta).max())
    with np.errstate(all="ignore"):  # for _mills
        return solve_decreasing(table if g * n <= BLOCK else func, lo, hi, _guess(mu, counts))[group]


def _guess(mu: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Start each rank group at the prior mean that would hold its position if ratings were exact.

    ``counts`` are the group sizes, best group first: group ``k`` holds places ``ahead .. behind``.
    """
    order = np.sort(mu)[::-1]
    end = np.cumsum(counts)
    ahead, behind = end - counts, end - 1
    return order[(ahead + behind) // 2]


# ---------------------------------------------------------------------- phase two (rho)
def robust_average(
    p0: np.ndarray,
    w0: np.ndarray,
    hist_p: np.ndarray,
    hist_w: np.ndarray,
    beta: float,
    guess: np.ndarray | None = None,
) -> np.ndarray:
    """Zero of ``L'(s) = w0 (s - p0) + sum_k w_k beta (pi/sqrt 3) tanh(pi (s - p_k) / (beta sqrt 12))`` (eq. 10).

    One row per player; unused columns of ``hist_p``/``hist_w`` carry weight 0.  ``guess`` starts Newton
    (the rating before the newest term is a good one).  The zero lies between
    the smallest and largest centre (every term has the same sign outside), so that is the bracket.
    """
    out_scale = hist_w * (beta * TANH_SCALE)  # omega_k pi / (beta sqrt 3) with w_k = omega_k / beta^2
    arg = TANH_SCALE / (2.0 * beta)  # pi / (beta sqrt 12)
    used = hist_w > 0
    centres_lo = np.minimum.reduce(np.where(used, hist_p, np.inf), axis=1, initial=np.inf)
    centres_hi = np.maximum.reduce(np.where(used, hist_p, -np.inf), axis=1, initial=-np.inf)
    lo = np.minimum(p0, centres_lo) - 1.0
    hi = np.maximum(p0, centres_hi) + 1.0
    if guess is None:  # equation (7) with w_k = 1 / beta_k^2: a weighted mean of the centres
        guess = (w0 * p0 + np.add.reduce(hist_w * hist_p, axis=1)) / (w0 + np.add.reduce(hist_w, axis=1))
    neg_w0 = -w0

    # -L'(s) and its derivative, in place where possible: each numpy call costs about a microsecond, which
    # dominates for the few players of a usual game.  (Negating the sum term by term is exact.)
    def func(x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(idx) == len(p0):
            centres, scales, w, neg_w, p = hist_p, out_scale, w0, neg_w0, p0
        else:
            centres, scales, w, neg_w, p = hist_p[idx], out_scale[idx], w0[idx], neg_w0[idx], p0[idx]
        t = np.subtract(x[:, None], centres)
        t *= arg
        np.tanh(t, out=t)
        value = w * (p - x)
        value -= np.vecdot(t, scales)  # row by row: sum_k t[i, k] scales[i, k]
        np.square(t, out=t)
        np.subtract(1.0, t, out=t)
        return value, neg_w - np.vecdot(t, scales) * arg  # L' increases; the solver wants a decreasing one

    return solve_decreasing(func, lo, hi, guess)


# ---------------------------------------------------------------------- the system
class EloMMR(RatingSystem):
    """Elo-MMR (Ebtekar and Liu 2021): performance from the whole field, then a Bayesian belief update."""

    name = "elo-mmr"
    title = "Elo-MMR"
    summary = (
        "Bayesian rating for any number of players (Ebtekar and Liu 2021): each game estimates a performance "
        "from the whole field, then updates a skill belief; incentive-compatible and, in its rho variant, "
        "robust to one-off results."
    )
    scale = "Elo-MMR points"
    Params = EloMMRParams
    extra_series = ("mu", "sigma")
    batch_teams = True  # ratings.kernels.elo_mmr rates team games
    # the prior and every stored performance's weight (a newcomer's are 0) shrink; the performances stay put
    season_state = ("mu", "sigma", "p0", "w0", "hist_w")

    # ------------------------------------------------------------ state
    def _initial_state(self, n_players: int) -> State:
        p = self.params
        state: State = {
            "mu": np.full(n_players, float(p.mu)),
            "sigma": np.full(n_players, float(p.sigma)),
        }
        if p.drift_per_day > 0.0:  # each player's last rated dated game (NaN before the first)
            state["last_day"] = np.full(n_players, np.nan)
        if p.variant == "rho":
            width = min(8, p.max_history)
            state["p0"] = np.full(n_players, float(p.mu))
            state["w0"] = np.full(n_players, 1.0 / p.sigma**2)
            state["hist_p"] = np.zeros((n_players, width))
            state["hist_w"] = np.zeros((n_players, width))
            state["hist_len"] = np.zeros(n_players, dtype=np.int64)
        return state

    def _display(self, state: State, players: np.ndarray) -> np.ndarray:
        if self.params.display_k == 0.0:  # the default: mu itself (a copy), without the zero correction
            return state["mu"][players].astype(float)
        return np.asarray(
            state["mu"][players] - self.params.display_k * (state["sigma"][players] - self.params.sigma_limit),
            dtype=float,
        )

    def initial_rating(self) -> float:
        """A new player's displayed rating: ``mu - display_k (sigma - sigma_limit)``."""
        p = self.params
        return float(p.mu - p.display_k * (p.sigma - p.sigma_limit))

    # ------------------------------------------------------------ the whole history
    def _replay(self, state: State, replay: Replay) -> None:
        """The whole history in :func:`ratings.kernels.elo_mmr.replay_elo_mmr` (both variants, every option)."""
        from ratings.kernels.elo_mmr import replay_elo_mmr

        p = self.params
        theta = np.array(
            [
                1.0 if p.variant == "chi" else 0.0,
                p.mu,
                p.sigma_limit,
                p.display_k,
                p.rho,
                p.beta_game,
                p.gamma**2,
                p.max_history,
                p.drift_per_day,
                p.sigma**2,
            ],
            dtype=float,
        )
        idle = p.drift_per_day > 0.0
        rho = p.variant == "rho"
        unused, no_history = np.empty(0), np.empty((0, 0))
        hist_p, hist_w = replay_elo_mmr(
            theta,
            replay.games,
            state["mu"],
            state["sigma"],
            state["p0"] if rho else unused,
            state["w0"] if rho else unused,
            state["hist_p"] if rho else no_history,
            state["hist_w"] if rho else no_history,
            state["hist_len"] if rho else np.empty(0, dtype=np.int64),
            replay.before,
            replay.after,
            (replay.extras_before["mu"], replay.extras_before["sigma"]),
            (replay.extras_after["mu"], replay.extras_after["sigma"]),
            replay.teams,
            (
                replay.days if idle else np.empty(0, dtype=np.int64),
                state["last_day"] if idle else np.empty(0),
            ),
        )
        if rho:
            state["hist_p"], state["hist_w"] = hist_p, hist_w

    # ------------------------------------------------------------ one game
    def _play(self, state: State, game: GameView) -> None:
        p = self.params
        players = np.asarray(game.players, dtype=np.int64)
        beta = p.beta_game
        gamma2: float | np.ndarray = p.gamma**2
        sigma2 = state["sigma"][players] ** 2
        if p.drift_per_day > 0.0 and game.date is not None:
            gamma2 = self._idle_drift(state, players, game.date.toordinal(), sigma2, p.gamma**2)
        if p.variant == "rho":
            self._diffuse(state, players, sigma2, gamma2)
        sigma2 = sigma2 + gamma2  # section 4: the uncertainty after drift (both variants)
        mu = state["mu"][players]
        if game.teams is None:
            delta = np.sqrt(sigma2 + beta**2)
            ranks = np.asarray(game.ranks)
            observed: float | np.ndarray = 1.0 / beta**2
        else:
            # Each team one entrant with its members' pooled skill and variance (module docstring).
            teams = team_view(game)
            member_mu, mu = mu, strength(mu, teams, "mean")
            delta = np.sqrt(strength(sigma2, teams, "mean") + beta**2)
            ranks = teams.ranks
            observed = teams.weights / beta**2
        performances = gaussian_performances if p.variant == "chi" else logistic_performances
        perf = performances(mu, delta, ranks)
        if game.teams is not None:
            perf, mu = perf[teams.of], member_mu
        if p.variant == "chi":
            # Section 3.2, Gaussian: precision-weighted mean of prior N(mu, sigma^2) and observation N(perf, beta^2).
            w_prior, w_perf = 1.0 / sigma2, observed
            state["mu"][players] = (w_prior * mu + w_perf * perf) / (w_prior + w_perf)
        else:
            self._push(state, players, perf, observed)
            h = int(state["hist_len"][players].max())
            state["mu"][players] = robust_average(
                state["p0"][players],
                state["w0"][players],
                state["hist_p"][players, :h],
                state["hist_w"][players, :h],
                beta,
            )
        # Equation (8): the new precision is the drifted precision plus the game's 1 / beta^2 (times the weight).
        state["sigma"][players] = 1.0 / np.sqrt(1.0 / sigma2 + observed)

    def _idle_drift(
        self, state: State, players: np.ndarray, today: int, sigma2: np.ndarray, gamma2: float
    ) -> np.ndarray:
        """Each participant's drift before a dated game: ``gamma^2 (1 + drift_per_day x days)``, capped (module
        docstring); records the game's day as the players' last."""
        p = self.params
        days = idle_days(state["last_day"], players, float(today))
        grown = gamma2 * (1.0 + p.drift_per_day * days)
        return np.minimum(grown, np.maximum(gamma2, p.sigma**2 - sigma2))

    def _diffuse(self, state: State, players: np.ndarray, sigma2: np.ndarray, gamma2: float | np.ndarray) -> None:
        """Algorithm 2 (section 4.2): transfer and decay, preserving the rating, adding gamma^2 of variance."""
        kappa = sigma2 / (sigma2 + gamma2)
        keep = kappa**self.params.rho
        w0 = state["w0"][players]
        hist_w = state["hist_w"][players]
        w_gauss = keep * w0
        w_moved = (1.0 - keep) * (w0 + hist_w.sum(axis=1))
        state["p0"][players] = (w_gauss * state["p0"][players] + w_moved * state["mu"][players]) / (w_gauss + w_moved)
        state["w0"][players] = kappa * (w_gauss + w_moved)
        state["hist_w"][players] = hist_w * (kappa * keep)[:, None]

    def _push(self, state: State, players: np.ndarray, perf: np.ndarray, weight: float | np.ndarray) -> None:
        """Append one logistic term per player, folding the oldest into the Gaussian term when full (section 5.3)
        and while it holds less than :data:`FOLD_SHARE` of the player's weight."""
        limit = self.params.max_history
        length = state["hist_len"][players]
        total = state["w0"][players] + state["hist_w"][players].sum(axis=1)
        while True:
            light = (length > 0) & (state["hist_w"][players, 0] < FOLD_SHARE * total)
            full = players[(length >= limit) | light]
            if not len(full):
                break
            wn, wl = state["w0"][full], state["hist_w"][full, 0]
            state["p0"][full] = (wn * state["p0"][full] + wl * state["hist_p"][full, 0]) / (wn + wl)
            state["w0"][full] = wn + wl
            state["hist_p"][full, :-1] = state["hist_p"][full, 1:]
            state["hist_w"][full, :-1] = state["hist_w"][full, 1:]
            state["hist_p"][full, -1] = 0.0  # columns beyond a player's terms hold zeros (the kernel's shift
            state["hist_w"][full, -1] = 0.0  # moves the player's own terms only)
            state["hist_len"][full] -= 1
            length = state["hist_len"][players]
        width = state["hist_p"].shape[1]
        if length.max() >= width:
            grow = min(2 * width, limit) - width
            state["hist_p"] = np.pad(state["hist_p"], ((0, 0), (0, grow)))
            state["hist_w"] = np.pad(state["hist_w"], ((0, 0), (0, grow)))
        state["hist_p"][players, length] = perf
        state["hist_w"][players, length] = weight
        state["hist_len"][players] = length + 1

    # ------------------------------------------------------------ predictions
    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Monte Carlo over the variant's performance model, drift included (performances N or Logistic(mu, delta))."""
        from ratings.predict import monte_carlo_places  # with scipy's integrators, loaded when first asked for

        p = self.params
        idx = np.asarray(players, dtype=int)
        mu = state["mu"][idx]
        delta = np.sqrt(state["sigma"][idx] ** 2 + p.gamma**2 + p.beta_game**2)
        n = len(idx)

        def sample(rng: np.random.Generator, count: int) -> np.ndarray:
            if p.variant == "chi":
                return mu + delta * rng.standard_normal((count, n))
            return np.asarray(rng.logistic(mu, delta / TANH_SCALE, size=(count, n)))

        return monte_carlo_places(sample, n)
