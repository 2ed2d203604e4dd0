"""TrueSkill against the ``trueskill`` package (0.4.5, the one racetime.gg uses), its documentation and scipy.

The package is the reference oracle here only: it is run inside each test with the same
parameters, on the same games; ``ratings/`` never imports it.

Sources: Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trueskill
from scipy import special, stats

from ratings import GameHistory, GameView, ParameterError, create
from ratings.systems._factor_graph import cdf, draw_margin, erfc, ppf, v_draw, v_win, w_draw, w_win

from .conftest import history_from_rows

# The package's own stopping rule leaves its answers accurate to about 1e-4 of the exact fixed
# point; we follow the same schedule and the same normal approximation, so we agree far closer.
REL = 1e-9

DEFAULTS: dict[str, float] = {}
# Kerby 2025, section 5: the hand-tuned TrueSkill settings for Map Rando races.
TUNED = {"sigma": 5.0, "beta": 2.5, "tau": 0.12, "draw_probability": 0.001}
ODD = {"mu": 10.0, "sigma": 3.0, "beta": 1.0, "tau": 0.0, "draw_probability": 0.4}


def package_env(params: dict[str, float]) -> trueskill.TrueSkill:
    p = {"mu": 25.0, "sigma": 25.0 / 3.0, "beta": 25.0 / 6.0, "tau": 25.0 / 300.0, "draw_probability": 0.1}
    p.update({k: v for k, v in params.items() if k in p})
    return trueskill.TrueSkill(backend=None, **p)


def package_replay(
    rows: list[tuple[str, str, object]], params: dict[str, float]
) -> tuple[list[tuple[float, float]], dict[str, tuple[float, float]]]:
    """Replay ``(game, player, place)`` rows with the package, as racetime.gg does.

    Each player is a one-player team; ranks are the places, and every DNF shares the rank
    after the last finisher (ties for last).  Returns each entry's (mu, sigma) after its game,
    in row order, and every player's final (mu, sigma).
    """
    env = package_env(params)
    current: dict[str, trueskill.Rating] = {}
    games: dict[str, list[tuple[str, object]]] = {}
    for game, player, place in rows:
        games.setdefault(game, []).append((player, place))
    after: dict[tuple[str, str], tuple[float, float]] = {}
    for game, entries in games.items():
        finished = [pl for _, pl in entries if pl != "DNF"]
        last = max(finished, default=0)
        ranks = [last + 1 if pl == "DNF" else pl for _, pl in entries]
        teams = [(current.get(p, env.create_rating()),) for p, _ in entries]
        if len(teams) >= 2:
            teams = env.rate(teams, ranks=ranks)
        for (player, _), (rating,) in zip(entries, teams, strict=True):
            current[player] = rating
            after[(game, player)] = (rating.mu, rating.sigma)
    per_entry = [after[(g, p)] for g, p, _ in rows]
    return per_entry, {p: (r.mu, r.sigma) for p, r in current.items()}


def assert_agrees(rows: list[tuple[str, str, object]], params: dict[str, float], rel: float = REL) -> None:
    """Our run and the package's replay give every entry the same (mu, sigma) after its game."""
    history = history_from_rows(rows)
    run = create("trueskill", **params).rate(history)
    expected, final = package_replay(rows, params)
    # history_from_rows keeps games in first-appearance order and entries in row order.
    game_order = {g: k for k, g in enumerate(dict.fromkeys(g for g, _, _ in rows))}
    order = sorted(range(len(rows)), key=lambda i: game_order[rows[i][0]])
    assert [rows[i][1] for i in order] == [history.players[p] for p in history.flat_player]
    mu_after, sigma_after = run.extras["mu"][1], run.extras["sigma"][1]
    for slot, i in enumerate(order):
        assert mu_after[slot] == pytest.approx(expected[i][0], rel=rel, abs=rel), rows[i]
        assert sigma_after[slot] == pytest.approx(expected[i][1], rel=rel), rows[i]
    for player, (mu, sigma) in final.items():
        p = history.players.index(player)
        assert run.final_extras["mu"][p] == pytest.approx(mu, rel=rel, abs=rel)
        assert run.final_extras["sigma"][p] == pytest.approx(sigma, rel=rel)


