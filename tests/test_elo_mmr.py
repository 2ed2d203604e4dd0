"""Elo-MMR against the ``elommr`` package, the paper's theorems and hand derivations (Ebtekar and Liu 2021).

References:
- ``elommr`` 1.2.1 (pure Python port of the authors' Rust implementation; machine-facts.md: agrees
  with the compiled Rust ``Elo-MMR-Py`` to 1e-12).  It implements the logistic variant Elo-MMR(rho) only.
  Its parameters are mapped as ``weight_limit = sigma_limit^2 / (beta^2 - sigma_limit^2)``,
  ``sig_limit = sigma_limit``, ``transfer_speed = rho``, ``max_history = max_history`` and the per-round
  ``weight = weight``; its ``split_ties`` stays False (a tie is a win plus a loss, as in section 3.1).
  Each round's standings are sorted by place, with ``(lo, hi)`` the 0-based positions a tie group spans.
  Our default ``max_history = 100`` differs from its default (no limit) only for players with more than
  100 games, which these histories do not have; the folding itself is compared with ``max_history = 3``.
- Theorems 5.5 (incentive compatibility) and 5.7 (bounded change) of the paper, on random games.
- The two-player Gaussian case derived by hand below, solved with scipy.stats / scipy.optimize.

Sources: Ebtekar and Liu 2021: "An Elo-like System for Massive Multiplayer Competitions", WWW 2021
(doi:10.1145/3442381.3450091).
"""

from __future__ import annotations

import math

import elommr
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from ratings import GameHistory, ParameterError, create
from ratings.base import GameView, State

from .conftest import history_from_rows

DEFAULT_BETA, DEFAULT_SIGMA_LIMIT = 200.0, 80.0


# ---------------------------------------------------------------------- helpers
def dense(ranks: np.ndarray) -> np.ndarray:
    return np.unique(ranks, return_inverse=True)[1]


def random_games(seed: int, n_games: int, n_players: int, max_size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(n_games):
        k = int(rng.integers(2, max_size + 1))
        players = rng.choice(n_players, size=k, replace=False)
        ranks = dense(rng.integers(0, k, size=k))  # ties are frequent
        games.append((players, ranks))
    return games


def to_history(games: list[tuple[np.ndarray, np.ndarray]]) -> GameHistory:
    rows = [
        (f"g{g:04d}", f"p{p:03d}", int(r) + 1) for g, (ps, rs) in enumerate(games) for p, r in zip(ps, rs, strict=True)
    ]
    return history_from_rows(rows)


def elommr_replay(
    games: list[tuple[np.ndarray, np.ndarray]],
    *,
    beta: float = DEFAULT_BETA,
    sigma_limit: float = DEFAULT_SIGMA_LIMIT,
    rho: float = 1.0,
    weight: float = 1.0,
    max_history: int | None = None,
) -> dict[str, tuple[float, float]]:
    """Final (mu, sigma) of every player according to the ``elommr`` package."""
    ref = elommr.EloMMR(
        weight_limit=sigma_limit**2 / (beta**2 - sigma_limit**2),
        sig_limit=sigma_limit,
        transfer_speed=rho,
        max_history=max_history,
    )
    people: dict[int, elommr.Player] = {}
    for players, ranks in games:
        standings = []
        for i in np.argsort(ranks, kind="stable"):
            lo = int((ranks < ranks[i]).sum())
            hi = int((ranks <= ranks[i]).sum()) - 1
            standings.append((people.setdefault(int(players[i]), elommr.Player()), lo, hi))
        ref.round_update(standings, weight=weight)
    return {f"p{p:03d}": (pl.approx_posterior.mu, pl.approx_posterior.sig) for p, pl in people.items()}


def play(system_name_params: dict, state: State, ranks: np.ndarray) -> State:
    """Play one game among players 0..n-1 of ``state`` (a copy) and return the new state."""
    system = create("elo-mmr", **system_name_params)
    new = {k: v.copy() for k, v in state.items()}
    n = len(ranks)
    system._play(new, GameView(0, np.arange(n), np.asarray(ranks), np.zeros(n, dtype=bool), None))
    return new


def state_after(params: dict, seed: int, n_players: int, n_games: int) -> State:
    """A varied state: players 0..n-1 after a seeded random history of small games."""
    system = create("elo-mmr", **params)
    state = system.initial_state(n_players)
    for g, (players, ranks) in enumerate(random_games(seed, n_games, n_players, min(n_players, 6))):
        system._play(state, GameView(g, players, ranks, np.zeros(len(players), dtype=bool), None))
    return state


# ---------------------------------------------------------------------- against the elommr package
GAMES = [
    # (players, dense ranks): a strict order, ties at the top and middle, DNFs tied last
    (np.array([0, 1, 2, 3, 4]), np.array([0, 1, 2, 3, 4])),
    (np.array([3, 1, 4, 0]), np.array([0, 0, 1, 2])),
    (np.array([2, 4, 1, 0, 3, 5]), np.array([0, 1, 1, 2, 3, 3])),
    (np.array([5, 0]), np.array([0, 1])),
    (np.array([1, 5, 2]), np.array([0, 0, 0])),
]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"beta": 150.0, "sigma_limit": 60.0},
        {"rho": 0.25, "weight": 2.5},
        {"rho": 3.0, "weight": 0.4, "beta": 300.0, "sigma_limit": 100.0},
    ],
)
def test_multiplayer_games_agree_with_elommr(params: dict) -> None:
    run = create("elo-mmr", **params).rate(to_history(GAMES))
    ref = elommr_replay(GAMES, **params)
    for i, name in enumerate(run.players):
        assert run.state["mu"][i] == pytest.approx(ref[name][0], abs=1e-8)
        assert run.state["sigma"][i] == pytest.approx(ref[name][1], abs=1e-8)


