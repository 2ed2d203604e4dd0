"""Thurstonian tie groups averaged through their segments of the chain (``thurstonian.tie_segments``).

Sources.  The rule itself (Kerby 2025, section 4: a tied group's update is the average, over its orderings, of the
strict order's gradient) is computed here by brute force: every joint ordering of the tied groups, each through the
strict-order path (:func:`order_log_likelihood`, whose accuracy against an independent quadrature is checked in
``test_thurstonian_accuracy.py``), averaged.  The long sampling of a large group draws its orderings with numpy's
generator and computes each strict order with the compiled strict-order path.  The generator's check value is Park,
Miller and Stockmeyer's ("Another test for randomness", CACM 36(7), 1993: from 1, the 10,000th state of
``x <- 48271 x mod (2^31 - 1)`` is 399,268,537).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ratings import create
from ratings.history import Entry, Game, GameHistory
from ratings.systems._orders import group_seed, next_draw, shuffled, split_game
from ratings.systems.thurstonian import (
    TIE_TOLERANCE,
    order_log_likelihood,
    thurstonian_gradient,
    tied_gradient,
)
from tests.gradients import THURSTONIAN, call_gradient


def contest(
    seed: int, n: int, groups: list[tuple[int, int]], dnfs: int = 0, spread: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings N(0, spread), places from noisy performances, ``(place, size)`` groups tied, the last ``dnfs``
    players did not finish."""
    rng = np.random.default_rng(seed)
    r = rng.normal(0, spread, n)
    places = np.empty(n, dtype=int)
    places[np.argsort(-(r + rng.normal(0, 1, n)))] = np.arange(n)
    ranks = places.copy()
    for place, size in groups:
        ranks[(places >= place) & (places < place + size)] = place
    dnf = places >= n - dnfs
    return r, ranks, dnf