# ---------------------------------------------------------------- documented examples


def test_one_vs_one_win_from_defaults_matches_the_package_documentation() -> None:
    # Source: the trueskill package documentation (trueskill.org, "Head-to-head (1 vs. 1) match
    # rule"): from Rating() each, rate_1vs1 gives the winner mu=29.396, sigma=7.171 and the loser
    # mu=20.604, sigma=7.171.
    run = create("trueskill").rate(history_from_rows([("g", "1P", 1), ("g", "2P", 2)]))
    mu, sigma = run.extras["mu"][1], run.extras["sigma"][1]
    assert mu == pytest.approx([29.396, 20.604], abs=5e-4)
    assert sigma == pytest.approx([7.171, 7.171], abs=5e-4)
    # Displayed rating: mu - 2 sigma (Kerby 2025, section 2).
    assert run.after == pytest.approx(mu - 2 * sigma, rel=1e-12)


def test_one_vs_one_draw_from_defaults_matches_the_package_documentation() -> None:
    # Source: the same page, drawn=True: both become mu=25.000, sigma=6.458.
    run = create("trueskill").rate(history_from_rows([("g", "1P", 1), ("g", "2P", 1)]))
    assert run.extras["mu"][1] == pytest.approx([25.0, 25.0], abs=5e-4)
    assert run.extras["sigma"][1] == pytest.approx([6.458, 6.458], abs=5e-4)


def test_one_vs_one_unequal_matches_the_package_description() -> None:
    # Source: the trueskill 0.2.1 project description on PyPI: Rating(25, 8.333) vs Rating(30, 8.333);
    # the first wins -> (30.768, 7.030) and (24.232, 7.030).
    system = create("trueskill", sigma=8.333)
    state = system.initial_state(2)
    state["mu"][:] = [25.0, 30.0]
    system._play(state, GameView(0, np.array([0, 1]), np.array([0, 1]), np.array([False, False]), None))
    assert state["mu"] == pytest.approx([30.768, 24.232], abs=5e-4)
    assert state["sigma"] == pytest.approx([7.030, 7.030], abs=5e-4)


def test_tied_players_from_equal_ratings_end_slightly_apart_as_in_the_package() -> None:
    # machine-facts.md (checked with trueskill 0.4.5): ranks 0, 1, 1 from defaults give the tied
    # pair 22.4427 and 22.4480: the sweep stops before the chain has fully converged.
    run = create("trueskill").rate(history_from_rows([("g", "A", 1), ("g", "B", 2), ("g", "C", 2)]))
    assert run.extras["mu"][1][1:] == pytest.approx([22.4427, 22.4480], abs=5e-5)
    assert_agrees([("g", "A", 1), ("g", "B", 2), ("g", "C", 2)], DEFAULTS)


# ---------------------------------------------------------------- agreement with the package


@pytest.mark.parametrize("params", [DEFAULTS, TUNED, ODD], ids=["default", "tuned", "odd"])
def test_two_player_win_and_draw_agree(params: dict[str, float]) -> None:
    rows = [
        ("g1", "A", 1),
        ("g1", "B", 2),
        ("g2", "B", 1),  # from unequal ratings now
        ("g2", "A", 1),
        ("g3", "A", 2),
        ("g3", "B", 1),
    ]
    assert_agrees(rows, params)


@pytest.mark.parametrize("params", [DEFAULTS, TUNED, ODD], ids=["default", "tuned", "odd"])
def test_three_player_games_with_ties_and_dnfs_agree(params: dict[str, float]) -> None:
    rows = [
        # game  player  place
        ("g1", "A", 1),
        ("g1", "B", "DNF"),
        ("g1", "C", "DNF"),
        ("g2", "C", 1),
        ("g2", "A", 1),
        ("g2", "B", 2),
        ("g3", "B", "DNF"),
        ("g3", "A", 2),
        ("g3", "C", 1),
    ]
    assert_agrees(rows, params)


