"""Pairwise Elo against the closed forms of Kerby 2025, sections 3.1.1, 3.1.2 and 3.2.1.

Sources: Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ratings import GameHistory, ParameterError, create
from ratings.base import GameView


def play(ratings: list[float], ranks: list[int], dnf: list[bool] | None = None, **params: object) -> np.ndarray:
    system = create("pairwise-elo", **params)
    state = {"rating": np.array(ratings, dtype=float)}
    n = len(ratings)
    system._play(state, GameView(0, np.arange(n), np.array(ranks), np.array(dnf or [False] * n), None))
    return state["rating"]


def logistic_win(r_winner: float, r_loser: float) -> float:
    """Kerby 2025, section 3.1.1: the winner gains eta / (1 + e^{r_w - r_l}) (per unit eta)."""
    return 1.0 / (1.0 + math.exp(r_winner - r_loser))


def gaussian_win(r_winner: float, r_loser: float) -> float:
    """Kerby 2025, section 3.1.2: with d = r_w - r_l, the winner gains phi(d/sqrt2) / (sqrt2 Phi(d/sqrt2))."""
    d = (r_winner - r_loser) / math.sqrt(2.0)
    return float(stats.norm.pdf(d) / (math.sqrt(2.0) * stats.norm.cdf(d)))


@pytest.mark.parametrize("variant", ["sum", "average"])
@pytest.mark.parametrize(("r1", "r2"), [(0.0, 0.0), (0.7, -0.4), (-2.0, 1.5)])
def test_two_players_logistic_is_section_3_1_1(variant: str, r1: float, r2: float) -> None:
    after = play([r1, r2], [1, 0], eta=0.5, variant=variant)  # player 2 wins
    step = 0.5 / (1.0 + math.exp(r2 - r1))
    assert after == pytest.approx([r1 - step, r2 + step], abs=1e-13)


@pytest.mark.parametrize("variant", ["sum", "average"])
@pytest.mark.parametrize(("r1", "r2"), [(0.0, 0.0), (0.7, -0.4), (-2.0, 1.5), (6.0, -6.0)])
def test_two_players_gaussian_is_section_3_1_2(variant: str, r1: float, r2: float) -> None:
    after = play([r1, r2], [0, 1], eta=0.2, model="gaussian", variant=variant)  # player 1 wins
    step = 0.2 * gaussian_win(r1, r2)
    assert after == pytest.approx([r1 + step, r2 - step], rel=1e-9)


def test_equal_two_player_logistic_update_is_half_eta() -> None:
    # Section 3.1.1: equally rated players exchange eta / 2.
    assert play([0.0, 0.0], [0, 1], eta=0.2) == pytest.approx([0.1, -0.1], abs=1e-15)


def test_draw_is_score_one_half() -> None:
    # A drawn pair averages the two results' updates: in the logistic model that is 1/2 - P(win),
    # Elo's draw (section 3.1.1 in score form).
    r1, r2 = 0.8, -0.3
    p1 = 1.0 / (1.0 + math.exp(r2 - r1))
    assert play([r1, r2], [0, 0], eta=1.0) == pytest.approx([r1 + 0.5 - p1, r2 - (0.5 - p1)], abs=1e-13)
    g = 0.1 * (gaussian_win(r1, r2) - gaussian_win(r2, r1))  # eta 0.2 times the two results' mean
    assert play([r1, r2], [0, 0], eta=0.2, model="gaussian") == pytest.approx([r1 + g, r2 - g], abs=1e-12)


def test_three_players_sum_the_pairs() -> None:
    # Section 3.2.1: A beats B and C, B beats C; sum of the three pair updates (hand expansion).
    a, b, c = 0.4, 0.1, -0.2
    after = play([a, b, c], [0, 1, 2], eta=1.0)
    expected = [
        a + logistic_win(a, b) + logistic_win(a, c),
        b - logistic_win(a, b) + logistic_win(b, c),
        c - logistic_win(a, c) - logistic_win(b, c),
    ]
    assert after == pytest.approx(expected, abs=1e-13)
    averaged = play([a, b, c], [0, 1, 2], eta=1.0, variant="average")
    assert averaged - np.array([a, b, c]) == pytest.approx((np.array(expected) - [a, b, c]) / 2, abs=1e-13)


def test_two_dnfs_do_not_compare() -> None:
    # Section 4: the order of two DNFs is unobserved, so their pair updates nothing; each loses
    # only to the finisher.
    a, b, c = 0.0, 0.5, -0.5
    after = play([a, b, c], [0, 1, 1], [False, True, True], eta=1.0)
    expected = [a + logistic_win(a, b) + logistic_win(a, c), b - logistic_win(a, b), c - logistic_win(a, c)]
    assert after == pytest.approx(expected, abs=1e-13)


def test_two_player_pairwise_matches_plackett_luce() -> None:
    # With two players the pairwise logistic model and Plackett-Luce are both section 3.1.1.
    ratings = np.array([0.3, -1.1])
    pairwise = create("pairwise-elo", eta=0.4)
    pl = create("plackett-luce", eta=0.4)
    for ranks in ([0, 1], [1, 0], [0, 0]):
        view = GameView(0, np.arange(2), np.array(ranks), np.zeros(2, bool), None)
        s1, s2 = {"rating": ratings.copy()}, {"rating": ratings.copy()}
        pairwise._play(s1, view)
        pl._play(s2, view)
        assert s1["rating"] == pytest.approx(s2["rating"], abs=1e-13)


def test_place_probabilities_two_player_marginals() -> None:
    state = {"rating": np.array([0.9, 0.1])}
    logistic = create("pairwise-elo").place_probabilities(state, [0, 1])
    assert logistic[0, 0] == pytest.approx(1 / (1 + math.exp(-0.8)), rel=1e-12)  # section 3.1.1
    gaussian = create("pairwise-elo", model="gaussian").place_probabilities(state, [0, 1])
    # Section 3.1.2: P = Phi(0.8 / sqrt2); Monte Carlo with 20,000 samples, 5 standard errors.
    assert gaussian[0, 0] == pytest.approx(stats.norm.cdf(0.8 / math.sqrt(2)), abs=5 * 0.5 / math.sqrt(20_000))


@pytest.mark.parametrize(("name", "value"), [("variant", "median"), ("model", "cauchy")])
def test_unknown_choices_are_refused(name: str, value: str) -> None:
    with pytest.raises(ParameterError, match=name):
        create("pairwise-elo", **{name: value})


def _shuffled_fields(players: int, games: int) -> GameHistory:
    """``games`` games of every one of ``players`` players, in orders drawn at random (seeded)."""
    rng = np.random.default_rng(20261129)
    return GameHistory.from_records(
        {"game": f"g{g}", "player": f"P{p}", "place": place + 1}
        for g in range(games)
        for place, p in enumerate(rng.permutation(players))
    )


def test_diverging_gaussian_updates_stop_with_the_game_that_went_too_far() -> None:
    # Games of 40 players with the Gaussian model's summed updates at eta 0.2, the largest step its rule allows: a
    # summed step overshoots once eta times the game's curvature passes 2, and that curvature grows with the field
    # (a pair's is at most 1/2, so about 10 here, against 2 / 0.2 = 10), so the ratings run apart within a few
    # games.  Both paths stop at the first game whose entrants' ratings, as the game starts, spread over
    # GAUSSIAN_MAX_SPREAD, found here from the reference path's ratings of the games before it, and the message
    # says what to change.
    from ratings import ComputationError
    from ratings.systems.pairwise import GAUSSIAN_MAX_SPREAD

    history = _shuffled_fields(40, 30)
    system = create("pairwise-elo", model="gaussian", eta=0.2)
    with pytest.raises(ComputationError) as fast:
        system.rate(history)
    with pytest.raises(ComputationError) as slow:
        system.rate_per_game(history)
    assert str(fast.value) == str(slow.value)
    assert "diverge" in str(fast.value) and "lower the learning rate" in str(fast.value)
    game = next(g for g, played in enumerate(history.games) if f"'{played.id}'" in str(fast.value))
    earlier = system.rate_per_game(GameHistory(history.games[:game]))
    spreads = [np.ptp(earlier.before[earlier.history.offsets[g] : earlier.history.offsets[g + 1]]) for g in range(game)]
    rating = {player: earlier.final[k] for k, player in enumerate(earlier.history.players)}
    entering = [rating.get(e.player, 0.0) for e in history.games[game].entries]  # a newcomer enters at 0
    assert max(spreads) <= GAUSSIAN_MAX_SPREAD < np.ptp(entering)
    # a step within 2 / 20 (the curvature's bound in games of 40) rates the whole history, as the averaged updates
    # and the logistic model (its update is bounded by 1 a pair) do at 0.2
    for converging in ({"eta": 0.05}, {"eta": 0.2, "variant": "average"}, {"eta": 0.2, "model": "logistic"}):
        run = create("pairwise-elo", **{"model": "gaussian", **converging}).rate(history)
        assert np.isfinite(run.final).all() and np.ptp(run.final) < 10, converging


@pytest.mark.parametrize(
    ("given", "refused"),
    [
        ({"eta": 0.21}, "eta"),
        ({"eta": 0.81, "variant": "average"}, "eta"),
        ({"eta": 0.11, "boost": 1.0}, "eta"),  # a first game's step is (1 + boost) x eta
        ({"eta": 0.1, "eta_knots": (0.0, 1.0), "eta_values": (0.1, 0.25)}, "eta"),
        ({"initial": -20.0, "dummy": 20.5}, "dummy"),
        ({"initial": 0.0, "dummy": 0.0, "floor": -40.5}, "dummy"),
    ],
)
def test_the_gaussian_model_refuses_steps_and_anchors_that_run_apart(given: dict[str, object], refused: str) -> None:
    # The Gaussian model's step is bounded by GAUSSIAN_ETA (0.2 summed, 0.8 averaged) and its anchors lie within
    # ANCHOR_SPREAD (40); the logistic model, whose pair update is bounded by 1, takes them all.
    with pytest.raises(ParameterError) as error:
        create("pairwise-elo", model="gaussian", **given)
    assert error.value.name == refused and "gaussian" in str(error.value)
    create("pairwise-elo", model="logistic", **given)


def test_the_gaussian_model_computes_at_its_largest_steps_and_widest_anchors() -> None:
    # At each bound together (the largest step, anchors 40 apart), every bundled sample's ratings stay within
    # GAUSSIAN_MAX_SPREAD (the widest measured: 118 units, doubles averaged with the newcomers 40 below the dummy).
    from ratings.samples import SAMPLES, load_sample
    from ratings.systems.pairwise import GAUSSIAN_MAX_SPREAD

    for name in SAMPLES:
        history = load_sample(name)
        for variant, eta in (("sum", 0.2), ("average", 0.8)):
            for anchors in ({"initial": -20.0, "dummy": 20.0}, {"initial": -100.0, "dummy": -60.0, "floor": -100.0}):
                run = create("pairwise-elo", model="gaussian", variant=variant, eta=eta, **anchors).rate(history)
                assert np.isfinite(run.final).all() and np.ptp(run.final) < GAUSSIAN_MAX_SPREAD, (name, variant)