def every_ordering(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
    """The rule's definition: the mean over every joint ordering of the tied groups of the strict order's gradient."""
    split = split_game(ranks, dnf)
    total = np.zeros(len(r))
    count = 0
    for combo in itertools.product(*[itertools.permutations(g.tolist()) for g in split.groups]):
        total += order_log_likelihood(r, [p for part in combo for p in part], split.dnf)[1]
        count += 1
    return total / count


def test_the_generator_is_park_and_millers_minimal_standard() -> None:
    state = 1
    for _ in range(10_000):
        state = next_draw(state)
    assert state == 399_268_537  # Park, Miller and Stockmeyer 1993
    # Its shuffles of three players draw each of the six orderings about equally often (6,000 draws; 5 sigma).
    counts: dict[tuple[int, ...], int] = {}
    state = group_seed(0)
    for _ in range(6000):
        order, state = shuffled([0, 1, 2], state)
        counts[tuple(order)] = counts.get(tuple(order), 0) + 1
    assert len(counts) == 6
    assert all(abs(c - 1000) < 5 * math.sqrt(1000 * 5 / 6) for c in counts.values())


def test_students_quantile_against_scipy() -> None:
    from scipy import stats

    from ratings.systems.thurstonian import student_95

    for dof in (3, 4, 7, 10, 30, 1000):
        assert student_95(dof) == pytest.approx(stats.t.ppf(0.975, dof), rel=2e-3 if dof < 5 else 1e-4)


ONE_GROUP = [
    pytest.param(1, 20, [(5, 5)], 0, id="five-in-the-middle"),
    pytest.param(2, 20, [(15, 5)], 0, id="five-tied-last"),
    pytest.param(3, 20, [(0, 5)], 0, id="five-tied-first"),
    pytest.param(4, 25, [(12, 5)], 3, id="five-above-three-dnfs"),
    pytest.param(5, 25, [(17, 5)], 3, id="five-just-above-the-dnfs"),
    pytest.param(8, 24, [(18, 6)], 0, id="six-tied-last"),
]


@pytest.mark.parametrize(("seed", "n", "groups", "dnfs"), ONE_GROUP)
def test_one_group_is_every_ordering_of_it(seed: int, n: int, groups: list[tuple[int, int]], dnfs: int) -> None:
    # One tied group: the segments' average is the rule's exactly (the algebra), up to the quadrature (each brute
    # force order on its own grid, the segments on one shared grid): measured 2e-12 to 9e-10.
    r, ranks, dnf = contest(seed, n, groups, dnfs)
    expected = every_ordering(r, ranks, dnf)
    result = tied_gradient(r, split_game(ranks, dnf))
    assert result is not None
    got, bound = result
    assert bound == 0.0  # every ordering enumerated
    assert np.abs(got - expected).max() < 1e-8
    assert np.abs(expected).max() > 1.0
    # The game's own gradient goes this way (its joint orderings exceed the row budget).
    assert np.array_equal(thurstonian_gradient(r, ranks, dnf), got)


SEVERAL = [
    pytest.param(6, 20, [(3, 3), (10, 3), (16, 2)], 0, id="two-triples-and-a-pair"),
    pytest.param(7, 30, [(2, 2), (8, 4), (20, 3)], 2, id="pair-four-triple-dnfs"),
    pytest.param(11, 60, [(10, 2), (20, 2), (30, 2), (40, 3)], 0, id="three-pairs-and-a-triple"),
]


@pytest.mark.parametrize(("seed", "n", "groups", "dnfs"), SEVERAL)
def test_several_groups_are_close_to_every_joint_ordering(
    seed: int, n: int, groups: list[tuple[int, int]], dnfs: int
) -> None:
    # Several groups: each is averaged with the others' averaged messages (two sweeps), which leaves out how one
    # group's ordering moves another's update: measured 1.7e-7, 3.6e-8 and 1.2e-9 on the tied players (against
    # updates up to 2.4), 2e-8 at most on the others.  Walking the groups in step instead: 3.7e-4, 8.6e-5, 2.2e-5.
    r, ranks, dnf = contest(seed, n, groups, dnfs)
    expected = every_ordering(r, ranks, dnf)
    result = tied_gradient(r, split_game(ranks, dnf))
    assert result is not None
    got = result[0]
    assert np.abs(got - expected).max() < 1e-6
    assert np.sum(got) == pytest.approx(0.0, abs=1e-10)


def _tied_game(
    rng: np.random.Generator, name: str, pool: int, n: int, groups: list[tuple[int, int]], dnfs: int
) -> Game:
    who = rng.choice(pool, n, replace=False)
    place = list(range(1, n + 1))
    for first, size in groups:
        for j in range(first, first + size):
            place[j] = first + 1
    return Game(name, tuple(Entry(f"p{w}", None if k >= n - dnfs else place[k]) for k, w in enumerate(who)))


@pytest.mark.parametrize("params", [{}, {"dummy": 0.3}], ids=["plain", "dummy"])
def test_the_kernel_computes_tied_games_as_the_reference(
    params: dict[str, float], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Thirty strict games spread the ratings, then tied games of 20-35 players: a group of six tied last, twelve tied
    # (sampled), five pairs and a triple above three DNFs, nine and three above two DNFs, ten of twenty tied.  The
    # kernel computes every one (none handed to the per-game hooks) and equals the per-game reference.
    rng = np.random.default_rng(1)
    games = [
        Game(str(i), tuple(Entry(f"p{w}", k + 1) for k, w in enumerate(rng.choice(40, 10, replace=False))))
        for i in range(30)
    ]
    games += [
        _tied_game(rng, "a", 40, 30, [(24, 6)], 0),
        _tied_game(rng, "b", 40, 30, [(3, 12)], 0),
        _tied_game(rng, "c", 40, 35, [(0, 2), (4, 2), (8, 2), (12, 2), (16, 2), (20, 3)], 3),
        _tied_game(rng, "d", 40, 25, [(2, 9), (15, 3)], 2),
        _tied_game(rng, "e", 40, 20, [(10, 10)], 0),
    ]
    history = GameHistory(games)
    system = create("thurstonian", **params)
    calls: list[int] = []
    play = system._play
    monkeypatch.setattr(system, "_play", lambda state, game: (calls.append(game.index), play(state, game)))
    fast = system.rate(history)
    assert calls == []
    monkeypatch.undo()
    slow = system.rate_per_game(history)
    np.testing.assert_allclose(fast.after, slow.after, rtol=0, atol=1e-9)
    assert np.abs(slow.after - slow.before)[history.offsets[30] :].max() > 0.1


def _strict_kernel_gradient(r: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The compiled strict-order gradient of the worst-first ``order`` (its cfunc, called through ctypes)."""
    n = len(r)
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.arange(n)[::-1]
    out = np.zeros(n)
    assert call_gradient(THURSTONIAN, r, ranks, np.zeros(n, dtype=np.bool_), np.zeros(0), out)
    return out


@pytest.mark.slow
def test_a_sampled_group_meets_its_stated_error_against_a_long_independent_sampling() -> None:
    # 80 players (ratings N(0, 0.5)), the 16 last tied: 16! orderings, sampled in antithetic pairs until every
    # member's 95% half-width is under TIE_TOLERANCE.  Against 20,000 orderings drawn with numpy's generator, each
    # through the compiled strict-order path: every member within 4 combined standard errors (16 members; ours from
    # the stated half-width, the long sampling's from its spread), the others within the long sampling's error.
    n, m = 80, 16
    r, ranks, dnf = contest(12, n, [(n - m, m)], 0, spread=0.5)
    split = split_game(ranks, dnf)
    result = tied_gradient(r, split)
    assert result is not None
    got, bound = result
    assert 0.0 < bound <= TIE_TOLERANCE
    group = split.groups[0]
    above = np.concatenate(split.groups[1:])
    rng = np.random.default_rng(2026)
    samples = 20_000
    total = np.zeros(n)
    squares = np.zeros(n)
    for _ in range(samples):
        g = _strict_kernel_gradient(r, np.concatenate([rng.permutation(group), above]))
        total += g
        squares += g * g
    mean = total / samples
    se = np.sqrt(np.maximum(squares / samples - mean**2, 0.0) / (samples - 1))
    ours = bound / 1.959963984540054  # at most: the bound is Student's quantile (above 1.96) times it
    z = np.abs(got - mean)[group] / np.sqrt(ours**2 + se[group] ** 2)
    assert z.max() < 4.0  # measured 2.0
    # The long sampling is itself precise enough for this to catch an error of a few tolerances.
    assert se[group].max() < TIE_TOLERANCE
    others = np.setdiff1d(np.arange(n), group)
    assert np.abs(got - mean)[others].max() < 4.0 * se[others].max() + 1e-3
    assert np.abs(mean[group]).max() > 1.0  # the group's updates are large: the error is small beside them


def test_a_sampled_group_is_deterministic_zero_sum_and_symmetric() -> None:
    n, m = 80, 14
    r, ranks, dnf = contest(13, n, [(30, m)], 4)
    tied = np.flatnonzero(ranks == 30)
    r[tied[3]] = r[tied[7]]
    split = split_game(ranks, dnf)
    first = tied_gradient(r, split)
    second = tied_gradient(r, split)
    assert first is not None and second is not None
    assert np.array_equal(first[0], second[0]) and first[1] == second[1]
    assert first[0][tied[3]] == first[0][tied[7]]
    assert np.sum(first[0]) == pytest.approx(0.0, abs=1e-10)
    assert np.all(first[0][dnf] < 0)