@pytest.mark.parametrize("params", [DEFAULTS, TUNED, ODD], ids=["default", "tuned", "odd"])
def test_eight_player_games_with_ties_and_dnfs_agree(params: dict[str, float]) -> None:
    first = [("g1", p, pl) for p, pl in zip("ABCDEFGH", [1, 2, 3, 4, 5, 6, 7, 8], strict=True)]
    second = [("g2", p, pl) for p, pl in zip("HBDFACEG", [1, 2, 2, 4, 5, "DNF", "DNF", "DNF"], strict=True)]
    third = [("g3", p, pl) for p, pl in zip("CGAEBHDF", [3, 1, 1, 3, 5, "DNF", 2, "DNF"], strict=True)]
    assert_agrees(first + second + third, params)


def test_forty_player_game_agrees() -> None:
    rng = np.random.default_rng(40)
    players = [f"p{i:02d}" for i in range(40)]
    rows: list[tuple[str, str, object]] = []
    for g in range(3):
        order = rng.permutation(40)
        places: list[object] = [int(x) for x in rng.integers(1, 31, size=40)]  # many ties among finishers
        for i in rng.choice(40, size=6, replace=False):
            places[i] = "DNF"
        rows += [(f"g{g}", players[i], places[k]) for k, i in enumerate(order)]
    assert_agrees(rows, DEFAULTS)
    assert_agrees(rows, TUNED)
    assert_agrees(rows, ODD)


def test_random_history_final_ratings_agree() -> None:
    # A seeded history: 25 players, 150 games of 2-12 players, ties and DNFs included.
    rng = np.random.default_rng(2026)
    skill = rng.normal(0, 1, 25)
    rows: list[tuple[str, str, object]] = []
    for g in range(150):
        size = int(rng.integers(2, 13))
        who = rng.choice(25, size=size, replace=False)
        performance = skill[who] + rng.normal(0, 1, size)
        place = np.argsort(np.argsort(-np.round(performance, 1))) + 1
        for i, p in enumerate(who):
            dnf = rng.random() < 0.1
            rows.append((f"g{g}", f"player{p}", "DNF" if dnf else int(place[i])))
    history = history_from_rows(rows)
    for params in (DEFAULTS, TUNED):
        run = create("trueskill", **params).rate(history)
        _, final = package_replay(rows, params)
        for player, (mu, sigma) in final.items():
            p = history.players.index(player)
            assert run.final_extras["mu"][p] == pytest.approx(mu, rel=REL, abs=REL), player
            assert run.final_extras["sigma"][p] == pytest.approx(sigma, rel=REL), player


# ---------------------------------------------------------------- behaviour the seed describes


def test_a_new_player_tied_for_last_gains_displayed_points() -> None:
    # Kerby 2025, section 2: a player who quits may still gain points, commonly a new player: the
    # DNFs share last place (a draw among themselves) and sigma shrinks enough for mu - 2 sigma to rise.
    rows = [("g", "A", 1), ("g", "B", 2), ("g", "C", 3), ("g", "D", "DNF"), ("g", "E", "DNF")]
    run = create("trueskill").rate(history_from_rows(rows))
    assert run.extras["mu"][1][3] < 25.0  # the mean drops...
    assert run.change[3] > 0  # ...but the shown rating rises
    assert run.change[4] > 0


def test_display_k_sets_the_shown_rating_and_label() -> None:
    history = history_from_rows([("g", "A", 1), ("g", "B", 2)])
    plain = create("trueskill", display_k=0.0)
    run = plain.rate(history)
    assert run.after == pytest.approx(run.extras["mu"][1])
    assert plain.initial_rating() == 25.0
    assert run.scale == "TrueSkill (mu)"
    assert create("trueskill").initial_rating() == pytest.approx(25.0 - 2 * 25.0 / 3.0)
    assert create("trueskill").rate(history).scale == "TrueSkill (mu - 2 sigma)"
    assert create("trueskill", display_k=3.0).rate(history).scale == "TrueSkill (mu - 3 sigma)"


