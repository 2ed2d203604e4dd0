"""Kerby's Gaussian model (Thurstonian), seed 000 section 3.2.3.

Performances are independent ``N(r_i, 1)``; the update is the gradient of the log-likelihood
of the observed order.  Reading the game worst first (``X_1 < ... < X_n``), the likelihood is
a chain of one-dimensional operations (section 3.2.3): start from the distribution function
of the bottom, multiply pointwise by the next player's density, integrate cumulatively, and
so on; the last integral is the probability.  With DNFs (section 4) the bottom is the
maximum of the DNFs' performances, whose distribution function is the product of their
``Phi(x - r_d)``; without DNFs it is ``Phi(x - r)`` of the last finisher.

Discretisation.  A uniform grid covers ``[min r - 7, max r + 7]`` (beyond it a unit
Gaussian has mass below 1e-11).  The bottom's distribution function is exact (``log_ndtr``);
every cumulative integration is the trapezoid rule with Gregory's end correction,
``A_j = h/2 (S_{j-1} + S_j) - h/24 (v_{j+1} - v_{j-1})`` (``S`` the running sum), whose error
is O(h^4), and the last integral is the plain trapezoid sum (spectrally accurate for these
smooth, fast-decaying integrands).  The log-likelihood is computed on the grids of step
h and 2h (every other point) and combined by Romberg's rule ``(16 F_h - F_2h) / 15``, which
removes the h^4 term.  The messages steepen with the number of integrations (after i of them
they behave like ``F^i / i!``; the DNFs' product ``F^d`` likewise), so the error grows with
the number of players n and the step is ``h = min(1/16, 0.45 / (n - 1))``: against a grid
20 times finer the log-likelihood and gradient agree to about 1e-6 or better, from 2 to 30
players with ratings spread over a few units (tests).

Log space.  Section 3.2.3 warns that the probability underflows, so it is never formed: each
message is kept as a per-row logarithmic scale times a mantissa normalised to about 1 (the
scaling of hidden-Markov forward-backward), and the log-likelihood is the sum of the scales'
logarithms.  When ratings spread over more than :data:`SCALED_SPREAD`, where a density on the
grid could underflow to zero, every message is held as a logarithm instead (pointwise
multiplication is addition, cumulative integration a running ``logaddexp``); that path uses
the plain trapezoid at step 0.05 with Romberg over three levels (the corrected rule could
turn negative in far tails, which logarithms cannot hold), accurate to a few 1e-6.

Exact gradient.  The discretised likelihood is ``L = w' D_m K D_{m-1} ... K D_1 a_0`` with
``D_i`` the diagonal of player i's density on the grid and ``K`` the cumulative trapezoid
matrix.  As in the forward-backward algorithm for hidden Markov models, forward messages
``a_i`` and backward messages ``g_i`` (``g_m = w``, ``g_{i-1} = K' (u_i * g_i)``) give
``dL/du_i = a_{i-1} * g_i``; with ``p_i = a_{i-1} u_i g_i / L`` (a distribution on the grid,
the posterior of the i-th player's performance):

    d log L / d r_i = sum_x p_i(x) (x - r_i)            (a finisher above the bottom)
    d log L / d r_b = -sum_x p_1(x) phi(x - r_b) / Phi(x - r_b)   (a player in the bottom)

This is the exact derivative of the (Romberg-combined) discretised log-likelihood (the
backward pass applies the transpose of the cumulative-integration matrix), at O(n G) cost
per game.  Tied finishers are averaged over their orderings, which are stacked as extra
rows of the same arrays (see :mod:`ratings.systems._orders`).

Cost.  Small games are dominated by per-call numpy overhead, large ones by array passes.  So
both Romberg levels normally share one array (the coarse rows padded where nothing lives),
but above :data:`SPLIT_SIZE` each level runs on its own unpadded grid; tied orderings gather
their densities from one table per player; the integration stages reuse their work arrays;
and a two-player game without a tie or a DNF uses section 3.1.2's closed form, the quantity
the grid approximates (they agree to about 1e-11).  The rest changes the discretised values
only by rounding.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import ndimage, special

from ratings.base import ComputationError, State
from ratings.numerics import LOG_SQRT_2PI, log_sum_exp
from ratings.params import Interval, Rule, param
from ratings.predict import monte_carlo_places
from ratings.systems._orders import MAX_ROWS, split_game, symmetrize, tie_orderings
from ratings.systems._single import KNOT_RULES, KerbyParams, SingleRatingSystem

__all__ = ["Thurstonian", "ThurstonianParams", "order_log_likelihood", "thurstonian_gradient"]

#: Grid step and Romberg levels of the default (scaled, corrected-trapezoid) computation;
#: the step shrinks to STAGE_STEP / (players - 1) for larger games, whose messages are steeper.
STEP = 0.0625
STAGE_STEP = 0.45
LEVELS = 2
#: The same for the fully logarithmic computation (plain trapezoid), used for wide rating spreads.
LOG_STEP = 0.05
LOG_LEVELS = 3
#: Grid extent beyond the lowest and highest rating of the game.
EXTENT = 7.0
#: Romberg levels (steps h, 2h, 4h) and their weights.
#: Bound on orderings x players x grid points when ties are averaged (peak memory about 100 bytes each).
ROW_BUDGET = 400_000
#: Above this many orderings x players x grid points, each Romberg level runs on its own grid
#: (no padding to carry, at the price of more numpy calls, which dominate in small games).
SPLIT_SIZE = 40_000
#: Widest rating spread handled with scaled (rather than fully logarithmic) messages.
SCALED_SPREAD = 20.0
#: Bound on players x grid points x Romberg levels of one order: the grid never grows past it,
#: whatever the ratings (a runaway learning rate spreads them without limit).  Up to a spread
#: of about 40 among 30 players the default steps fit (the accuracy above holds); beyond, the
#: step widens so that the cost stays bounded, and the result degrades smoothly instead.
MAX_POINTS = 600_000
#: Widest rating spread within one game that the model is computed for.  Ratings 60 performance
#: standard deviations apart give an upset probability below 1e-190: only a learning rate so large
#: that the updates diverge gets there, and then the replay stops with a ComputationError that
#: says so (instead of running on ever wider grids).
MAX_SPREAD = 60.0
#: Romberg weights for steps h, 2h, 4h: the plain trapezoid's error starts at h^2, the corrected one's at h^4.
_ROMBERG_PLAIN = {1: (1.0,), 2: (4.0 / 3.0, -1.0 / 3.0), 3: (64.0 / 45.0, -20.0 / 45.0, 1.0 / 45.0)}
#: Weights of the corrected trapezoid on the running sum S: 13 (S_j + S_{j-1}) - (S_{j+1} + S_{j-2}).
_GREGORY = np.array([-1.0, 13.0, 13.0, -1.0])
_ROMBERG_CORRECTED = {1: (1.0,), 2: (16.0 / 15.0, -1.0 / 15.0), 3: (1024.0 / 945.0, -80.0 / 945.0, 1.0 / 945.0)}


#: Valid learning rates: the Gaussian likelihood's gradient grows linearly with a reversed result's
#: margin (the inverse Mills ratio), so a larger step overshoots further each game and the ratings diverge.
#: On the bundled racing sample eta = 2 drove one game's ratings 73 standard deviations apart by game 537,
#: 1.8 spread them over 15, 1.5 over 9: 1.5 keeps a margin.
THURSTONIAN_ETA = Interval(0.0, 1.5, closed="right")
#: Widest gap allowed between the initial rating, the dummy and the floor: the model computes games whose
#: ratings spread over at most MAX_SPREAD, and play spreads them further.
ANCHOR_SPREAD = 40.0


def _anchors_close(p: Any) -> bool:
    anchors = [x for x in (p.initial, p.dummy, p.floor) if x is not None]
    return max(anchors) - min(anchors) <= ANCHOR_SPREAD


def _rates_within_eta(p: Any) -> bool:
    return all(v in THURSTONIAN_ETA or v == 0 for v in p.eta_values or ())


@dataclass(frozen=True, kw_only=True)
class ThurstonianParams(KerbyParams):
    """Parameters of the Gaussian (Thurstonian) model."""

    RULES = (
        *KNOT_RULES,
        Rule(
            ("dummy", "initial", "floor"),
            _anchors_close,
            f"the initial rating, the dummy and the floor must lie within {ANCHOR_SPREAD:g} of each other",
        ),
        Rule(("eta_values",), _rates_within_eta, f"each learning rate must be {THURSTONIAN_ETA.words()}, or 0"),
    )

    # Seed 000, section 5, first table: eta = 0.26 was the hand-tuned rate without a dummy.
    eta: float = param(
        0.26,
        "Learning rate: how far one game moves a rating (seed 000 tuned 0.26).",
        valid=THURSTONIAN_ETA,
        low=0.01,
        high=1.5,
        step=0.01,
        label="learning rate eta",
    )


#: Where the coarse Romberg rows' padding sits, relative to the grid's left end: so far to the
#: right that every density there is exactly 0 and every distribution function exactly 1, so
#: the padding carries no mass and needs no mask.
_PAD = 1.0e4


@functools.lru_cache(maxsize=256)
def _template(cells: int, step: float, levels: int) -> np.ndarray:
    """Offsets from the grid's left end, one row per Romberg level (coarse rows padded with _PAD)."""
    fine = step * np.arange(cells + 1)
    offsets = np.full((levels, cells + 1), _PAD)
    for level in range(levels):
        coarse = fine[:: 1 << level]
        offsets[level, : len(coarse)] = coarse
    offsets.setflags(write=False)
    return offsets


