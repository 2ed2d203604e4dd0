"""Glicko-2 and Rank Points against Glickman's worked example, an independent re-derivation and the INVERSUS rules.

Sources: Glickman, "Example of the Glicko-2 system"; "The Online Skill Ranking of INVERSUS Deluxe" (Hypersect,
2018), cited below as INVERSUS Deluxe.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from ratings import GameHistory, ParameterError, create
from ratings.base import GameView
from ratings.systems.glicko2 import GLICKO_SCALE, glicko2_period, match_scores, rank_points_step

from .conftest import history_from_rows

S = 173.7178  # Glickman, step 2: Glicko-2 scale factor


def to_g2(r: float, rd: float) -> tuple[float, float]:
    return (r - 1500.0) / S, rd / S


# ---------------------------------------------------------------------------- Glickman's worked example
def test_glickman_worked_example_pure_function() -> None:
    # Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to 1550/100 and
    # 1700/300, tau = 0.5 -> r' = 1464.06, RD' = 151.52, sigma' = 0.05999.  Glickman rounds his
    # intermediate values (e.g. v = 1.7785, Delta = -0.4834), which is why the full-precision rating
    # is 1464.0507; hence the 0.01 tolerance on the rating.
    mu, phi = to_g2(1500, 200)
    opp = [to_g2(1400, 30), to_g2(1550, 100), to_g2(1700, 300)]
    new_mu, new_phi, new_sigma = glicko2_period(
        mu, phi, 0.06, [o[0] for o in opp], [o[1] for o in opp], [1, 0, 0], tau=0.5
    )
    assert new_mu * S + 1500 == pytest.approx(1464.06, abs=0.01)
    assert new_phi * S == pytest.approx(151.52, abs=0.005)
    assert new_sigma == pytest.approx(0.05999, abs=1e-5)


def test_glickman_worked_example_through_the_system() -> None:
    # The same example as one four-player game: the 1700 and 1550 players finish ahead of our
    # player, the 1400 player behind, so our player's matches are exactly Glickman's three.
    system = create("glicko2")
    state = system.initial_state(4)
    state["mu"][:] = [1500, 1400, 1550, 1700]
    state["sigma"][:] = [200, 30, 100, 300]
    view = GameView(0, np.arange(4), np.array([2, 3, 1, 0]), np.zeros(4, dtype=bool), None)
    system._play(state, view)
    assert state["mu"][0] == pytest.approx(1464.06, abs=0.01)
    assert state["sigma"][0] == pytest.approx(151.52, abs=0.005)
    assert state["volatility"][0] == pytest.approx(0.05999, abs=1e-5)


# ---------------------------------------------------------------------------- a player far from 1500
def reference_period(
    r: float, rd: float, vol: float, opponents: list[tuple[float, float, float]], tau: float
) -> tuple[float, float, float]:
    """Independent re-derivation of Glickman's steps 2-8, written apart from ratings.systems.glicko2.

    Scalar transcription of the formulas of "Example of the Glicko-2 system"; the volatility
    equation f(x) = 0 (step 5) is solved with scipy's brentq on a wide bracket instead of the
    Illinois iteration, so a slip in either root finder would show.
    """
    mu, phi = (r - 1500.0) / S, rd / S
    v_inv = 0.0
    total = 0.0
    for r_j, rd_j, s_j in opponents:
        mu_j, phi_j = (r_j - 1500.0) / S, rd_j / S
        g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j**2 / math.pi**2)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        v_inv += g * g * e * (1.0 - e)
        total += g * (s_j - e)
    v = 1.0 / v_inv
    delta = v * total
    a = math.log(vol**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2.0 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    x = brentq(f, a - 30.0, a + 30.0, xtol=1e-14)
    new_vol = math.exp(x / 2.0)
    phi_star = math.sqrt(phi**2 + new_vol**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    new_mu = mu + new_phi**2 * total
    return new_mu * S + 1500.0, new_phi * S, new_vol


# Upsets (losses to much weaker players, a win over a much stronger one) so that step 5 has work to do.
FAR_OPPONENTS = [(1700.0, 60.0, 0.0), (1800.0, 120.0, 0.0), (2600.0, 50.0, 1.0), (1900.0, 200.0, 0.0)]


@pytest.mark.parametrize("tau", [0.3, 0.5, 1.2])
def test_player_far_from_1500_matches_independent_derivation(tau: float) -> None:
    # machine-facts.md: the popular `glicko2` package puts the rating where Glickman has the deviation
    # in the volatility step, which only agrees at 1500; so the reference here is reference_period.
    expected = reference_period(2200.0, 80.0, 0.06, FAR_OPPONENTS, tau=tau)
    mu, phi = to_g2(2200, 80)
    opp_mu = [(o[0] - 1500) / S for o in FAR_OPPONENTS]
    opp_phi = [o[1] / S for o in FAR_OPPONENTS]
    new_mu, new_phi, new_vol = glicko2_period(mu, phi, 0.06, opp_mu, opp_phi, [o[2] for o in FAR_OPPONENTS], tau=tau)
    assert new_mu * S + 1500 == pytest.approx(expected[0], abs=1e-4)
    assert new_phi * S == pytest.approx(expected[1], abs=1e-4)
    assert new_vol == pytest.approx(expected[2], rel=1e-6)
    # The upsets must move the volatility by far more than the tolerance (else step 5 would go untested).
    assert abs(expected[2] - 0.06) > 5e-6


@pytest.mark.parametrize("shift", [-900.0, 300.0, 2500.0])
def test_shifting_every_rating_shifts_the_result(shift: float) -> None:
    # Glicko-2 depends on ratings only through differences (steps 3-4), so adding a constant to
    # everyone adds it to the new rating and leaves deviation and volatility as they were.
    mu, phi = to_g2(2200, 80)
    opp_mu = np.array([(o[0] - 1500) / S for o in FAR_OPPONENTS])
    opp_phi = [o[1] / S for o in FAR_OPPONENTS]
    scores = [o[2] for o in FAR_OPPONENTS]
    base = glicko2_period(mu, phi, 0.06, opp_mu, opp_phi, scores, tau=0.5)
    c = shift / S
    moved = glicko2_period(mu + c, phi, 0.06, opp_mu + c, opp_phi, scores, tau=0.5)
    assert moved[0] == pytest.approx(base[0] + c, abs=1e-9)
    assert moved[1] == pytest.approx(base[1], rel=1e-9)
    assert moved[2] == pytest.approx(base[2], rel=1e-9)


def test_no_opponents_only_grows_the_deviation() -> None:
    # Glickman, step 8 note: a player who did not compete keeps mu and sigma; phi' = sqrt(phi^2 + sigma^2).
    assert glicko2_period(0.3, 1.0, 0.06, [], [], [], tau=0.5) == pytest.approx((0.3, math.sqrt(1.0 + 0.0036), 0.06))


def test_match_scores_and_dnf_pairs() -> None:
    # Ranks as GameHistory gives them: 0 best; the two DNFs share the rank after the finishers.
    score, played = match_scores(np.array([0, 1, 1, 2, 2]), np.array([False, False, False, True, True]))
    assert score[0].tolist() == [0.5, 1.0, 1.0, 1.0, 1.0]
    assert score[1, 2] == 0.5 and score[2, 0] == 0.0 and score[1, 3] == 1.0
    # DNFs play the finishers but not each other (their order is unknown).
    assert played[3].tolist() == [True, True, True, False, False]
    assert not played.diagonal().any()


# ---------------------------------------------------------------------------- inactivity
def dated(days: list[int]) -> GameHistory:
    start = dt.date(2024, 1, 1)
    records = []
    for g, d in enumerate(days):
        for player, place in (("A", 1), ("B", 2)):
            records.append({"game": f"g{g}", "date": start + dt.timedelta(days=d), "player": player, "place": place})
    return GameHistory.from_records(records)


@pytest.mark.parametrize(("gap", "periods"), [(28, 2.0), (7, 0.5), (1, 1 / 14)])
def test_deviation_grows_with_days(gap: int, periods: float) -> None:
    # INVERSUS Deluxe: inactivity of t rating periods (14 days each) gives phi* = sqrt(phi^2 + t sigma^2).
    run = create("glicko2").rate(dated([0, gap]))
    sigma_before, sigma_after = run.extras["sigma"]
    vol_after = run.extras["volatility"][1]
    expected = math.sqrt(sigma_after[0] ** 2 + periods * (vol_after[0] * S) ** 2)
    assert sigma_before[2] == pytest.approx(expected, rel=1e-12)
    assert sigma_before[2] > sigma_after[0]


def test_deviation_growth_is_capped_at_the_new_player_deviation() -> None:
    # INVERSUS Deluxe: the deviation never exceeds the unrated value 2.015 (about 350 Glicko points).
    run = create("glicko2").rate(dated([0, 365 * 60]))
    assert run.extras["sigma"][0][2] == pytest.approx(2.015 * S, rel=1e-12)


def test_no_dates_no_inactivity_growth() -> None:
    history = history_from_rows([("g1", "A", 1), ("g1", "B", 2), ("g2", "A", 1), ("g2", "B", 2)])
    run = create("glicko2").rate(history)
    sigma_before, sigma_after = run.extras["sigma"]
    assert sigma_before[2] == sigma_after[0]
    assert sigma_before[3] == sigma_after[1]


def test_period_days_sets_the_unit_of_time() -> None:
    # 28 days with 28-day periods is one period.
    run = create("glicko2", period_days=28.0).rate(dated([0, 28]))
    sigma_before, sigma_after = run.extras["sigma"]
    vol = run.extras["volatility"][1][0]
    assert sigma_before[2] == pytest.approx(math.sqrt(sigma_after[0] ** 2 + (vol * S) ** 2), rel=1e-12)


# ---------------------------------------------------------------------------- Rank Points
@pytest.mark.parametrize(
    ("points", "target", "ceiling", "result", "expected"),
    [
        # INVERSUS Deluxe: halfway to the target ...
        (1000.0, 1600.0, 9000.0, 1.0, 1300.0),
        (1000.0, 400.0, 9000.0, -1.0, 700.0),
        # ... at most 500 per game ...
        (1000.0, 5000.0, 9000.0, 1.0, 1500.0),
        (3000.0, 0.0, 9000.0, -1.0, 2500.0),
        # ... at least 1 point, never against the result ...
        (1000.0, 1001.0, 9000.0, 1.0, 1001.0),
        (1000.0, 400.0, 9000.0, 1.0, 1001.0),
        (1000.0, 1600.0, 9000.0, -1.0, 999.0),
        # ... except that a win never passes the upper end of the interval and a loss never goes below 0.
        (1000.0, 990.0, 1000.5, 1.0, 1000.5),
        (1000.0, 990.0, 995.0, 1.0, 1000.0),
        (0.5, 0.0, 9000.0, -1.0, 0.0),
        (0.0, 0.0, 9000.0, -1.0, 0.0),
        # An even result (module docstring): halfway towards the target, either way, no minimum.
        (1000.0, 1600.0, 9000.0, 0.0, 1300.0),
        (1000.0, 400.0, 9000.0, 0.0, 700.0),
        (1000.0, 1000.5, 9000.0, 0.0, 1000.25),
    ],
)
def test_rank_points_step_rules(points: float, target: float, ceiling: float, result: float, expected: float) -> None:
    assert rank_points_step(points, target, ceiling, result) == pytest.approx(expected, abs=1e-12)


def seed_target(mu: np.ndarray, sigma: np.ndarray, k: float) -> np.ndarray:
    """INVERSUS Deluxe: mu -/+ 3 phi on the Glicko-2 scale, remapped from [-6.045, 6.045] to [0, 10000], clamped."""
    internal = (mu - 1500.0) / S + k * sigma / S
    return np.clip((internal + 6.045) / 12.09 * 10000.0, 0.0, 10000.0)


def test_first_wins_of_a_new_player_are_capped_at_500() -> None:
    rows = []
    for g in range(3):
        rows += [(f"g{g}", "A", 1), (f"g{g}", f"B{g}", 2), (f"g{g}", f"C{g}", 3), (f"g{g}", f"D{g}", 4)]
    run = create("glicko2", scale="rank-points").rate(history_from_rows(rows))
    winner = np.flatnonzero(run.history.flat_player == 0)
    mu_after, sigma_after = run.extras["mu"][1], run.extras["sigma"][1]
    targets = seed_target(mu_after[winner], sigma_after[winner], -3.0)
    # The targets are far above: without the cap the first step would exceed 500.
    assert targets[0] / 2 > 500
    assert run.after[winner].tolist() == pytest.approx([500.0, 1000.0, 1500.0])
    # Second place beat two of three (a win against the field): a first win, capped at 500.
    # INVERSUS Deluxe: a new player sits at 0 until their first win; third and fourth lost, so stay at 0.
    assert run.after[winner + 1].tolist() == [500.0, 500.0, 500.0]
    assert np.all(run.after[winner + 2] == 0.0) and np.all(run.after[winner + 3] == 0.0)


def field_result(ranks: np.ndarray, dnf: np.ndarray, i: int) -> float | None:
    """Score against the field minus 0.5, recomputed in the test; None without any match."""
    total, count = 0.0, 0
    for j in range(len(ranks)):
        if j == i or (dnf[i] and dnf[j]):
            continue
        count += 1
        total += 1.0 if ranks[i] < ranks[j] else (0.5 if ranks[i] == ranks[j] else 0.0)
    return None if count == 0 else total / count - 0.5


@st.composite
def random_histories(draw: st.DrawFn) -> GameHistory:
    n_games = draw(st.integers(1, 12))
    with_dates = draw(st.booleans())
    day = 0
    records = []
    for g in range(n_games):
        players = draw(st.lists(st.sampled_from("ABCDEFG"), min_size=2, max_size=6, unique=True))
        day += draw(st.integers(0, 60))
        for p in players:
            place = draw(st.one_of(st.integers(1, 4), st.just("DNF")))
            record = {"game": f"g{g}", "player": p, "place": place}
            if with_dates:
                record["date"] = dt.date(2024, 1, 1) + dt.timedelta(days=day)
            records.append(record)
    return GameHistory.from_records(records)


@settings(max_examples=60, deadline=None)
@given(random_histories())
def test_rank_points_never_move_against_the_result(history: GameHistory) -> None:
    run = create("glicko2", scale="rank-points").rate(history)
    mu_after, sigma_after = run.extras["mu"][1], run.extras["sigma"][1]
    lower = seed_target(mu_after, sigma_after, -3.0)
    upper = seed_target(mu_after, sigma_after, 3.0)
    for g in range(history.n_games):
        s = history.game_slice(g)
        ranks, dnf = history.flat_rank[s], history.flat_dnf[s]
        for i, k in enumerate(range(s.start, s.stop)):
            before, after = run.before[k], run.after[k]
            change = after - before
            result = field_result(ranks, dnf, i)
            assert 0.0 <= after <= 10000.0
            assert abs(change) <= 500.0 + 1e-9
            if result is None:
                assert change == 0.0
            elif result > 0:
                assert change >= 0.0
                # At least 1 point unless the upper end of the interval (or 10000) stops it.
                assert change >= 1.0 - 1e-9 or after == pytest.approx(max(before, upper[k]), abs=1e-9)
                if 2.0 <= lower[k] - before <= 1000.0:
                    assert change == pytest.approx((lower[k] - before) / 2, abs=1e-6)
            elif result < 0:
                assert change <= 0.0
                assert change <= -1.0 + 1e-9 or after == 0.0
                if 2.0 <= before - lower[k] <= 1000.0:
                    assert change == pytest.approx((lower[k] - before) / 2, abs=1e-6)
    # Points are state and replay deterministically.
    again = create("glicko2", scale="rank-points").rate(history)
    np.testing.assert_array_equal(run.after, again.after)


# ---------------------------------------------------------------------------- contract checks, both scales
@pytest.fixture(params=["glicko", "rank-points"])
def scale(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_scale_label_and_initial_rating(scale: str, small_history: GameHistory) -> None:
    system = create("glicko2", scale=scale)
    run = system.rate(small_history)
    if scale == "rank-points":
        assert system.initial_rating() == 0.0 and "Rank Points" in run.scale
    else:
        assert system.initial_rating() == 1500.0 and "Glicko" in run.scale
    # A newcomer's first displayed value is the initial rating.
    assert run.before[0] == system.initial_rating()
    # Glicko rating and deviation are reported whatever is displayed.
    assert run.final_extras["sigma"].shape == (small_history.n_players,)


def test_contract_checks_with_both_scales(scale: str, small_history: GameHistory) -> None:
    snapshot = copy.deepcopy(small_history.to_records())
    system = create("glicko2", scale=scale)
    params_before = dataclasses.asdict(system.params)
    run = system.rate(small_history)
    assert small_history.to_records() == snapshot and dataclasses.asdict(system.params) == params_before
    entries = int(small_history.offsets[-1])
    assert run.before.shape == run.after.shape == (entries,)
    assert np.all(np.isfinite(run.after))
    last = {int(p): run.after[i] for i, p in enumerate(small_history.flat_player)}
    for p, value in last.items():
        assert run.final[p] == pytest.approx(value)
    # Relabelling players changes nothing but labels.
    renamed = [{**r, "player": f"x-{r['player'][::-1]}"} for r in small_history.to_records()]
    other = create("glicko2", scale=scale).rate(GameHistory.from_records(renamed))
    np.testing.assert_allclose(run.after, other.after, rtol=1e-9, atol=1e-9)
    probs = system.place_probabilities(run.state, [0, 1, 2, 3])
    np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-9)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)


def test_winner_of_an_even_field_gains_with_both_scales(scale: str) -> None:
    history = history_from_rows([("g", "A", 1), ("g", "B", 2), ("g", "C", 3), ("g", "D", 4)])
    run = create("glicko2", scale=scale).rate(history)
    assert run.change[0] > 0
    if scale == "glicko":
        assert run.change[3] < 0
    else:
        # INVERSUS Deluxe: everyone starts at 0 Rank Points and points never go negative, so a new
        # player's first loss cannot lower them.
        assert run.change[3] == 0


def test_solo_game_changes_nothing_with_both_scales(scale: str) -> None:
    run = create("glicko2", scale=scale).rate(history_from_rows([("solo", "A", 1), ("g", "A", 1), ("g", "B", 2)]))
    assert run.change[0] == 0


# ---------------------------------------------------------------------------- predictions
def test_two_player_prediction_matches_glicko_expectation() -> None:
    # Glickman (Glicko-2 step 3 and the Glicko paper): P(A beats B) is approximately
    # 1 / (1 + exp(-g(sqrt(phi_A^2 + phi_B^2)) (mu_A - mu_B))), the g attenuation approximating the
    # average of the logistic over both skill posteriors that the Monte Carlo samples exactly.
    system = create("glicko2")
    state = system.initial_state(2)
    state["mu"][:] = [1700.0, 1500.0]
    state["sigma"][:] = [100.0, 150.0]
    probs = system.place_probabilities(state, [0, 1])
    phi = math.hypot(100.0, 150.0) / S
    g = 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)
    expected = 1.0 / (1.0 + math.exp(-g * 200.0 / S))
    assert probs[0, 0] == pytest.approx(expected, abs=0.015)
    assert probs[0, 0] + probs[1, 0] == pytest.approx(1.0)


# ---------------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "bad",
    [
        {"tau": 0.0},
        {"initial_deviation": -1.0},
        {"min_deviation": 0.0},
        {"min_deviation": 3.0},
        {"min_rating": 1.0},
        {"max_rating": -0.5},
        {"min_volatility": 0.07},
        {"max_volatility": 0.05},
        {"period_days": 0.0},
        {"scale": "elo"},
    ],
)
def test_invalid_parameters_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ParameterError, match=next(iter(bad))):
        create("glicko2", **bad)


def test_bounds_are_applied() -> None:
    # INVERSUS Deluxe: deviation never below min_deviation; rating within [min_rating, max_rating].
    rows = []
    for g in range(60):
        rows += [(f"g{g}", "A", 1), (f"g{g}", "B", 2)]
    run = create("glicko2", min_deviation=0.5, max_rating=1.0).rate(history_from_rows(rows))
    a = run.final_extras
    assert a["sigma"].min() >= 0.5 * GLICKO_SCALE - 1e-9
    assert a["mu"].max() <= 1500.0 + 1.0 * GLICKO_SCALE + 1e-9
    assert a["mu"][0] == pytest.approx(1500.0 + GLICKO_SCALE)
