"""Kerby's Gaussian model (Thurstonian), seed 000 section 3.2.3.

Performances are independent ``N(r_i, 1)``; the update is the gradient of the log-likelihood
of the observed order.  Reading the game worst first (``X_1 < ... < X_n``), the likelihood is
a chain of one-dimensional operations (section 3.2.3): start from the distribution function
of the bottom, multiply pointwise by the next player's density, integrate cumulatively, and
so on; the last integral is the probability.  With DNFs (section 4) the bottom is the
maximum of the DNFs' performances, whose distribution function is the product of their
``Phi(x - r_d)``; without DNFs it is ``Phi(x - r)`` of the last finisher.

Discretisation.  A uniform grid covers ``[min r - 7, max r + 7]`` (beyond it a unit
Gaussian has mass below 1e-11).  Cumulative integration is the trapezoid rule,
``A_j = h (S_{j-1} + S_j) / 2`` with ``S`` the running sum, and the final integral is the
trapezoid sum.  The trapezoid error expands in even powers of h (Euler-Maclaurin), so the
log-likelihood is computed on the grids of step h, 2h and 4h (every other point, every
fourth point) and combined by Romberg's rule ``(64 F_h - 20 F_2h + F_4h) / 45``, which
removes the h^2 and h^4 terms; with h = 0.1 the result agrees with a very fine grid to about
1e-9 (see tests).

Log space.  Every message is held as a logarithm (section 3.2.3 warns of underflow):
pointwise multiplication is addition and cumulative integration a running ``logaddexp``.

Exact gradient.  The discretised likelihood is ``L = w' D_m K D_{m-1} ... K D_1 a_0`` with
``D_i`` the diagonal of player i's density on the grid and ``K`` the cumulative trapezoid
matrix.  As in the forward-backward algorithm for hidden Markov models, forward messages
``a_i`` and backward messages ``g_i`` (``g_m = w``, ``g_{i-1} = K' (u_i * g_i)``) give
``dL/du_i = a_{i-1} * g_i``; with ``p_i = a_{i-1} u_i g_i / L`` (a distribution on the grid,
the posterior of the i-th player's performance):

    d log L / d r_i = sum_x p_i(x) (x - r_i)            (a finisher above the bottom)
    d log L / d r_b = -sum_x p_1(x) phi(x - r_b) / Phi(x - r_b)   (a player in the bottom)

This is the exact derivative of the (Romberg-combined) discretised log-likelihood, at O(n G)
cost per game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from ratings.base import State
from ratings.numerics import LOG_SQRT_2PI
from ratings.params import param
from ratings.predict import monte_carlo_places
from ratings.systems._orders import split_game, symmetrize, tie_orderings
from ratings.systems._single import KerbyParams, SingleRatingSystem

__all__ = ["Thurstonian", "ThurstonianParams", "order_log_likelihood", "thurstonian_gradient"]

#: Grid step of the finest Romberg level.
STEP = 0.05
#: Grid extent beyond the lowest and highest rating of the game.
EXTENT = 7.0
#: Romberg levels (steps h, 2h, 4h) and their weights.
#: Widest rating spread handled with scaled (rather than fully logarithmic) messages.
SCALED_SPREAD = 20.0
_ROMBERG = {1: (1.0,), 2: (4.0 / 3.0, -1.0 / 3.0), 3: (64.0 / 45.0, -20.0 / 45.0, 1.0 / 45.0)}


@dataclass(frozen=True, kw_only=True)
class ThurstonianParams(KerbyParams):
    """Parameters of the Gaussian (Thurstonian) model."""

    # Seed 000, section 5, first table: eta = 0.26 was the hand-tuned rate without a dummy.
    eta: float = param(
        0.26,
        "Learning rate: how far one game moves a rating (seed 000 tuned 0.26).",
        low=0.01,
        high=2.0,
        step=0.01,
        label="learning rate eta",
    )


def _grid(ratings: np.ndarray, step: float, levels: int) -> np.ndarray:
    """Grid points, one row per Romberg level (coarser rows padded with NaN)."""
    lo = float(np.min(ratings)) - EXTENT
    span = float(np.max(ratings)) + EXTENT - lo
    unit = 1 << (levels - 1)
    cells = int(np.ceil(span / (step * unit))) * unit
    fine = lo + step * np.arange(cells + 1)
    x = np.full((levels, cells + 1), np.nan)
    for level in range(levels):
        coarse = fine[:: 1 << level]
        x[level, : len(coarse)] = coarse
    return x


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(a - top), axis=axis))


def _cumulative(v: np.ndarray, reverse: bool = False) -> np.ndarray:
    """Trapezoid cumulative integral ``S_{j-1} + S_j`` along rows (the factor h/2 is left out).

    ``reverse`` applies the transpose (sums from the right), used by the backward pass.
    """
    if reverse:
        v = v[:, ::-1]
    s = np.cumsum(v, axis=1)
    out = s.copy()
    out[:, 1:] += s[:, :-1]
    return out[:, ::-1] if reverse else out


def _log_cumulative(log_v: np.ndarray, reverse: bool = False) -> np.ndarray:
    """The same in log space: a running ``logaddexp``."""
    if reverse:
        log_v = log_v[:, ::-1]
    log_s = np.logaddexp.accumulate(log_v, axis=1)
    out = np.empty_like(log_s)
    out[:, 0] = log_s[:, 0]
    np.logaddexp(log_s[:, :-1], log_s[:, 1:], out=out[:, 1:])
    return out[:, ::-1] if reverse else out


def _messages_log(log_a0: np.ndarray, log_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fully logarithmic forward-backward: log posteriors (unnormalised) per stage, and log L."""
    m = log_u.shape[0]
    forward = np.empty_like(log_u)
    forward[0] = log_a0
    for i in range(1, m):
        forward[i] = _log_cumulative(forward[i - 1] + log_u[i - 1])
    log_total = _logsumexp(forward[m - 1] + log_u[m - 1], axis=1)
    backward = np.empty_like(log_u)
    backward[m - 1] = 0.0
    for i in range(m - 1, 0, -1):
        backward[i - 1] = _log_cumulative(backward[i] + log_u[i], reverse=True)
    log_post = forward + backward + log_u
    return np.exp(log_post - _logsumexp(log_post, axis=2)[..., None]), log_total


