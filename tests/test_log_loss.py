"""Log-loss of the finishing order: the Plackett-Luce probability of an observed result, ties and DNFs censored.

References: the Plackett-Luce model (Luce 1959, "Individual Choice Behavior"; Plackett 1975, "The analysis of
permutations"): the order is drawn best first, each next player with probability proportional to its weight among
those left.  A censored group (tied players, or the DNFs) may take its places in any order, so the probability of
the observed result is the sum over every order consistent with it.  The brute force below enumerates those
orders with itertools, independently of ratings/predict.py.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from ratings import create
from ratings.cli import main
from ratings.metrics import evaluate, evaluate_ratings
from ratings.predict import partition_log_likelihood, win_probabilities

from .conftest import history_from_rows


def order_probability(order: tuple[int, ...], w: np.ndarray) -> float:
    """Plackett-Luce probability of ``order`` (best first) with weights ``w``."""
    left = list(order)
    p = 1.0
    for i in order:
        p *= w[i] / sum(w[j] for j in left)
        left.remove(i)
    return p


def brute_force(log_weights: np.ndarray, ranks: np.ndarray) -> float:
    """log of the summed probability of every order whose ranks never decrease (best first)."""
    w = np.exp(log_weights)
    n = len(w)
    total = sum(
        order_probability(o, w)
        for o in itertools.permutations(range(n))
        if all(ranks[o[k]] <= ranks[o[k + 1]] for k in range(n - 1))
    )
    return math.log(total)


def test_hand_worked_three_players() -> None:
    # Weights A 1, B 2, C 3 (total 6).
    w = np.log([1.0, 2.0, 3.0])
    # C, A, B: 3/6 * 1/(1+2) = 1/6.
    assert partition_log_likelihood(w, np.array([1, 2, 0])) == pytest.approx(math.log(1 / 6), rel=1e-12)
    # C first, A and B tied (or both DNF): 3/6, then the last group is certain: 1/2.
    assert partition_log_likelihood(w, np.array([1, 1, 0])) == pytest.approx(math.log(1 / 2), rel=1e-12)
    # A and B tied first, C last: A then B, 1/6 * 2/5 = 1/15, or B then A, 2/6 * 1/4 = 1/12: 9/60 = 3/20.
    assert partition_log_likelihood(w, np.array([0, 0, 1])) == pytest.approx(math.log(3 / 20), rel=1e-12)
    # everyone tied: nothing observed, probability 1.
    assert partition_log_likelihood(w, np.array([0, 0, 0])) == 0.0


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("exact_limit", [12, 1])  # 1: every group of two or more by the exponential-race integral
def test_against_enumeration_of_orders(seed: int, exact_limit: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 6))
    log_weights = rng.normal(0.0, 1.5, size=n)
    places = rng.integers(0, n, size=n)  # repeats are ties
    dnf = rng.random(n) < 0.3
    # dense ranks, DNFs sharing the rank after every finisher, as GameHistory.flat_rank has them
    finish = np.unique(places[~dnf])
    ranks = np.where(dnf, len(finish), np.searchsorted(finish, places))
    got = partition_log_likelihood(log_weights, ranks, exact_limit=exact_limit)
    assert got == pytest.approx(brute_force(log_weights, ranks), rel=1e-9, abs=1e-12)


def test_large_tied_groups_agree_between_the_two_ways() -> None:
    # A tie of 10 among 14 players, then 4 ranked: the subset sum (2^10 subsets) and the integral agree.
    rng = np.random.default_rng(3)
    log_weights = rng.normal(0.0, 1.0, size=14)
    ranks = np.array([0] * 10 + [1, 2, 3, 4])
    exact = partition_log_likelihood(log_weights, ranks)
    assert partition_log_likelihood(log_weights, ranks, exact_limit=1) == pytest.approx(exact, rel=1e-8)
    # ranks in any listing order
    perm = rng.permutation(14)
    assert partition_log_likelihood(log_weights[perm], ranks[perm]) == pytest.approx(exact, rel=1e-12)


def test_log_loss_metric_is_the_mean_over_games() -> None:
    # g1: A 1, B 2, C 3 with win probabilities 1/6, 2/6, 3/6 (weights 1, 2, 3): P = 1/6 * 2/5 = 1/15.
    # g2: A 1, B DNF with win probabilities 0.8, 0.2: P = 0.8.  g3: everyone tied: no outcome, not counted.
    # Log-loss = (ln 15 - ln 0.8)/2.
    h = history_from_rows(
        [("g1", "A", 1), ("g1", "B", 2), ("g1", "C", 3), ("g2", "A", 1), ("g2", "B", "DNF"), ("g3", "A", 1)]
        + [("g3", "C", 1)]
    )
    wins = {("g1", "A"): 1 / 6, ("g1", "B"): 2 / 6, ("g1", "C"): 3 / 6, ("g2", "A"): 0.8, ("g2", "B"): 0.2}
    wins |= {("g3", "A"): 0.5, ("g3", "C"): 0.5}
    game = h.game_of_entry()
    p = np.array([wins[(h.games[g].id, h.players[q])] for g, q in zip(game, h.flat_player, strict=True)])
    e = evaluate_ratings(h, np.zeros(len(p)), win_probabilities=p)
    assert e.log_loss == pytest.approx((math.log(15) - math.log(0.8)) / 2, rel=1e-12)
    assert math.isnan(evaluate_ratings(h, np.zeros(len(p))).log_loss)  # not asked for


def test_win_probabilities_of_multielo_are_its_plackett_luce_weights() -> None:
    # Multielo's place model: Plackett-Luce with weights 10^(R/D) (D = 400 by default), so the chance of winning
    # is 10^(R_i/400) / sum_j 10^(R_j/400), from the ratings before the game.
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 2), ("g2", "B", 1), ("g2", "C", 3)])
    run = create("multielo").rate(h)
    p = win_probabilities(run)
    s = h.game_slice(1)
    weights = 10 ** (run.before[s] / 400)
    assert p[s] == pytest.approx(weights / weights.sum(), rel=1e-12)
    assert evaluate(run, log_loss=True).log_loss > 0


def test_cli_log_loss(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "sample:poker", "--metric", "log-loss", "--test-fraction", "0.3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["log_loss"] > 0 and result["intervals"]["log_loss"]["margin"] > 0
    assert (
        main(["tune", "sample:poker", "--system", "multielo", "--metric", "log-loss", "--budget", "2", "--json"]) == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["metric"] == "log-loss" and result["test"]["log_loss"] > 0
    assert result["held_out"]["better_than_defaults"]["log_loss"]["words"].startswith("better than the defaults: ")
    assert all(t["train"] is None or t["train"] > 0 for t in result["evaluations"])
