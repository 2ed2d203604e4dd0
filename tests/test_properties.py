"""Invariants of the whole Elo family, checked with hypothesis (Kerby 2025 sections 3-5, Cunningham 2021).

Every system here updates one rating per player; the properties are the ones Kerby 2025 states
(zero-sum without a dummy, section 3.1.1 and 3.2.2; the dummy, learning-rate schedule and floor
of section 5) and the incentive and symmetry properties expected of any rating system.

Sources:

- Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note, 2025.
- Cunningham 2021: Danny Cunningham, "Developing a Generalized Elo Rating System for Multiplayer Games", Towards
  Data Science, 2021 (equation numbers are the article's).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import ParameterError, create
from ratings.base import GameView

# (system, parameters, scale): ratings are drawn on the natural scale and multiplied by ``scale``
# (plus 1000 for multielo, whose ratings live around 1000 Elo points).
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("multielo", {}),
    ("pairwise-elo", {"variant": "sum", "model": "logistic"}),
    ("pairwise-elo", {"variant": "average", "model": "logistic"}),
    ("pairwise-elo", {"variant": "sum", "model": "gaussian"}),
    ("pairwise-elo", {"variant": "average", "model": "gaussian"}),
    ("plackett-luce", {}),
    ("thurstonian", {}),
]
KERBY = [c for c in CONFIGS if c[0] != "multielo"]
IDS = [f"{n}-{'-'.join(map(str, p.values()))}" if p else n for n, p in CONFIGS]
SETTINGS = settings(max_examples=25, deadline=None)


def to_scale(name: str, natural: np.ndarray) -> np.ndarray:
    return 1000.0 + 200.0 * natural if name == "multielo" else natural


def play(name: str, params: dict[str, Any], ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
    """New ratings after one game (the system's own update hook, dummy and floor included)."""
    system = create(name, **params)
    state = {"rating": np.array(ratings, dtype=float)}
    n = len(ratings)
    system._play(state, GameView(0, np.arange(n), np.asarray(ranks), np.asarray(dnf, dtype=bool), None))
    return state["rating"]


@st.composite
def games(draw: st.DrawFn, min_players: int = 2, max_players: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Natural-scale ratings, dense ranks (0 best, DNFs share the rank after the finishers) and DNF flags."""
    n = draw(st.integers(min_players, max_players))
    ratings = np.array(draw(st.lists(st.floats(-3, 3), min_size=n, max_size=n)))
    places = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    dnf = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    finished = sorted({p for p, d in zip(places, dnf, strict=True) if not d})
    dense = {p: i for i, p in enumerate(finished)}
    ranks = np.array([len(finished) if d else dense[p] for p, d in zip(places, dnf, strict=True)])
    return ratings, ranks, dnf


config = pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
kerby = pytest.mark.parametrize(("name", "params"), KERBY, ids=[i for i in IDS if i != "multielo"])


@config
@SETTINGS
@given(game=games())
def test_zero_sum_without_dummy_and_floor(name: str, params: dict[str, Any], game: Any) -> None:
    ratings, ranks, dnf = game
    before = to_scale(name, ratings)
    after = play(name, params, before, ranks, dnf)
    assert np.sum(after - before) == pytest.approx(0.0, abs=1e-9 * max(1.0, np.abs(after - before).max()))


@config
@SETTINGS
@given(game=games(), data=st.data())
def test_finishing_better_never_earns_less(name: str, params: dict[str, Any], game: Any, data: st.DataObject) -> None:
    ratings, ranks, dnf = game
    finishers = np.flatnonzero(~dnf)
    # Two players in adjacent places: ``worse`` finished one place below ``better``, or is a DNF
    # while ``better`` was the last finisher.
    pairs = [
        (int(i), int(j))
        for i in range(len(ranks))
        for j in range(len(ranks))
        if ranks[j] == ranks[i] + 1 and not dnf[i] and (not dnf[j] or ranks[i] == ranks[finishers].max())
    ]
    if not pairs:
        return
    better, worse = data.draw(st.sampled_from(pairs))
    swapped_ranks, swapped_dnf = ranks.copy(), dnf.copy()
    swapped_ranks[[better, worse]] = ranks[[worse, better]]
    swapped_dnf[[better, worse]] = dnf[[worse, better]]
    before = to_scale(name, ratings)
    original = play(name, params, before, ranks, dnf)
    swapped = play(name, params, before, swapped_ranks, swapped_dnf)
    # ``worse`` now takes the better place and must not end lower; ``better`` must not end higher.
    assert swapped[worse] >= original[worse] - 1e-9
    assert swapped[better] <= original[better] + 1e-9


@config
@SETTINGS
@given(game=games(min_players=3), data=st.data())
def test_equal_ratings_tied_get_equal_changes(
    name: str, params: dict[str, Any], game: Any, data: st.DataObject
) -> None:
    ratings, ranks, dnf = game
    i, j = data.draw(st.lists(st.integers(0, len(ranks) - 1), min_size=2, max_size=2, unique=True))
    ranks, dnf, ratings = ranks.copy(), dnf.copy(), ratings.copy()
    ranks[j], dnf[j], ratings[j] = ranks[i], dnf[i], ratings[i]
    before = to_scale(name, ratings)
    after = play(name, params, before, ranks, dnf)
    assert after[i] - before[i] == pytest.approx(after[j] - before[j], abs=1e-9)


@config
@SETTINGS
@given(game=games(), data=st.data())
def test_relabelling_players_permutes_the_result(
    name: str, params: dict[str, Any], game: Any, data: st.DataObject
) -> None:
    ratings, ranks, dnf = game
    perm = np.array(data.draw(st.permutations(range(len(ranks)))))
    before = to_scale(name, ratings)
    after = play(name, params, before, ranks, dnf)
    permuted = play(name, params, before[perm], ranks[perm], dnf[perm])
    np.testing.assert_allclose(permuted, after[perm], rtol=1e-9, atol=1e-9)


@config
@SETTINGS
@given(game=games(), dummy=st.floats(-2, 2))
def test_dummy_is_a_never_updated_player_tied_with_the_last(
    name: str, params: dict[str, Any], game: Any, dummy: float
) -> None:
    """With ``dummy_tie="draw"`` the dummy is exactly an extra player sharing the last entrant's place, who
    finishes even when the last entrants did not (so a DNF never does better than finishing last would have:
    tests/test_monotone.py)."""
    ratings, ranks, dnf = game
    before = to_scale(name, ratings)
    dummy_rating = float(to_scale(name, np.array([dummy]))[0])
    with_dummy = play(name, {**params, "dummy": dummy_rating, "dummy_tie": "draw"}, before, ranks, dnf)
    # The same game with a real extra player rated like the dummy, at the last entrant's place, finishing.
    last = int(np.argmax(ranks))
    augmented = play(
        name, params, np.append(before, dummy_rating), np.append(ranks, ranks[last]), np.append(dnf, False)
    )
    np.testing.assert_allclose(with_dummy, augmented[:-1], rtol=1e-9, atol=1e-9)
    # Total rating is no longer conserved: the players gain what the dummy would have lost.
    extra_change = augmented[-1] - dummy_rating
    scale = max(1.0, abs(extra_change))
    assert np.sum(with_dummy - before) == pytest.approx(-extra_change, abs=1e-9 * scale)


@kerby
@SETTINGS
@given(game=games(), dummy=st.floats(-2, 2))
def test_censored_dummy_is_an_extra_player_censored_with_the_last(
    name: str, params: dict[str, Any], game: Any, dummy: float
) -> None:
    """With ``dummy_tie="censored"`` (the default) the dummy and every player of the worst rank are censored
    together, exactly as if they had all not finished (for Kerby's models; multielo's rule is in its docstring)."""
    ratings, ranks, dnf = game
    with_dummy = play(name, {**params, "dummy": dummy}, ratings, ranks, dnf)
    worst = ranks == ranks.max()
    augmented = play(
        name, params, np.append(ratings, dummy), np.append(ranks, ranks.max()), np.append(dnf | worst, True)
    )
    np.testing.assert_allclose(with_dummy, augmented[:-1], rtol=1e-9, atol=1e-9)


@config
@SETTINGS
@given(game=games(), floor=st.floats(-3, 3))
def test_floor_holds(name: str, params: dict[str, Any], game: Any, floor: float) -> None:
    ratings, ranks, dnf = game
    floor_value = float(to_scale(name, np.array([floor]))[0])
    before = np.maximum(to_scale(name, ratings), floor_value)
    free = play(name, params, before, ranks, dnf)
    floored = play(name, {**params, "floor": floor_value}, before, ranks, dnf)
    assert np.all(floored >= floor_value)
    np.testing.assert_allclose(floored, np.maximum(free, floor_value), rtol=1e-12, atol=1e-12)


@kerby
@SETTINGS
@given(game=games(), side=st.sampled_from(["low", "high"]))
def test_eta_schedule_is_clamped_at_the_ends(name: str, params: dict[str, Any], game: Any, side: str) -> None:
    ratings, ranks, dnf = game
    # decreasing, as Kerby's (2025) tuned schedule, and within the Gaussian pair model's summed step (0.2)
    knots, values = (-1.0, 0.0, 1.0), (0.2, 0.13, 0.09)
    # Everyone beyond the same end of the knots moves with that end's learning rate.
    before = ratings - 4.5 if side == "low" else ratings + 4.5
    scheduled = play(name, {**params, "eta_knots": knots, "eta_values": values}, before, ranks, dnf)
    constant = play(name, {**params, "eta": values[0] if side == "low" else values[-1]}, before, ranks, dnf)
    np.testing.assert_allclose(scheduled, constant, rtol=1e-12, atol=1e-12)


@kerby
@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"eta": -0.1}, "eta"),
        ({"eta": 0.0}, "eta"),
        ({"eta_knots": (0.0, 1.0, 1.0), "eta_values": (0.3, 0.2, 0.1)}, "eta_knots"),
        ({"eta_knots": (1.0, 0.0), "eta_values": (0.3, 0.2)}, "eta_knots"),
        ({"eta_knots": (0.0, 1.0), "eta_values": (0.3, 0.2, 0.1)}, "eta_values"),
        ({"eta_knots": (0.0, 1.0)}, "eta_knots"),
        ({"eta_knots": (0.0, 1.0), "eta_values": (0.3, -0.2)}, "eta_values"),
    ],
)
def test_invalid_parameters_are_refused(name: str, params: dict[str, Any], bad: dict[str, Any], field: str) -> None:
    with pytest.raises(ParameterError, match=field):
        create(name, **{**params, **bad})