@pytest.mark.parametrize("max_history", [500, 3])
def test_random_history_agrees_with_elommr(max_history: int) -> None:
    # 150 games of 2-10 out of 25 players: up to ~40 games each, so max_history=3 exercises the
    # folding of old logistic terms into the Gaussian term (elommr's max_history does the same).
    games = random_games(2024, 150, 25, 10)
    run = create("elo-mmr", rho=0.6, max_history=max_history).rate(to_history(games))
    ref = elommr_replay(games, rho=0.6, max_history=max_history)
    mu = {name: run.state["mu"][i] for i, name in enumerate(run.players)}
    sigma = {name: run.state["sigma"][i] for i, name in enumerate(run.players)}
    for name, (ref_mu, ref_sigma) in ref.items():
        assert mu[name] == pytest.approx(ref_mu, abs=1e-8)
        assert sigma[name] == pytest.approx(ref_sigma, abs=1e-8)


def test_light_terms_fold_by_weight_within_the_stated_bound_of_elommr() -> None:
    # 200 games among 6 players (about 135 games each, rho = 1): a term's weight falls by 0.71 a game, so terms
    # about 60 games old hold under FOLD_SHARE of their player's weight and are folded, well before max_history
    # (500 here, which elommr keeps in full).  The module docstring bounds the move per fold by
    # FOLD_SHARE (W / w0) (|x - p| + beta pi / sqrt 3), about 1e-7 rating points: against elommr within 1e-7
    # (2.1e-8 measured; sigma does not depend on the terms).
    games = random_games(31, 200, 6, 6)
    run = create("elo-mmr", max_history=500).rate(to_history(games))
    assert run.state["hist_len"].max() < 80  # folded by weight (without it: every term kept, about 135)
    ref = elommr_replay(games, max_history=500)
    for i, name in enumerate(run.players):
        assert run.state["mu"][i] == pytest.approx(ref[name][0], abs=1e-7)
        assert run.state["sigma"][i] == pytest.approx(ref[name][1], abs=1e-8)


def test_every_rating_after_every_game_agrees_with_elommr() -> None:
    # The trajectory, not only the end: replay elommr game by game and compare the "after" mu series.
    games = random_games(7, 40, 8, 6)
    run = create("elo-mmr").rate(to_history(games))
    mu_after = run.extras["mu"][1]
    for g in range(len(games)):
        ref = elommr_replay(games[: g + 1])
        s = run.history.game_slice(g)
        for p, value in zip(run.history.flat_player[s], mu_after[s], strict=True):
            assert value == pytest.approx(ref[run.players[p]][0], abs=1e-8)


