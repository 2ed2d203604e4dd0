"""Compiled replays (ratings.kernels) agree with the per-game reference path, option by option.

Every system listed in ``SYSTEMS_WITH_KERNELS`` is replayed on seeded random histories both
ways (``rate``: the batch hook, ``rate_per_game``: the per-game hooks, the implementation
verified against published references in the per-system tests), and every rating before and
after every game, every extra series and the final state must agree to 1e-9.  The histories
have ties (also for first and last place), DNFs (also games where everyone or all but one
failed to finish), one-player games, dates with gaps and undated games.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import numpy as np
import pytest
from numba import njit
from scipy import special

from ratings import ComputationError, Entry, Game, GameHistory, create
from ratings.base import RatingRun, RatingSystem, checkpoint_spacing
from ratings.kernels import SYSTEMS_WITH_KERNELS, warm_up

TOLERANCE = 1e-9
#: Glicko-2's volatility (Glickman's step 5) is the root of f(x) = 0 found by an iteration that stops once
#: its bracket is narrower than 1e-6 in x = ln(sigma^2); two evaluations whose inputs differ by one rounding
#: (numpy's vectorised exp and pairwise sums against the kernel's scalar loop) can stop one iteration apart,
#: so the reference itself is determined only to about 1e-6 there, and later games carry that difference on
#: (seen: 8e-12 with the default tau on six seeded histories, 1.1e-6 with tau = 1.1).
TOLERANCES = {"glicko2": 1e-5}


def random_history(
    seed: int, n_games: int = 300, n_players: int = 14, max_size: int = 9, *, ties: bool = True
) -> GameHistory:
    """A seeded history exercising every case a replay distinguishes (see the module docstring)."""
    rng = np.random.default_rng(seed)
    names = [f"p{i}" for i in range(n_players)]
    day = dt.date(2024, 1, 1)
    games = []
    for g in range(n_games):
        size = int(rng.integers(1, max_size + 1))
        players = rng.choice(n_players, size=size, replace=False)
        # Repeated values are ties.
        places = rng.integers(1, size + 1, size=size) if ties else rng.permutation(size) + 1
        dnf = rng.random(size) < rng.choice([0.0, 0.15, 0.6, 1.0], p=[0.5, 0.3, 0.15, 0.05])
        entries = tuple(
            Entry(names[p], None if out else int(place)) for p, place, out in zip(players, places, dnf, strict=True)
        )
        day += dt.timedelta(days=int(rng.choice([0, 1, 3, 40, 400])))
        date = None if rng.random() < 0.1 else day
        games.append(Game(f"g{g}", entries, date))
    return GameHistory(games)


@pytest.fixture(scope="module")
def histories() -> list[GameHistory]:
    return [random_history(seed) for seed in (1, 2)]


KERBY_OPTIONS: list[dict[str, Any]] = [
    {},
    {"dummy": -0.5},
    {"floor": -0.3},
    {"initial": 0.4, "dummy": 0.1, "floor": 0.0},
    {"eta_knots": (-0.5, 0.0, 0.7), "eta_values": (0.2, 0.1, 0.05)},
    {"eta_knots": (0.2,), "eta_values": (0.15,), "dummy": 0.3, "floor": -1.0},
]
#: The dummy's tie as a draw (the default, censored, is in KERBY_OPTIONS' dummies).
DRAW_DUMMY: dict[str, Any] = {"dummy": 0.3, "initial": 0.1, "dummy_tie": "draw"}

#: The single-rating systems' time and experience rules (ratings.systems._single), all on.
DYNAMICS: dict[str, Any] = {"boost": 1.2, "boost_games": 4.0, "forget_per_day": 0.01, "pull_per_day": 0.005}

#: (system, parameters): every option of every system with a kernel.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("multielo", {}),
    ("multielo", {"base": 1.6, "k": 24.0, "d": 300.0}),
    ("multielo", {"dummy": 950.0, "floor": 980.0}),
    ("multielo", {"base": 2.5, "initial": 1500.0, "dummy": 1400.0}),
    ("multielo", {"dummy": 950.0, "floor": 980.0, "dummy_tie": "draw"}),
    ("multielo", {"base": 2.5, "initial": 1500.0, "dummy": 1400.0, "dummy_tie": "draw"}),
    ("multielo", DYNAMICS),
    ("multielo", {"pull_per_day": 0.05, "dummy": 950.0, "floor": 980.0, "k": 40.0}),
    ("multielo", {"boost": 2.0, "boost_games": 20.0}),
    ("pairwise-elo", {**DYNAMICS, "dummy": -0.5, "floor": -0.3}),
    ("pairwise-elo", {**DYNAMICS, "model": "gaussian", "variant": "average", **KERBY_OPTIONS[4]}),
    ("plackett-luce", {**DYNAMICS, "dummy": 0.2}),
    ("plackett-luce", {"pull_per_day": 0.03, "dnf_order": "independent", "floor": -0.3}),
    *(
        ("pairwise-elo", {"model": model, "variant": variant, **options})
        for model in ("logistic", "gaussian")
        for variant in ("sum", "average")
        for options in KERBY_OPTIONS
    ),
    *(
        ("pairwise-elo", {"model": model, "variant": "average", "average_over": "compared", **options})
        for model in ("logistic", "gaussian")
        for options in KERBY_OPTIONS
    ),
    *(
        ("pairwise-elo", {"model": model, "variant": variant, **DRAW_DUMMY})
        for model in ("logistic", "gaussian")
        for variant in ("sum", "average")
    ),
    *(("plackett-luce", options) for options in KERBY_OPTIONS),
    *(("plackett-luce", {"dnf_order": "independent", **options}) for options in KERBY_OPTIONS),
    ("plackett-luce", DRAW_DUMMY),
    ("plackett-luce", {"dnf_order": "independent", **DRAW_DUMMY}),
    ("glicko2", {}),
    ("glicko2", {"scale": "rank-points"}),
    ("glicko2", {"scale": "rank-points", "tau": 1.1, "period_days": 3.0, "initial_rating": 1200.0}),
    (
        "glicko2",
        {
            "tau": 0.25,
            "initial_deviation": 1.2,
            "initial_volatility": 0.05,
            "min_rating": -1.5,
            "max_rating": 1.0,
            "min_deviation": 0.6,
            "min_volatility": 0.05,
            "max_volatility": 0.15,
        },
    ),
    ("trueskill", {}),
    ("trueskill", {"draw_probability": 0.001, "display_k": 0.0}),
    ("trueskill", {"draw_probability": 0.0, "tau": 0.0, "beta": 2.0, "sigma": 4.0, "display_k": 3.0}),
    ("trueskill", {"draw_probability": 0.45, "tau": 1.5, "mu": 100.0, "sigma": 30.0, "beta": 15.0}),
    ("trueskill", {"tau_day": 0.2}),
    ("trueskill", {"tau_day": 3.0, "tau": 0.0, "draw_probability": 0.0, "display_k": 1.0}),
    ("elo-mmr", {}),
    ("elo-mmr", {"variant": "chi"}),
    ("elo-mmr", {"variant": "chi", "display_k": 2.0, "weight": 2.5, "beta": 300.0, "sigma_limit": 60.0}),
    ("elo-mmr", {"rho": 0.0, "max_history": 10, "display_k": 3.0}),
    ("elo-mmr", {"rho": 3.5, "max_history": 12, "weight": 0.2, "mu": 1000.0, "sigma": 600.0}),
    ("elo-mmr", {"drift_per_day": 0.1}),
    ("elo-mmr", {"drift_per_day": 5.0, "variant": "chi", "display_k": 1.0}),
    ("elo-mmr", {"drift_per_day": 0.3, "rho": 0.0, "max_history": 10}),
    *(("thurstonian", options) for options in KERBY_OPTIONS),
    ("thurstonian", DRAW_DUMMY),
    ("thurstonian", {**DYNAMICS, "dummy": 0.3}),
    ("thurstonian", {"boost": 0.8, "pull_per_day": 0.02}),
]


def assert_close(actual: np.ndarray, desired: np.ndarray, tolerance: float) -> None:
    """Equal to ``tolerance`` relative to the largest magnitude of ``desired`` (at least 1); NaN matches NaN."""
    finite = desired[np.isfinite(desired)]
    scale = max(1.0, float(np.abs(finite).max())) if len(finite) else 1.0
    np.testing.assert_allclose(actual, desired, rtol=0, atol=tolerance * scale)


def assert_agree(system: RatingSystem, history: GameHistory, fast: RatingRun | None = None) -> None:
    """The batch replay (``fast``, else ``rate`` here) and the per-game replay give the same run."""
    fast = system.rate(history) if fast is None else fast
    slow = system.rate_per_game(history)
    tolerance = TOLERANCES.get(system.name, TOLERANCE)
    assert_close(fast.before, slow.before, tolerance)
    assert_close(fast.after, slow.after, tolerance)
    assert_close(fast.final, slow.final, tolerance)
    assert fast.extras.keys() == slow.extras.keys()
    for name, (before, after) in slow.extras.items():
        assert_close(fast.extras[name][0], before, tolerance)
        assert_close(fast.extras[name][1], after, tolerance)
    assert fast.state.keys() == slow.state.keys()
    for name, values in slow.state.items():
        assert_close(fast.state[name], values, tolerance)


def rate_noting_per_game_calls(
    system: RatingSystem, history: GameHistory, monkeypatch: pytest.MonkeyPatch
) -> tuple[RatingRun, list[int]]:
    """``system.rate(history)`` and the games it handed to the per-game hook ``_play`` (the kernel's fallback);
    the hook stays patched until the test undoes ``monkeypatch``."""
    calls: list[int] = []
    play = system._play
    monkeypatch.setattr(system, "_play", lambda state, game: (calls.append(game.index), play(state, game)))
    return system.rate(history), calls


def test_every_kernel_system_has_cases() -> None:
    assert {name for name, _ in CASES} == set(SYSTEMS_WITH_KERNELS)


#: Systems whose per-game reference replay is slow (Thurstonian's: numpy quadrature over a grid for every order
#: of every game, about 2 ms a game, against a few hundred microseconds for the others): each of their cases
#: replays one of the two histories, alternately, so that every option is compared on a random history and the
#: system on both; the other systems' cases replay both.
ONE_HISTORY_EACH = {"thurstonian"}


@pytest.mark.parametrize(
    ("index", "name", "params"),
    [(i, n, p) for i, (n, p) in enumerate(CASES)],
    ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)],
)
def test_kernel_agrees_with_per_game_replay(
    index: int, name: str, params: dict[str, Any], histories: list[GameHistory]
) -> None:
    system = create(name, **params)
    for history in [histories[index % 2]] if name in ONE_HISTORY_EACH else histories:
        assert_agree(system, history)


def test_each_slow_system_meets_both_histories() -> None:
    for name in ONE_HISTORY_EACH:
        assert {i % 2 for i, (n, _) in enumerate(CASES) if n == name} == {0, 1}


@pytest.mark.parametrize("name", SYSTEMS_WITH_KERNELS)
def test_kernel_replaces_the_per_game_hooks(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``rate`` really runs the kernel: with the per-game hooks broken it still replays (no ties: Thurstonian
    hands tied games to the per-game hooks)."""
    system = create(name)
    history = random_history(3, n_games=40, ties=False)
    expected = system.rate_per_game(history)

    def broken(*args: object) -> None:
        raise AssertionError("per-game hook called")

    monkeypatch.setattr(system, "_play", broken)
    monkeypatch.setattr(system, "_prepare", broken)
    np.testing.assert_allclose(system.rate(history).after, expected.after, rtol=0, atol=1e-9 * 1000)


def test_empty_and_one_player_histories() -> None:
    lonely = GameHistory([Game("1", (Entry("a", 1),)), Game("2", (Entry("b", None),))])
    for name in SYSTEMS_WITH_KERNELS:
        system = create(name)
        assert_agree(system, lonely)
        run = system.rate(GameHistory([]))
        assert run.before.shape == (0,) and run.final.shape == (0,)


def test_warm_up_times_every_kernel() -> None:
    seconds = warm_up()
    assert list(seconds) == list(SYSTEMS_WITH_KERNELS)
    assert all(s >= 0 for s in seconds.values())


# ---------------------------------------------------------------------- numerics against scipy


def compiled(helper: Any) -> Any:
    """``helper`` (a :data:`ratings.kernels.jit.helper`) called from compiled code, as the kernels call it: called
    from Python it would run as plain Python, not as the compiled code under test."""

    @njit
    def call(*args: Any) -> Any:
        return helper(*args)

    return call


GRID = np.concatenate(
    [np.linspace(-60.0, 40.0, 2001), [-1e4, -1e3, -200.0, -38.5, -37.0, -20.0001, -20.0, 6.0, 6.0001]]
)


def test_ndtr_matches_scipy() -> None:
    from ratings.kernels import numerics

    ndtr = compiled(numerics.ndtr)

    got = np.array([ndtr(x) for x in GRID])
    np.testing.assert_allclose(got, special.ndtr(GRID), rtol=1e-13, atol=1e-300)


def test_log_ndtr_matches_scipy() -> None:
    from ratings.kernels import numerics

    log_ndtr = compiled(numerics.log_ndtr)

    got = np.array([log_ndtr(x) for x in GRID])
    np.testing.assert_allclose(got, special.log_ndtr(GRID), rtol=1e-13, atol=1e-300)


def test_erfcx_tail_matches_scipy() -> None:
    from ratings.kernels import numerics
    from ratings.kernels.numerics import ERFCX_TAIL_MIN

    erfcx_tail = compiled(numerics.erfcx_tail)

    y = np.concatenate([np.linspace(ERFCX_TAIL_MIN, 80.0, 500), [1e3, 1e6, 1e150]])
    np.testing.assert_allclose([erfcx_tail(v) for v in y], special.erfcx(y), rtol=2e-15, atol=0)


def test_interp_matches_numpy() -> None:
    from ratings.kernels import numerics

    interp = compiled(numerics.interp)

    knots, values = np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0.3, 0.1, 0.1, 0.7])
    x = np.concatenate([np.linspace(-3.0, 4.0, 701), knots, [np.nan]])
    np.testing.assert_allclose([interp(v, knots, values) for v in x], np.interp(x, knots, values), rtol=1e-15)
    assert interp(5.0, np.array([0.2]), np.array([0.15])) == 0.15


