"""Kerby's conventions as options: ``dnf_order`` (Plackett-Luce), ``average_over`` (pairwise Elo) and
``dummy_tie`` (every system with a dummy), checked against hand derivations and as properties.

Every expected value below is derived by hand in the test's docstring (exact fractions); the
Plackett-Luce numbers at equal ratings are also those of issue 10, which found them by replaying
the author's published code.  The property tests replay random histories (hypothesis) through the
compiled kernels and through the per-game reference.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import Entry, Game, GameHistory, ParameterError, create
from ratings.base import GameView


def play(name: str, params: dict[str, Any], ratings: list[float], places: list[int | None]) -> np.ndarray:
    """Rating changes of one game (``None`` is a DNF) through the system's own per-game hook."""
    system = create(name, **params)
    finished = sorted({p for p in places if p is not None})
    dense = {p: i for i, p in enumerate(finished)}
    ranks = np.array([len(finished) if p is None else dense[p] for p in places])
    dnf = np.array([p is None for p in places])
    before = np.array(ratings, dtype=float)
    state = {"rating": before.copy()}
    system._play(state, GameView(0, np.arange(len(places)), ranks, dnf, None))
    return state["rating"] - before


# ---------------------------------------------------------------------- dnf_order (Plackett-Luce)
@pytest.mark.parametrize(
    ("dnf_order", "expected"),
    [("joint", (13 / 12, 1 / 12, -7 / 12, -7 / 12)), ("independent", (7 / 6, 1 / 6, -2 / 3, -2 / 3))],
)
def test_plackett_luce_two_dnfs_at_equal_ratings(dnf_order: str, expected: tuple[float, ...]) -> None:
    """Places 1, 2, DNF, DNF, all ratings 0 (every rate lambda = e^-r = 1), eta = 1.

    Finishers' order (worst first: 2nd, 1st), tail sums 2 and 1: g_2nd = -1 + 1/2 = -1/2,
    g_1st = -1 + 1/2 + 1 = 1/2.

    joint: C = P(both DNFs go first) = sum over the two DNF orders of l_a/(l_a+l_b+L) * l_b/(l_b+L)
    with L = 2 the finishers' total: 1/4 * 1/3 twice, C = 1/6.  d/dl_a of the first term
    (1/12)(1 - 1/4) = 1/16, of the second (1/12)(1 - 1/4 - 1/3) = 5/144; sum 14/144, over C 7/12;
    d/dr = -l d/dl gives each DNF -7/12.  d/dL: (1/12)(-1/4 - 1/3) twice = -14/144, over C -7/12,
    so each finisher (dL/dr_f = -1) gains 7/12: 1/2 + 7/12 = 13/12 and -1/2 + 7/12 = 1/12.

    independent: sum_d log(l_d / (l_d + L)); each DNF -1 + 1/3 = -2/3; each finisher
    sum_d l_f / (l_d + L) = 2/3: 1/2 + 2/3 = 7/6 and -1/2 + 2/3 = 1/6.
    """
    change = play("plackett-luce", {"eta": 1.0, "dnf_order": dnf_order}, [0.0] * 4, [1, 2, None, None])
    np.testing.assert_allclose(change, expected, rtol=0, atol=1e-12)


def test_plackett_luce_conventions_agree_with_one_dnf() -> None:
    """With one DNF the product has one factor: both conventions are the same likelihood."""
    ratings, places = [0.3, -0.4, 1.1, 0.2], [2, 1, 3, None]
    joint = play("plackett-luce", {"eta": 1.0}, ratings, places)
    independent = play("plackett-luce", {"eta": 1.0, "dnf_order": "independent"}, ratings, places)
    np.testing.assert_allclose(independent, joint, rtol=0, atol=1e-12)


