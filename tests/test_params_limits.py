"""The limits a rule between parameters puts on each of them (``ratings.params.Rule.limits``): what a slider offers
and a search draws given the other parameters always computes, and each limit is exactly its rule's edge.

The declared ranges alone do not do this: values drawn uniformly from each slider's declared range are refused by a
rule in 45% of draws for pairwise Elo (the Gaussian pair model's step), 54% for Thurstonian (the boost's), 19% for
Glicko-2 (the lowest and highest deviation and volatility) and 6% for Elo-MMR (beta above sigma_limit).
"""

from __future__ import annotations

import copy
import math
import random

import pytest

from ratings import SYSTEM_NAMES, create, get_system
from ratings.params import Limit, ParameterError, ParamSpec, limits, offered
from ratings.samples import load_sample
from ratings.tune import searchable, tune


def numbers(system: str) -> list[ParamSpec]:
    """The parameters of ``system`` a slider offers (a number, or an optional number, with a declared range)."""
    return [
        s
        for s in get_system(system).parameters()
        if s.kind in ("float", "int", "optional-float") and s.low is not None and s.high is not None
    ]


def drawn(system: str, rng: random.Random) -> dict[str, object]:
    """A setting as a visitor makes it: each choice at random, then the numbers one after the other in a random
    order, each from the range offered with those set before it (at an end, or anywhere between); an optional
    number is left off half the time."""
    params_cls = get_system(system).Params
    values: dict[str, object] = {
        s.name: rng.choice(s.choices) for s in get_system(system).parameters() if s.kind == "choice"
    }
    specs = numbers(system)
    rng.shuffle(specs)
    for spec in specs:
        if spec.kind == "optional-float" and rng.random() < 0.5:
            continue
        low, high = offered(params_cls, spec, values)
        u = rng.choice([0.0, 1.0, rng.random()])
        value = low + u * (high - low)
        values[spec.name] = round(value) if spec.kind == "int" else value
    return values


@pytest.mark.parametrize("system", SYSTEM_NAMES)
def test_every_setting_drawn_within_the_offered_ranges_is_allowed(system: str) -> None:
    rng = random.Random(f"limits-{system}")
    refused = []
    for _ in range(2000):
        values = drawn(system, rng)
        try:
            create(system, **values)
        except ParameterError as error:
            refused.append((values, str(error)))
    assert refused == []


def _beyond(value: float, side: str) -> float:
    """A value just past a limit's end (a relative 1e-6 beyond, at least 1e-9)."""
    step = max(abs(value) * 1e-6, 1e-9)
    return value - step if side == "low" else value + step


@pytest.mark.parametrize("system", [s for s in SYSTEM_NAMES if any(r.limits for r in get_system(s).Params.RULES)])
def test_each_limit_is_its_rules_edge(system: str) -> None:
    """At each end of a limit (read from an allowed setting) the rule holds; just past it the rule is broken:
    the limits offer all the rule allows and nothing more."""
    params_cls = get_system(system).Params
    valid = {s.name: s.valid for s in get_system(system).parameters()}
    rng = random.Random(f"edges-{system}")
    checked = 0
    for _ in range(300):
        values = drawn(system, rng)
        params = create(system, **values).params
        for rule in params_cls.RULES:
            for name, limit_of in rule.limits.items():
                limit = limit_of(params)
                for side in ("low", "high"):
                    end = limit.low if side == "low" else limit.high
                    excluded = limit.open_low if side == "low" else limit.open_high
                    if end is None or not math.isfinite(end) or end not in valid[name]:
                        continue
                    past = _beyond(end, side)
                    at_end = copy.copy(params)  # set field by field below, past the validation a rule would refuse
                    if not excluded:
                        object.__setattr__(at_end, name, end)
                        assert rule.holds(at_end), (system, name, side, end, rule.says)
                    if past in valid[name]:
                        object.__setattr__(at_end, name, past)
                        assert not rule.holds(at_end), (system, name, side, past, rule.says)
                        checked += 1
    assert checked > 100