def test_mills_ratio_and_expit_match_scipy() -> None:
    from ratings.kernels import numerics
    from ratings.numerics import mills_ratio as reference

    expit, mills_ratio = compiled(numerics.expit), compiled(numerics.mills_ratio)

    # Both compute exp(-x^2/2 - log Phi(x) - ...): the cancellation costs about x^2 ulps, so far tails are left out.
    moderate = GRID[GRID > -300.0]
    np.testing.assert_allclose([mills_ratio(x) for x in moderate], reference(moderate), rtol=1e-12)
    np.testing.assert_allclose([expit(x) for x in GRID], special.expit(GRID), rtol=1e-15, atol=0)


def test_plackett_luce_large_tie_stays_in_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tied group beyond the exact subset sum is averaged by the integral in the kernel, as in the reference."""
    crowd = tuple(Entry(f"p{i}", 1) for i in range(16)) + (Entry("last", 2),)
    pair = (Entry("p0", 1), Entry("last", 2))
    history = GameHistory([Game("1", pair), Game("2", crowd), Game("3", pair)])
    system = create("plackett-luce")
    fast, calls = rate_noting_per_game_calls(system, history, monkeypatch)
    assert calls == []
    monkeypatch.undo()
    assert_agree(system, history, fast)


def test_thurstonian_kernel_computes_large_tie_groups_as_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ties are averaged in the kernel over the reference's orderings: every ordering of a small group, a large
    group's design of rotations and reverses (six and eight tied finishers; the eight with 6! walked rows of a
    triple beside them), none handed to the per-game hooks."""
    crowd = tuple(Entry(f"p{i}", 1) for i in range(6)) + (Entry("last", 2),)
    few = (Entry("p0", 1), Entry("p1", 1), Entry("p2", 2), Entry("p3", 2), Entry("last", None))
    mixed = (
        *(Entry(f"p{i}", 1) for i in range(8)),
        *(Entry(f"q{i}", 2) for i in range(3)),
        *(Entry(f"s{i}", 3 + i) for i in range(4)),
        *(Entry(f"t{i}", 7) for i in range(2)),
    )
    history = GameHistory([Game("1", few), Game("2", crowd), Game("3", few), Game("4", mixed), Game("5", crowd)])
    system = create("thurstonian", dummy=0.2)
    fast, calls = rate_noting_per_game_calls(system, history, monkeypatch)
    assert calls == []
    monkeypatch.undo()
    assert_agree(system, history, fast)