def test_plackett_luce_independent_at_unequal_ratings() -> None:
    """Places 1, DNF, DNF with r = (0, 0, ln 2): l = (1, 1, 1/2), L = 1 (one finisher, whose own order term is 0).

    DNF b (l = 1): -1 + 1/(1 + 1) = -1/2; DNF c (l = 1/2): -1 + (1/2)/(3/2) = -2/3;
    finisher: 1/(1 + 1) + 1/(1/2 + 1) = 1/2 + 2/3 = 7/6.
    """
    change = play("plackett-luce", {"eta": 1.0, "dnf_order": "independent"}, [0.0, 0.0, math.log(2)], [1, None, None])
    np.testing.assert_allclose(change, (7 / 6, -1 / 2, -2 / 3), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------- average_over (pairwise Elo)
@pytest.mark.parametrize(
    ("average_over", "places", "expected"),
    [
        ("all", [1, 2, None, None], (1 / 2, 1 / 6, -1 / 3, -1 / 3)),
        ("compared", [1, 2, None, None], (1 / 2, 1 / 6, -1 / 2, -1 / 2)),
        ("all", [1, 1, 2], (1 / 4, 1 / 4, -1 / 2)),
        ("compared", [1, 1, 2], (1 / 2, 1 / 2, -1 / 2)),
    ],
)
def test_pairwise_average_over(average_over: str, places: list[int | None], expected: tuple[float, ...]) -> None:
    """Equal ratings, logistic pairs: a pair update is S - 1/2 (1/2 won, -1/2 lost, 0 drawn); eta = 1.

    Places 1, 2, DNF, DNF: summed, the winner +3/2, the second -1/2 + 1 = 1/2, each DNF -1 (the
    DNF-DNF pair is not compared).  all divides by n - 1 = 3; compared by the opponents with a
    different rank: 3, 3, 2, 2.

    Places 1, 1, 2: the tied pair drew (0), each beat the last (+1/2), the last -1.  all divides by
    2; compared: each tied player has one opponent of another rank, the last two.
    """
    params = {"eta": 1.0, "variant": "average", "average_over": average_over}
    np.testing.assert_allclose(play("pairwise-elo", params, [0.0] * len(places), places), expected, atol=1e-12)


def test_pairwise_compared_when_everyone_tied() -> None:
    """A game that is one tie has no compared opponent: divided by n - 1 as with ``all``.

    r = (0, ln 3): the drawn pair gives 1/2 - 1/(1 + 3) = 1/4 to the first, -1/4 to the second.
    """
    change = play(
        "pairwise-elo", {"eta": 1.0, "variant": "average", "average_over": "compared"}, [0, math.log(3)], [1, 1]
    )
    np.testing.assert_allclose(change, (1 / 4, -1 / 4), atol=1e-12)


# ---------------------------------------------------------------------- dummy_tie
def test_pairwise_censored_dummy_by_hand() -> None:
    """A beats B, r_A = r_B = 0, dummy r_d = ln 3 (P(B beats d) = 1/(1 + 3) = 1/4), sum variant, eta = 1.

    draw: B gets -1/2 (lost to A) + (1/2 - 1/4) (drew the dummy) = -1/4;
    censored: B and the dummy are an unobserved pair, B gets -1/2.
    A is the same either way: 1/2 + (1 - 1/4) = 5/4.
    """
    params = {"eta": 1.0, "dummy": math.log(3)}
    np.testing.assert_allclose(play("pairwise-elo", params, [0.0, 0.0], [1, 2]), (5 / 4, -1 / 2), atol=1e-12)
    draw = {**params, "dummy_tie": "draw"}
    np.testing.assert_allclose(play("pairwise-elo", draw, [0.0, 0.0], [1, 2]), (5 / 4, -1 / 4), atol=1e-12)


def test_draw_dummy_lets_a_last_place_gain_and_censored_does_not() -> None:
    """r_A = 3 beats r_B = 0, dummy 2 (logistic sum, eta 1): as a draw B gains
    -expit(-3) + 1/2 - expit(-2) = 0.3334; censored B only loses to A, -expit(-3)."""
    expit = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    draw = play("pairwise-elo", {"eta": 1.0, "dummy": 2.0, "dummy_tie": "draw"}, [3.0, 0.0], [1, 2])
    censored = play("pairwise-elo", {"eta": 1.0, "dummy": 2.0}, [3.0, 0.0], [1, 2])
    assert draw[1] == pytest.approx(-expit(-3) + 0.5 - expit(-2), abs=1e-12) and draw[1] > 0
    assert censored[1] == pytest.approx(-expit(-3), abs=1e-12)


def test_plackett_luce_censored_dummy_by_hand() -> None:
    """A beats B, r_A = r_B = 0, dummy r_d = -ln 2: l_A = l_B = 1, l_d = 2; eta = 1.

    censored: B and the dummy are censored below A (L = 1, one finisher, own order term 0).
    C = l_B/(l_B+l_d+L) * l_d/(l_d+L) + l_d/(l_B+l_d+L) * l_B/(l_B+L) = (1/4)(2/3) + (2/4)(1/2) = 5/12.
    dC/dl_B = (1/6)(1 - 1/4) + (1/4)(1 - 1/4 - 1/2) = 1/8 + 1/16 = 3/16; times -l_B / C: -9/20.
    dC/dL = (1/6)(-1/4 - 1/3) + (1/4)(-1/4 - 1/2) = -7/72 - 3/16 = -41/144; times -l_A / C: 41/60.

    draw: orders (B, d, A) and (d, B, A) averaged.  Tail sums 4, 3, 1: g_B = -1 + 1/4 = -3/4,
    g_A = -1 + 1/4 + 1/3 + 1 = 7/12; tail sums 4, 2, 1: g_B = -1 + 1/4 + 1/2 = -1/4,
    g_A = -1 + 1/4 + 1/2 + 1 = 3/4.  Means: g_A = 2/3, g_B = -1/2.
    """
    params = {"eta": 1.0, "dummy": -math.log(2)}
    for dnf_order in ("joint", "independent"):
        # With two censored players the product differs: B: -1 + 1/2, d: -1 + 2/3; A: 1/2 + 1/3.
        expected = (41 / 60, -9 / 20) if dnf_order == "joint" else (5 / 6, -1 / 2)
        change = play("plackett-luce", {**params, "dnf_order": dnf_order}, [0.0, 0.0], [1, 2])
        np.testing.assert_allclose(change, expected, atol=1e-9)
    draw = play("plackett-luce", {**params, "dummy_tie": "draw"}, [0.0, 0.0], [1, 2])
    np.testing.assert_allclose(draw, (2 / 3, -1 / 2), atol=1e-12)


def test_multielo_censored_dummy_by_hand() -> None:
    """A (1000) beats B (1400), dummy 1000, D = 400, linear scores, K = 1 (the update is (N-1)(S-E)).

    N = 3, pairs 3.  Pair expectations: e_AB = 1/(1 + 10) = 1/11, e_Ad = 1/2, e_Bd = 10/11.
    E_A = (1/11 + 1/2)/3 = 13/66, E_B = (10/11 + 10/11)/3 = 40/66, E_d = 13/66.
    Scores of places 1, 2, 3: 2/3, 1/3, 0; B and the dummy hold places 2-3: T = 1/3.
    draw: S_B = 1/6, change 2 (1/6 - 40/66) = -29/33.
    censored: S_B = T E_B / (E_B + E_d) = (1/3)(40/53) = 40/159, change 2 (40/159 - 40/66) = -1240/1749.
    A either way: 2 (2/3 - 13/66) = 31/33.
    """
    params = {"k": 1.0, "dummy": 1000.0}
    censored = play("multielo", params, [1000.0, 1400.0], [1, 2])
    np.testing.assert_allclose(censored, (31 / 33, -1240 / 1749), atol=1e-12)
    draw = play("multielo", {**params, "dummy_tie": "draw"}, [1000.0, 1400.0], [1, 2])
    np.testing.assert_allclose(draw, (31 / 33, -29 / 33), atol=1e-12)


def test_multielo_whole_game_tied_with_censored_dummy_changes_nothing() -> None:
    """Everyone tied (and the dummy): the group holds every place, T = 1 = sum of E, so S = E."""
    change = play("multielo", {"dummy": 900.0, "base": 2.0}, [1000.0, 1300.0, 800.0], [1, 1, 1])
    np.testing.assert_allclose(change, 0.0, atol=1e-9)


@pytest.mark.parametrize(
    ("name", "field", "value"),
    [
        ("plackett-luce", "dnf_order", "product"),
        ("pairwise-elo", "average_over", "opponents"),
        ("multielo", "dummy_tie", "tie"),
        ("pairwise-elo", "dummy_tie", ""),
        ("plackett-luce", "dummy_tie", "Draw"),
        ("thurstonian", "dummy_tie", "censor"),
    ],
)
def test_unknown_convention_is_refused(name: str, field: str, value: str) -> None:
    with pytest.raises(ParameterError, match=field):
        create(name, **{field: value})


@pytest.mark.parametrize("name", ["multielo", "pairwise-elo", "plackett-luce", "thurstonian"])
def test_every_system_with_a_dummy_declares_dummy_tie_censored_by_default(name: str) -> None:
    specs = {s.name: s for s in create(name).parameters()}
    assert "dummy" in specs
    assert specs["dummy_tie"].default == "censored" and specs["dummy_tie"].choices == ("censored", "draw")


# ---------------------------------------------------------------------- property: no last place gains
#: Every system with a dummy, with each convention that changes the likelihood of the bottom.
WITH_DUMMY: list[tuple[str, dict[str, Any]]] = [
    ("multielo", {}),
    ("multielo", {"base": 2.2}),
    ("pairwise-elo", {}),
    ("pairwise-elo", {"variant": "average", "average_over": "compared"}),
    ("pairwise-elo", {"model": "gaussian", "variant": "average"}),
    ("plackett-luce", {}),
    ("plackett-luce", {"dnf_order": "independent"}),
    ("thurstonian", {}),
]


@st.composite
def histories(draw: st.DrawFn) -> GameHistory:
    """Up to 12 games among 6 players, 2-6 a game, with ties (also for last place) and DNFs."""
    games = []
    for g in range(draw(st.integers(1, 12))):
        players = draw(st.lists(st.integers(0, 5), min_size=2, max_size=6, unique=True))
        places = draw(st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=len(players), max_size=len(players)))
        games.append(Game(f"g{g}", tuple(Entry(f"p{p}", x) for p, x in zip(players, places, strict=True))))
    return GameHistory(games)


