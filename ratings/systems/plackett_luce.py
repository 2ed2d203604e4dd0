"""Kerby's exponential model (Plackett-Luce), Kerby 2025 section 3.2.2.

Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note,
2025 (section numbers below are the note's); the order likelihood is the Plackett-Luce model
(Plackett, "The analysis of permutations", 1975; Luce, *Individual Choice Behavior*, 1959).

Performances are independent exponentials with mean ``exp(rho_i)`` (rate ``lambda_i =
exp(-rho_i)``); a higher performance is better, so the order is built from the bottom: the
first player "eliminated" is drawn with weight ``lambda``.  For the order ``X_1 < ... <
X_n`` (``X_1`` the last place) the log-likelihood gradient is (section 3.2.2)::

    g_k = -1 + sum_{i <= k} lambda_k / sum_{j >= i} lambda_j

DNFs (section 4) are censored: their order is unobserved, so the likelihood is
``P(max_DNF X < X_last finisher < ... < X_winner)``.  By memorylessness this factorises as
``C * PL(finishers)``, where ``C = P(every DNF is eliminated before any finisher)``: once the
last DNF is gone, the finishers' residual lifetimes are fresh exponentials.  With ``Lambda``
the finishers' total rate, ``C = int_0^inf Lambda e^{-Lambda y} prod_d (1 - e^{-lambda_d y}) dy``.
Inclusion-exclusion turns that into an alternating sum over subsets of the DNFs, which
cancels catastrophically for large DNF groups; instead the integral is taken after the
substitution ``y = e^t``, where the integrand is smooth, positive and decays exponentially
at both ends, so the trapezoid rule converges spectrally (about 1e-14 against enumeration with
step 0.2).  Everything is summed in log space, and the gradient is the exact derivative of that
quadrature sum:

    d log C / d rho_d = -E[lambda_d y / (e^{lambda_d y} - 1)]
    d log C / d rho_f = lambda_f (E[y] - 1 / Lambda)

with ``E`` the expectation under the normalised integrand.

``dnf_order="independent"`` is the convention of Kerby's published code instead: each censored
player's own probability of finishing below every finisher, multiplied as if independent,
``sum_d log(lambda_d / (lambda_d + Lambda))``, whose gradient is

    d / d rho_d = -Lambda / (lambda_d + Lambda)
    d / d rho_f = lambda_f sum_d 1 / (lambda_d + Lambda)

With one censored player both conventions are the same likelihood.  The censored dummy
(``dummy_tie="censored"``, :mod:`ratings.systems._single`) joins the players of the worst rank
in the censored set, so either way they lose rating and never gain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ratings.base import ComputationError, State
from ratings.lazy import lazy_module
from ratings.numerics import log_sum_exp
from ratings.params import param
from ratings.systems._orders import split_game
from ratings.systems._single import ETA, KerbyParams, SingleRatingSystem

#: scipy.special, loaded on first use (:mod:`ratings.lazy`).
special = lazy_module("scipy.special")

__all__ = [
    "PlackettLuce",
    "PlackettLuceParams",
    "censored_log_probability",
    "order_gradients",
    "plackett_luce_gradient",
]

#: Largest tie group averaged through its 2^m - 1 subsets; a larger one through the integral of
#: :func:`group_integral`.
EXACT_SUBSETS = 14
#: Step of the trapezoid rule over t = log y in :func:`group_integral`.
GROUP_T_STEP = 0.2
#: Step of the quadrature over t = log y for the DNF factor.
T_STEP = 0.2
#: Values of ``dnf_order``: the exact joint probability, or the author's product of each DNF's own.
DNF_ORDERS = ("joint", "independent")
#: Most quadrature nodes of one game: the node range grows with the ratings' spread, which only a
#: diverging learning rate makes wide; past this the replay stops with a ComputationError.
MAX_NODES = 20_000


@dataclass(frozen=True, kw_only=True)
class PlackettLuceParams(KerbyParams):
    """Parameters of the exponential (Plackett-Luce) model."""

    # Kerby 2025, section 5, first table: eta = 0.32 was the hand-tuned rate without a dummy.
    eta: float = param(
        0.32,
        "Learning rate: how far one game moves a rating (Kerby 2025 tuned 0.32).",
        valid=ETA,
        low=0.01,
        high=2.0,
        step=0.01,
        label="learning rate eta",
    )
    dnf_order: str = param(
        "joint",
        "Several DNFs: the exact probability that all finished below every finisher (joint), or the product "
        "of each one's own probability (independent, as in Kerby's published code).",
        choices=DNF_ORDERS,
        label="DNF likelihood",
    )


def order_gradients(ratings: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Gradient of log PL(order) for each worst-first order in ``rows`` (shape ``(T, k)``).

    Returns ``(T, len(ratings))``; players absent from the orders get 0.  Computed in log
    space: ``log sum_{j >= i} lambda_j`` by a reversed log-cumulative-sum, then
    ``lambda_k sum_{i <= k} 1 / Lambda_i = exp(log lambda_k + log cumsum exp(-log Lambda_i))``.
    """
    rows = np.atleast_2d(rows)
    log_lam = -ratings[rows]
    log_tail = np.logaddexp.accumulate(log_lam[:, ::-1], axis=1)[:, ::-1]  # log Lambda_i
    log_inv = np.logaddexp.accumulate(-log_tail, axis=1)  # log sum_{i<=k} 1/Lambda_i
    g = -1.0 + np.exp(log_lam + log_inv)
    out = np.zeros((rows.shape[0], len(ratings)))
    out[np.arange(rows.shape[0])[:, None], rows] = g
    return out