def _grid(ratings: np.ndarray, step: float, levels: int) -> np.ndarray:
    """Grid points, one row per Romberg level (step h, 2h, ...), all rows as long as the finest."""
    lo = float(np.min(ratings)) - EXTENT
    span = float(np.max(ratings)) + EXTENT - lo
    unit = 1 << (levels - 1)
    cells = int(np.ceil(span / (step * unit))) * unit
    return lo + _template(cells, step, levels)


def _cumulative(v: np.ndarray, s: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Corrected trapezoid cumulative integral along rows, in units of h/24.

    ``12 (S_{j-1} + S_j) - (v_{j+1} - v_{j-1})`` with ``S`` the running sum: the trapezoid
    rule minus its leading Euler-Maclaurin error ``h^2 B'(x_j) / 12``, ``B'`` by central
    differences (Gregory's end correction), so the error is O(h^4).  Written in ``S`` alone it
    is ``13 (S_j + S_{j-1}) - (S_{j+1} + S_{j-2})`` (``S`` is 0 before the grid and constant
    after it).  Its transpose, for the backward pass, is the same operation on reversed rows.

    The four-point combination is one pass of :func:`scipy.ndimage.correlate1d` over the
    padded running sum (cheaper than four array operations).  ``s`` (shape ``(rows, G + 3)``,
    first two columns zero) and ``out`` (the same shape) are optional work arrays, so that a
    caller integrating many times reuses them instead of allocating; the result is the first
    ``G`` columns of ``out``.
    """
    rows, g = v.shape
    if s is None:
        s = np.zeros((rows, g + 3))
    np.cumsum(v, axis=1, out=s[:, 2 : g + 2])
    s[:, g + 2] = s[:, g + 1]
    # With origin -2, column j of the output is -s[j] + 13 s[j+1] + 13 s[j+2] - s[j+3] (no boundary reached).
    out = ndimage.correlate1d(s, _GREGORY, axis=1, output=out, origin=-2)
    return out[:, :g]


def _log_cumulative(log_v: np.ndarray, reverse: bool = False) -> np.ndarray:
    """The same in log space: a running ``logaddexp``."""
    if reverse:
        log_v = log_v[:, ::-1]
    log_s = np.logaddexp.accumulate(log_v, axis=1)
    out = np.empty_like(log_s)
    out[:, 0] = log_s[:, 0]
    np.logaddexp(log_s[:, :-1], log_s[:, 1:], out=out[:, 1:])
    return out[:, ::-1] if reverse else out


def _normal_pdf(z: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The standard normal density of ``z``, written to ``out`` (which may be ``z`` itself)."""
    out = np.square(z, out=out)
    out *= -0.5
    out -= LOG_SQRT_2PI
    return np.exp(out, out=out)


def _messages_log(log_a0: np.ndarray, log_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fully logarithmic forward-backward: log posteriors (unnormalised) per stage, and log L."""
    m = log_u.shape[0]
    forward = np.empty_like(log_u)
    forward[0] = log_a0
    for i in range(1, m):
        forward[i] = _log_cumulative(forward[i - 1] + log_u[i - 1])
    log_total = log_sum_exp(forward[m - 1] + log_u[m - 1], axis=1)
    backward = np.empty_like(log_u)
    backward[m - 1] = 0.0
    for i in range(m - 1, 0, -1):
        backward[i - 1] = _log_cumulative(backward[i] + log_u[i], reverse=True)
    log_post = forward + backward + log_u
    return np.exp(log_post - log_sum_exp(log_post, axis=2)[..., None]), log_total


def _messages_scaled(a0: np.ndarray, log_top: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same with every message stored as a log scale (per row) times a mantissa of at most about 1.

    The posteriors are returned unnormalised (each stage's row sums to its own positive mass).

    ``a0`` is the bottom's distribution function divided by ``exp(log_top)``.  Messages are
    divided by their largest end after every integration (forward messages grow to the right,
    backward ones to the left).  Mantissas that fall below 1e-308 of their row's largest value
    flush to zero, which changes nothing at double precision while the rating spread keeps the
    densities representable (:data:`SCALED_SPREAD`).  The corrected trapezoid may leave tiny
    negative values where the integrand is negligible; they do not reach the logarithms, which
    only see the bulk.

    Backward messages are carried in reversed grid order, where the transposed integration is
    the same operation as the forward one, so both passes run together as rows of one array.
    """
    m, n_rows, _ = u.shape
    # Stage k multiplies forward rows by u[k-1] and (reversed) backward rows by u[m-k].
    factors = np.concatenate([u[: m - 1], u[:0:-1, :, ::-1]], axis=1)  # (m-1, 2R, G)
    messages = np.empty((m, 2 * n_rows, u.shape[2]))
    messages[0, :n_rows] = a0
    messages[0, n_rows:] = 1.0
    lasts = np.ones((m, n_rows))
    # Work arrays reused by every stage (allocating them per stage costs more than the arithmetic in small games).
    product = np.empty_like(messages[0])
    running = np.zeros((2 * n_rows, u.shape[2] + 3))
    integral = np.empty_like(running)
    for k in range(1, m):
        np.multiply(messages[k - 1], factors[k - 1], out=product)
        a = _cumulative(product, running, integral)
        lasts[k] = a[:n_rows, -1]
        np.divide(a, a[:, -1:], out=messages[k])
    forward = messages[:, :n_rows]
    backward = messages[::-1, n_rows:, ::-1]
    log_total = log_top + np.log(lasts).sum(axis=0) + np.log(np.sum(forward[m - 1] * u[m - 1], axis=1))
    post = np.multiply(forward, backward)
    post *= u
    return post, log_total  # unnormalised: the caller divides its sums by the posteriors' masses


def _rows(
    ratings: np.ndarray,
    rows: np.ndarray,
    dnf: np.ndarray,
    step: float | None = None,
    levels: int | None = None,
    log_space: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Romberg-combined log-likelihood and gradient for each worst-first finisher order in ``rows``.

    ``log_space`` chooses the computation (default: fully logarithmic only when the ratings
    spread over more than :data:`SCALED_SPREAD`); ``step`` and ``levels`` default per computation.
    """
    spread = float(ratings.max() - ratings.min())
    if log_space is None:
        log_space = spread > SCALED_SPREAD
    if step is None:
        step = _default_step(rows.shape[1] + len(dnf), spread, log_space)
    if levels is None:
        levels = LOG_LEVELS if log_space else LEVELS
    n_orders = rows.shape[0]
    x0 = _grid(ratings, step, levels)  # (L, G)
    h = step * (1 << np.arange(levels))
    if levels > 1 and n_orders * x0.shape[1] * (rows.shape[1] + len(dnf)) > SPLIT_SIZE:
        # Large arrays: each level on its own grid, without the coarse rows' padding (which carries
        # no mass, so the values are the same up to rounding).  Level k's grid is the first
        # cells / 2^k + 1 points of its row of x0 (see _template).
        cells = x0.shape[1] - 1
        parts = [
            _level_rows(ratings, rows, dnf, x0[k : k + 1, : (cells >> k) + 1], h[k : k + 1], log_space)
            for k in range(levels)
        ]
        log_lik = np.concatenate([p[0] for p in parts])
        grad = np.concatenate([p[1] for p in parts])
    else:
        log_lik, grad = _level_rows(ratings, rows, dnf, x0, h, log_space)
    weights = np.asarray((_ROMBERG_PLAIN if log_space else _ROMBERG_CORRECTED)[levels])
    return (
        weights @ log_lik.reshape(levels, n_orders),
        (weights @ grad.reshape(levels, -1)).reshape(n_orders, -1),
    )


def _level_rows(
    ratings: np.ndarray, rows: np.ndarray, dnf: np.ndarray, x0: np.ndarray, h: np.ndarray, log_space: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Discretised log-likelihood and exact gradient of each order in ``rows`` on each grid row of ``x0``.

    ``x0`` holds one grid per level (step ``h[l]``; coarse rows may be padded far to the right).
    Returns arrays with one row per (level, order), level-major.
    """
    levels = x0.shape[0]
    n_orders = rows.shape[0]
    level = np.repeat(np.arange(levels), n_orders)  # row r is (level r // T, order r % T)
    order = np.concatenate([rows] * levels)  # (R, k): the orders repeated for each level
    n_rows = levels * n_orders
    xr = x0[level]  # (R, G)
    if len(dnf):
        chain = order
        zd = x0[:, None, :] - ratings[dnf][None, :, None]  # (L, d, G)
        log_cdf_dnf = special.log_ndtr(zd)
        log_a0 = log_cdf_dnf.sum(axis=1)[level]
    else:
        chain = order[:, 1:]
        zb = xr - ratings[order[:, 0]][:, None]  # (R, G)
        log_cdf_bottom = special.log_ndtr(zb)
        log_a0 = log_cdf_bottom
    m = chain.shape[1]
    if log_space:
        zc = xr[None, :, :] - ratings[chain.T][..., None]  # (m, R, G)
        log_u = -0.5 * zc * zc - LOG_SQRT_2PI
        post, log_total = _messages_log(log_a0, log_u)
    elif n_orders > 1:
        # Tied orderings reuse the same players' densities: tabulate them once per player and level.
        table = x0[None, :, :] - ratings[:, None, None]  # (n, L, G)
        table = _normal_pdf(table, table)
        u = table[chain.T, level[None, :]]  # (m, R, G)
    else:
        zc = xr[None, :, :] - ratings[chain.T][..., None]  # (m, R, G)
        u = _normal_pdf(zc, zc)
    if not log_space:
        log_top = np.max(log_a0, axis=1)
        post, log_total = _messages_scaled(np.exp(log_a0 - log_top[:, None]), log_top, u)

    # d log L / d r = E[x] - r for a chain player; -E[phi/Phi] for a player in the bottom.
    # The posteriors may be unnormalised (scaled path): expectations divide by their mass.
    mass = post.sum(axis=2)  # (m, R)
    grad = np.zeros((n_rows, len(ratings)))
    mean = np.einsum("mrg,rg->rm", post, xr)
    mean /= mass.T
    mean -= ratings[chain]
    grad[np.arange(n_rows)[:, None], chain] = mean
    if len(dnf):
        mills = np.square(zd)  # phi(zd) / Phi(zd), in place
        mills *= -0.5
        mills -= LOG_SQRT_2PI
        mills -= log_cdf_dnf
        np.exp(mills, out=mills)
        grad[:, dnf] = -np.einsum("rdg,rg->rd", mills[level], post[0]) / mass[0][:, None]
    else:
        mills_b = np.square(zb)
        mills_b *= -0.5
        mills_b -= LOG_SQRT_2PI
        mills_b -= log_cdf_bottom
        np.exp(mills_b, out=mills_b)
        grad[np.arange(n_rows), order[:, 0]] = -np.einsum("rg,rg->r", mills_b, post[0]) / mass[0]

    # Constants left out of the messages: h/2 (log path) or h/24 (corrected rule) per
    # cumulative stage, h for the final sum.
    log_lik = log_total + (m - 1) * np.log(h[level] / (2.0 if log_space else 24.0)) + np.log(h[level])
    return log_lik, grad


def _default_step(players: int, spread: float, log_space: bool) -> float:
    """Grid step for an event among ``players`` players whose ratings spread over ``spread``.

    Finer for larger games (integrations and the DNFs' product steepen the messages), but never
    so fine that players x points x levels exceeds :data:`MAX_POINTS` (bounded cost and memory).
    """
    step = min(LOG_STEP if log_space else STEP, STAGE_STEP / max(players - 1, 1))
    levels = LOG_LEVELS if log_space else LEVELS
    widest = (spread + 2 * EXTENT) * players * levels / MAX_POINTS
    return max(step, widest)


def order_log_likelihood(
    ratings: Sequence[float] | np.ndarray,
    order: Sequence[int] | np.ndarray,
    dnf: Sequence[int] | np.ndarray = (),
    *,
    step: float | None = None,
    levels: int | None = None,
    log_space: bool | None = None,
) -> tuple[float, np.ndarray]:
    """log P(max over ``dnf`` < X[order[0]] < X[order[1]] < ...) and its gradient.

    ``order`` lists the finishers worst first; ``dnf`` the players whose order is unobserved
    below them.  Players in neither are not part of the event.
    """
    r = np.asarray(ratings, dtype=float)
    rows = np.asarray(order, dtype=int)[None, :]
    d = np.asarray(dnf, dtype=int)
    if rows.shape[1] == 0 or rows.shape[1] + len(d) < 2:
        raise ValueError("the event needs at least one finisher and two players")
    log_lik, grad = _rows(r, rows, d, step, levels, log_space)
    return float(log_lik[0]), grad[0]


def _two_player_gradient(ratings: np.ndarray, loser: int, winner: int) -> np.ndarray:
    """Closed form of a two-player game without a tie or a DNF (seed 000, section 3.1.2).

    ``P(X_loser < X_winner) = Phi(d)`` with ``d = (r_winner - r_loser) / sqrt(2)``, so the winner's
    gradient is ``phi(d) / (sqrt(2) Phi(d))`` and the loser's its negative; the ratio is taken in
    log space (``log_ndtr``) so that it stays accurate for extreme upsets.  This is the quantity
    the grid computes (which agrees with it to about 1e-9, tests), at a fraction of the cost.
    """
    d = (ratings[winner] - ratings[loser]) / np.sqrt(2.0)
    g = float(np.exp(-0.5 * d * d - LOG_SQRT_2PI - special.log_ndtr(d))) / np.sqrt(2.0)
    out = np.zeros(2)
    out[winner] = g
    out[loser] = -g
    return out


def thurstonian_gradient(ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
    """The update direction of one game: ties averaged over orderings, DNFs censored."""
    ratings = np.asarray(ratings, dtype=float)
    split = split_game(ranks, dnf)
    if split.finishers == 0:
        return np.zeros(len(ratings))
    spread = float(np.ptp(ratings))
    if not spread <= MAX_SPREAD:  # also NaN
        raise ComputationError(
            f"the players' ratings spread over {spread:.3g} performance standard deviations (at most "
            f"{MAX_SPREAD:g} are computed): the updates diverge; lower the learning rate or bring the dummy "
            "and floor nearer the initial rating"
        )
    if not split.has_ties and len(split.dnf) == 0 and len(ratings) == 2:
        return _two_player_gradient(ratings, int(split.groups[0][0]), int(split.groups[1][0]))
    if not split.has_ties:
        return _rows(ratings, np.concatenate(split.groups)[None, :], split.dnf)[1][0]
    # Bound the ordering rows so that orderings x players x grid stays near ROW_BUDGET (large games).
    grid = (spread + 2 * EXTENT) / _default_step(len(ratings), spread, spread > SCALED_SPREAD)
    rows, weights, exact = tie_orderings(
        split, ratings, max_rows=int(np.clip(ROW_BUDGET / (len(ratings) * grid), 2, MAX_ROWS))
    )
    _, grads = _rows(ratings, rows, split.dnf)
    g = weights @ grads
    return g if exact else symmetrize(g, ratings, split)


class Thurstonian(SingleRatingSystem):
    """Unit-variance Gaussian performances, likelihood-gradient updates (seed 000, section 3.2.3)."""

    name = "thurstonian"
    title = "Thurstonian (Gaussian)"
    summary = (
        "Kerby's Gaussian model: one rating per player, updated along the gradient of the likelihood "
        "of the finishing order under normal performances; DNFs' order is left unobserved."
    )
    Params = ThurstonianParams

    def _gradient(self, ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
        return thurstonian_gradient(ratings, ranks, dnf)

    def _kernel(self) -> tuple[int, np.ndarray]:
        """Compiled for games without tied finishers and spreads up to SCALED_SPREAD; the others go game by game."""
        from ratings.kernels.single import THURSTONIAN

        return THURSTONIAN, np.empty(0)

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Monte Carlo (fixed seed) of unit-variance normal performances."""
        ratings = state["rating"][np.asarray(players, dtype=int)]
        return monte_carlo_places(lambda rng, count: ratings + rng.standard_normal((count, len(ratings))), len(ratings))
