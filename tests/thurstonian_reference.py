"""An independent reference for the Thurstonian order likelihood and its gradient (tests only).

The production code (:mod:`ratings.systems.thurstonian`) integrates on a uniform grid with
Euler-Maclaurin corrected running sums, over the projection's range, at a step it chooses from
the game.  This reference shares none of that: it tiles the whole ratings range widened by
:data:`MARGIN` with panels of width ``width``, each carrying 16 Gauss-Legendre nodes, and
integrates cumulatively by the exact integral of each panel's interpolating polynomial (the
Legendre spectral integration matrix, numpy.polynomial.legendre), which converges spectrally; the
panels are so narrow (0.05 by default, against features no narrower than about 0.01 at spreads up
to 40) that halving them changes nothing at 1e-9 (checked in the tests).  Messages are held as
logarithms, so nothing underflows.

What it shares with the production code is the mathematics of the model only: the recursion of
Kerby 2025 section 3.2.3 (each performance's density times the cumulative integral of the one
below) with censored DNFs (section 4), and the gradient written as the densities of
neighbouring performances coinciding, ``d log L / d r_k = (c_{k-1} - c_k) / L``, which the tests
check against central differences of this reference's own log-likelihood.

Sources: Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import legendre
from scipy import special

NODES = 16
MARGIN = 10.0
LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)

_t, _w = legendre.leggauss(NODES)
# Q[i, j] = integral from -1 to t_i of the j-th Lagrange basis polynomial on the nodes.
_coeffs = np.linalg.inv(legendre.legvander(_t, NODES - 1))  # column j: Legendre coefficients of l_j
_Q = legendre.legval(_t, legendre.legint(_coeffs, lbnd=-1)).T
_R = _w[None, :] - _Q  # integral from t_i to 1


def _log(values: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(values, 0.0))


def reference(
    ratings: np.ndarray,
    order: list[int],
    dnf: list[int] = (),
    width: float = 0.05,  # type: ignore[assignment]
) -> tuple[float, np.ndarray]:
    """log P(max X[dnf] < X[order[0]] < X[order[1]] < ...) and its gradient (``order`` worst first).

    Every message is held as its logarithm at the nodes; a panel's integral is formed relative to
    the panel's largest value, and panels are summed with ``logaddexp``.
    """
    r = np.asarray(ratings, dtype=float)
    if len(dnf):
        chain, bottom = list(order), list(dnf)
    else:
        chain, bottom = list(order[1:]), list(order[:1])
    lo = r.min() - MARGIN
    panels = int(math.ceil((r.max() + MARGIN - lo) / width))
    half = width / 2
    x = (lo + width * np.arange(panels) + half)[:, None] + half * _t[None, :]  # (panels, nodes)

    def relative(log_v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        top = log_v.max(axis=1)
        top = np.where(np.isfinite(top), top, 0.0)
        return np.exp(log_v - top[:, None]), top

    def log_cumulative(log_v: np.ndarray, rule: np.ndarray, right: bool) -> np.ndarray:
        v, top = relative(log_v)
        log_mass = top + _log(half * (v @ _w))
        if right:
            outside = np.logaddexp.accumulate(log_mass[::-1])[::-1]
            outside = np.concatenate([outside[1:], [-np.inf]])
        else:
            outside = np.concatenate([[-np.inf], np.logaddexp.accumulate(log_mass)[:-1]])
        return np.logaddexp(outside[:, None], top[:, None] + _log(half * (v @ rule.T)))

    def log_total(log_v: np.ndarray) -> float:
        v, top = relative(log_v)
        log_mass = top + _log(half * (v @ _w))
        return float(np.logaddexp.reduce(log_mass))

    log_cdf = [special.log_ndtr(x - r[d]) for d in bottom]
    log_u = [-0.5 * (x - r[k]) ** 2 - LOG_SQRT_2PI for k in chain]
    m = len(chain)
    log_t = []
    log_f = np.sum(log_cdf, axis=0)
    for k in range(m):
        log_t.append(log_f + log_u[k])
        if k < m - 1:
            log_f = log_cumulative(log_t[k], _Q, right=False)
    log_lik = log_total(log_t[m - 1])
    log_b = [np.zeros_like(x)] * m
    for k in range(m - 1, 0, -1):
        log_b[k - 1] = log_cumulative(log_u[k] + log_b[k], _R, right=True)
    grad = np.zeros(len(r))
    for k in range(m - 1):
        c = math.exp(log_total(log_t[k] + log_u[k + 1] + log_b[k + 1]) - log_lik)
        grad[chain[k]] -= c
        grad[chain[k + 1]] += c
    others = np.sum(log_cdf, axis=0)
    for i, d in enumerate(bottom):
        log_side = -0.5 * (x - r[d]) ** 2 - LOG_SQRT_2PI + others - log_cdf[i]
        c = math.exp(log_total(log_side + log_u[0] + log_b[0]) - log_lik)
        grad[d] -= c
        grad[chain[0]] += c
    return log_lik, grad
