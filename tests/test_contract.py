"""The contract every registered rating system keeps (as scikit-learn's test_common does)."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ratings import SYSTEM_NAMES, GameHistory, ParameterError, RatingRun, UnknownSystemError, create, get_system
from ratings.params import MAX_LIST, ParamSpec, coerce

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


# ------------------------------------------------------------------ parameters, from their declarations
# As scikit-learn's check_param_validation: the declarations (ratings.params.param's valid interval or choices)
# generate the invalid values each parameter must refuse, and the extreme valid ones each system must compute.


def _instances() -> list[Any]:
    """Every system with every combination of its categorical parameters (choices and switches), found by
    introspection, so an option added to a declaration is covered without editing this list."""
    out = []
    for name in SYSTEM_NAMES:
        categorical = [s for s in get_system(name).parameters() if s.kind in ("choice", "bool")]
        options = [s.choices if s.kind == "choice" else (False, True) for s in categorical]
        for combo in itertools.product(*options):
            chosen = {s.name: value for s, value in zip(categorical, combo, strict=True)}
            label = ",".join(f"{k}={v}" for k, v in chosen.items())
            out.append(pytest.param(name, chosen, id=f"{name}[{label}]" if label else name))
    return out


INSTANCES = _instances()


def _numeric(name: str) -> list[ParamSpec]:
    return [s for s in get_system(name).parameters() if s.kind in ("float", "int", "optional-float", "float-list")]


def _outward(bound: float, direction: float) -> float:
    return float(np.nextafter(bound, bound + direction * np.inf))


def invalid_values(spec: ParamSpec) -> list[Any]:
    """Values the declaration of ``spec`` refuses: just outside each bound, wrong types, non-finite, texts
    that are not plain decimal numbers."""
    if spec.kind == "choice":
        return ["no-such-option", spec.choices[0].upper() + "!", 1, None]
    if spec.kind == "bool":
        return ["maybe", 2, None]
    outside: list[float] = []
    v = spec.valid
    for bound, closed, direction in ((v.low, v.left_closed, -1.0), (v.high, v.right_closed, 1.0)):
        if bound is not None:
            edge = _outward(bound, direction) if closed else float(bound)
            outside += [edge, edge + direction * max(abs(bound), 1.0)]
    wrong = [math.nan, math.inf, -math.inf, "1e400", "abc", "1_000", "0x10", True, [1.0]]
    if spec.kind == "float-list":
        return [(x,) for x in outside] + [(math.nan,), ("abc",), (1.0,) * 65, (), "1e400"]
    if spec.kind == "int":
        return [int(x) if float(x).is_integer() else x for x in outside] + [1.5, "2.5", *wrong]
    return [*outside, "1,5", *wrong]


def extreme_values(spec: ParamSpec) -> list[Any]:
    """Valid values at the edges of the declaration: each bound (or the nearest value inside an open one), a
    hair inside, and 0 and +-1e-300/1e300 where the interval holds them."""
    v = spec.valid
    out: list[float] = []
    for bound, closed, direction in ((v.low, v.left_closed, 1.0), (v.high, v.right_closed, -1.0)):
        if bound is None:
            continue
        edge = float(bound) if closed else _outward(bound, direction)
        out += [edge, _outward(edge, direction), edge + direction * max(abs(bound), 1.0) * 1e-9]
    out += [x for x in (0.0, 1e-300, -1e-300, 1e300, -1e300) if x in v]
    out = [x for x in out if x in v]
    if spec.kind == "int":
        return sorted({round(x) for x in out if round(x) in v})
    if spec.kind == "float-list":
        return [(x,) for x in out] + [tuple(sorted({out[0], out[-1]}))]
    return out


def _random_history() -> GameHistory:
    """40 dated games of 2-8 from 12 players, with ties for first and for last, and DNFs (seeded)."""
    rng = np.random.default_rng(20261123)
    records = []
    for g in range(40):
        size = 2 if g % 10 == 0 else int(rng.integers(3, 9))
        players = rng.choice(12, size=size, replace=False)
        places = list(range(1, size + 1))
        if g % 4 == 1:
            places[1] = places[0]
        if g % 6 == 3 and size > 3:
            places[-1] = places[-2]
        for i, p in enumerate(players):
            dnf = g % 5 == 2 and i >= size - 2 and size > 2
            date = f"2024-{1 + g // 28:02d}-{1 + g % 28:02d}"
            records.append({"game": f"g{g}", "date": date, "player": f"P{p}", "place": "DNF" if dnf else places[i]})
    return GameHistory.from_records(records)


@pytest.fixture(scope="module")
def histories() -> dict[str, GameHistory]:
    from ratings.samples import load_sample

    return {"random": _random_history(), "poker": load_sample("poker")}


def _assert_finite(run: RatingRun, where: str) -> None:
    assert np.isfinite(run.before).all() and np.isfinite(run.after).all(), where
    assert np.isfinite(run.final).all(), where
    for series, (before, after) in run.extras.items():
        assert np.isfinite(before).all() and np.isfinite(after).all(), f"{where}: {series}"


def _with_partner(name: str, spec: ParamSpec, value: Any) -> dict[str, Any]:
    """A list parameter needs its partner (eta_knots with eta_values): the partner at its default length."""
    if spec.name == "eta_knots":
        return {"eta_knots": value, "eta_values": (0.1,) * len(value)}
    if spec.name == "eta_values":
        return {"eta_values": value, "eta_knots": tuple(float(k) for k in range(len(value)))}
    return {spec.name: value}


@pytest.mark.parametrize(("name", "chosen"), INSTANCES)
def test_declared_invalid_values_are_refused_naming_the_parameter(name: str, chosen: dict[str, Any]) -> None:
    checked = 0
    for spec in get_system(name).parameters():
        for value in invalid_values(spec):
            paired = spec.kind == "float-list" and isinstance(value, tuple) and 0 < len(value) <= MAX_LIST
            given = {**chosen, **(_with_partner(name, spec, value) if paired else {spec.name: value})}
            with pytest.raises(ParameterError) as refused:
                create(name, **given)
            assert refused.value.name == spec.name, f"{name}.{spec.name}={value!r}: {refused.value}"
            if isinstance(value, str):  # the command line, the address and the boxes read texts with coerce
                with pytest.raises(ParameterError) as read:
                    coerce(spec, value)
                assert read.value.name == spec.name
                if value == "1,5":
                    assert "write 1.5" in str(read.value)
            checked += 1
    assert checked >= 3 * len(get_system(name).parameters())


@pytest.mark.slow
@pytest.mark.parametrize(("name", "chosen"), INSTANCES)
def test_extreme_valid_values_give_a_finite_run(name: str, chosen: dict[str, Any], histories) -> None:  # type: ignore[no-untyped-def]
    rules = {n for rule in getattr(get_system(name).Params, "RULES", ()) for n in rule.names}
    runs = 0
    for spec in _numeric(name):
        for value in extreme_values(spec):
            given = {**chosen, **_with_partner(name, spec, value)}
            try:
                system = create(name, **given)
            except ParameterError as exc:  # only a declared rule between parameters may refuse a valid value
                assert exc.name in rules and "(got" in str(exc), f"{name} {given}: {exc}"
                continue
            for label, history in histories.items():
                _assert_finite(system.rate(history), f"{name} {given} on {label}")
                runs += 1
    assert runs >= 2 * len(_numeric(name))


def _valid(spec: ParamSpec) -> st.SearchStrategy[Any]:
    v = spec.valid
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "int":
        return st.integers(min_value=int(math.ceil(v.low or -1e6)), max_value=int(v.high or 1e6))
    numbers = st.floats(
        min_value=v.low,
        max_value=v.high,
        exclude_min=not v.left_closed,
        exclude_max=not v.right_closed,
        allow_nan=False,
        allow_infinity=False,
    )
    if spec.kind == "optional-float":
        return st.none() | numbers
    if spec.kind == "float-list":
        return st.none()  # the knots are exercised one parameter at a time above
    return numbers


@pytest.mark.slow
@pytest.mark.parametrize("name", SYSTEM_NAMES)
def test_any_combination_of_valid_values_gives_a_finite_run_or_a_rule_refusal(name: str, histories) -> None:  # type: ignore[no-untyped-def]
    specs_ = get_system(name).parameters()
    history = histories["random"]

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.fixed_dictionaries({s.name: _valid(s) for s in specs_}))
    def check(values: dict[str, Any]) -> None:
        try:
            system = create(name, **values)
        except ParameterError as exc:
            rules = {n for rule in getattr(get_system(name).Params, "RULES", ()) for n in rule.names}
            assert exc.name in rules and "(got" in str(exc), str(exc)
            assume(False)
            return
        _assert_finite(system.rate(history), f"{name} {values}")

    check()
