"""Accuracy metrics against hand derivations and an independent brute-force count.

Definitions: Kendall tau from Kerby 2025, section 5; pair inversion and rank deviation
from Ebtekar and Liu 2021, section 6.3 (see ratings/metrics.py for the DNF and equal-rating rules).

Sources:

- Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
- Ebtekar and Liu 2021: "An Elo-like System for Massive Multiplayer Competitions", WWW 2021
  (doi:10.1145/3442381.3450091).
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from ratings import GameHistory, create
from ratings.metrics import Evaluation, evaluate, evaluate_ratings

from .conftest import history_from_rows


def one_game(places: list[object]) -> GameHistory:
    return history_from_rows([("g", f"p{i}", place) for i, place in enumerate(places)])


def metrics(places: list[object], ratings: list[float]) -> Evaluation:
    return evaluate_ratings(one_game(places), np.array(ratings, dtype=float))


# ---------------------------------------------------------------- one three-player game
def test_perfect_prediction() -> None:
    # Places 1, 2, 3 with ratings 3 > 2 > 1: no pair has the higher-rated player below
    # (tau 0), every matchup is predicted (pair inversion 1), predicted rank = actual rank.
    e = metrics([1, 2, 3], [3, 2, 1])
    assert e.kendall_tau == 0.0
    assert e.pair_inversion == 1.0
    assert e.rank_deviation == 0.0
    assert (e.pairs, e.games) == (3, 1)


def test_reversed_prediction() -> None:
    # Ratings 1 < 2 < 3 for places 1, 2, 3: all 3 pairs discordant (tau 3/3 = 1), no
    # matchup predicted (pair inversion 0).  Rank deviation: predicted ranks (0-based,
    # by rating) are 2, 1, 0 against actual 0, 1, 2: |2-0|/2 + 0 + |0-2|/2 = 2, over 3.
    e = metrics([1, 2, 3], [1, 2, 3])
    assert e.kendall_tau == 1.0
    assert e.pair_inversion == 0.0
    assert e.rank_deviation == pytest.approx(2 / 3, rel=1e-12)


def test_equal_ratings() -> None:
    # All rated 5: every pair counts 0.5 in tau and in pair inversion.  Rank deviation:
    # each predicted rank is uniform on {0, 1, 2}.  Actual 0: mean(0, 1, 2)/2 = 1/2;
    # actual 1: mean(1, 0, 1)/2 = 1/3; actual 2: 1/2.  Mean over 3: (4/3)/3 = 4/9.
    e = metrics([1, 2, 3], [5, 5, 5])
    assert e.kendall_tau == 0.5
    assert e.pair_inversion == 0.5
    assert e.rank_deviation == pytest.approx(4 / 9, rel=1e-12)


def test_listing_order_does_not_matter() -> None:
    a = metrics([1, 2, 3, 3, "DNF"], [2.0, 2.0, 1.0, 3.0, 1.0])
    b = metrics(["DNF", 3, 3, 2, 1], [1.0, 3.0, 1.0, 2.0, 2.0])
    assert a == b


# ---------------------------------------------------------------- DNFs and ties
def test_dnf_pairs() -> None:
    # Places A=1, B=2, C=DNF, D=DNF; ratings A=1, B=4, C=3, D=2.
    # Kendall tau (Kerby 2025): pairs A-B, A-C, A-D (A placed better, rated lower: 1 each),
    # B-C, B-D (B better and higher: 0); C-D are two DNFs, not a pair -> 3/5.
    # Pair inversion (Ebtekar and Liu 2021): wrong A-B, A-C, A-D; right B-C, B-D; C-D a tie -> right.
    # Per player: A 0/3, B 2/3, C 2/3, D 2/3 -> mean 2/4 = 1/2.
    # Rank deviation: predicted ranks by rating B 0, C 1, D 2, A 3; actual A 0, B 1,
    # C and D the DNF range [2, 3].  A |3-0|/3 = 1, B |0-1|/3, C: 1 clamped to [2,3]
    # is 2, so 1/3; D: 2 lies in [2, 3], 0 -> (1 + 2/3)/4 = 5/12.
    e = metrics([1, 2, "DNF", "DNF"], [1, 4, 3, 2])
    assert e.kendall_tau == pytest.approx(3 / 5, rel=1e-12)
    assert e.pairs == 5
    assert e.pair_inversion == pytest.approx(1 / 2, rel=1e-12)
    assert e.rank_deviation == pytest.approx(5 / 12, rel=1e-12)


def test_tied_places() -> None:
    # Places A=1, B=1, C=2; ratings A=1, B=2, C=3.
    # Tau: A-B tied, not a pair; A-C and B-C discordant -> 2/2 = 1.
    # Pair inversion: A-B a tie (right), A-C and B-C wrong: A 1/2, B 1/2, C 0 -> 1/3.
    # Rank deviation: predicted C 0, B 1, A 2; actual A and B [0, 1], C 2.
    # A: 2 clamped to [0, 1] -> 1, 1/2; B: 0; C: |0-2|/2 = 1 -> 1.5/3 = 1/2.
    e = metrics([1, 1, 2], [1, 2, 3])
    assert e.kendall_tau == 1.0
    assert e.pairs == 2
    assert e.pair_inversion == pytest.approx(1 / 3, rel=1e-12)
    assert e.rank_deviation == pytest.approx(1 / 2, rel=1e-12)


def test_games_without_outcome_are_ignored() -> None:
    rows = [("g1", "A", 1), ("g1", "B", 2), ("g1", "C", 3)]
    base = evaluate_ratings(history_from_rows(rows), np.array([1.0, 2.0, 3.0]))
    more = rows + [
        ("solo", "A", 1),  # one player
        ("tie", "B", 1),  # everyone tied
        ("tie", "C", 1),
        ("dnfs", "A", "DNF"),  # everyone DNF
        ("dnfs", "C", "DNF"),
    ]
    extended = evaluate_ratings(history_from_rows(more), np.array([1.0, 2.0, 3.0, 9.0, 5.0, 1.0, 7.0, 2.0]))
    assert extended == base
    assert extended.games == 1


def test_aggregation_weights() -> None:
    # Game 1: 2 players predicted perfectly (1 pair, tau 0, pair inversion 1 for both,
    # deviation 0).  Game 2: 3 players reversed (3 pairs, tau 1, pair inversion 0,
    # deviation sum 1 + 0 + 1 = 2, see test_reversed_prediction).
    # Tau is weighted by pairs: 3/4.  Ebtekar and Liu (2021) average over entries: pair inversion
    # (1 + 1 + 0 + 0 + 0)/5 = 0.4, rank deviation (0 + 0 + 2)/5 = 0.4.
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 1), ("g2", "B", 2), ("g2", "C", 3)])
    e = evaluate_ratings(h, np.array([2.0, 1.0, 1.0, 2.0, 3.0]))
    assert e.kendall_tau == pytest.approx(3 / 4, rel=1e-12)
    assert e.pair_inversion == pytest.approx(0.4, rel=1e-12)
    assert e.rank_deviation == pytest.approx(0.4, rel=1e-12)
    assert (e.pairs, e.games) == (4, 2)


def test_evaluate_reads_ratings_before_each_game() -> None:
    # Multielo, K=32: g1 A beats B from 1000 each (before: equal -> tau 0.5, pair
    # inversion 0.5, deviation: predicted rank uniform on {0, 1}, mean distance 1/2).
    # After g1 A = 1016 > B = 984; in g2 B beats A: tau 1, inversion 0, deviation 1 each.
    # Tau (0.5 + 1)/2 = 0.75; inversion (0.5 + 0.5 + 0 + 0)/4 = 0.25;
    # deviation (0.5 + 0.5 + 1 + 1)/4 = 0.75.
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 2), ("g2", "B", 1)])
    e = evaluate(create("multielo").rate(h))
    assert e.kendall_tau == pytest.approx(0.75, rel=1e-12)
    assert e.pair_inversion == pytest.approx(0.25, rel=1e-12)
    assert e.rank_deviation == pytest.approx(0.75, rel=1e-12)


def test_nothing_to_count_is_nan_and_null_in_json() -> None:
    e = evaluate_ratings(history_from_rows([("g", "A", 1)]), np.array([0.0]))
    assert math.isnan(e.kendall_tau) and math.isnan(e.pair_inversion) and math.isnan(e.rank_deviation)
    assert (e.pairs, e.games) == (0, 0)
    assert json.loads(json.dumps(e.as_dict())) == {
        "kendall_tau": None,
        "pair_inversion": None,
        "rank_deviation": None,
        "pairs": 0,
        "games": 0,
    }


def test_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="expected 3 ratings"):
        evaluate_ratings(one_game([1, 2, 3]), np.zeros(2))


# ---------------------------------------------------------------- brute force
def brute_force(history: GameHistory, before: np.ndarray) -> tuple[float, float, float, int, int]:
    """The three metrics by plain loops over the Game objects, written from the seeds' words.

    Rank deviation and pair inversion average over every order of equal-rated players
    (enumerated with itertools), the random tie-break ratings/metrics.py documents.
    """
    tau_total = tau_pairs = 0.0
    inv_total = dev_total = weight = 0.0
    games = 0
    pos = 0
    for game in history.games:
        n = len(game.entries)
        ratings = [float(before[pos + i]) for i in range(n)]
        pos += n
        # A DNF is below every finisher: give it a place after every finisher.
        place = [e.place if e.place is not None else 10**9 for e in game.entries]
        if n < 2 or len(set(place)) < 2:
            continue
        games += 1
        weight += n
        for i in range(n):
            for j in range(n):
                if place[i] < place[j]:  # i better; j worse
                    tau_pairs += 1
                    if ratings[j] > ratings[i]:
                        tau_total += 1
                    elif ratings[j] == ratings[i]:
                        tau_total += 0.5
        # Every total order consistent with the ratings (highest first, ties any order).
        orders = [
            perm
            for perm in itertools.permutations(range(n))
            if all(ratings[perm[k]] >= ratings[perm[k + 1]] for k in range(n - 1))
        ]
        for order in orders:
            predicted = {player: k for k, player in enumerate(order)}
            for i in range(n):
                correct = 0
                for j in range(n):
                    if j == i:
                        continue
                    higher, lower = (i, j) if predicted[i] < predicted[j] else (j, i)
                    if place[higher] <= place[lower]:  # the higher-rated won or tied
                        correct += 1
                inv_total += correct / (n - 1) / len(orders)
                lo = sum(1 for j in range(n) if place[j] < place[i])
                hi = lo + sum(1 for j in range(n) if place[j] == place[i]) - 1
                closest = min(max(predicted[i], lo), hi)
                dev_total += abs(predicted[i] - closest) / (n - 1) / len(orders)
    return tau_total / tau_pairs, inv_total / weight, dev_total / weight, int(tau_pairs), games


def random_history(rng: np.random.Generator, n_games: int) -> tuple[GameHistory, np.ndarray]:
    rows: list[tuple[str, str, object]] = []
    for g in range(n_games):
        n = int(rng.integers(1, 7))
        players = rng.choice(12, size=n, replace=False)
        for p in players:
            place: object = "DNF" if rng.random() < 0.2 else int(rng.integers(1, n + 1))
            rows.append((f"g{g}", f"P{p}", place))
    history = history_from_rows(rows)
    # Ratings from a small set, so that equal ratings are common.
    before = rng.integers(0, 4, size=len(rows)).astype(float)
    return history, before


@pytest.mark.parametrize("seed", range(8))
def test_against_brute_force(seed: int) -> None:
    history, before = random_history(np.random.default_rng(seed), 40)
    e = evaluate_ratings(history, before)
    tau, inversion, deviation, pairs, games = brute_force(history, before)
    assert e.kendall_tau == pytest.approx(tau, rel=1e-12)
    assert e.pair_inversion == pytest.approx(inversion, rel=1e-12)
    assert e.rank_deviation == pytest.approx(deviation, rel=1e-12)
    assert (e.pairs, e.games) == (pairs, games)


def test_chunked_batches_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many games of one size are split into chunks; the split must not change the sums.
    history, before = random_history(np.random.default_rng(99), 60)
    whole = evaluate_ratings(history, before)
    monkeypatch.setattr("ratings.metrics._CHUNK_CELLS", 1)
    chunked = evaluate_ratings(history, before)
    assert chunked.kendall_tau == pytest.approx(whole.kendall_tau, rel=1e-12)
    assert chunked.pair_inversion == pytest.approx(whole.pair_inversion, rel=1e-12)
    assert chunked.rank_deviation == pytest.approx(whole.rank_deviation, rel=1e-12)
    assert (chunked.pairs, chunked.games) == (whole.pairs, whole.games)
