"""The Thurstonian likelihood and gradient against an independent reference, at every spread up to 40.

The reference (``tests/thurstonian_reference.py``) integrates with Gauss-Legendre panels over the
whole ratings range in logarithms; the production code with Euler-Maclaurin corrected sums over
the projection's range at a planned step.  Required (issue 10, section 1): the gradient within
1e-6 of its largest component and the log-likelihood finite and within 1e-6, for 2 to 30 players,
spreads up to 40, orders agreeing with the ratings and fully reversed, with ties and DNFs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ratings.systems.thurstonian import order_log_likelihood, thurstonian_gradient
from tests.thurstonian_reference import reference

#: (players, spread, order, DNFs): "agree" = best rated wins, "reverse" = worst rated wins.
CASES = [
    (12, 19.0, "reverse", 0),  # issue 10's case: r = linspace(0, 19, 12), result reversed
    (23, 19.5, "reverse", 0),  # issue 10: a 23-player game spread over 19.5, reversed
    (2, 40.0, "reverse", 0),
    (3, 40.0, "agree", 0),  # a gradient of order 1e-44: relative accuracy still holds
    (3, 40.0, "reverse", 0),
    (5, 25.0, "reverse", 2),
    (8, 3.0, "agree", 3),
    (8, 30.0, "reverse", 0),
    (10, 40.0, "reverse", 4),
    (12, 19.0, "agree", 0),
    (16, 10.0, "mixed", 0),
    (20, 30.0, "reverse", 8),
    (24, 2.0, "reverse", 13),
    (30, 0.3, "agree", 0),
    (30, 40.0, "agree", 0),
    (30, 40.0, "reverse", 0),  # beyond double precision's range: computed in logarithms
]


def game(players: int, spread: float, order: str, dnfs: int, seed: int = 0) -> tuple[np.ndarray, list, list]:
    rng = np.random.default_rng(seed)
    r = np.linspace(0.0, spread, players) + rng.normal(0.0, 0.02, players)
    if order == "agree":
        worst_first = list(np.argsort(r))
    elif order == "reverse":
        worst_first = list(np.argsort(-r))
    else:
        worst_first = list(rng.permutation(players))
    return r, worst_first[dnfs:], worst_first[:dnfs]


@pytest.mark.parametrize(("players", "spread", "order", "dnfs"), CASES)
def test_gradient_and_log_likelihood_against_the_reference(players: int, spread: float, order: str, dnfs: int) -> None:
    r, finishers, dnf = game(players, spread, order, dnfs)
    expected_log_lik, expected = reference(r, finishers, dnf)
    log_lik, grad = order_log_likelihood(r, finishers, dnf)
    assert np.isfinite(log_lik) and np.all(np.isfinite(grad))
    assert log_lik == pytest.approx(expected_log_lik, abs=1e-6)
    scale = np.abs(expected).max()
    assert np.abs(grad - expected).max() <= 1e-6 * scale


def test_issue_case_through_the_update_with_a_tie() -> None:
    # The update averages tied players over their orderings: here the two best rated tie for last.
    r = np.linspace(0.0, 19.0, 12)
    ranks = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10])  # the worst rated wins, the best two tie for last
    got = thurstonian_gradient(r, ranks, np.zeros(12, bool))
    base = list(range(10))[::-1]
    expected = np.mean([reference(r, [*tail, *base])[1] for tail in ([10, 11], [11, 10])], axis=0)
    assert np.abs(got - expected).max() <= 1e-6 * np.abs(expected).max()


@pytest.mark.parametrize(("players", "spread", "order", "dnfs"), [(12, 19.0, "reverse", 0), (6, 30.0, "reverse", 2)])
def test_the_reference_has_converged(players: int, spread: float, order: str, dnfs: int) -> None:
    # Halving the panels changes nothing that matters: the reference is far finer than 1e-6.
    r, finishers, dnf = game(players, spread, order, dnfs)
    a, b = reference(r, finishers, dnf), reference(r, finishers, dnf, width=0.025)
    assert a[0] == pytest.approx(b[0], abs=1e-10)
    assert np.abs(a[1] - b[1]).max() <= 1e-9 * np.abs(b[1]).max()


def test_the_reference_against_closed_forms() -> None:
    # Kerby 2025 section 3.1.2: P(X_1 < X_2) = Phi((r_2 - r_1) / sqrt2); i.i.d. performances: 1/n!.
    for r1, r2 in ((0.0, 0.0), (3.0, -3.0), (-2.5, 1.0), (0.0, 19.0)):
        d = (r1 - r2) / math.sqrt(2)
        log_lik, grad = reference(np.array([r1, r2]), [1, 0])
        assert log_lik == pytest.approx(stats.norm.logcdf(d), abs=1e-12)
        g = math.exp(stats.norm.logpdf(d) - stats.norm.logcdf(d)) / math.sqrt(2)
        assert grad == pytest.approx([g, -g], rel=1e-10)
    assert reference(np.zeros(5), [3, 1, 4, 0, 2])[0] == pytest.approx(-math.log(120), abs=1e-12)
    # Section 4: censored DNFs are the sum over their orders (with equal ratings, 2/4! = 1/12).
    assert reference(np.zeros(4), [2, 3], [0, 1])[0] == pytest.approx(math.log(1 / 12), abs=1e-12)


def test_the_reference_gradient_is_the_derivative_of_its_log_likelihood() -> None:
    # The coincidence form of the gradient against central differences of the reference's own log-likelihood.
    r, finishers, dnf = game(6, 8.0, "mixed", 2, seed=3)
    _, grad = reference(r, finishers, dnf)
    eps = 1e-5
    numeric = [
        (reference(r + e, finishers, dnf)[0] - reference(r - e, finishers, dnf)[0]) / (2 * eps)
        for e in np.eye(len(r)) * eps
    ]
    assert grad == pytest.approx(numeric, abs=1e-7)


def test_all_orders_sum_to_one() -> None:
    # The probabilities of all 4! orders of unequal ratings sum to 1 (law of total probability).
    r = np.array([0.0, 1.5, -0.7, 3.0])
    total = sum(math.exp(order_log_likelihood(r, list(p))[0]) for p in itertools.permutations(range(4)))
    assert total == pytest.approx(1.0, abs=1e-8)