def _contest(size: int) -> Game:
    """The first contest of at least ``size`` entrants of benchmarks/contests.py's history at scale 0.005, cut to
    ``size`` (its fields are drawn at that size): its generator's ties, dozens of pairs and triples, and about 3%
    of the field (those who solved nothing) tied last."""
    import importlib
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    history = importlib.import_module("contests").contests_history(0.005, max_size=size)
    return next(game for game in history.games if len(game.entries) >= size)


def test_thurstonian_kernel_computes_a_contest_of_1000_with_its_ties_like_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A contest of 1,000 with the generator's ties (13 tied pairs and 30 tied last): the kernel computes it (its
    tilted crowd messages, two walked orderings) and agrees with the per-game path to 1e-9 (measured 1.5e-10 of
    ratings moving up to 0.84), which computes its orders in logarithms."""
    game = _contest(1000)
    places = np.array([e.place for e in game.entries])
    counts = np.bincount(places)
    assert counts[places.max()] >= 20 and np.sum(counts == 2) >= 10  # the ties this test is about
    history = GameHistory([game])
    system = create("thurstonian")
    fast, calls = rate_noting_per_game_calls(system, history, monkeypatch)
    assert calls == []
    assert np.isfinite(fast.after).all()
    monkeypatch.undo()
    assert_agree(system, history, fast)


DIVERGING = [("plackett-luce", {"dummy": -1e12}), ("glicko2", {"tau": 1e-300})]


@pytest.mark.parametrize(("name", "params"), DIVERGING)
def test_a_failing_kernel_reports_as_the_per_game_path(name: str, params: dict[str, Any]) -> None:
    """A kernel leaves non-finite ratings where the reference raises; ``rate`` then says what and where as it does."""
    history = random_history(4, n_games=60)
    system = create(name)
    for key, value in params.items():  # values the declarations refuse, forced in to reach the failure path
        object.__setattr__(system.params, key, value)
    with pytest.raises(ComputationError) as reference:
        system.rate_per_game(history)
    with pytest.raises(ComputationError) as batch:
        system.rate(history)
    assert str(batch.value) == str(reference.value)
    assert batch.value.game == reference.value.game


def _poison(system: RatingSystem, game: int, *, raising: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``system``'s kernel fail at ``game`` (of a history with no team game) as a failing kernel does: its
    players' state and ratings turn NaN there and the kernel goes on (``raising``: it raises instead, naming no
    game).  The per-game hooks, which the fallback hands the game to, are left as they are."""
    kernel = system._replay

    def replay(state: dict[str, np.ndarray], window: Any) -> None:
        lo, hi = window.first, window.first + window.n_games
        if not lo <= game < hi:
            kernel(state, window)
            return
        if raising:
            raise FloatingPointError("a poisoned kernel")
        whole = window.whole
        kernel(state, whole.window(lo, game))
        s, e = int(whole.offsets[game]), int(whole.offsets[game + 1])
        for values in state.values():
            if values.dtype.kind == "f":
                values[whole.players[s:e]] = np.nan
        whole.before[s:e] = np.nan
        whole.after[s:e] = np.nan
        kernel(state, whole.window(game + 1, hi))

    monkeypatch.setattr(system, "_replay", replay)


