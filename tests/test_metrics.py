"""Accuracy metrics against hand derivations and an independent brute-force count.

Definitions: Kendall tau from Kerby 2025, section 5; pair inversion and rank deviation
from Ebtekar and Liu 2021, sections 6.3-6.4, with the options of their evaluation code (see
ratings/metrics.py for the DNF, newcomer, burn-in and equal-rating rules).  Most single-game tests
score everyone (``EVERYONE``: no newcomer filter, no burn-in) to check the per-game definition.

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
from ratings.metrics import Evaluation, GameScores, PairedBootstrap, evaluate, evaluate_ratings, prior_games
from ratings.params import ParameterError

from .conftest import history_from_rows


def one_game(places: list[object]) -> GameHistory:
    return history_from_rows([("g", f"p{i}", place) for i, place in enumerate(places)])


#: Score every participant of every game (the paper's per-game definition, no newcomer filter, no burn-in).
EVERYONE: dict[str, object] = {"min_prior_games": 0, "burn_in": 0.0}


def metrics(places: list[object], ratings: list[float], **options: object) -> Evaluation:
    return evaluate_ratings(one_game(places), np.array(ratings, dtype=float), **{**EVERYONE, **options})  # type: ignore[arg-type]


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


def test_equal_ratings_at_random() -> None:
    # equal_ratings="half".  All rated 5: every pair counts 0.5 in tau and in pair inversion.  Rank deviation:
    # each predicted rank is uniform on {0, 1, 2}.  Actual 0: mean(0, 1, 2)/2 = 1/2;
    # actual 1: mean(1, 0, 1)/2 = 1/3; actual 2: 1/2.  Mean over 3: (4/3)/3 = 4/9.
    e = metrics([1, 2, 3], [5, 5, 5], equal_ratings="half")
    assert e.kendall_tau == 0.5
    assert e.pair_inversion == 0.5
    assert e.rank_deviation == pytest.approx(4 / 9, rel=1e-12)


def test_equal_ratings_as_the_authors_count_them() -> None:
    # equal_ratings="correct" (the default), as the authors' code: pair inversion counts an inversion only
    # where the better-placed player is rated strictly lower, so all three equal-rated pairs are correct:
    # each player 2/2, mean 1.  Rank deviation: a stable sort by rating keeps the standings' order, so the
    # predicted ranks 0, 1, 2 equal the actual ones: 0.  Kendall tau (Kerby) keeps 0.5 per equal pair.
    e = metrics([1, 2, 3], [5, 5, 5])
    assert e.kendall_tau == 0.5
    assert e.pair_inversion == 1.0
    assert e.rank_deviation == 0.0


def test_equal_ratings_counted_wrong() -> None:
    # equal_ratings="wrong": every equal-rated pair with different places is an error: pair inversion 0;
    # equal ratings predicted against the result, ranks 2, 1, 0 against 0, 1, 2: (2 + 0 + 2)/2/3 = 2/3.
    e = metrics([1, 2, 3], [5, 5, 5], equal_ratings="wrong")
    assert e.pair_inversion == 0.0
    assert e.rank_deviation == pytest.approx(2 / 3, rel=1e-12)


def test_equal_ratings_beside_others() -> None:
    # Places A=1, B=2, C=3, D=4; ratings A=2, B=5, C=5, D=1 (B and C equal).
    # Pair inversion, "correct": wrong only A-B and A-C (A won, rated lower); B-C equal -> correct.
    # Per player: A 1/3 (A-D), B 2/3, C 2/3, D 3/3 -> (1 + 2 + 2 + 3)/3/4 = 2/3.
    # "half": B-C earns 0.5 each -> B 1.5/3, C 1.5/3 -> (1 + 1.5 + 1.5 + 3)/3/4 = 7/12.
    # Rank deviation, "correct": by rating B (0), C (1), A (2), D (3); actual A 0, B 1, C 2, D 3:
    # (2 + 1 + 1 + 0)/3/4 = 1/3.  "wrong": C (0), B (1), A (2), D (3): (2 + 0 + 2 + 0)/3/4 = 1/3.
    # "half": B and C each uniform on {0, 1}: B mean(1, 0) = 1/2, C mean(2, 1) = 3/2; A 2, D 0 ->
    # (2 + 1/2 + 3/2 + 0)/3/4 = 1/3.
    places, ratings = [1, 2, 3, 4], [2, 5, 5, 1]
    assert metrics(places, ratings).pair_inversion == pytest.approx(2 / 3, rel=1e-12)
    assert metrics(places, ratings, equal_ratings="half").pair_inversion == pytest.approx(7 / 12, rel=1e-12)
    assert metrics(places, ratings, equal_ratings="wrong").pair_inversion == pytest.approx(1 / 2, rel=1e-12)
    for rule in ("correct", "half", "wrong"):
        assert metrics(places, ratings, equal_ratings=rule).rank_deviation == pytest.approx(1 / 3, rel=1e-12)


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
    base = evaluate_ratings(history_from_rows(rows), np.array([1.0, 2.0, 3.0]), **EVERYONE)  # type: ignore[arg-type]
    more = rows + [
        ("solo", "A", 1),  # one player
        ("tie", "B", 1),  # everyone tied
        ("tie", "C", 1),
        ("dnfs", "A", "DNF"),  # everyone DNF
        ("dnfs", "C", "DNF"),
    ]
    extended = evaluate_ratings(
        history_from_rows(more),
        np.array([1.0, 2.0, 3.0, 9.0, 5.0, 1.0, 7.0, 2.0]),
        **EVERYONE,  # type: ignore[arg-type]
    )
    assert extended == base
    assert extended.games == 1


def test_aggregation_weights() -> None:
    # Game 1: 2 players predicted perfectly (1 pair, tau 0, pair inversion 1 for both,
    # deviation 0).  Game 2: 3 players reversed (3 pairs, tau 1, pair inversion 0,
    # deviation sum 1 + 0 + 1 = 2, see test_reversed_prediction).
    # Tau is weighted by pairs: 3/4.  Ebtekar and Liu (2021) average over entries: pair inversion
    # (1 + 1 + 0 + 0 + 0)/5 = 0.4, rank deviation (0 + 0 + 2)/5 = 0.4.
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 1), ("g2", "B", 2), ("g2", "C", 3)])
    e = evaluate_ratings(h, np.array([2.0, 1.0, 1.0, 2.0, 3.0]), **EVERYONE)  # type: ignore[arg-type]
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
    run = create("multielo").rate(h)
    e = evaluate(run, **EVERYONE, equal_ratings="half")
    assert e.kendall_tau == pytest.approx(0.75, rel=1e-12)
    assert e.pair_inversion == pytest.approx(0.25, rel=1e-12)
    assert e.rank_deviation == pytest.approx(0.75, rel=1e-12)
    # The authors' count: g1's equal ratings predict A's win (inversion 1 each, deviation 0): 2/4 and 2/4.
    e = evaluate(run, **EVERYONE)
    assert e.pair_inversion == pytest.approx(0.5, rel=1e-12)
    assert e.rank_deviation == pytest.approx(0.5, rel=1e-12)
    # The paper's defaults: nobody had 5 earlier games, so nobody is scored; Kendall tau is unchanged.
    e = evaluate(run)
    assert math.isnan(e.pair_inversion) and math.isnan(e.rank_deviation)
    assert e.kendall_tau == pytest.approx(0.75, rel=1e-12)
    assert (e.scored_games, e.scored_entries) == (0, 0)


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
        "scored_games": 0,
        "scored_entries": 0,
        "log_loss": None,
    }


def test_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="expected 3 ratings"):
        evaluate_ratings(one_game([1, 2, 3]), np.zeros(2))


# ---------------------------------------------------------------- newcomers and burn-in
def test_newcomers_are_left_out_and_places_renumbered() -> None:
    # min_prior_games=1, no burn-in.  g1: A 1, B 2, C 3, all first games: nobody scored.
    # g2: A 1, D 2, B 3, C 4; D is new, so the scored are A, B, C with ranks renumbered among
    # themselves: A 0, B 1, C 2 (|P_t| = 3).  Ratings before g2: A 1, D 10, B 3, C 2.
    # Pair inversion: A-B wrong (A won, B higher), A-C wrong, B-C right (3 > 2):
    # A 0/2, B 1/2, C 1/2 -> (0 + 1/2 + 1/2)/3 = 1/3.
    # Rank deviation: by rating B 0, C 1, A 2; actual A 0, B 1, C 2: (2 + 1 + 1)/2/3 = 2/3.
    # Kendall tau counts everyone: g1 all rated 0, 3 equal pairs = 1.5; g2: pairs (A,D) (A,B) (A,C)
    # discordant, (D,B) (D,C) (B,C) not: 3 of 6 -> (1.5 + 3)/(3 + 6) = 1/2.
    rows = [("g1", "A", 1), ("g1", "B", 2), ("g1", "C", 3), ("g2", "A", 1), ("g2", "D", 2), ("g2", "B", 3)]
    rows.append(("g2", "C", 4))
    h = history_from_rows(rows)
    rated = {("g1", "A"): 0.0, ("g1", "B"): 0.0, ("g1", "C"): 0.0}
    rated |= {("g2", "A"): 1.0, ("g2", "D"): 10.0, ("g2", "B"): 3.0, ("g2", "C"): 2.0}
    before = np.array([rated[(g, p)] for g, p in entries_of(h)])
    e = evaluate_ratings(h, before, min_prior_games=1, burn_in=0.0)
    assert e.pair_inversion == pytest.approx(1 / 3, rel=1e-12)
    assert e.rank_deviation == pytest.approx(2 / 3, rel=1e-12)
    assert e.kendall_tau == pytest.approx(1 / 2, rel=1e-12)
    assert (e.scored_games, e.scored_entries, e.games, e.pairs) == (1, 3, 2, 9)
    # min_prior_games=2: nobody had two earlier games, so nothing is scored.
    assert math.isnan(evaluate_ratings(h, before, min_prior_games=2, burn_in=0.0).pair_inversion)


def entries_of(h: GameHistory) -> list[tuple[str, str]]:
    """(game id, player) of every entry in the history's flat order."""
    game = h.game_of_entry()
    return [(h.games[g].id, h.players[p]) for g, p in zip(game, h.flat_player, strict=True)]