def test_extreme_upsets_and_far_draws_stay_finite() -> None:
    # Far beyond where the package's ratio pdf/cdf underflows: the scaled forms keep going.
    # Hand derivation for the 500-point upset (beta = 1, sigma = 1, tau = 0): the performance gap is
    # pinned at ~0, and each skill moves sigma^2 / (sigma^2 + beta^2) = 1/2 of its performance's
    # move of 250, so the winner ends near 125 and the loser near 375.
    system = create("trueskill", mu=0.0, sigma=1.0, beta=1.0, tau=0.0)
    state = system.initial_state(2)
    state["mu"][:] = [0.0, 500.0]
    system._play(state, GameView(0, np.array([0, 1]), np.array([0, 1]), np.array([False, False]), None))
    assert state["mu"] == pytest.approx([125.0, 375.0], abs=0.1)
    assert np.all(np.isfinite(state["sigma"])) and np.all(state["sigma"] < 1.0)
    state["mu"][:] = [0.0, 5000.0]
    state["sigma"][:] = 1.0
    system._play(state, GameView(0, np.array([0, 1]), np.array([0, 0]), np.array([False, False]), None))
    assert state["mu"] == pytest.approx([1250.0, 3750.0], abs=1.0)


def test_zero_draw_probability_still_rates_ties() -> None:
    # A zero margin makes a tie mean "equal performances"; the package still gives an answer, and
    # so do we.  Here the package itself is only good to ~6e-8: moving every input mu by one ulp
    # moves its output that much (measured on random games), so we ask for 1e-6.
    rows = [("g1", "A", 1), ("g1", "B", 2), ("g1", "C", 2), ("g2", "C", 1), ("g2", "A", 1), ("g2", "B", "DNF")]
    assert_agrees(rows, {"draw_probability": 0.0}, rel=1e-6)


# ---------------------------------------------------------------- the truncated-Gaussian functions


# Source for the next two tests: scipy.stats.truncnorm.  N(t, 1) restricted to (eps, inf) (a win) or to
# [-eps, eps] (a draw) has mean t + v and variance 1 - w.  Our Phi is the package's fitted one (relative
# error < 1.2e-7), which w = 1 - variance magnifies where the variance is small: near a draw, and for
# upsets (t << 0), where w = v (v + x) turns a relative error d of v into about d x^2, until, past 37.5
# standard deviations, where the package has no answer, we switch to scipy's exact erfcx.
def w_tolerance(x: float) -> float:
    """Tolerance on w when the standardised distance past the truncation point is ``x``."""
    x = abs(x)
    return 1e-8 if x > 37.5 else 5e-6 + 2e-7 * x**2


@pytest.mark.parametrize("t", [-60.0, -36.0, -12.0, -3.0, -0.5, 0.0, 0.7, 2.5, 8.0])
@pytest.mark.parametrize("eps", [0.0, 0.05, 0.7])
def test_win_functions_are_truncated_normal_moments(t: float, eps: float) -> None:
    dist = stats.truncnorm(eps - t, np.inf, loc=t)
    assert v_win(t, eps) == pytest.approx(dist.mean() - t, rel=3e-7, abs=1e-12)
    assert w_win(t, eps) == pytest.approx(1.0 - dist.var(), abs=w_tolerance(t - eps))
    assert 0.0 < w_win(t, eps) < 1.0


@pytest.mark.parametrize("t", [-60.0, -36.0, -9.0, -1.0, -0.1, 0.0, 0.3, 2.0, 36.0])
@pytest.mark.parametrize("eps", [0.05, 0.4, 2.0])
def test_draw_functions_are_truncated_normal_moments(t: float, eps: float) -> None:
    dist = stats.truncnorm(-eps - t, eps - t, loc=t)
    # A narrow window [-eps, eps] differences two nearby values of the fitted Phi: 1e-6 absolute.
    assert v_draw(t, eps) == pytest.approx(dist.mean() - t, rel=3e-7, abs=1e-6)
    assert w_draw(t, eps) == pytest.approx(1.0 - dist.var(), abs=w_tolerance(abs(t) - eps))


