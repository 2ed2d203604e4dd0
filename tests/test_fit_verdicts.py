"""The Fit tab says whether a fit is a real improvement or noise (issue 27): the fit and compare jobs' results carry
95% intervals and paired verdicts (ratings.tune.fit_verdict, held_out_verdicts), and the views show them in words.

The reference for "better" is a setting far from anything sensible (multiplayer Elo with K = 1 on the racing sample
barely moves anyone from the start), against which any search must win by more than the interval; the reference for
the words is ratings.metrics.Comparison.words, tested with the bootstrap in tests/test_tune.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from layouts.fit import compare_view, fit_view
from sources.fitting import compare_systems, fit_system

RACING = {"kind": "sample", "name": "racing"}


def _text(component: Any) -> str:
    """Every string in a rendered component tree, joined (what the page shows, give or take layout)."""
    return json.dumps(component.to_plotly_json(), default=lambda c: c.to_plotly_json(), ensure_ascii=False)


def _buttons(component: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, (list, tuple)):
            for n in node:
                walk(n)
        elif hasattr(node, "to_plotly_json"):
            plain = node.to_plotly_json()
            if plain.get("type") == "Button":
                found.append(plain["props"])
            walk(getattr(node, "children", None))

    walk(component)
    return found


def test_a_fit_far_from_the_current_settings_says_better_beyond_noise() -> None:
    result = fit_system(RACING, "multielo", {"k": 1.0}, budget=3, metric="kendall-tau")
    versus = result["verdict"]["better_than_current"]["kendall_tau"]
    assert versus["verdict"] == "better" and versus["low"] > 0
    # the improvement is the difference of the two rows' held-out figures
    assert versus["improvement"] == pytest.approx(result["current_test"]["kendall_tau"] - result["test"]["kendall_tau"])
    shown = _text(fit_view(result))
    assert "better than your current ones, beyond noise" in shown
    assert versus["words"] in shown
    assert shown.count(" ± ") >= 4  # the verdict's words and each of the three held-out figures
    apply = [b for b in _buttons(fit_view(result)) if "fitted settings" in str(b.get("children"))]
    assert apply and apply[0]["color"] == "success"


def test_a_fit_within_noise_says_keep_yours() -> None:
    result = fit_system(RACING, "multielo", {"k": 1.0}, budget=3, metric="kendall-tau")
    # the same job's result with the current row made equal to the fitted one: a difference of zero
    verdict = dict(result["verdict"])
    same = dict(verdict["better_than_current"]["kendall_tau"], improvement=0.0, low=-0.001, high=0.001)
    same.update(verdict="within noise", words="better than your current settings: not beyond noise (+0.000 ± 0.001)")
    result = dict(result, verdict=dict(verdict, better_than_current={"kendall_tau": same}))
    shown = _text(fit_view(result))
    assert "no real improvement, keep yours" in shown
    apply = [b for b in _buttons(fit_view(result)) if "fitted settings" in str(b.get("children"))]
    assert apply[0]["color"] == "outline-secondary"


def test_a_result_kept_from_before_verdicts_still_shows() -> None:
    result = fit_system(RACING, "multielo", {"k": 1.0}, budget=2, metric="kendall-tau")
    del result["verdict"]
    shown = _text(fit_view(result))
    assert "predict the later games better than your current ones" in shown


def test_compare_shows_intervals_and_whether_the_best_beats_the_runner_up() -> None:
    result = compare_systems({"kind": "sample", "name": "poker"}, budget=7, metric="kendall-tau")
    for row in result["rows"]:
        tuned = row["verdict"]["tuned"]["kendall_tau"]
        assert tuned["value"] == pytest.approx(row["test"]["kendall_tau"])
        assert tuned["margin"] is None or tuned["margin"] >= 0
        assert row["verdict"]["better_than_defaults"]["kendall_tau"]["against"] == "the defaults"
    shown = _text(compare_view(result))
    assert "than the runner-up" in shown
    assert shown.count(" ± ") >= 4 * len(result["rows"])  # three figures and the verdict against the defaults


def test_a_fit_searches_the_season_rule_only_when_asked() -> None:
    plain = fit_system(RACING, "multielo", {"k": 32.0}, budget=2, metric="kendall-tau")
    assert plain["fitted"].get("season_days") is None  # not searched: as it is (no seasons)
    with_seasons = fit_system(RACING, "multielo", {"k": 32.0}, budget=3, metric="kendall-tau", seasons=True)
    fitted = with_seasons["fitted"]
    assert fitted["season_days"] is not None and 7.0 <= fitted["season_days"] <= 730.0
    assert 0.0 <= fitted["season_shrink"] <= 1.0
    # the verdict still compares with the settings in use (no seasons) on the same held-out games
    assert with_seasons["current_test"]["kendall_tau"] == plain["current_test"]["kendall_tau"]


def test_a_fit_can_judge_the_later_games_with_ratings_started_afresh() -> None:
    """The Fit tab's "started afresh" switch: every row is scored on the later games rated on their own, and the
    view says so (the figures themselves are checked against ratings.metrics.evaluate in tests/test_tune.py)."""
    carried = fit_system(RACING, "multielo", {"k": 32.0}, budget=2, metric="kendall-tau")
    fresh = fit_system(RACING, "multielo", {"k": 32.0}, budget=2, metric="kendall-tau", held_out_start="fresh")
    assert (carried["held_out_start"], fresh["held_out_start"]) == ("carried", "fresh")
    # the same current settings, scored two ways: a list reset at the cut calls more of the later pairs wrong
    assert fresh["current_test"]["kendall_tau"] > carried["current_test"]["kendall_tau"]
    assert "(ratings started afresh there)" in _text(fit_view(fresh))
    assert "afresh" not in _text(fit_view(carried))