# ---------------------------------------------------------------------- Gaussian (chi), by hand
def test_two_equal_players_gaussian_closed_form() -> None:
    # Hand derivation (sections 3.1, 3.2, 4): both start at mu = 1500, sigma = 350.  Drift first:
    # s^2 = sigma^2 + gamma^2 with gamma^2 = w sigma_limit^2, w = sigma_limit^2 / (beta^2 - sigma_limit^2);
    # performance spread delta^2 = s^2 + beta^2, the same for both.  The winner A has one self-tie term
    # d_A(p) = -z / delta and one win term v_B(p) = phi(z) / (delta Phi(z)), z = (p - mu) / delta, so
    # Q_A = 0  <=>  z Phi(z) = phi(z): z* = 0.5061 (a pure number; by hand, at z = 0.5061
    # z Phi(z) = 0.5061 * 0.69361 = 0.35103 and phi(z) = 0.35099).  The loser's equation is the mirror,
    # z = -z*.  The Gaussian belief update is the precision-weighted mean:
    #   mu' = mu + s^2 / (s^2 + beta^2) (p - mu) = mu +- z* s^2 / delta,   sigma'^2 = 1 / (1/s^2 + 1/beta^2).
    z_star = optimize.brentq(lambda z: z * stats.norm.cdf(z) - stats.norm.pdf(z), 0.0, 2.0, xtol=1e-15)
    assert z_star == pytest.approx(0.5061, abs=1e-4)
    beta, limit = DEFAULT_BETA, DEFAULT_SIGMA_LIMIT
    s2 = 350.0**2 + limit**4 / (beta**2 - limit**2)
    delta = math.sqrt(s2 + beta**2)
    run = create("elo-mmr", variant="chi").rate(history_from_rows([("g", "A", 1), ("g", "B", 2)]))
    assert run.state["mu"] == pytest.approx([1500 + z_star * s2 / delta, 1500 - z_star * s2 / delta], abs=1e-8)
    assert run.state["sigma"] == pytest.approx([(1 / s2 + 1 / beta**2) ** -0.5] * 2, rel=1e-12)


@given(
    mu_a=st.floats(800, 2200),
    mu_b=st.floats(800, 2200),
    sigma_a=st.floats(60, 400),
    sigma_b=st.floats(60, 400),
    beta=st.floats(100, 400),
)
@settings(max_examples=40, deadline=None)
def test_two_players_gaussian_general(mu_a: float, mu_b: float, sigma_a: float, sigma_b: float, beta: float) -> None:
    # Same derivation with unequal players: A beats B, so A's performance solves
    #   -(p - mu_a) / delta_a^2 + phi(z_b) / (delta_b Phi(z_b)) = 0,  z_b = (p - mu_b) / delta_b,
    # and B's solves -(p - mu_b) / delta_b^2 - phi(z_a) / (delta_a (1 - Phi(z_a))) = 0 (a loss term).
    limit = 50.0
    gamma2 = limit**4 / (beta**2 - limit**2)
    s2 = np.array([sigma_a**2, sigma_b**2]) + gamma2
    mu = np.array([mu_a, mu_b])
    delta = np.sqrt(s2 + beta**2)

    def hazard(p: float, j: int, win: bool) -> float:
        z = (p - mu[j]) / delta[j]
        tail = stats.norm.logcdf(z) if win else stats.norm.logsf(z)
        return math.exp(stats.norm.logpdf(z) - tail)

    def q_a(p: float) -> float:
        return -(p - mu[0]) / delta[0] ** 2 + hazard(p, 1, True) / delta[1]

    def q_b(p: float) -> float:
        return -(p - mu[1]) / delta[1] ** 2 - hazard(p, 0, False) / delta[0]

    perf = np.array([optimize.brentq(q, -20000, 20000, xtol=1e-12) for q in (q_a, q_b)])
    expected = (mu / s2 + perf / beta**2) / (1 / s2 + 1 / beta**2)
    state = {"mu": mu.copy(), "sigma": np.array([sigma_a, sigma_b])}
    new = play({"variant": "chi", "beta": beta, "sigma_limit": limit}, state, np.array([0, 1]))
    assert new["mu"] == pytest.approx(expected, abs=1e-7)


def test_gaussian_multiplayer_performance_against_scipy() -> None:
    # Theorem 3.2 with Gaussian F_j, written independently with scipy.stats for a 6-player game with ties:
    # Q_i(p) = sum_{j better} -f_j / (1 - F_j) + sum_{j tied} -(p - mu_j) / delta_j^2 + sum_{j worse} f_j / F_j.
    mu = np.array([1700.0, 1450.0, 1600.0, 1500.0, 1300.0, 1550.0])
    sigma = np.array([90.0, 300.0, 150.0, 200.0, 120.0, 80.0])
    ranks = np.array([0, 1, 1, 2, 3, 3])
    beta, limit = DEFAULT_BETA, DEFAULT_SIGMA_LIMIT
    s2 = sigma**2 + limit**4 / (beta**2 - limit**2)
    delta = np.sqrt(s2 + beta**2)

    def q(p: float, i: int) -> float:
        z = (p - mu) / delta
        loss = -np.exp(stats.norm.logpdf(z) - stats.norm.logsf(z)) / delta
        win = np.exp(stats.norm.logpdf(z) - stats.norm.logcdf(z)) / delta
        tie = -z / delta
        return float(np.where(ranks < ranks[i], loss, np.where(ranks > ranks[i], win, tie)).sum())

    perf = np.array([optimize.brentq(q, -20000, 20000, args=(i,), xtol=1e-12) for i in range(6)])
    expected = (mu / s2 + perf / beta**2) / (1 / s2 + 1 / beta**2)
    new = play({"variant": "chi"}, {"mu": mu.copy(), "sigma": sigma.copy()}, ranks)
    assert new["mu"] == pytest.approx(expected, abs=1e-7)