def test_normal_helpers_are_accurate_to_the_fit() -> None:
    # Numerical Recipes' erfcc: fractional error below 1.2e-7 everywhere (checked against scipy).
    for x in np.linspace(-6, 25, 125):
        assert erfc(float(x)) == pytest.approx(float(special.erfc(x)), rel=1.2e-7)
    for x in np.linspace(-8, 8, 81):
        assert cdf(float(x)) == pytest.approx(float(special.ndtr(x)), rel=1.2e-7)
    for p in (0.001, 0.3, 0.55, 0.9):
        assert cdf(ppf(p)) == pytest.approx(p, rel=1e-14)


def test_normal_helpers_are_the_packages_bit_for_bit() -> None:
    # Agreement at 1e-9 with narrow draw margins needs the same rounding as the package's Phi.
    from trueskill import backends

    for x in np.random.default_rng(7).normal(0, 5, 2000):
        assert cdf(float(x)) == backends.cdf(float(x))


def test_draw_margin_matches_the_package() -> None:
    # The package: eps = Phi^-1((P + 1) / 2) sqrt(2) beta for two one-player teams.
    env = package_env({})
    assert draw_margin(0.1, 25.0 / 6.0) == pytest.approx(env.ppf(0.55) * math.sqrt(2) * env.beta, rel=1e-12)


# ---------------------------------------------------------------- predictions and parameters


def test_place_probabilities_follow_the_performance_model() -> None:
    system = create("trueskill")
    state = system.initial_state(3)
    state["mu"][:] = [25.0, 25.0, 35.0]
    probs = system.place_probabilities(state, [0, 1, 2])
    assert probs[0] == pytest.approx(probs[1], abs=0.015)  # equal players
    assert probs[2, 0] > 0.6 and probs[2, 0] > probs[0, 0]
    # Two equal players: each wins half the time.
    two = system.place_probabilities(state, [0, 1])
    assert two[0, 0] == pytest.approx(0.5, abs=0.01)
    # Two players 10 apart with sigma 25/3 and beta 25/6: P(first) = Phi(10 / sqrt(2 (sigma^2 + beta^2))).
    pair = system.place_probabilities(state, [2, 0])
    spread = math.sqrt(2 * ((25 / 3) ** 2 + (25 / 6) ** 2))
    assert pair[0, 0] == pytest.approx(stats.norm.cdf(10 / spread), abs=0.01)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("sigma", 0.0),
        ("beta", -1.0),
        ("tau", -0.1),
        ("draw_probability", 1.0),
        ("draw_probability", -0.01),
        ("display_k", -1.0),
        ("mu", math.nan),
    ],
)
def test_invalid_parameters_are_refused(name: str, value: float) -> None:
    with pytest.raises(ParameterError, match=name):
        create("trueskill", **{name: value})


def test_ratings_are_not_shared_between_runs() -> None:
    system = create("trueskill")
    history = GameHistory.from_records(
        [{"game": "g", "player": "A", "place": 1}, {"game": "g", "player": "B", "place": 2}]
    )
    first = system.rate(history)
    second = system.rate(history)
    np.testing.assert_array_equal(first.after, second.after)


# ---------------------------------------------------------------- large fields


@pytest.mark.parametrize("size", [1000, 4096])
def test_large_field_agrees_with_the_package(size: int) -> None:
    # Fields of a large programming contest: established ratings, a result close to the ratings' order (the
    # package's Phi fails with a FloatingPointError on random orders of a few hundred players, its practical
    # limit), ties from rounded performances, a few DNFs.  Two games, so the second starts from the first's
    # posteriors.  The package takes about 1.4 s for the 4,096-player game here.
    rng = np.random.default_rng(size)
    players = [f"p{i:04d}" for i in range(size)]
    skill = rng.normal(0.0, 8.0, size)
    rows: list[tuple[str, str, object]] = []
    for g in range(2):
        performance = np.round(skill + rng.normal(0.0, 5.0, size), 0)
        order = rng.permutation(size)
        place = {int(i): int(np.sum(performance > performance[i])) + 1 for i in order}
        dnf = set(rng.choice(size, size=size // 100, replace=False).tolist())
        rows += [(f"g{g}", players[i], "DNF" if i in dnf else place[int(i)]) for i in order]
    assert_agrees(rows, DEFAULTS)