def test_one_newcomer_leaves_no_outcome() -> None:
    # g2 of two players, one of them new: one scored player is no contest (the authors' outcome_free),
    # so nothing is scored; Kendall tau still counts the pair.
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 1), ("g2", "C", 2)])
    e = evaluate_ratings(h, np.array([0.0, 0.0, 1.0, 2.0]), min_prior_games=1, burn_in=0.0)
    assert (e.scored_games, e.pairs) == (0, 2)
    assert math.isnan(e.pair_inversion)


def test_burn_in_skips_the_first_tenth() -> None:
    # Ten two-player games A v B, no newcomer filter.  Game 1 mispredicted (B rated higher, A won), the
    # other nine predicted.  burn_in=0.1 skips floor(10 * 0.1) = 1 game: pair inversion 18/18 = 1.
    # Without burn-in: (0 + 0 + 9 * 2)/20 = 0.9.  Kendall tau ignores the burn-in: 1/10.
    rows = [(f"g{k}", player, place) for k in range(10) for player, place in (("A", 1), ("B", 2))]
    h = history_from_rows(rows)
    before = np.array([1.0, 2.0] + [2.0, 1.0] * 9)
    burned = evaluate_ratings(h, before, min_prior_games=0, burn_in=0.1)
    assert burned.pair_inversion == 1.0
    assert burned.scored_games == 9
    assert burned.kendall_tau == pytest.approx(0.1, rel=1e-12)
    assert evaluate_ratings(h, before, min_prior_games=0, burn_in=0.0).pair_inversion == pytest.approx(0.9)