def _dnf_quadrature(r_dnf: np.ndarray, r_fin: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Nodes t, log integrand w(t) (with the dy = e^t dt Jacobian) and log Lambda, on a shifted scale."""
    centre = float(np.mean(np.concatenate([r_dnf, r_fin])))
    log_lam_d = -(r_dnf - centre)
    log_big = float(log_sum_exp(-(r_fin - centre)))
    m = len(r_dnf)
    # Right end: Lambda y = 2(m+1) + 60 leaves the integrand e^-40 below its peak or less;
    # left end: below every 1/lambda the integrand falls like e^{(m+1) t}.
    t_hi = -log_big + np.log(2.0 * (m + 1) + 60.0)
    t_lo = min(-log_big, float(np.min(-log_lam_d))) - 50.0 / (m + 1) - 2.0
    nodes = (t_hi - t_lo) / T_STEP
    if not nodes <= MAX_NODES:  # also NaN
        spread = float(np.ptp(np.concatenate([r_dnf, r_fin])))
        raise ComputationError(
            f"the players' ratings spread over {spread:.3g} (natural scale): the updates diverge; "
            "lower the learning rate or bring the dummy and floor nearer the initial rating"
        )
    t = np.arange(t_lo, t_hi + T_STEP, T_STEP)
    z = np.exp(log_lam_d[:, None] + t[None, :])  # lambda_d y
    w = log_big + t - np.exp(log_big + t) + np.log(-np.expm1(-z)).sum(axis=0)
    return t, w, log_big


def censored_log_probability(r_dnf: np.ndarray, r_fin: np.ndarray) -> float:
    """log P(every DNF performs below every finisher) in the exponential model."""
    if len(r_dnf) == 0 or len(r_fin) == 0:
        return 0.0
    _, w, _ = _dnf_quadrature(np.asarray(r_dnf, float), np.asarray(r_fin, float))
    return float(log_sum_exp(w) + np.log(T_STEP))


def _censored_gradient(ratings: np.ndarray, dnf: np.ndarray, fin: np.ndarray) -> np.ndarray:
    centre = float(np.mean(ratings[np.concatenate([dnf, fin])]))
    t, w, log_big = _dnf_quadrature(ratings[dnf], ratings[fin])
    p = np.exp(w - log_sum_exp(w))
    z = np.exp(-(ratings[dnf] - centre)[:, None] + t[None, :])
    with np.errstate(over="ignore", invalid="ignore"):
        ratio = np.where(z < 1e-8, 1.0 - 0.5 * z, z / np.expm1(z))  # z / (e^z - 1)
    out = np.zeros(len(ratings))
    out[dnf] = -(ratio * p).sum(axis=1)
    log_lam_f = -(ratings[fin] - centre)
    out[fin] = (np.exp(log_lam_f[:, None] + t[None, :]) * p).sum(axis=1) - np.exp(log_lam_f - log_big)
    return out


def _independent_gradient(ratings: np.ndarray, dnf: np.ndarray, fin: np.ndarray) -> np.ndarray:
    """Gradient of ``sum_d log(lambda_d / (lambda_d + Lambda))`` (each DNF below every finisher, independently)."""
    log_big = float(log_sum_exp(-ratings[fin]))
    log_den = np.logaddexp(-ratings[dnf], log_big)  # log(lambda_d + Lambda)
    out = np.zeros(len(ratings))
    out[dnf] = -np.exp(log_big - log_den)
    out[fin] = np.exp(-ratings[fin] + float(log_sum_exp(-log_den)))
    return out


def _counted_order_terms(lam: np.ndarray, above: float) -> tuple[np.ndarray, float]:
    """A tie group's positional terms for the one order the plain gradient counted (worst first, index order):
    position ``t`` keeps members ``t..m-1``, so member ``b`` gets ``lambda_b sum_{t <= b} 1 / Lambda_t``."""
    inverse = 1.0 / (np.cumsum(lam[::-1])[::-1] + above)  # 1 / Lambda_t
    return lam * np.cumsum(inverse), float(inverse.sum())


def _group_terms(lam: np.ndarray, above: float) -> tuple[np.ndarray, float]:
    """A tie group's positional terms, averaged over its orderings.

    The position-``i`` term of section 3.2.2 gives ``lambda_k / Lambda_i`` to every player ``k``
    at or above position ``i``.  Inside a tied group of ``m`` players with total rate ``above``
    above it, the players still in play at the group's ``t``-th position form a uniformly
    random subset of size ``m - t``; so the average over all ``m!`` orderings is a sum over the
    ``2^m - 1`` non-empty subsets ``S``, weighted ``1 / C(m, |S|)``.  Returns the group
    members' terms and the factor that multiplies each higher player's ``lambda``.
    """
    m = len(lam)
    masks = ((np.arange(1, 1 << m)[:, None] >> np.arange(m)) & 1).astype(bool)
    weights = 1.0 / special.comb(m, masks.sum(axis=1)) / (masks @ lam + above)
    return lam * (masks.T @ weights), float(weights.sum())


def group_integral(lam: np.ndarray, above: float) -> tuple[np.ndarray, float]:
    """A large tie group's subset sums of :func:`_group_terms`, by an integral instead of its 2^m subsets.

    With ``w(S) = 1 / (C(m, |S|) (lambda(S) + above))``, ``1 / C(m, k) = (m + 1) int_0^1 u^k (1-u)^(m-k) du``
    (the beta integral) and ``1 / x = int_0^inf e^(-x y) dy`` turn the sums over subsets into products::

        sum_{S != {}} w(S)  = (m+1) int_0^1 int_0^inf e^(-above y) [prod_c (1 - u + u x_c) - (1-u)^m] dy du
        sum_{S ∋ b} w(S)    = (m+1) int_0^1 int_0^inf e^(-above y) u x_b prod_{c != b} (1 - u + u x_c) dy du

    with ``x_c = e^(-lambda_c y)``.  The integrand is a polynomial of degree m in u, so Gauss-Legendre with
    ``m // 2 + 1`` nodes integrates u exactly; y is integrated after ``y = e^t`` by the trapezoid rule (step
    :data:`GROUP_T_STEP`; the integrand decays doubly exponentially at both ends, so the rule converges
    spectrally, as for the DNF factor).  Every term is positive: nothing cancels, unlike inclusion-exclusion.
    Against the subset sums (m <= 14) it agrees to about 1e-13 (tests/test_plackett_luce.py).  Cost
    O(m^2 x nodes in t), against the subset sums' O(m 2^m).  Returns ``(lam_b sum_{S ∋ b} w(S), sum_S w(S))``.
    """
    m = len(lam)
    roots, weights = special.roots_legendre(m // 2 + 1)
    u = 0.5 * (roots + 1.0)
    wu = 0.5 * weights
    t_lo = -np.log(lam.sum() + above) - 37.0
    t_hi = np.log(60.0 / (above + lam.min()))
    if not (t_hi - t_lo) / GROUP_T_STEP <= MAX_NODES:  # also NaN
        raise ComputationError(
            f"a tie group's ratings spread over {np.log(lam.max() / lam.min()):.3g} (natural scale): the updates "
            "diverge; lower the learning rate or bring the dummy and floor nearer the initial rating"
        )
    t = np.arange(t_lo, t_hi + GROUP_T_STEP, GROUP_T_STEP)
    y = np.exp(t)
    jacobian = GROUP_T_STEP * y * np.exp(-above * y)  # dy = y dt, times e^(-above y)
    x = np.exp(-lam[None, :] * y[:, None])  # (nodes, m)
    own = np.zeros(m)
    factor = 0.0
    for uk, wk in zip(u, wu, strict=True):
        f = 1.0 - uk + uk * x
        product = np.exp(np.log(f).sum(axis=1))
        factor += wk * float(jacobian @ (product - (1.0 - uk) ** m))
        own += wk * uk * ((jacobian * product) @ (x / f))
    return lam * (m + 1) * own, (m + 1) * factor


def plackett_luce_gradient(
    ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, *, dnf_order: str = "joint"
) -> np.ndarray:
    """The update direction of one game: ties averaged over orderings, DNFs censored (jointly or independently).

    Tied groups are averaged exactly over all their orderings: up to :data:`EXACT_SUBSETS` players through the
    subset sum of :func:`_group_terms`, larger ones through the integral of :func:`group_integral`.
    """
    ratings = np.asarray(ratings, dtype=float)
    split = split_game(ranks, dnf)
    if split.finishers == 0:
        return np.zeros(len(ratings))
    fin = np.concatenate(split.groups)  # worst first, tied groups in index order
    g = order_gradients(ratings, fin[None, :])[0]
    if split.has_ties:
        # Section 3.2.2's gradient is a sum of one term per position; replace each tied
        # group's terms for the order above by their average over the group's orderings.
        lam = np.exp(-(ratings - ratings[fin].max()))
        start = 0
        for group in split.groups:
            start += len(group)
            if len(group) == 1:
                continue
            higher = fin[start:]
            above = float(lam[higher].sum())
            if len(group) > EXACT_SUBSETS:
                own, factor = group_integral(lam[group], above)
            else:
                own, factor = _group_terms(lam[group], above)
            own_base, factor_base = _counted_order_terms(lam[group], above)
            g[group] += own - own_base
            g[higher] += lam[higher] * (factor - factor_base)
    if len(split.dnf):
        censored = _independent_gradient if dnf_order == "independent" else _censored_gradient
        g = g + censored(ratings, split.dnf, fin)
    return g


class PlackettLuce(SingleRatingSystem):
    """Exponential performances, likelihood-gradient updates (Kerby 2025, section 3.2.2)."""

    name = "plackett-luce"
    title = "Plackett-Luce (exponential)"
    summary = (
        "Kerby's exponential model: one rating per player, updated along the gradient of the "
        "Plackett-Luce likelihood of the finishing order; DNFs' order is left unobserved."
    )
    Params = PlackettLuceParams

    def _gradient(self, ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
        return plackett_luce_gradient(ratings, ranks, dnf, dnf_order=self.params.dnf_order)

    def _kernel(self) -> tuple[int, np.ndarray]:
        from ratings.kernels.plackett_luce import INDEPENDENT
        from ratings.kernels.single import PLACKETT_LUCE

        return PLACKETT_LUCE, np.array([INDEPENDENT if self.params.dnf_order == "independent" else 0.0])

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Exact: the last place is drawn first, with weight exp(-r)."""
        from ratings.predict import plackett_luce_places  # with scipy's integrators, loaded when first asked for

        ratings = state["rating"][np.asarray(players, dtype=int)]
        return plackett_luce_places(-ratings, worst_first=True)