# ---------------------------------------------------------------------- properties (section 5)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 7),
    variant=st.sampled_from(["rho", "chi"]),
    rho=st.sampled_from([0.0, 0.3, 1.0, 4.0]),
)
@settings(max_examples=40, deadline=None)
def test_a_better_place_never_gives_a_lower_rating(seed: int, n: int, variant: str, rho: float) -> None:
    # Theorem 5.5 (incentive compatibility): holding the others' relative order fixed, moving player 0
    # up the standings never lowers its new rating.  Player 0 is inserted at every position, and also
    # tied with each of the others.
    params = {"variant": variant, "rho": rho}
    state = state_after(params, seed, n, 3 * n)
    rng = np.random.default_rng(seed)
    others = dense(rng.integers(0, n - 1, size=n - 1)) * 2  # even ranks; player 0 goes between or onto them
    top = int(others.max())
    ratings = []
    for slot in range(-1, top + 2):  # slot -1: alone in first; even slots: tied; odd slots: between
        ranks = dense(np.concatenate([[slot], others]))
        ratings.append(play(params, state, ranks)["mu"][0])
    # slots run from the best place to the worst, so ratings must not increase
    assert np.all(np.diff(ratings) <= 1e-9 * max(1.0, abs(ratings[0])))


@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 12),
    rho=st.sampled_from([0.0, 0.3, 1.0, 4.0]),
    weight=st.sampled_from([0.5, 1.0, 3.0]),
)
@settings(max_examples=40, deadline=None)
def test_rating_change_is_bounded(seed: int, n: int, rho: float, weight: float) -> None:
    # Theorem 5.7: in Elo-MMR(rho) |mu_t - mu_(t-1)| <= pi / (beta_t sqrt 3) / w0, with w0 the Gaussian
    # term's weight after the pseudodiffusion.  By Algorithm 2, w0' = kappa (kappa^rho w0 + (1 - kappa^rho) W)
    # with kappa = sigma^2 / (sigma^2 + gamma^2) and W the total weight 1 / sigma^2 before the drift.
    params = {"rho": rho, "weight": weight}
    system = create("elo-mmr", **params)
    state = state_after(params, seed, n, 4 * n)
    ranks = dense(np.random.default_rng(seed + 1).integers(0, n, size=n))
    new = play(params, state, ranks)
    w = weight * DEFAULT_SIGMA_LIMIT**2 / (DEFAULT_BETA**2 - DEFAULT_SIGMA_LIMIT**2)
    beta_t = DEFAULT_SIGMA_LIMIT * math.sqrt(1 + 1 / w)
    gamma2 = w * DEFAULT_SIGMA_LIMIT**2
    sigma2 = state["sigma"] ** 2
    kappa = sigma2 / (sigma2 + gamma2)
    w0 = kappa * (kappa**rho * state["w0"] + (1 - kappa**rho) / sigma2)
    bound = math.pi / (beta_t * math.sqrt(3)) / w0
    assert np.all(np.abs(new["mu"] - state["mu"]) <= bound * (1 + 1e-9))
    assert system.params.beta_game == pytest.approx(beta_t)


def test_one_outlier_moves_a_settled_rho_player_less_than_a_chi_player() -> None:
    # Section 5.2: the logistic model is robust, the Gaussian one is not.  A player who always came
    # second of 9 suddenly comes last: Elo-MMR(rho) moves them much less than Elo-MM-chi.
    rows = []
    for g in range(30):
        rows += [(f"g{g:02d}", f"p{j}", j + 1) for j in range(9)]
    rows += [("z", f"p{j}", (j + 1) if j != 1 else 10) for j in range(9)]
    history = history_from_rows(rows)
    drops = {v: -create("elo-mmr", variant=v).rate(history).change[-8] for v in ("rho", "chi")}
    assert 0 < drops["rho"] < 0.5 * drops["chi"]