@pytest.mark.parametrize("name", ["multielo", "trueskill", "elo-mmr"])
@pytest.mark.parametrize("raising", [False, True])
def test_a_kernel_failing_late_sends_only_its_game_to_the_per_game_hooks(
    name: str, raising: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel that fails at game 900 of 1,000 (non-finite ratings, or an exception) hands the per-game hooks that
    game alone (after an exception, which names no game: the games between its two checkpoints), not the whole
    history, and the run still agrees with the per-game replay (the reference) to 1e-9."""
    history = random_history(5, n_games=1000)
    spacing = checkpoint_spacing(history)  # 409 games: 2,048 results of about 5 a game
    stretch = list(range(900 // spacing * spacing, min((900 // spacing + 1) * spacing, 1000)))
    system = create(name)
    _poison(system, 900, raising=raising, monkeypatch=monkeypatch)
    seen: list[int] = []
    prepare = system._prepare
    monkeypatch.setattr(system, "_prepare", lambda state, game: (seen.append(game.index), prepare(state, game)))
    fast = system.rate(history)
    assert seen == (stretch if raising else [900])
    assert 900 in stretch and len(stretch) < 1000
    monkeypatch.undo()
    assert_agree(system, history, fast)
    assert fast.checkpoints  # the batch replay's own run, with its checkpoints (the per-game path keeps none)


def test_thurstonian_kernel_computes_games_of_256_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """The growth benchmark's largest games (256 players, one with a tie): the kernel computes every one
    (the per-game path overflowed here before the grid's step shrank with the crowd) and agrees with it."""
    rng = np.random.default_rng(11)
    games = []
    for g in range(3):
        players = rng.choice(300, size=256, replace=False)
        places = rng.permutation(256) + 1
        if g == 1:  # the first two share first place
            places[places == 2] = 1
            places[places > 2] -= 1
        games.append(Game(f"g{g}", tuple(Entry(f"p{q}", int(p)) for q, p in zip(players, places, strict=True))))
    history = GameHistory(games)
    system = create("thurstonian")
    fast, calls = rate_noting_per_game_calls(system, history, monkeypatch)
    assert np.isfinite(fast.after).all()
    assert calls == []
    monkeypatch.undo()
    assert_agree(system, history, fast)


def test_thurstonian_kernel_computes_crowds_of_1000_like_the_logarithmic_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two games of 1,000 players (the second in another order, 100 of them DNFs, from the spread ratings the
    first left): the kernel computes both (its tilted messages; the scaled ones lost their mass from about 650
    players) and agrees to 1e-9 with the per-game path, which computes these games in logarithms (checked: its
    scaled computation declines the first)."""
    from ratings.systems.thurstonian import _event, _order, grid_plan

    rng = np.random.default_rng(12)
    n = 1000
    first = Game("g0", tuple(Entry(f"p{q}", q + 1) for q in range(n)))
    places = rng.permutation(n) + 1
    second = Game("g1", tuple(Entry(f"p{q}", int(p) if p <= n - 100 else None) for q, p in enumerate(places)))
    history = GameHistory([first, second])
    r = np.zeros(n)
    chain, bottom = _event(np.arange(n)[::-1].copy(), np.zeros(0, dtype=np.int64))
    assert not _order(r, chain, bottom, *grid_plan(r, chain, bottom)[:3])[2]  # the reference goes to logarithms
    system = create("thurstonian")
    fast, calls = rate_noting_per_game_calls(system, history, monkeypatch)
    assert calls == []
    assert np.isfinite(fast.after).all()
    monkeypatch.undo()
    assert_agree(system, history, fast)


@functools.cache
def _whole_and_banded() -> Any:
    """One order's gradient through the kernel's whole-grid crowd and through its banded one (with the coincidences
    turned into the gradient), compiled once a process: a function compiled afresh for each case cost about 2 s
    each."""
    from ratings.kernels import thurstonian as kernel

    @njit
    def both(r: np.ndarray, chain: np.ndarray, bottom: np.ndarray) -> tuple[bool, np.ndarray, bool, np.ndarray]:
        lo, step, g, _ = kernel._plan(r, chain, bottom)
        whole = np.zeros(len(r))
        whole_ok = kernel._crowd(r, chain, bottom, 1.0, whole, lo, step, g)
        coincide = np.empty(len(chain) - 1 + len(bottom))
        banded_ok = kernel._banded(r, chain, bottom, lo, step, g, coincide, kernel._NEGLIGIBLE) or kernel._banded(
            r, chain, bottom, lo, step, g, coincide, kernel._NEGLIGIBLE_AGAIN
        )
        banded = np.zeros(len(r))
        for k in range(len(chain) - 1):
            banded[chain[k]] -= coincide[k]
            banded[chain[k + 1]] += coincide[k]
        for d in range(len(bottom)):
            banded[bottom[d]] -= coincide[len(chain) - 1 + d]
            banded[chain[0]] += coincide[len(chain) - 1 + d]
        return whole_ok, whole, banded_ok, banded

    return both


def _crowd_and_banded(n: int, kind: str, dnfs: int) -> tuple[np.ndarray, np.ndarray]:
    """The gradient of one worst-first order of n players through the kernel's whole-grid crowd (``_crowd``, the
    reference) and through its banded one (``_banded``, its first cut, else its second, as ``_order`` tries them):
    equal ratings in any order, ratings N(0, 1) finishing in the order of a noisy performance (rating plus N(0, 1)),
    or ratings N(0, 1.5) finishing in an order unrelated to them; the ``dnfs`` lowest of them as DNFs."""

    rng = np.random.default_rng(n + dnfs)
    if kind == "equal":
        r = np.zeros(n)
        worst_first = np.arange(n)[::-1].copy()
    elif kind == "unrelated":
        r = 1.5 * rng.normal(size=n)
        worst_first = rng.permutation(n)
    else:
        r = rng.normal(size=n)
        worst_first = np.argsort(r + rng.normal(size=n))
    cut = max(dnfs, 1)
    bottom, chain = worst_first[:cut].copy(), worst_first[cut:].copy()

    whole_ok, whole, banded_ok, banded = _whole_and_banded()(r, chain, bottom)
    assert whole_ok and banded_ok
    return whole, banded


@pytest.mark.parametrize(
    ("n", "kind", "dnfs", "bound"),
    [
        (400, "equal", 0, 1e-9),
        (400, "noisy", 0, 1e-9),
        (400, "noisy", 40, 1e-9),
        (1000, "equal", 0, 3e-9),
        (1000, "noisy", 0, 3e-9),
        (1000, "noisy", 100, 3e-9),
        (600, "unrelated", 0, 2e-9),
        (1000, "unrelated", 0, 3e-9),
        pytest.param(4096, "equal", 0, 3e-8, marks=pytest.mark.slow),
        pytest.param(4096, "noisy", 400, 3e-8, marks=pytest.mark.slow),
    ],
)
def test_thurstonian_banded_crowd_agrees_with_the_whole_grid(n: int, kind: str, dnfs: int, bound: float) -> None:
    """The banded crowd (each integrand on its window, the rest of its cumulative integral carried as constants)
    against the whole grid's computation of the same order: the gradient agrees to ``bound`` (measured 7e-11 at 400,
    5e-10 at 1,000, 1.2e-8 at 4,096 for gradients of about 3 to 4, the same with the windows' cut at 1e-60 instead
    of 1e-30: the two computations' roundings, which grow with the crowd's log scales, not the cut mass; an order
    unrelated to spread ratings, whose posteriors lie in the rows' tails, through the second cut, 2.1e-10 at 600
    and 6.6e-10 at 1,000)."""
    whole, banded = _crowd_and_banded(n, kind, dnfs)
    assert np.all(np.isfinite(banded))
    assert np.max(np.abs(whole)) > 1.0  # a real gradient, not two zeros
    np.testing.assert_allclose(banded, whole, rtol=0, atol=bound)


@pytest.mark.parametrize(("g", "lo", "step"), [(93, -10.0, 0.2), (161, -8.0, 0.1)])
def test_thurstonian_integrals_of_the_normal_density_match_scipy(g: int, lo: float, step: float) -> None:
    """The kernel's corrected cumulative integrals, both ways, of the standard normal density on a grid whose
    size is not a multiple of the corrections' vector width (the row zero padded beyond it, the targets
    filled with NaN first): the normal distribution function (scipy's ndtr) at every point, to 1e-9."""
    from scipy import stats

    from ratings.kernels import thurstonian as kernel

    integrate, integrate_right = compiled(kernel._integrate), compiled(kernel._integrate_right)
    span = -(-g // kernel._LANES) * kernel._LANES
    rows = np.full((3, span + 2 * kernel._PAD), np.nan)
    rows[0] = 0.0
    x = lo + step * np.arange(g)
    rows[0, kernel._PAD : kernel._PAD + g] = stats.norm.pdf(x)
    last = integrate(rows, 0, g, span, step, 1)
    first = integrate_right(rows, 0, g, span, step, 2)
    np.testing.assert_allclose(rows[1, :g], special.ndtr(x), rtol=0, atol=1e-9)
    np.testing.assert_allclose(rows[2, :g], special.ndtr(-x), rtol=0, atol=1e-9)
    assert (last, first) == (rows[1, g - 1], rows[2, 0])


@pytest.mark.parametrize(("g", "step"), [(93, 0.2), (200, 0.05), (40, 0.9)])
def test_thurstonian_density_rows_match_the_normal_density(g: int, step: float) -> None:
    """A density row over its largest value on the grid (built by multiplications outward from the peak) is
    the normal density (scipy's) over its value there, to 1e-11 relative; values below 1e-300 are zeros
    (below 1e-305 in the reference: not subnormals, not leftovers); ratings on the grid, off either end by a
    little and by far, where the row underflows within a few points."""
    from scipy import stats

    from ratings.kernels import thurstonian as kernel

    density = compiled(kernel._density)
    lo = -3.0
    x = lo + step * np.arange(g)
    hi = x[-1]
    rng = np.random.default_rng(5)
    ratings = [*rng.uniform(lo, hi, 6), lo, hi, lo - 2.0, hi + 2.0, lo - 40.0, hi + 40.0]
    for rating in ratings:
        rows = np.full((2, g), np.nan)
        log_peak = density(rating, lo, step, np.exp(-step * step), g, rows, 1)
        peak = min(max(round((rating - lo) / step), 0), g - 1)
        expected = np.exp(stats.norm.logpdf(x - rating) - stats.norm.logpdf(x[peak] - rating))
        assert log_peak == pytest.approx(stats.norm.logpdf(x[peak] - rating), rel=1e-13)
        assert np.isnan(rows[0]).all()
        row = rows[1]
        big = expected >= 1e-290
        np.testing.assert_allclose(row[big], expected[big], rtol=1e-11, atol=0)
        assert (row[expected < 1e-305] == 0.0).all()
        assert ((row == 0.0) | (row >= 1e-300)).all()


@pytest.mark.parametrize("variant", ["rho", "chi"])
def test_elo_mmr_kernel_agrees_on_large_contests(variant: str) -> None:
    """Contests of 300 players with ties, where the kernel starts each rank group's Newton solve at the root
    of the group above (the reference: at the group's median rating): the same roots, to 1e-9."""
    rng = np.random.default_rng(12)
    games = []
    for g in range(4):
        players = rng.choice(400, size=300, replace=False)
        places = np.sort(rng.integers(1, 200, size=300))  # about a third of the places are shared
        games.append(Game(f"g{g}", tuple(Entry(f"p{q}", int(p)) for q, p in zip(players, places, strict=True))))
    assert_agree(create("elo-mmr", variant=variant), GameHistory(games))


def test_elo_mmr_interpolated_tanh_sum_agrees_with_the_full_sum() -> None:
    """The Chebyshev panels of the logistic solver against the sum over every player, on random contests
    (spread ratings and uncertainties, points inside and beyond the ratings, at and between nodes): within
    1e-12 of ``sum_j 1 / s_j`` (and the slope of ``sum_j 1 / (2 s_j^2)``), the bound of ``panel_width``."""
    from ratings.kernels import elo_mmr
    from ratings.kernels.elo_mmr import PANEL_DEGREE
    from ratings.systems.elo_mmr import TANH_SCALE

    panel_sums, panel_width, tanh_sums = (
        compiled(f) for f in (elo_mmr.panel_sums, elo_mmr.panel_width, elo_mmr.tanh_sums)
    )
    rng = np.random.default_rng(21)
    for n in (2, 40, 3000):
        mu = rng.normal(1500.0, rng.choice([50.0, 400.0, 2000.0]), size=n)
        delta = np.sqrt(rng.uniform(80.0, 350.0, size=n) ** 2 + rng.choice([20.0, 200.0]) ** 2)
        inv = TANH_SCALE / delta
        scale, scale_slope = inv.sum(), (0.5 * inv * inv).sum()
        lo = mu.min() - 3000.0
        width = panel_width(delta)
        n_panels = int(np.ceil((mu.max() + 3000.0 - lo) / width))
        built = np.zeros(n_panels, dtype=np.bool_)
        values = np.empty((n_panels, PANEL_DEGREE + 1))
        slopes = np.empty((n_panels, PANEL_DEGREE + 1))
        points = np.concatenate([rng.uniform(lo, lo + n_panels * width, 400), lo + width * np.arange(n_panels)])
        for x in points:
            value, slope = panel_sums(x, lo, width, mu, inv, built, values, slopes)
            full_value, full_slope = tanh_sums(x, mu, inv)
            assert abs(value - full_value) <= 1e-12 * scale
            assert abs(slope - full_slope) <= 1e-12 * scale_slope


def test_elo_mmr_kernel_agrees_on_contests_it_interpolates() -> None:
    """Contests of 1,200 players (most ranks distinct, some shared): the logistic solver interpolates the tanh
    sum there (``PANEL_MIN_GROUPS``) where the per-game reference sums every player: the same ratings to 1e-9."""
    from ratings.kernels.elo_mmr import PANEL_MIN_GROUPS

    rng = np.random.default_rng(13)
    games = []
    for g in range(3):
        players = rng.choice(1500, size=1200, replace=False)
        places = np.sort(rng.integers(1, 1100, size=1200))
        assert len(np.unique(places)) >= PANEL_MIN_GROUPS
        games.append(Game(f"g{g}", tuple(Entry(f"p{q}", int(p)) for q, p in zip(players, places, strict=True))))
    assert_agree(create("elo-mmr"), GameHistory(games))


def _robust_average_root(p0: float, w0: float, hist_p: np.ndarray, hist_w: np.ndarray, beta: float) -> float:
    """The zero of ``L'`` in Ebtekar and Liu's equation (10), written out term by term with numpy's tanh and
    bracketed by scipy's brentq to 1e-13: independent of the kernel's factored exponentials and its stop."""
    from scipy.optimize import brentq

    from ratings.systems.elo_mmr import TANH_SCALE

    def derivative(x: float) -> float:
        return float(
            w0 * (x - p0) + np.sum(hist_w * beta * TANH_SCALE * np.tanh(TANH_SCALE * (x - hist_p) / (2.0 * beta)))
        )

    lo, hi = min(p0, hist_p.min()) - 1.0, max(p0, hist_p.max()) + 1.0
    return float(brentq(derivative, lo, hi, xtol=1e-13, rtol=1e-15))


@pytest.mark.parametrize("beta", [200.0, 0.05])
def test_elo_mmr_robust_average_finds_the_root_of_equation_10(beta: float) -> None:
    """The kernel's robust average (one exponential per term and call, and no confirming Newton pass once
    its bound on the distance to the root is below the tolerance) against the root of equation (10) summed
    term by term (``_robust_average_root``): within the reference's 1e-10 rating points, on random players'
    histories of 1-100 terms.  At beta 200 every bracket is factored; at beta 0.05 the spread of 600
    rating points is 10,000 times FACTORED_REACH over ``a``, so every one takes each term's exponential."""
    from ratings.kernels import elo_mmr
    from ratings.systems.elo_mmr import TANH_SCALE

    robust_average = compiled(elo_mmr.robust_average)
    rng = np.random.default_rng(28)
    arg = TANH_SCALE / (2.0 * beta)
    factored = 0
    for _ in range(300):
        terms = int(rng.integers(1, 101))
        hist_p = rng.normal(1500.0, 100.0, size=terms)
        hist_w = rng.uniform(0.0, 1.0, size=terms) ** 3 / beta**2
        hist_w[rng.random(terms) < 0.1] = 0.0  # terms of weight 0 are unused, wherever their centre lies
        hist_w[-1] = 1.0 / beta**2
        p0 = float(rng.normal(1500.0, 100.0))
        w0 = float(rng.uniform(0.05, 2.0) / beta**2)
        x = robust_average(p0, w0, hist_p, hist_w, beta, np.empty(terms))
        used = hist_w > 0
        span = max(p0, hist_p[used].max()) - min(p0, hist_p[used].min()) + 2.0
        factored += arg * span <= elo_mmr.FACTORED_REACH
        assert x == pytest.approx(_robust_average_root(p0, w0, hist_p, hist_w, beta), abs=1e-10)
    assert factored == (300 if beta == 200.0 else 0)


def test_elo_mmr_kernel_agrees_where_brackets_are_too_wide_to_factor() -> None:
    """beta 0.5 (sigma limit 0.2, a newcomer's sigma 350): performances hundreds of rating points apart are
    hundreds of logistic scales apart, beyond FACTORED_REACH (checked on the final histories), so the kernel's
    robust average takes each term's exponential at each step; the same ratings as the per-game path to 1e-9.
    (Only the ratings: the stored performances of some old, light terms differ between the paths at this
    beta, as they did before the factored path existed.)"""
    from ratings.kernels.elo_mmr import FACTORED_REACH
    from ratings.systems.elo_mmr import TANH_SCALE

    system = create("elo-mmr", beta=0.5, sigma_limit=0.2)
    history = random_history(28, n_games=200)
    fast, slow = system.rate(history), system.rate_per_game(history)
    for actual, desired in [(fast.before, slow.before), (fast.after, slow.after), (fast.final, slow.final)]:
        assert_close(actual, desired, TOLERANCE)
    assert_close(fast.state["mu"], slow.state["mu"], TOLERANCE)
    arg = TANH_SCALE / (2.0 * system.params.beta_game)
    spans = [np.ptp(p[: int(n)]) for p, n in zip(slow.state["hist_p"], slow.state["hist_len"], strict=True) if n]
    assert arg * max(spans) > FACTORED_REACH


# ---------------------------------------------------------------------------------------------- team games
def random_team_history(seed: int, n_games: int = 200, n_players: int = 14) -> GameHistory:
    """Free-for-all games mixed with team games: 2-4 teams of 1-3 players, ties between teams, DNF teams,
    partial-play weights, and a few teams whose every player is alone (a free-for-all game in team clothes)."""
    rng = np.random.default_rng(seed)
    names = [f"p{i}" for i in range(n_players)]
    plain = random_history(seed, n_games=n_games, n_players=n_players).games
    games = []
    for g in range(n_games):
        if rng.random() < 0.4:
            games.append(plain[g])
            continue
        sizes = rng.integers(1, 4, int(rng.integers(2, 5)))
        pool = list(rng.permutation(n_players))
        entries = []
        for t, size in enumerate(sizes):
            place = None if rng.random() < 0.15 else int(rng.integers(1, len(sizes) + 1))
            for _ in range(int(size)):
                if not pool:
                    break
                weight = float(rng.choice([1.0, 1.0, 1.0, 0.5, 0.2]))
                entries.append(Entry(names[pool.pop()], place, f"T{t}", weight))
        games.append(Game(f"t{g}", tuple(entries), plain[g].date))
    return GameHistory(games)


@pytest.fixture(scope="module")
def team_histories() -> list[GameHistory]:
    return [random_team_history(seed) for seed in (4, 5)]


#: Every team option of every system, with the dummy, the floor and the learning-rate curve where they matter.
TEAM_CASES: list[tuple[str, dict[str, Any]]] = [
    ("multielo", {"team_method": "composite team"}),
    ("multielo", {"team_method": "composite opponent", "dummy": 950.0, "floor": 980.0}),
    ("multielo", {"team_method": "composite team", "base": 2.5, "dummy": 1000.0, "dummy_tie": "draw"}),
    *(
        ("pairwise-elo", {"model": model, "variant": variant, "team_strength": how, **options})
        for model in ("logistic", "gaussian")
        for variant in ("sum", "average")
        for how in ("sum", "mean")
        for options in ({}, {"dummy": -0.5, "floor": -0.3})
    ),
    *(("plackett-luce", {"team_strength": how, **options}) for how in ("sum", "mean") for options in KERBY_OPTIONS),
    ("plackett-luce", {"dnf_order": "independent", "team_strength": "mean", "dummy": 0.2}),
    *(("thurstonian", {"team_strength": how, **options}) for how in ("sum", "mean") for options in KERBY_OPTIONS[:3]),
    ("glicko2", {"team_method": "composite team"}),
    ("glicko2", {"team_method": "composite opponent", "scale": "rank-points"}),
    ("trueskill", {}),
    ("trueskill", {"draw_probability": 0.3, "display_k": 0.0}),
    ("elo-mmr", {}),
    ("elo-mmr", {"variant": "chi"}),
    ("multielo", {"team_method": "composite opponent", **DYNAMICS}),
    ("pairwise-elo", {"team_strength": "mean", **DYNAMICS}),
    ("plackett-luce", {"team_strength": "sum", "dummy": 0.2, **DYNAMICS}),
    ("thurstonian", {"team_strength": "mean", **DYNAMICS}),
    ("trueskill", {"tau_day": 0.4}),
    ("elo-mmr", {"drift_per_day": 0.2}),
    ("elo-mmr", {"drift_per_day": 0.2, "variant": "chi"}),
]


@pytest.mark.parametrize(
    ("index", "name", "params"),
    [(i, n, p) for i, (n, p) in enumerate(TEAM_CASES)],
    ids=[f"{n}-teams-{i}" for i, (n, _) in enumerate(TEAM_CASES)],
)
def test_kernel_agrees_with_per_game_replay_on_team_games(
    index: int, name: str, params: dict[str, Any], team_histories: list[GameHistory]
) -> None:
    system = create(name, **params)
    assert_agree(system, team_histories[index % 2])


#: Every kernel rates team games itself (a kernel that did not would hand each team game to the per-game hooks,
#: as ratings.base.RatingSystem._replay_teams_aside documents).
TEAM_KERNELS = SYSTEMS_WITH_KERNELS


@pytest.mark.parametrize("name", TEAM_KERNELS)
def test_the_kernels_rate_team_games_themselves(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    system = create(name)
    history = GameHistory(
        [
            Game(f"g{g}", tuple(Entry(p, place, team, w) for p, place, team, w in rows))
            for g, rows in enumerate(
                [
                    [("a", 1, "A", 1.0), ("b", 1, "A", 0.5), ("c", 2, "B", 1.0), ("d", 2, "B", 1.0)],
                    [("a", 2, "A", 1.0), ("c", 2, "A", 1.0), ("b", 1, "B", 1.0), ("e", 3, None, 1.0)],
                ]
                * 5
            )
        ]
    )
    expected = system.rate_per_game(history)

    def broken(*args: object) -> None:
        raise AssertionError("per-game hook called")

    monkeypatch.setattr(system, "_play", broken)
    monkeypatch.setattr(system, "_prepare", broken)
    np.testing.assert_allclose(system.rate(history).after, expected.after, rtol=0, atol=1e-9 * 1000)


@pytest.mark.parametrize("name", ["multielo", "trueskill"])
def test_a_kernel_without_teams_hands_team_games_to_the_per_game_hooks(
    name: str, team_histories: list[GameHistory]
) -> None:
    # The base class's fallback for a batch hook that does not rate team games (batch_teams False): runs of
    # free-for-all games through the kernel, each team game through the per-game hooks; same numbers.
    system = create(name)
    system.batch_teams = False  # type: ignore[misc]
    assert_agree(system, team_histories[0])
