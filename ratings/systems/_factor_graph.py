"""Message passing on the TrueSkill factor graph of one free-for-all game (one player per team).

Herbrich, Minka and Graepel, "TrueSkill: A Bayesian skill rating system", NIPS 2006 (reference [1]
of Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025, cited
below as Kerby 2025).  For the players sorted best first, the graph is a chain::

    prior_i -> skill s_i -> performance p_i = s_i + N(0, beta^2) -> team performance t_i = p_i
    d_k = t_k - t_{k+1}                      (k = 0 .. n-2, one difference per adjacent pair)
    1[d_k > eps]   (k-th placed ahead)   or   1[|d_k| <= eps]   (tied: a draw)

The prior of every skill is N(mu, sigma^2 + tau^2) (the dynamics factor adds tau^2 before the
game).  Messages are Gaussians kept in natural parameters (precision ``pi`` = 1/variance and
precision-adjusted mean ``tau`` = mu/variance), so that multiplying and dividing Gaussians is
adding and subtracting.  The truncation factors are approximated by moment matching
(expectation propagation) with the functions ``v`` and ``w`` of the paper (its eq. 3 and the
draw variants); the chain of differences is swept forward and backward until no truncation
changes its variable by more than ``min_delta`` (at most ten sweeps).

The schedule, the stopping rule and the normal-distribution arithmetic (a Chebyshev fit of erfc)
are those of the Python ``trueskill`` package (0.4.5), which racetime.gg uses (Kerby 2025, section
5), so the two agree to about 1e-11, including the package's tie asymmetry: tied players coming
from equal ratings end slightly apart, because the sweep stops before it has fully converged.
Every scalar is a plain Python float: a chain of a few dozen factors is far too short for numpy
to pay off, and the Gauss-Seidel order of the sweep is sequential anyway.  About ten times faster
than the package (benchmarks/trueskill_speed.py), because there are no objects per message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy import special

__all__ = [
    "MIN_DELTA",
    "cdf",
    "draw_margin",
    "draw_vw",
    "erfc",
    "free_for_all",
    "pdf",
    "ppf",
    "v_draw",
    "v_win",
    "w_draw",
    "w_win",
    "win_vw",
]

#: Stopping rule of the sweep over the chain of differences (the ``trueskill`` package's default).
MIN_DELTA = 1e-4
#: The package stops after ten sweeps even when the change is still above ``min_delta`` (found by
#: counting its truncation updates); with default settings it converges in 3-7, but a narrow draw
#: margin (draw probability 0.001, Kerby's (2025) tuned setting) with ties usually reaches the cap.
MAX_SWEEPS = 10

_INF = math.inf
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: w is a variance reduction factor in (0, 1); keep it strictly inside so that 1 - w never vanishes.
_W_MIN = 1e-300
_W_MAX = 1.0 - 1e-15
#: Below this standardised argument the package's Phi leaves the normal floating-point range (Phi(-37.5) ~ 2e-307,
#: Phi(-37.6) is subnormal) and it has no usable answer; there we use scaled forms with scipy's exact erfcx.  Above
#: it we keep the package's arithmetic even for 30-sigma upsets, which random large fields do reach mid-sweep.
_TAIL = -37.5


def erfc(x: float) -> float:
    """Complementary error function, to a relative error below 1.2e-7.

    The Chebyshev fit ``erfc(z) = t exp(-z^2 + P(t))``, ``t = 1 / (1 + z/2)`` for z >= 0 and
    ``erfc(-z) = 2 - erfc(z)`` of Press et al., *Numerical Recipes*, section 6.2 (routine ``erfcc``).
    The ``trueskill`` package computes its normal distribution function with this approximation,
    evaluated in this order; doing the same makes our ratings agree with the package's (and so
    racetime.gg's) to about 1e-12 instead of 1e-5, because a draw with a narrow margin amplifies
    every rounding of Phi(a) - Phi(b).
    """
    z = abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    # The polynomial of the fit by Horner's rule, evaluated exactly as the package nests it.
    q = 0.17087277
    q = q * t - 0.82215223
    q = q * t + 1.48851587
    q = q * t - 1.13520398
    q = q * t + 0.27886807
    q = q * t - 0.18628806
    q = q * t + 0.09678418
    q = q * t + 0.37409196
    r = t * math.exp(-z * z - 1.26551223 + t * (q * t + 1.00002368))
    return 2.0 - r if x < 0.0 else r


def cdf(x: float) -> float:
    """Standard normal distribution function Phi(x) = erfc(-x / sqrt 2) / 2, with :func:`erfc`."""
    return 0.5 * erfc(-x / _SQRT2)


def pdf(x: float) -> float:
    """Standard normal density (x**2 rather than x*x: the package's rounding, bit for bit)."""
    return _INV_SQRT_2PI * math.exp(-(x**2 / 2.0))


def ppf(p: float) -> float:
    """Inverse of :func:`cdf` (exact inverse to rounding: Newton steps from scipy's ``ndtri``)."""
    x = float(special.ndtri(p))
    for _ in range(3):
        x -= (cdf(x) - p) / pdf(x)
    return x


def draw_margin(draw_probability: float, beta: float, players: int = 2) -> float:
    """Draw margin eps of a pair of one-player teams (paper, section 2.2).

    A draw is |p_a - p_b| <= eps, and between two players of equal skill p_a - p_b ~ N(0, 2 beta^2),
    so P(draw) = 2 Phi(eps / (sqrt(2) beta)) - 1, i.e. ``eps = Phi^-1((P + 1) / 2) sqrt(players) beta``.
    """
    # With draw probability 0, Phi^-1(1/2) is a root of the fitted Phi next to 0 on either side (the
    # fit is off by 1e-7 at 0); the margin is the non-negative one, as in the package.
    return abs(ppf((draw_probability + 1.0) / 2.0)) * math.sqrt(players) * beta


def _mills(x: float) -> float:
    """phi(x) / Phi(x), without underflow however negative x is."""
    if x < _TAIL:
        # Phi(x) = exp(-x^2/2) erfcx(-x/sqrt 2) / 2, so the Gaussian factors cancel.  The exact erfcx,
        # because w = v (v + x) cancels and magnifies any relative error of v by about x^2.
        return _SQRT_2_OVER_PI / float(special.erfcx(-x / _SQRT2))
    return pdf(x) / cdf(x)


def win_vw(t: float, eps: float) -> tuple[float, float]:
    """v and w of a win: N(t, 1) truncated to (eps, inf) has mean t + v and variance 1 - w (paper, eq. 3).

    v = phi(x) / Phi(x) and w = v (v + x) with x = t - eps; w is kept inside (0, 1) (the package
    raises an error outside it).
    """
    x = t - eps
    v = _mills(x)
    w = v * (v + x)
    return v, (_W_MIN if w < _W_MIN else (_W_MAX if w > _W_MAX else w))


def draw_vw(t: float, eps: float) -> tuple[float, float]:
    """v and w of a draw: N(t, 1) truncated to [-eps, eps] has mean t + v and variance 1 - w.

    With a = eps - |t|, b = -eps - |t| and Z = Phi(a) - Phi(b): v = sign(t) (phi(b) - phi(a)) / Z and
    w = v^2 + (a phi(a) - b phi(b)) / Z.  Far from a draw (a < -37.5) all three are scaled by
    exp(a^2 / 2), which leaves the ratios unchanged and keeps them representable; elsewhere the
    arithmetic is the package's, operation for operation.

    Exactly, w lies in (0, 1), about 1 - eps^2 / 3 for a narrow margin.  As in the package it is not
    clamped below 1: with a margin that narrow the fitted Phi can put it a hair above 1, giving a
    message of negative precision that still pins the difference at ~0; clamping would move the
    ratings ~1e-5 away from the package's.  Only w = 1 exactly (a division by zero) is nudged.
    """
    s = abs(t)
    a = eps - s
    b = -eps - s
    if a < _TAIL:
        r = math.exp(0.5 * (a * a - b * b))  # = exp(-2 eps |t|) <= 1
        z = 0.5 * float(special.erfcx(-a / _SQRT2) - r * special.erfcx(-b / _SQRT2))
        pa = _INV_SQRT_2PI
        pb = _INV_SQRT_2PI * r
    else:
        z = cdf(a) - cdf(b)
        pa = pdf(a)
        pb = pdf(b)
    if z <= 0.0:  # both tails underflowed: the package's fallback for v
        return (-a if t < 0 else a), _W_MAX
    v = (pb - pa) / z
    w = v**2 + (a * pa - b * pb) / z
    return (-v if t < 0 else v), (_W_MAX if w == 1.0 else w)


def v_win(t: float, eps: float) -> float:
    """Mean shift of a win (see :func:`win_vw`)."""
    return win_vw(t, eps)[0]


def w_win(t: float, eps: float) -> float:
    """Variance reduction of a win (see :func:`win_vw`)."""
    return win_vw(t, eps)[1]


def v_draw(t: float, eps: float) -> float:
    """Mean shift of a draw (see :func:`draw_vw`)."""
    return draw_vw(t, eps)[0]


def w_draw(t: float, eps: float) -> float:
    """Variance reduction of a draw (see :func:`draw_vw`)."""
    return draw_vw(t, eps)[1]


def _mean(pi: float, tau: float) -> float:
    """Mean of a Gaussian in natural parameters; a flat one (precision 0) counts as mean 0."""
    return tau / pi if pi else 0.0


def _inverse(precision: float) -> float:
    """Variance 1 / precision, infinite for a flat Gaussian."""
    return 1.0 / precision if precision else math.inf


def free_for_all(
    mu: Sequence[float],
    sigma: Sequence[float],
    tied_with_next: Sequence[bool],
    *,
    beta: float,
    tau: float,
    margin: float,
    min_delta: float = MIN_DELTA,
    max_sweeps: int = MAX_SWEEPS,
) -> tuple[list[float], list[float]]:
    """Posterior (mu, sigma) of every player of one free-for-all game.

    Players come sorted best first; ``tied_with_next[k]`` says whether players ``k`` and
    ``k + 1`` drew (``len(mu) - 1`` entries).  ``margin`` is the draw margin (see
    :func:`draw_margin`).  Returns new lists of means and deviations in the same order.

    Every variable keeps its marginal (the product of its incoming messages) next to the
    messages themselves, and a factor sees the cavity marginal / own message, as in Minka's
    formulation of expectation propagation; the package does the same, and so its rounding,
    which a narrow draw margin amplifies, is reproduced too.
    """
    n = len(mu)
    if n < 2:  # nothing was observed
        return list(mu), list(sigma)
    prior_p, prior_t, like_p, like_t = _priors(mu, sigma, beta, tau)
    dn_p = [0.0] * n
    dn_t = [0.0] * n
    for i in range(n):
        # Team performance t_i = p_i: the same Gaussian, passed through the sum factor's algebra.
        lp = like_p[i]
        q = 1.0 / (1.0 / lp)
        dn_p[i] = q
        dn_t[i] = q * (like_t[i] / lp)
    cav_p, cav_t = _sweep(dn_p, dn_t, tied_with_next, [margin] * (n - 1), min_delta, max_sweeps)
    new_mu = [0.0] * n
    new_sigma = [0.0] * n
    beta2 = beta**2
    for i in range(n):
        # Back up: the game's evidence on t_i (its cavity without the performance's message) goes to
        # p_i unchanged (t_i = p_i), then through the likelihood (variance + beta^2) to s_i.
        cp = cav_p[i]
        ct = cav_t[i]
        gp = 1.0 / _inverse(cp)
        gt = gp * _mean(cp, ct)
        new_mu[i], new_sigma[i] = _posterior(prior_p[i], prior_t[i], like_p[i], like_t[i], gp, gt, beta2)
    return new_mu, new_sigma


def team_game(
    mu: Sequence[float],
    sigma: Sequence[float],
    team_sizes: Sequence[int],
    weights: Sequence[float],
    tied_with_next: Sequence[bool],
    *,
    beta: float,
    tau: float,
    margins: Sequence[float],
    min_delta: float = MIN_DELTA,
    max_sweeps: int = MAX_SWEEPS,
) -> tuple[list[float], list[float]]:
    """Posterior (mu, sigma) of every player of one game between teams (Herbrich, Minka and Graepel 2006).

    Players come team by team, the teams sorted best first (``team_sizes`` players each); a team's performance
    is the weighted sum of its players' performances, ``t = sum_i w_i p_i`` (``weights``: partial play), so
    the paper's graph gains one sum factor per team between the performances and the chain of differences.
    ``tied_with_next[k]`` says whether teams ``k`` and ``k + 1`` drew and ``margins[k]`` is their draw margin
    (the ``trueskill`` package widens it with the two teams' player count: :func:`draw_margin` of that count).

    The schedule is the package's (0.4.5): the sum factors send down once, the chain is swept as in
    :func:`free_for_all`, then each sum factor sends up to its players in order, each message computed from the
    team's cavity and the other players' current cavities, with the package's Gaussian arithmetic.  With one
    player per team and weight 1 the result is :func:`free_for_all`'s.
    """
    teams = len(team_sizes)
    if teams < 2:  # nothing was observed
        return list(mu), list(sigma)
    prior_p, prior_t, like_p, like_t = _priors(mu, sigma, beta, tau)
    starts = [0] * teams
    for k in range(1, teams):
        starts[k] = starts[k - 1] + team_sizes[k - 1]
    dn_p = [0.0] * teams
    dn_t = [0.0] * teams
    for k in range(teams):
        # Down: t_k = sum_i w_i p_i from the performances' cavities (their likelihood messages).
        span = range(starts[k], starts[k] + team_sizes[k])
        dn_p[k], dn_t[k] = _sum_message([(weights[i], like_p[i] - 0.0, like_t[i] - 0.0) for i in span])
    cav_p, cav_t = _sweep(dn_p, dn_t, tied_with_next, margins, min_delta, max_sweeps)
    new_mu = list(mu)
    new_sigma = list(sigma)
    beta2 = beta**2
    for k in range(teams):
        # Up: p_x = (t_k - sum_{j != x} w_j p_j) / w_x, for each player x in order; a player already updated
        # enters with its performance marginal divided by this factor's new message, as the package computes it.
        first = starts[k]
        members = list(range(first, first + team_sizes[k]))
        msg_p = [0.0] * len(members)
        msg_t = [0.0] * len(members)
        for x, i in enumerate(members):
            w = weights[i]
            terms = []
            for y, j in enumerate(members):
                if y == x:
                    terms.append((1.0 / w, cav_p[k], cav_t[k]))
                else:
                    mp = like_p[j] + msg_p[y] - msg_p[y]
                    mt = like_t[j] + msg_t[y] - msg_t[y]
                    terms.append((-weights[j] / w, mp, mt))
            msg_p[x], msg_t[x] = _sum_message(terms)
            new_mu[i], new_sigma[i] = _posterior(
                prior_p[i], prior_t[i], like_p[i], like_t[i], msg_p[x], msg_t[x], beta2
            )
    return new_mu, new_sigma


def _sum_message(terms: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """The message of a sum factor ``v = sum_j c_j u_j`` to ``v``, from each ``(c_j, precision, adjusted mean)``
    of the other variables' cavities: mean ``sum c_j mu_j``, variance ``sum c_j^2 / pi_j`` (infinite when a
    cavity is flat), in the package's order of operations."""
    pi_inv = 0.0
    mean = 0.0
    for c, p, t in terms:
        mean += c * (t / p if p else 0.0)
        if pi_inv == _INF:
            continue
        pi_inv = _INF if p == 0.0 else pi_inv + c**2 / p
    precision = 1.0 / pi_inv
    return precision, precision * mean


def _priors(
    mu: Sequence[float], sigma: Sequence[float], beta: float, tau: float
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Each player's skill prior with the dynamics, N(mu, sigma^2 + tau^2), and its likelihood message to the
    performance, N(mu, sigma^2 + tau^2 + beta^2), in natural parameters (precision, adjusted mean)."""
    n = len(mu)
    beta2 = beta**2
    tau2 = tau**2
    prior_p = [0.0] * n
    prior_t = [0.0] * n
    like_p = [0.0] * n  # message likelihood -> performance, also the performance marginal before the game
    like_t = [0.0] * n
    for i in range(n):
        # The rating as a Gaussian, then the dynamics factor: variance sigma^2 + tau^2.
        p0 = sigma[i] ** -2
        t0 = p0 * mu[i]
        sd = math.sqrt(math.sqrt(1.0 / p0) ** 2 + tau2)
        pp = sd**-2
        prior_p[i] = pp
        prior_t[i] = pt = pp * (t0 / p0)
        # Likelihood factor p_i ~ N(s_i, beta^2): a convolution, precision pi / (1 + beta^2 pi).
        a = 1.0 / (1.0 + beta2 * pp)
        like_p[i] = a * pp
        like_t[i] = a * pt
    return prior_p, prior_t, like_p, like_t


def _posterior(
    prior_p: float, prior_t: float, like_p: float, like_t: float, gp: float, gt: float, beta2: float
) -> tuple[float, float]:
    """A player's posterior (mu, sigma) from the game's message ``(gp, gt)`` to its performance."""
    # The performance marginal is like + g; dividing by the likelihood's own message leaves g.
    hp = like_p + gp - like_p
    ht = like_t + gt - like_t
    a = 1.0 / (1.0 + beta2 * hp)
    sp = prior_p + a * hp
    st = prior_t + a * ht
    return _mean(sp, st), math.sqrt(1.0 / sp)


def _sweep(
    dn_p: list[float],
    dn_t: list[float],
    tied_with_next: Sequence[bool],
    margins: Sequence[float],
    min_delta: float,
    max_sweeps: int,
) -> tuple[list[float], list[float]]:
    """Expectation propagation along the chain of differences between the team performances (best first).

    ``dn_*``: each team performance's message from its players; ``margins[k]`` the draw margin of the pair
    ``k, k + 1``.  Returns each team performance's cavity: its marginal without the players' message, the
    game's evidence about it.
    """
    n = len(dn_p)
    m = n - 1
    # Team-performance variables t_i: marginal (tv), message from the performance (dn), from the
    # difference above (up: factor k = i - 1) and from the difference below (lo: factor k = i).
    tv_p = list(dn_p)
    tv_t = list(dn_t)
    up_p = [0.0] * n
    up_t = [0.0] * n
    lo_p = [0.0] * n
    lo_t = [0.0] * n
    # Difference variables d_k: marginal (dv), message from the difference factor (f) and from the truncation (tr).
    dv_p = [0.0] * m
    dv_t = [0.0] * m
    f_p = [0.0] * m
    f_t = [0.0] * m
    tr_p = [0.0] * m
    tr_t = [0.0] * m

    def down(k: int) -> None:
        # d_k = t_k - t_{k+1}: mean difference and summed variance of the two cavities.
        ap = tv_p[k] - lo_p[k]
        at = tv_t[k] - lo_t[k]
        bp = tv_p[k + 1] - up_p[k + 1]
        bt = tv_t[k + 1] - up_t[k + 1]
        # (1/ap, at/ap written out: _inverse and _mean, which this loop calls most.)
        p = 1.0 / ((1.0 / ap if ap else _INF) + (1.0 / bp if bp else _INF))
        t = p * ((at / ap if ap else 0.0) - (bt / bp if bp else 0.0))
        dv_p[k] = dv_p[k] - f_p[k] + p
        dv_t[k] = dv_t[k] - f_t[k] + t
        f_p[k] = p
        f_t[k] = t

    def truncate(k: int) -> float:
        # Moment-match the truncated cavity N(mu_c, sigma_c^2) (paper, eq. 3 and its draw twin):
        # mu' = mu_c + sigma_c v(mu_c/sigma_c, eps/sigma_c), sigma'^2 = sigma_c^2 (1 - w(.)).
        cp = dv_p[k] - tr_p[k]
        ct = dv_t[k] - tr_t[k]
        root = math.sqrt(cp)
        x = ct / root
        e = margins[k] * root
        v, w = draw_vw(x, e) if tied_with_next[k] else win_vw(x, e)
        denom = 1.0 - w
        new_p = cp / denom
        new_t = (ct + root * v) / denom
        old_p = dv_p[k]
        old_t = dv_t[k]
        tr_p[k] = new_p + tr_p[k] - old_p
        tr_t[k] = new_t + tr_t[k] - old_t
        dv_p[k] = new_p
        dv_t[k] = new_t
        # The package's change measure: max(|delta tau|, sqrt|delta pi|).
        change = abs(old_p - new_p)
        if change == _INF:
            return 0.0
        a = abs(old_t - new_t)
        b = math.sqrt(change)
        return b if b > a else a  # max(a, b), as the package takes it

    def to_next(k: int) -> None:
        # t_{k+1} = t_k - d_k: the difference factor's message down the chain.
        ap = tv_p[k] - lo_p[k]
        at = tv_t[k] - lo_t[k]
        bp = dv_p[k] - f_p[k]
        bt = dv_t[k] - f_t[k]
        # (1/ap, at/ap written out: _inverse and _mean, which this loop calls most.)
        p = 1.0 / ((1.0 / ap if ap else _INF) + (1.0 / bp if bp else _INF))
        t = p * ((at / ap if ap else 0.0) - (bt / bp if bp else 0.0))
        tv_p[k + 1] = tv_p[k + 1] - up_p[k + 1] + p
        tv_t[k + 1] = tv_t[k + 1] - up_t[k + 1] + t
        up_p[k + 1] = p
        up_t[k + 1] = t

    def to_previous(k: int) -> None:
        # t_k = d_k + t_{k+1}: the difference factor's message up the chain.
        ap = dv_p[k] - f_p[k]
        at = dv_t[k] - f_t[k]
        bp = tv_p[k + 1] - up_p[k + 1]
        bt = tv_t[k + 1] - up_t[k + 1]
        p = 1.0 / ((1.0 / ap if ap else _INF) + (1.0 / bp if bp else _INF))
        t = p * ((at / ap if ap else 0.0) + (bt / bp if bp else 0.0))
        tv_p[k] = tv_p[k] - lo_p[k] + p
        tv_t[k] = tv_t[k] - lo_t[k] + t
        lo_p[k] = p
        lo_t[k] = t

    for _ in range(max_sweeps):
        if m == 1:
            down(0)
            delta = truncate(0)
        else:
            delta = 0.0
            for k in range(m - 1):
                down(k)
                d = truncate(k)
                delta = d if d > delta else delta
                to_next(k)
            for k in range(m - 1, 0, -1):
                down(k)
                d = truncate(k)
                delta = d if d > delta else delta
                to_previous(k)
        if delta <= min_delta:
            break
    to_previous(0)
    to_next(m - 1)

    return [tv_p[i] - dn_p[i] for i in range(n)], [tv_t[i] - dn_t[i] for i in range(n)]