def test_sigma_settles_at_sigma_limit() -> None:
    # sigma_limit is the fixed point of "drift gamma^2, then add 1/beta^2 of precision" (section 5.2,
    # module docstring): after many games every regular player's sigma approaches it, in both variants.
    rows = [(f"g{g:03d}", p, pl) for g in range(200) for p, pl in (("A", 1 + g % 2), ("B", 2 - g % 2))]
    for variant in ("rho", "chi"):
        run = create("elo-mmr", variant=variant, sigma_limit=70.0).rate(history_from_rows(rows))
        assert run.state["sigma"] == pytest.approx([70.0, 70.0], rel=1e-6)


def test_equal_tied_players_move_together_and_dnfs_share_the_last_rank() -> None:
    # Tied players with equal beliefs have identical equations (section 3.1), so identical updates; a DNF
    # is tied with the other DNFs after every finisher (documented convention), i.e. the same as a shared
    # last place.
    dnf = history_from_rows([("g", "A", 1), ("g", "B", 2), ("g", "C", "DNF"), ("g", "D", "DNF")])
    last = history_from_rows([("g", "A", 1), ("g", "B", 2), ("g", "C", 3), ("g", "D", 3)])
    for variant in ("rho", "chi"):
        a = create("elo-mmr", variant=variant).rate(dnf)
        b = create("elo-mmr", variant=variant).rate(last)
        np.testing.assert_allclose(a.after, b.after, rtol=0, atol=1e-9)
        assert a.after[2] == pytest.approx(a.after[3], abs=1e-9)


def test_display_rating_and_initial_rating() -> None:
    # Default: the shown rating is mu (the paper's MAP rating); display_k = 3 gives mu - 3 (sigma - limit).
    history = history_from_rows([("g", "A", 1), ("g", "B", 2)])
    plain = create("elo-mmr")
    assert plain.initial_rating() == 1500.0
    run = plain.rate(history)
    np.testing.assert_array_equal(run.final, run.state["mu"])
    conservative = create("elo-mmr", display_k=3.0)
    assert conservative.initial_rating() == pytest.approx(1500 - 3 * (350 - 80))
    run = conservative.rate(history)
    np.testing.assert_allclose(run.final, run.state["mu"] - 3 * (run.state["sigma"] - 80), rtol=1e-12)
    assert run.before[0] == pytest.approx(conservative.initial_rating())


@pytest.mark.parametrize("variant", ["rho", "chi"])
def test_place_probabilities_favour_the_stronger_player(variant: str) -> None:
    system = create("elo-mmr", variant=variant)
    state = system.initial_state(3)
    state["mu"][:] = [1900.0, 1500.0, 1100.0]
    probs = system.place_probabilities(state, [0, 1, 2])
    assert probs[0, 0] > probs[1, 0] > probs[2, 0]
    assert probs[2, 2] > probs[1, 2] > probs[0, 2]
    # Two equal players: first place is a coin flip (Monte Carlo, 20,000 samples).
    two = system.place_probabilities(system.initial_state(2), [0, 1])
    assert two[0, 0] == pytest.approx(0.5, abs=0.02)


# ---------------------------------------------------------------------- big fields
def big_game(variant: str, n: int) -> State:
    rng = np.random.default_rng(5)
    system = create("elo-mmr", variant=variant)
    state = system.initial_state(n)
    state["mu"][:] = rng.normal(1500, 300, n)
    ranks = dense(rng.integers(0, n // 2, size=n))
    system._play(state, GameView(0, np.arange(n), ranks, np.zeros(n, dtype=bool), None))
    return state


def test_a_5000_player_game_finishes_rho() -> None:
    state = big_game("rho", 5000)
    assert np.all(np.isfinite(state["mu"]))
    assert state["mu"].std() > 0


@pytest.mark.slow
def test_a_5000_player_game_finishes_chi() -> None:
    state = big_game("chi", 5000)
    assert np.all(np.isfinite(state["mu"]))
    assert state["mu"].std() > 0


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"variant": "gauss"}, "variant"),
        ({"beta": 80.0}, "must exceed sigma_limit"),
        ({"sigma_limit": 0.0}, "from 0.01 to 100000"),
        ({"sigma": -1.0}, "from 0.01 to 100000"),
        ({"weight": 0.0}, "from 0.001 to 1000"),
        ({"rho": -0.5}, "from 0 to 100"),
        ({"max_history": 0}, "whole number from 1 to 1000"),
        ({"display_k": -1.0}, "from 0 to 10"),
        ({"max_history": 2.5}, "whole number"),
        ({"mu": float("nan")}, "got nan"),
    ],
)
def test_invalid_parameters_are_refused(params: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        create("elo-mmr", **params)