def test_bad_options_are_refused() -> None:
    h = one_game([1, 2])
    with pytest.raises(ParameterError, match="min_prior_games"):
        evaluate_ratings(h, np.zeros(2), min_prior_games=-1)
    with pytest.raises(ParameterError, match="burn_in"):
        evaluate_ratings(h, np.zeros(2), burn_in=1.0)
    with pytest.raises(ParameterError, match="equal_ratings.*correct, half, wrong"):
        evaluate_ratings(h, np.zeros(2), equal_ratings="maybe")


def test_prior_games() -> None:
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "B", 1), ("g2", "C", 2), ("g3", "B", 1)])
    h_entries = entries_of(h)
    counts = dict(zip(h_entries, prior_games(h).tolist(), strict=True))
    assert counts == {("g1", "A"): 0, ("g1", "B"): 0, ("g2", "B"): 1, ("g2", "C"): 0, ("g3", "B"): 2}


# ---------------------------------------------------------------- brute force
def brute_force(
    history: GameHistory, before: np.ndarray, min_prior: int = 0, burn_in: float = 0.0, rule: str = "half"
) -> tuple[float, float, float, int, int]:
    """The three metrics by plain loops over the Game objects, written from the seeds' words.

    Rank deviation and pair inversion average over every total order consistent with the ratings
    (enumerated with itertools) that the rule allows among equal-rated players: any order ("half", the
    expectation over a random tie-break), best-placed first ("correct", the authors' stable sort), or
    worst-placed first ("wrong").  Only players with ``min_prior`` earlier games, in games from
    ``floor(burn_in * games)`` on, are scored by those two.
    """
    tau_total = tau_pairs = 0.0
    inv_total = dev_total = weight = 0.0
    games = 0
    pos = 0
    seen: dict[str, int] = {}
    burned = math.floor(burn_in * len(history.games))
    for index, game in enumerate(history.games):
        n_all = len(game.entries)
        ratings_all = [float(before[pos + i]) for i in range(n_all)]
        pos += n_all
        # A DNF is below every finisher: give it a place after every finisher.
        place_all = [e.place if e.place is not None else 10**9 for e in game.entries]
        kept = [i for i, e in enumerate(game.entries) if seen.get(e.player, 0) >= min_prior and index >= burned]
        for e in game.entries:
            seen[e.player] = seen.get(e.player, 0) + 1
        if n_all >= 2 and len(set(place_all)) >= 2:
            games += 1
            for i in range(n_all):
                for j in range(n_all):
                    if place_all[i] < place_all[j]:  # i better; j worse
                        tau_pairs += 1
                        if ratings_all[j] > ratings_all[i]:
                            tau_total += 1
                        elif ratings_all[j] == ratings_all[i]:
                            tau_total += 0.5
        ratings = [ratings_all[i] for i in kept]
        place = [place_all[i] for i in kept]
        n = len(kept)
        if n < 2 or len(set(place)) < 2:
            continue
        weight += n

        orders = [
            perm
            for perm in itertools.permutations(range(n))
            if all(_allowed(perm[k], perm[k + 1], ratings, place, rule) for k in range(n - 1))
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
    nan = float("nan")
    return (
        tau_total / tau_pairs,
        inv_total / weight if weight else nan,
        dev_total / weight if weight else nan,
        int(tau_pairs),
        games,
    )


def _allowed(x: int, y: int, ratings: list[float], place: list[int], rule: str) -> bool:
    """May player ``x`` be predicted directly above ``y``?  Higher rating first; equal ratings as ``rule``."""
    if ratings[x] != ratings[y]:
        return ratings[x] > ratings[y]
    return rule == "half" or (place[x] <= place[y] if rule == "correct" else place[x] >= place[y])


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
@pytest.mark.parametrize(
    ("min_prior", "burn_in", "rule"), [(0, 0.0, "half"), (0, 0.0, "correct"), (0, 0.0, "wrong"), (2, 0.1, "correct")]
)
def test_against_brute_force(seed: int, min_prior: int, burn_in: float, rule: str) -> None:
    history, before = random_history(np.random.default_rng(seed), 40)
    e = evaluate_ratings(history, before, min_prior_games=min_prior, burn_in=burn_in, equal_ratings=rule)
    tau, inversion, deviation, pairs, games = brute_force(history, before, min_prior, burn_in, rule)
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


# ---------------------------------------------------------------- the bootstrap's coverage
def _scores(per_game: np.ndarray) -> GameScores:
    """Kendall-tau-shaped figures with one pair per game: the metric is the mean of ``per_game``."""
    ones = np.ones(len(per_game))
    return GameScores(0, {"kendall_tau": per_game}, {"kendall_tau": ones})


def test_the_paired_interval_covers_a_known_difference_at_about_its_level() -> None:
    """Two systems scored on the same games, B worse than A by construction: B's discordance on a game is A's plus
    a noise of mean DELTA, so the true improvement of A over B is DELTA.  Over seeded repetitions, the 95% interval
    must cover DELTA about 95% of the time (binomial: 200 draws at 0.95 have a standard deviation of 0.015, so 0.90
    to 0.99 is more than three of them), and say "better" when the difference is large against the noise."""
    delta, reps, n = 0.05, 200, 300
    rng = np.random.default_rng(12345)
    covered = better = worse = 0
    for r in range(reps):
        a = rng.binomial(1, 0.4, n).astype(float)
        b = a + rng.normal(delta, 0.3, n)
        boot = PairedBootstrap({"A": _scores(a), "B": _scores(b)}, samples=400, seed=r)
        c = boot.compare("A", "B", "kendall_tau")
        assert c.improvement == pytest.approx(b.mean() - a.mean(), rel=1e-12)  # lower is better for this metric
        covered += c.improvement - c.margin <= delta <= c.improvement + c.margin
        better += c.verdict == "better"
        worse += c.verdict == "worse"
    assert 0.90 <= covered / reps <= 0.99, covered / reps
    # the difference is 2.9 standard errors (0.3 / sqrt(300) = 0.0173): "better" nearly every time, never "worse"
    assert better / reps >= 0.7 and worse == 0