def test_limits_of_one_parameter_meet() -> None:
    """TrueSkill's beta is limited by two rules (sigma's and tau's): it gets what both allow."""
    got = limits(get_system("trueskill").Params, {"sigma": 8.0, "tau": 5.0})["beta"]
    assert got.low == pytest.approx(max(8.0 / 100, 5.0 / 100)) and got.high == pytest.approx(8.0 * 1000)
    assert Limit(1.0, 5.0) & Limit(2.0, 9.0, open_low=True) == Limit(2.0, 5.0, open_low=True)
    assert Limit(1.0, 5.0, open_high=True) & Limit(None, 5.0) == Limit(1.0, 5.0, open_high=True)


def test_the_gaussian_pair_models_learning_rate_offered_follows_the_variant_and_boost() -> None:
    """GAUSSIAN_ETA (ratings/systems/pairwise.py): (1 + boost) x eta at most 0.2 summed, 0.8 averaged, offered on
    the slider's grid of 0.01 (0.2 / 1.3 = 0.1538...: 0.15); the logistic model keeps the declared range (0.01-2)."""
    params_cls = get_system("pairwise-elo").Params
    eta = next(s for s in numbers("pairwise-elo") if s.name == "eta")
    assert offered(params_cls, eta, {"model": "logistic"}) == (0.01, 2.0)
    assert offered(params_cls, eta, {"model": "gaussian"}) == (0.01, 0.2)
    assert offered(params_cls, eta, {"model": "gaussian", "variant": "average"}) == (0.01, 0.8)
    assert offered(params_cls, eta, {"model": "gaussian", "boost": 1.0}) == (0.01, 0.1)
    assert offered(params_cls, eta, {"model": "gaussian", "boost": 0.3}) == (0.01, 0.15)
    # learning rates by rating (eta_values) replace eta: eta is then not limited, the boost is by the largest value
    curve = {"model": "gaussian", "eta_knots": (-1.0, 1.0), "eta_values": (0.1, 0.05)}
    assert offered(params_cls, eta, curve) == (0.01, 2.0)
    boost = next(s for s in numbers("pairwise-elo") if s.name == "boost")
    assert offered(params_cls, boost, curve) == (0.0, 1.0)  # 0.2 / 0.1 - 1
    for values in ({"model": "gaussian", "variant": "average"}, {"model": "gaussian", "boost": 1.0}, curve):
        low, high = offered(params_cls, eta, values)
        create("pairwise-elo", **values, eta=high)


def test_elo_mmrs_beta_is_offered_a_step_above_sigma_limit() -> None:
    params_cls = get_system("elo-mmr").Params
    beta = next(s for s in numbers("elo-mmr") if s.name == "beta")
    low, _ = offered(params_cls, beta, {"sigma_limit": 150.0})
    assert low == 150.0 + beta.step  # type: ignore[operator]
    create("elo-mmr", sigma_limit=150.0, beta=low)


@pytest.mark.parametrize(
    ("system", "fixed", "dynamics"),
    [
        ("pairwise-elo", {"model": "gaussian"}, False),
        ("pairwise-elo", {"model": "gaussian", "variant": "average"}, True),
        ("thurstonian", {}, True),
        ("glicko2", {}, False),
        ("elo-mmr", {}, False),
    ],
)
def test_a_search_draws_only_settings_the_rules_allow(system: str, fixed: dict, dynamics: bool) -> None:
    """Fit (ratings.tune) varies the numbers within their limits given the fixed choices and the numbers drawn
    before them: every trial is a setting that computes, and the first is the defaults."""
    history = load_sample("poker")
    result = tune(history, system, fixed=fixed, max_evaluations=40, budget_seconds=600, dynamics=dynamics)
    assert len(result.evaluations) == 40
    for trial in result.evaluations:
        create(system, **fixed, **trial.params)  # raises ParameterError for a setting a rule refuses
    names = {s.name for s in searchable(system, dynamics=dynamics)}
    defaults = {s.name: s.default for s in get_system(system).parameters() if s.name in names}
    assert result.evaluations[0].params == pytest.approx(defaults)
