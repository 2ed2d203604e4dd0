"""One declaration per parameter, one validator: the intervals in words, the messages of the command line,
the address and the number boxes, and what a new user typing extreme values gets (issue 10, section 2)."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from layouts import controls
from layouts.ids import TAB_NAMES
from layouts.param_values import collect
from ratings import SYSTEM_NAMES, ParameterError, create, get_system
from ratings.cli import main
from ratings.params import Interval, coerce, validate
from ratings.samples import load_sample
from sources import settings
from sources.links import address_values, link_params, url_state


# ------------------------------------------------------------------ the declaration objects
@pytest.mark.parametrize(
    ("interval", "words", "notation"),
    [
        (Interval(0.0, 10.0, closed="right"), "above 0 and at most 10", "(0, 10]"),
        (Interval(0.0, 1e4), "from 0 to 10000", "[0, 10000]"),
        (Interval(-15.0, 0.0, closed="left"), "at least -15 and below 0", "[-15, 0)"),
        (Interval(0.0, 1.0, closed="neither"), "above 0 and below 1", "(0, 1)"),
        (Interval(1.0, None), "at least 1", "[1, inf)"),
        (Interval(), "any finite number", "(-inf, inf)"),
    ],
)
def test_an_interval_says_itself_in_words_and_notation(interval: Interval, words: str, notation: str) -> None:
    assert interval.words() == words
    assert interval.notation() == notation


def test_an_interval_holds_its_closed_ends_only_and_finite_numbers_only() -> None:
    half_open = Interval(0.0, 10.0, closed="right")
    assert 10.0 in half_open and 1e-300 in half_open
    assert 0.0 not in half_open and math.nextafter(10.0, 11.0) not in half_open
    everything = Interval()
    for value in (math.inf, -math.inf, math.nan, True, "1", None):
        assert value not in everything


def test_every_declaration_holds_its_default_and_its_slider_range() -> None:
    for name in SYSTEM_NAMES:
        for spec in get_system(name).parameters():
            for value in (spec.low, spec.high):
                if value is not None:
                    assert value in spec.valid, f"{name}.{spec.name}: slider end {value} is not valid"
            defaults = spec.default if isinstance(spec.default, tuple) else (spec.default,)
            for value in defaults:
                if value is not None and spec.kind not in ("choice", "bool"):
                    assert value in spec.valid, f"{name}.{spec.name}: default {value} is not valid"


def test_the_validator_names_the_parameter_and_the_interval() -> None:
    with pytest.raises(
        ParameterError, match=r"^parameter 'eta': must be a number above 0 and at most 10, got 1e\+308$"
    ):
        create("plackett-luce", eta=1e308)
    with pytest.raises(ParameterError, match=r"^parameter 'sigma': must be a number from 0\.001 to 10000, got 1e-300$"):
        create("trueskill", sigma=1e-300)
    with pytest.raises(ParameterError, match=r"^parameter 'max_history': must be a whole number from 1 to 1000"):
        create("elo-mmr", max_history=2.5)


def test_rules_between_parameters_name_the_first_and_show_every_value() -> None:
    with pytest.raises(ParameterError) as refused:
        create("elo-mmr", beta=70.0, sigma_limit=80.0)
    assert refused.value.name == "beta"
    assert str(refused.value) == (
        "parameter 'beta': must exceed sigma_limit so that the drift between games is finite "
        "(got beta=70, sigma_limit=80)"
    )
    with pytest.raises(ParameterError, match="eta_values': needs one learning rate per knot"):
        create("plackett-luce", eta_knots=(0.0, 1.0), eta_values=(0.3,))
    with pytest.raises(ParameterError, match="eta_knots': knots must be strictly increasing"):
        create("pairwise-elo", eta_knots=(1.0, 0.0), eta_values=(0.3, 0.2))
    with pytest.raises(ParameterError, match="min_deviation': must be at most the new-player deviation"):
        create("glicko2", min_deviation=3.0)
    with pytest.raises(ParameterError, match=r"sigma': must lie between beta / 1000 and 100 x beta \(got sigma=500"):
        create("trueskill", sigma=500.0, beta=1.0)
    with pytest.raises(ParameterError, match=r"tau': must be at most 100 x beta \(got tau=500, beta=1\)"):
        create("trueskill", tau=500.0, beta=1.0)
    with pytest.raises(ParameterError, match="within 40 of each other"):
        create("thurstonian", initial=-30.0, dummy=30.0)


def test_validate_checks_an_instance_built_around_the_constructor() -> None:
    params = create("multielo").params
    object.__setattr__(params, "k", -1.0)  # a frozen instance forced, as a careless caller might
    with pytest.raises(ParameterError, match="'k': must be a number from 0 to 10000, got -1"):
        validate(params)


# ------------------------------------------------------------------ texts: command line, address, boxes
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,5", "'1,5' uses a decimal comma; write 1.5"),
        ("1e400", "'1e400' is not a number above 0 and at most 10"),
        ("1e308", "must be a number above 0 and at most 10, got 1e+308"),
        ("0", "must be a number above 0 and at most 10, got 0"),
        ("inf", "'inf' is not a number above 0 and at most 10"),
        ("1_0", "'1_0' is not a number above 0 and at most 10"),
    ],
)
def test_a_text_value_is_read_strictly(text: str, message: str) -> None:
    eta = next(s for s in get_system("plackett-luce").parameters() if s.name == "eta")
    with pytest.raises(ParameterError) as refused:
        coerce(eta, text)
    assert refused.value.name == "eta"
    assert message in str(refused.value)
    assert coerce(eta, " 1.5 ") == 1.5


def test_the_command_line_refuses_an_out_of_range_value_with_the_interval() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["rate", "sample:poker", "--system", "glicko2", "--set", "tau=1e-300"], out=out, err=err)
    assert code == 2 and out.getvalue() == ""
    assert err.getvalue() == (
        "ratings: error: --set tau=1e-300: parameter 'tau': must be a number from 0.01 to 5, got 1e-300\n"
    )


def test_a_link_keeps_its_valid_values_and_says_which_were_left_out() -> None:
    values, problems = link_params("plackett-luce", {"eta": "1e308", "initial": "0.5", "dummy": "1,5"})
    assert values == {"initial": 0.5}
    assert problems == [
        "The link's eta=1e308 was not used: must be a number above 0 and at most 10, got 1e+308.",
        "The link's dummy=1,5 was not used: '1,5' uses a decimal comma; write 1.5.",
    ]


def test_a_link_keeps_two_values_that_are_valid_only_together() -> None:
    # beta 60 alone breaks beta > sigma_limit (default 80); with sigma_limit 50 both are fine
    values, problems = link_params("elo-mmr", {"beta": "60", "sigma_limit": "50"})
    assert values == {"beta": 60.0, "sigma_limit": 50.0} and problems == []
    values, problems = link_params("elo-mmr", {"beta": "60"})
    assert values == {}
    assert problems == [
        "The link's beta=60 was not used: must exceed sigma_limit so that the drift between games is finite "
        "(got beta=60, sigma_limit=80)."
    ]


def test_the_page_reports_the_links_unused_values_for_its_system_only() -> None:
    state = {"system": "multielo", "params": {"k": "1e308", "base": "1.5"}}
    values, problems = address_values("multielo", reset=False, url_state=state)
    assert values == {"base": 1.5}
    assert problems == ["The link's k=1e308 was not used: must be a number from 0 to 10000, got 1e+308."]
    assert address_values("multielo", reset=True, url_state=state) == ({}, [])
    assert address_values("trueskill", reset=False, url_state=state) == ({}, [])


def test_a_link_with_a_season_but_no_data_named_applies_it_to_the_default_data() -> None:
    # "?last=10" once opened the default data whole, the season dropped without a word.
    state, _ = url_state("?from=2024-05-01&last=10", settings.load({}), tabs=TAB_NAMES)
    assert state["source"]["view"] == {"from": "2024-05-01", "last": "10"}
    assert state["unused"] == []
    state, _ = url_state("?system=trueskill", settings.load({}), tabs=TAB_NAMES)
    assert "view" not in state["source"]  # no season asked, none added


def test_a_link_naming_an_unknown_system_says_so() -> None:
    # ?system=elo (not a name) opened Multiplayer Elo without a word; the page now says which value and why
    state, system = url_state("?system=elo&k=24", tabs=TAB_NAMES)
    assert system == "multielo"
    values, problems = address_values(system, reset=False, url_state=state)
    assert values == {}  # k belongs to no system the link names
    assert problems == [
        "The link's system=elo was not used: there is no rating system of that name (the systems are multielo, "
        "pairwise-elo, plackett-luce, thurstonian, trueskill, glicko2, elo-mmr)."
    ]
    assert (
        url_state("?system=trueskill", tabs=TAB_NAMES)[0]["unused"] == []
        and url_state("", tabs=TAB_NAMES)[0]["unused"] == []
    )
    # the display part of a link likewise: a minimum that is not a whole number, a tab that does not exist
    state, _ = url_state("?min=abc&tab=stats", tabs=TAB_NAMES)
    assert state["min_games"] is None and state["tab"] is None
    assert state["unused"] == [
        "The link's min=abc was not used: the minimum number of games is a whole number from 0 to 999999.",
        "The link's tab=stats was not used: there is no tab of that name (the tabs are compare, edit, fit, games, "
        "overview, player, predictions, standings).",
    ]
    assert url_state("?min=3&tab=player", tabs=TAB_NAMES)[0]["unused"] == []


def test_a_box_sends_text_read_by_the_strict_parser() -> None:
    k = next(s for s in get_system("multielo").parameters() if s.name == "k")
    box = controls.param_control(k).children[1].children[1].children
    assert box.type == "text" and box.placeholder == "[0, 10000]"
    good, error = collect("multielo", {"k": "24.5"}, {})
    assert error is None and good["params"]["k"] == 24.5
    bad, error = collect("multielo", {"k": "1,5"}, {})
    assert bad is None and error == "parameter 'k': '1,5' uses a decimal comma; write 1.5"
    good, error = collect("trueskill", {"sigma": "8.33333"}, {})
    assert error is None and good["params"]["sigma"] == 25 / 3  # the rounded default read back exactly


def test_a_slider_never_offers_an_invalid_value() -> None:
    for name in SYSTEM_NAMES:
        for spec in get_system(name).parameters():
            if spec.kind in ("float", "int", "optional-float"):
                low, high, _ = controls.slider_range(spec, None)
                assert low in spec.valid and high in spec.valid, f"{name}.{spec.name}: slider {low}..{high}"


def test_each_slider_end_passes_the_rules_with_the_other_parameters_at_their_defaults() -> None:
    """A slider offers its two ends to a new user, who moves one parameter at a time: each end, with every other
    parameter at its default, satisfies the rules tying parameters together (a slider end refused on arrival, as
    Glicko-2's new-player volatility at 0.02 against the lowest volatility 0.04 was, is a control offering a
    value that does not compute)."""
    refused = []
    for name in SYSTEM_NAMES:
        for spec in get_system(name).parameters():
            if spec.kind not in ("float", "int", "optional-float"):
                continue
            low, high, _ = controls.slider_range(spec, None)
            for end in (low, high):
                try:
                    create(name, **{spec.name: int(end) if spec.kind == "int" else end})
                except ParameterError as error:
                    refused.append(f"{name}.{spec.name}={end:g}: {error}")
    assert refused == []


# ------------------------------------------------------------------ what a new user typing extremes gets
EXTREMES = ("1e308", "-1e308", "1e-300")


def test_every_extreme_typed_into_every_box_computes_or_is_refused_with_the_interval() -> None:
    """The issue's 104 (system, parameter, value) combinations and more: each computes a finite run on the
    poker sample or is refused with a message naming the parameter and its valid values."""
    history = load_sample("poker")
    computed = refused = 0
    for name in SYSTEM_NAMES:
        specs = [s for s in get_system(name).parameters() if s.kind in ("float", "int", "optional-float")]
        defaults = {s.name: s.default for s in get_system(name).parameters()}
        for spec in specs:
            for text in EXTREMES:
                settings, error = collect(name, {**defaults, spec.name: text}, {spec.name: True})
                if settings is None:
                    assert error is not None and error.startswith(f"parameter '{spec.name}': ")
                    assert "must be" in error or "is not" in error, error
                    refused += 1
                    continue
                typed = {k: tuple(v) if isinstance(v, list) else v for k, v in settings["params"].items()}
                run = create(name, **typed).rate(history)
                assert np.isfinite(run.final).all() and np.isfinite(run.after).all(), f"{name}.{spec.name}={text}"
                computed += 1
    assert computed + refused >= 104
    assert refused > 0 and computed > 0
