"""The contract every registered rating system keeps (as scikit-learn's test_common does)."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from ratings import SYSTEM_NAMES, GameHistory, ParameterError, RatingRun, UnknownSystemError, create, get_system
from ratings.params import coerce

from .conftest import history_from_rows


@pytest.fixture(params=SYSTEM_NAMES)
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_registry_refuses_unknown_names() -> None:
    with pytest.raises(UnknownSystemError, match="valid systems are"):
        get_system("no-such-system")


def test_default_constructible_and_described(name: str) -> None:
    cls = get_system(name)
    assert cls.name == name
    assert cls.title and cls.summary
    system = create(name)
    specs = cls.parameters()
    assert specs, "every system has parameters"
    for spec in specs:
        assert spec.help, f"{name}.{spec.name} has no help text"
        assert getattr(system.params, spec.name) == spec.default
        if spec.low is not None and spec.high is not None:
            assert spec.low < spec.high
        # The default survives a text round trip (command line, URL).
        text = (
            "none"
            if spec.default is None
            else (",".join(map(str, spec.default)) if isinstance(spec.default, tuple) else str(spec.default))
        )
        assert coerce(spec, text) == spec.default


def test_parameters_are_frozen(name: str) -> None:
    system = create(name)
    field = dataclasses.fields(system.params)[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(system.params, field.name, 1)


def test_unknown_parameter_is_refused(name: str) -> None:
    with pytest.raises(ParameterError, match="unknown"):
        create(name, no_such_parameter=1)


def test_run_shapes(name: str, small_history: GameHistory) -> None:
    run = create(name).rate(small_history)
    assert isinstance(run, RatingRun)
    entries = int(small_history.offsets[-1])
    assert run.before.shape == run.after.shape == (entries,)
    assert run.final.shape == (small_history.n_players,)
    assert np.all(np.isfinite(run.before)) and np.all(np.isfinite(run.after))
    # The last rating after a player's final game is their final rating.
    last = {}
    for i, p in enumerate(small_history.flat_player):
        last[int(p)] = run.after[i]
    for p, value in last.items():
        assert run.final[p] == pytest.approx(value)
    table = run.leaderboard()
    assert list(table["player"])[0] == small_history.players[int(np.argmax(run.final))]


def test_input_is_not_mutated(name: str, small_history: GameHistory) -> None:
    snapshot = copy.deepcopy(small_history.to_records())
    system = create(name)
    params_before = dataclasses.asdict(system.params)
    system.rate(small_history)
    assert small_history.to_records() == snapshot
    assert dataclasses.asdict(system.params) == params_before


def test_relabelling_players_changes_nothing_but_labels(name: str, small_history: GameHistory) -> None:
    renamed = {p: f"x-{p[::-1]}" for p in small_history.players}
    records = [{**r, "player": renamed[r["player"]]} for r in small_history.to_records()]
    other = GameHistory.from_records(records)
    a = create(name).rate(small_history)
    b = create(name).rate(other)
    np.testing.assert_allclose(a.after, b.after, rtol=1e-9, atol=1e-9)


def test_winner_of_an_even_field_gains(name: str) -> None:
    history = history_from_rows([("g", "A", 1), ("g", "B", 2), ("g", "C", 3), ("g", "D", 4)])
    run = create(name).rate(history)
    assert run.change[0] > 0
    assert run.change[3] < 0


def test_one_player_game_changes_nothing(name: str) -> None:
    history = history_from_rows([("solo", "A", 1), ("g", "A", 1), ("g", "B", 2)])
    run = create(name).rate(history)
    assert run.change[0] == 0


def test_place_probabilities_sum_to_one(name: str, small_history: GameHistory) -> None:
    system = create(name)
    run = system.rate(small_history)
    try:
        probs = system.place_probabilities(run.state, [0, 1, 2, 3])
    except NotImplementedError:
        pytest.skip(f"{name} does not predict places")
    assert probs.shape == (4, 4)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-9)
    assert np.all(probs >= 0)