def _messages_scaled(log_a0: np.ndarray, log_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same with every message stored as a log scale (per row) times a mantissa whose largest value is 1.

    Forward messages are cumulative integrals, so their largest value is the last one;
    backward messages are integrals from the right, largest at the first point.  Mantissas
    that fall below 1e-308 of their row's largest value flush to zero, which changes nothing
    at double precision while the rating spread keeps the densities representable.
    """
    m = log_u.shape[0]
    u = np.exp(log_u)
    top = np.max(log_a0, axis=1)
    a = np.exp(log_a0 - top[:, None])
    log_scale = top
    forward = np.empty_like(u)
    forward[0] = a
    for i in range(1, m):
        a = _cumulative(a * u[i - 1])
        last = a[:, -1].copy()
        a /= last[:, None]
        log_scale = log_scale + np.log(last)
        forward[i] = a
    log_total = log_scale + np.log(np.sum(a * u[m - 1], axis=1))
    backward = np.empty_like(u)
    g = np.ones_like(a)
    backward[m - 1] = g
    for i in range(m - 1, 0, -1):
        g = _cumulative(g * u[i], reverse=True)
        g /= g[:, :1].copy()
        backward[i - 1] = g
    post = forward * backward * u
    post /= post.sum(axis=2, keepdims=True)
    return post, log_total


def _rows(
    ratings: np.ndarray, rows: np.ndarray, dnf: np.ndarray, step: float, levels: int, log_space: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Romberg-combined log-likelihood and gradient for each worst-first finisher order in ``rows``.

    ``log_space`` chooses the message representation (default: fully logarithmic only when
    the ratings spread over more than :data:`SCALED_SPREAD`).
    """
    if log_space is None:
        log_space = float(np.ptp(ratings)) > SCALED_SPREAD
    n_orders = rows.shape[0]
    x = _grid(ratings, step, levels)  # (L, G)
    valid = ~np.isnan(x)
    x0 = np.where(valid, x, 0.0)
    level = np.repeat(np.arange(levels), n_orders)  # row r is (level r // T, order r % T)
    order = np.tile(rows, (levels, 1))  # (R, k)
    n_rows = levels * n_orders
    xr = x0[level]  # (R, G)
    valid_r = valid[level]
    if len(dnf):
        chain = order
        zd = x0[:, None, :] - ratings[dnf][None, :, None]  # (L, d, G)
        log_cdf_dnf = special.log_ndtr(zd)
        log_a0 = np.where(valid, log_cdf_dnf.sum(axis=1), -np.inf)[level]
    else:
        chain = order[:, 1:]
        zb = xr - ratings[order[:, 0]][:, None]  # (R, G)
        log_cdf_bottom = special.log_ndtr(zb)
        log_a0 = np.where(valid_r, log_cdf_bottom, -np.inf)
    m = chain.shape[1]
    zc = xr[None, :, :] - ratings[chain.T][..., None]  # (m, R, G)
    log_u = np.where(valid_r[None], -0.5 * zc * zc - LOG_SQRT_2PI, -np.inf)

    post, log_total = (_messages_log if log_space else _messages_scaled)(log_a0, log_u)

    # d log L / d r = E[x] - r for a chain player; -E[phi/Phi] for a player in the bottom.
    grad = np.zeros((n_rows, len(ratings)))
    grad[np.arange(n_rows)[:, None], chain] = (post * zc).sum(axis=2).T
    if len(dnf):
        mills = np.where(valid[:, None, :], np.exp(-0.5 * zd * zd - LOG_SQRT_2PI - log_cdf_dnf), 0.0)[level]
        grad[:, dnf] = -(mills * post[0][:, None, :]).sum(axis=2)
    else:
        mills_b = np.where(valid_r, np.exp(-0.5 * zb * zb - LOG_SQRT_2PI - log_cdf_bottom), 0.0)
        grad[np.arange(n_rows), order[:, 0]] = -(mills_b * post[0]).sum(axis=1)

    # Constants left out of the messages: h/2 per cumulative stage, h for the final sum.
    h = step * (1 << np.arange(levels))
    log_lik = log_total + (m - 1) * np.log(h[level] / 2.0) + np.log(h[level])
    weights = np.asarray(_ROMBERG[levels])
    return (
        weights @ log_lik.reshape(levels, n_orders),
        np.tensordot(weights, grad.reshape(levels, n_orders, -1), axes=1),
    )


def order_log_likelihood(
    ratings: Sequence[float] | np.ndarray,
    order: Sequence[int] | np.ndarray,
    dnf: Sequence[int] | np.ndarray = (),
    *,
    step: float = STEP,
    levels: int = 3,
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


def thurstonian_gradient(ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
    """The update direction of one game: ties averaged over orderings, DNFs censored."""
    ratings = np.asarray(ratings, dtype=float)
    split = split_game(ranks, dnf)
    if split.finishers == 0:
        return np.zeros(len(ratings))
    rows, weights, exact = tie_orderings(split, ratings, separable=False)
    _, grads = _rows(ratings, rows, split.dnf, STEP, 3)
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

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Monte Carlo (fixed seed) of unit-variance normal performances."""
        ratings = state["rating"][np.asarray(players, dtype=int)]
        return monte_carlo_places(lambda rng, count: ratings + rng.standard_normal((count, len(ratings))), len(ratings))