@pytest.mark.parametrize(("name", "params"), WITH_DUMMY, ids=[f"{n}-{i}" for i, (n, _) in enumerate(WITH_DUMMY)])
@settings(max_examples=30, deadline=None)
@given(history=histories(), dummy=st.floats(-3, 3), initial=st.floats(-2, 2), eta=st.floats(0.05, 0.8))
def test_censored_dummy_no_last_place_or_dnf_gains(
    name: str, params: dict[str, Any], history: GameHistory, dummy: float, initial: float, eta: float
) -> None:
    """With the censored dummy (the default) every player of a game's worst rank (the last place, or the
    DNFs) and every DNF ends the game at or below where they started, in the compiled and the per-game replay."""
    if name == "multielo":  # Elo points
        values = {"dummy": 1000 + 200 * dummy, "initial": 1000 + 200 * initial, "k": 64 * eta}
    else:
        values = {"dummy": dummy, "initial": initial, "eta": eta}
    system = create(name, **params, **values)
    for run in (system.rate(history), system.rate_per_game(history)):
        for g in range(history.n_games):
            s = history.game_slice(g)
            ranks, dnf = history.flat_rank[s], history.flat_dnf[s]
            bottom = (ranks == ranks.max()) | dnf
            change = (run.after[s] - run.before[s])[bottom]
            assert np.all(change <= 1e-12 * max(1.0, abs(values["initial"]))), (g, change)
