"""The paired bootstrap (ratings.metrics.PairedBootstrap) on a world whose true figures are known exactly.

The world: every game has the same four players with skills 0, 0.4, 0.8, 1.2, and its finishing order is drawn from
the Plackett-Luce model with weights exp(skill) (Luce 1959, Plackett 1975: the best drawn first, each next one with
probability proportional to its weight among those left).  Predictor A rates the players by their true skills;
predictor B swaps the middle two, so A is better by construction.  The expected value of each metric is computed
exactly here by enumerating the 24 orders with their probabilities, from the metrics' definitions (Kerby 2025,
section 5; Ebtekar and Liu 2021, section 6.3), independently of ratings/metrics.py.  Each game has the same
denominator (6 pairs, 4 scored players), so the aggregate of many games estimates exactly these expectations.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ratings import GameHistory
from ratings.metrics import Comparison, GameScores, PairedBootstrap, game_scores

from .test_log_loss import order_probability

SKILL = np.array([0.0, 0.4, 0.8, 1.2])
RATED_A = SKILL.copy()
RATED_B = np.array([0.0, 0.8, 0.4, 1.2])  # players 1 and 2 swapped
EVERYONE: dict[str, object] = {"min_prior_games": 0, "burn_in": 0.0}


def expected(rated: np.ndarray) -> dict[str, float]:
    """Exact expected Kendall tau, pair inversion and rank deviation of ratings ``rated`` in this world."""
    n = len(SKILL)
    out = {"kendall_tau": 0.0, "pair_inversion": 0.0, "rank_deviation": 0.0}
    predicted = {p: k for k, p in enumerate(np.argsort(-rated))}  # no equal ratings here
    for order in itertools.permutations(range(n)):
        prob = order_probability(order, np.exp(SKILL))
        actual = {p: k for k, p in enumerate(order)}
        discordant = sum(1 for i in range(n) for j in range(n) if actual[i] < actual[j] and rated[i] < rated[j])
        out["kendall_tau"] += prob * discordant / 6
        # every player: share of opponents predicted right; discordant pairs cost each of their two players one
        out["pair_inversion"] += prob * (1 - 2 * discordant / (n * (n - 1)))
        out["rank_deviation"] += prob * sum(abs(actual[p] - predicted[p]) / (n - 1) for p in range(n)) / n
    return out


def draw_history(games: int, seed: int) -> GameHistory:
    rng = np.random.default_rng(seed)
    keys = SKILL[None, :] + rng.gumbel(size=(games, len(SKILL)))  # Gumbel-max: a Plackett-Luce draw
    order = np.argsort(-keys, axis=1)
    records = [
        {"game": f"g{g:06d}", "player": f"P{p}", "place": place}
        for g in range(games)
        for place, p in enumerate(order[g], start=1)
    ]
    return GameHistory.from_records(records)


def ratings_of(history: GameHistory, rated: np.ndarray) -> np.ndarray:
    return np.array([rated[int(history.players[p][1:])] for p in history.flat_player])


def part(scores: GameScores, start: int, stop: int) -> GameScores:
    return GameScores(
        first_game=0,
        numerators={k: v[start:stop] for k, v in scores.numerators.items()},
        denominators={k: v[start:stop] for k, v in scores.denominators.items()},
    )


def test_the_truth_favours_a() -> None:
    a, b = expected(RATED_A), expected(RATED_B)
    assert a["kendall_tau"] < b["kendall_tau"] and a["rank_deviation"] < b["rank_deviation"]
    assert a["pair_inversion"] > b["pair_inversion"]
    # and a large sample agrees with the enumeration (a check of the simulation, not of the bootstrap)
    # (10,000 games: a per-game figure's spread is below 0.3, so the mean's standard error is below 0.003)
    history = draw_history(10_000, seed=12345)
    big = game_scores(history, ratings_of(history, RATED_A), **EVERYONE)  # type: ignore[arg-type]
    for metric, value in a.items():
        assert big.value(metric) == pytest.approx(value, abs=0.01)


@pytest.mark.slow
def test_intervals_cover_the_true_difference_at_the_nominal_rate() -> None:
    # 400 seeded repetitions of 150 games each.  If the 95% intervals are right, the number that cover the true
    # figure is Binomial(400, 0.95): mean 380, standard deviation sqrt(400 * 0.95 * 0.05) = 4.36.  We accept
    # 367 to 393 (three standard deviations, a false alarm about 1 time in 400 per count).
    # Observed when this test was written (true figures: Kendall tau A 0.3426, B 0.3755; rank deviation A 0.3032,
    # B 0.3299): the difference A - B was covered 377 times (94.3%) for Kendall tau, 377 for pair inversion, 373
    # (93.3%) for rank deviation; A's own figure 378 (Kendall tau) and 373 (rank deviation).  Slightly under 95%,
    # as the standard bootstrap interval tends to be on small samples, and inside the binomial band.
    reps, games = 400, 150
    history = draw_history(reps * games, seed=2026)
    scores_a = game_scores(history, ratings_of(history, RATED_A), **EVERYONE)  # type: ignore[arg-type]
    scores_b = game_scores(history, ratings_of(history, RATED_B), **EVERYONE)  # type: ignore[arg-type]
    truth_a, truth_b = expected(RATED_A), expected(RATED_B)
    covered = {("diff", m): 0 for m in truth_a} | {("A", "kendall_tau"): 0, ("A", "rank_deviation"): 0}
    for r in range(reps):
        rows = {"A": part(scores_a, r * games, (r + 1) * games), "B": part(scores_b, r * games, (r + 1) * games)}
        boot = PairedBootstrap(rows, samples=1000, seed=r)
        for metric in truth_a:
            sign = 1.0 if metric != "pair_inversion" else -1.0  # improvement: positive when A is better
            true_improvement = sign * (truth_b[metric] - truth_a[metric])
            c = boot.compare("A", "B", metric)
            covered[("diff", metric)] += abs(c.improvement - true_improvement) <= c.margin
        for metric in ("kendall_tau", "rank_deviation"):
            i = boot.interval("A", metric)
            covered[("A", metric)] += abs(i.value - truth_a[metric]) <= i.margin
    for key, count in covered.items():
        assert 367 <= count <= 393, (key, count)


def test_same_seed_same_answer_and_a_run_against_itself_is_no_difference() -> None:
    history = draw_history(200, seed=5)
    a = game_scores(history, ratings_of(history, RATED_A), **EVERYONE)  # type: ignore[arg-type]
    b = game_scores(history, ratings_of(history, RATED_B), **EVERYONE)  # type: ignore[arg-type]
    one = PairedBootstrap({"A": a, "B": b}, samples=300, seed=9).compare("A", "B", "kendall_tau")
    two = PairedBootstrap({"A": a, "B": b}, samples=300, seed=9).compare("A", "B", "kendall_tau")
    assert one == two
    self_check = PairedBootstrap({"A": a, "A again": a}, samples=300).compare("A", "A again", "kendall_tau")
    assert self_check.improvement == 0.0 and self_check.margin == 0.0
    assert self_check.verdict == "within noise"


def test_rows_on_other_games_are_refused() -> None:
    history = draw_history(20, seed=1)
    a = game_scores(history, ratings_of(history, RATED_A), **EVERYONE)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="other games"):
        PairedBootstrap({"A": a, "B": part(a, 0, 10)})


@pytest.mark.parametrize(
    ("improvement", "margin", "words", "verdict"),
    [
        (0.006, 0.002, "better than the defaults: yes, by 0.0060 ± 0.0020", "better"),
        (-0.0123, 0.004, "better than the defaults: no, worse by 0.0123 ± 0.0040", "worse"),
        (0.001, 0.003, "better than the defaults: not beyond noise (+0.0010 ± 0.0030)", "within noise"),
        (0.02, 0.015, "better than the defaults: yes, by 0.020 ± 0.015", "better"),
        # a difference that rounds to nothing at the margin's digits carries no sign (racing, pair inversion)
        (-0.00001, 0.0013, "better than the defaults: not beyond noise (0.0000 ± 0.0013)", "within noise"),
        (0.0, 0.001, "better than the defaults: not beyond noise (0.0000 ± 0.0010)", "within noise"),
        (math.nan, math.nan, "better than the defaults: no figure to compare", "no figure"),
    ],
)
def test_words(improvement: float, margin: float, words: str, verdict: str) -> None:
    c = Comparison("kendall_tau", "the defaults", improvement, margin)
    assert c.words() == words and c.verdict == verdict
