"""Calibration of win probabilities (ratings.predict.calibration): predicted against observed win rate in bins.

A reliability diagram (as in weather forecasting's verification literature, e.g. Murphy and Winkler 1977): entries
grouped by their predicted probability, each group's mean prediction beside its observed frequency.  Checked by
hand on a few games, and on a Plackett-Luce world where the true win probabilities are known exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ratings import GameHistory, create
from ratings.predict import calibration, win_probabilities
from ratings.samples import load_sample

from .conftest import history_from_rows


def flat(h: GameHistory, by_game_player: dict[tuple[str, str], float]) -> np.ndarray:
    game = h.game_of_entry()
    return np.array([by_game_player[(h.games[g].id, h.players[p])] for g, p in zip(game, h.flat_player, strict=True)])


def test_by_hand() -> None:
    # g1: A 1st (0.7), B 2nd (0.3).  g2: B 1st (0.3), A 2nd (0.6), C 3rd (0.1).  g3: A and C share 1st (0.5,
    # 0.2: each observes 1/2), B 3rd (0.3).  g4: everyone tied, no outcome: left out.
    # Two bins.  [0, 0.5): g1 B, g2 B, g2 C, g3 C, g3 B: 5 entries, predicted (0.3 + 0.3 + 0.1 + 0.2 + 0.3)/5 =
    # 0.24, observed (0 + 1 + 0 + 0.5 + 0)/5 = 0.3.  [0.5, 1]: g1 A, g2 A, g3 A: predicted 1.8/3 = 0.6, observed
    # (1 + 0 + 0.5)/3 = 0.5.  Error (5 * 0.06 + 3 * 0.1)/8 = 0.075.
    rows = [("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 2), ("g2", "B", 1), ("g2", "C", 3)]
    rows += [("g3", "A", 1), ("g3", "C", 1), ("g3", "B", 3), ("g4", "A", 1), ("g4", "B", 1)]
    h = history_from_rows(rows)
    p = {("g1", "A"): 0.7, ("g1", "B"): 0.3, ("g2", "A"): 0.6, ("g2", "B"): 0.3, ("g2", "C"): 0.1}
    p |= {("g3", "A"): 0.5, ("g3", "C"): 0.2, ("g3", "B"): 0.3, ("g4", "A"): 0.5, ("g4", "B"): 0.5}
    c = calibration(h, flat(h, p), bins=2)
    assert c.count.tolist() == [5, 3]
    assert c.predicted == pytest.approx([0.24, 0.6], rel=1e-12)
    assert c.observed == pytest.approx([0.3, 0.5], rel=1e-12)
    assert c.error == pytest.approx(0.075, rel=1e-12)
    assert c.as_dict()["count"] == [5, 3]
    # a held-out part only: g2 onwards
    later = calibration(h, flat(h, p), bins=2, first_game=1)
    assert later.count.tolist() == [4, 2]


def test_true_probabilities_are_calibrated_and_overconfident_ones_are_not() -> None:
    # 6,000 games of 5 players, log weights N(0, 1); the winner drawn from Plackett-Luce (Gumbel-max); the true win
    # probabilities are the normalised weights.  Each bin's observed rate is a mean of Bernoulli draws whose
    # probabilities average to the bin's prediction, so it is within 4 standard errors sqrt(p(1-p)/count).
    rng = np.random.default_rng(11)
    games, size = 6000, 5
    logw = rng.normal(size=(games, size))
    winner = np.argmax(logw + rng.gumbel(size=(games, size)), axis=1)
    rows = [(f"g{g}", f"P{g}-{i}", 1 if i == winner[g] else 2) for g in range(games) for i in range(size)]
    h = history_from_rows(rows)
    true = np.exp(logw) / np.exp(logw).sum(axis=1, keepdims=True)
    lookup = {(f"g{g}", f"P{g}-{i}"): true[g, i] for g in range(games) for i in range(size)}
    p = flat(h, lookup)
    c = calibration(h, p)
    for predicted, observed, count in zip(c.predicted, c.observed, c.count, strict=True):
        if count >= 50:
            assert abs(observed - predicted) <= 4 * math.sqrt(predicted * (1 - predicted) / count)
    sharp = p**3  # overconfident: the favourite's chance exaggerated
    game = h.game_of_entry()
    sharp = sharp / np.bincount(game, weights=sharp)[game]
    assert calibration(h, sharp).error > 3 * c.error


def test_with_a_rating_system_and_bad_input() -> None:
    h = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 1), ("g2", "B", 2)])
    run = create("multielo").rate(h)
    c = calibration(h, win_probabilities(run))
    assert int(c.count.sum()) == 4
    with pytest.raises(ValueError, match="bins"):
        calibration(h, win_probabilities(run), bins=0)
    with pytest.raises(ValueError, match="expected 4 win probabilities"):
        calibration(h, np.ones(3))


def test_the_pages_check_scores_only_the_latest_games() -> None:
    """sources.predictions.recent_calibration (the Predictions tab's check): the bins hold exactly the entries of
    the latest games that have a winner, and its log-loss is ratings.metrics.evaluate's over the same games."""
    from ratings.metrics import evaluate
    from sources.predictions import recent_calibration

    history = load_sample("racing")
    run = create("plackett-luce").rate(history)
    check = recent_calibration(run, latest=40)
    first = history.n_games - 40
    assert (check.first_game, check.games) == (first, 40)
    entries = 0
    for g in range(first, history.n_games):
        ranks = history.flat_rank[history.game_slice(g)]
        dnf = history.flat_dnf[history.game_slice(g)]
        winner = bool(((ranks == 0) & ~dnf).any())
        entries += len(ranks) if winner and len(ranks) >= 2 and ranks.max() > 0 else 0
    assert int(check.calibration.count.sum()) == entries
    assert check.log_loss == pytest.approx(evaluate(run, log_loss=True, first_game=first).log_loss, rel=1e-12)
    poker = create("plackett-luce").rate(load_sample("poker"))
    assert recent_calibration(poker, latest=10**6).games == 150  # a short history: every game
