"""Parameter search (ratings.tune) and its command line: honest by construction, and it finds what generated the data.

The synthetic world: players' true skills start equal and move by Kerby's exponential-model update with a known
learning rate eta0 after every game, whose order is drawn from that same model (exponential performances with mean
exp(skill), Kerby, "Multiplayer generalizations of Elo rating system", 2025, section 3.2.2).  The update is written
out here by hand from the model's likelihood, independently of ratings/systems/plackett_luce.py (a first test checks
that the two agree).  In that world, the system with
eta = eta0 tracks the true skills exactly, so the search should come back near eta0.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import numpy as np
import pytest

from ratings import GameHistory, ParameterError, create
from ratings.cli import main
from ratings.tune import cut_index, fit_verdict, held_out_scores, held_out_verdicts, tune

PLAYERS, SIZE = 20, 6


def exponential_model_gradient(ratings: np.ndarray, worst_first: np.ndarray) -> np.ndarray:
    """d log L / d r for a worst-first order: stage i eliminates ``worst_first[i]`` among the players still in,
    with weights lambda = exp(-r), so log L = sum_{i < n-1} [log lambda_i - log sum_{j >= i} lambda_j] and
    d/dr_k = -[k eliminated at a stage] + sum over the stages k took part in of lambda_k / (sum of the weights)."""
    lam = np.exp(-ratings[worst_first])
    g = np.zeros(len(lam))
    for i in range(len(lam) - 1):
        g[i] -= 1.0
        g[i:] += lam[i:] / lam[i:].sum()
    out = np.zeros_like(ratings)
    out[worst_first] = g
    return out


def world(eta0: float, games: int, seed: int = 1) -> tuple[GameHistory, np.ndarray]:
    rng = np.random.default_rng(seed)
    skill = np.zeros(PLAYERS)
    records = []
    for g in range(games):
        who = rng.choice(PLAYERS, size=SIZE, replace=False)
        worst_first = who[np.argsort(rng.exponential(np.exp(skill[who])))]
        for place, p in enumerate(worst_first[::-1], start=1):
            records.append({"game": f"g{g:05d}", "player": f"P{p:02d}", "place": place})
        skill = skill + eta0 * exponential_model_gradient(skill, worst_first)
    return GameHistory.from_records(records), skill


def test_the_world_is_the_model_the_system_implements() -> None:
    history, skill = world(0.4, 200)
    run = create("plackett-luce", eta=0.4, initial=0.0).rate(history)
    final = dict(zip(run.players, run.final, strict=True))
    assert max(abs(final[f"P{i:02d}"] - skill[i]) for i in range(PLAYERS)) < 1e-9


@pytest.mark.slow
def test_the_search_recovers_the_generating_learning_rate_and_beats_the_defaults() -> None:
    found = {}
    fixed = {"initial": 0.0}  # the time rules (a new-player boost, ...) are not searched unless asked
    for eta0 in (0.1, 0.5):
        history, _ = world(eta0, 3000)
        result = tune(history, "plackett-luce", fixed=fixed, budget_seconds=600, max_evaluations=30, train_fraction=0.5)
        found[eta0] = result.params["eta"]
        assert found[eta0] == pytest.approx(eta0, rel=0.35)
        assert len(result.evaluations) == 30 and result.params["initial"] == 0.0  # fixed values are not searched
    assert found[0.1] < found[0.5]
    # far from the default (0.32), the tuned rate predicts the held-out games better than the default
    history, _ = world(0.1, 3000)
    result = tune(history, "plackett-luce", fixed=fixed, budget_seconds=600, max_evaluations=30, train_fraction=0.5)
    assert result.test.kendall_tau < result.default_test.kendall_tau


def test_the_search_never_sees_the_held_out_games() -> None:
    history, _ = world(0.3, 400, seed=7)
    cut = cut_index(history, fraction=0.5)
    # poison every held-out game: reverse its order (and it must change nothing the search chose)
    poisoned = []
    for g, game in enumerate(history.games):
        for e in game.entries:
            place = e.place if g < cut else len(game.entries) + 1 - (e.place or 0)
            poisoned.append({"game": game.id, "player": e.player, "place": place})
    other = GameHistory.from_records(poisoned)
    a = tune(history, "plackett-luce", budget_seconds=600, max_evaluations=12, train_fraction=0.5)
    b = tune(other, "plackett-luce", budget_seconds=600, max_evaluations=12, train_fraction=0.5)
    assert a.params == b.params
    assert [t.train for t in a.evaluations] == [t.train for t in b.evaluations]
    assert a.test.kendall_tau != b.test.kendall_tau  # the held-out part did change


def test_every_evaluation_is_reported_and_the_defaults_come_first() -> None:
    history, _ = world(0.3, 200, seed=3)
    seen = []
    result = tune(history, "multielo", budget_seconds=600, max_evaluations=9, progress=lambda n, best: seen.append(n))
    assert seen == list(range(1, 10)) and len(result.evaluations) == 9
    defaults = {s.name: s.default for s in create("multielo").parameters() if s.name in result.evaluations[0].params}
    assert result.evaluations[0].params == pytest.approx(defaults)
    best = min(t.train for t in result.evaluations if t.train is not None)
    assert result.train.kendall_tau == pytest.approx(best)


def test_a_cancelled_search_stops() -> None:
    history, _ = world(0.3, 200, seed=3)
    result = tune(history, "multielo", budget_seconds=600, stop=lambda: True)
    assert result.evaluations == [] and result.params == {}


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.5, 2.0])
def test_a_cut_must_leave_games_on_both_sides(fraction: float) -> None:
    history, _ = world(0.3, 20)
    with pytest.raises(ParameterError):
        cut_index(history, fraction=fraction)


def test_cli_tune_json_has_the_promised_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "sample:poker", "--system", "plackett-luce", "--budget", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"params", "train", "test", "default_train", "default_test", "evaluations", "held_out"} <= set(result)
    assert result["evaluations"] and "eta" in result["params"]
    held = result["held_out"]
    # sample:poker has 150 games; the search sees the first 30% (45), the other 105 are held out
    assert held["bootstrap"] == {"games": 105, "samples": 2000, "seed": 0, "level": 0.95}
    for metric in ("kendall_tau", "pair_inversion", "rank_deviation"):
        assert held["tuned"][metric]["value"] == result["test"][metric]
        assert held["defaults"][metric]["value"] == result["default_test"][metric]
        versus = held["better_than_defaults"][metric]
        assert set(versus) == {"against", "improvement", "margin", "low", "high", "verdict", "words"}
        assert versus["words"].startswith("better than the defaults: ")
        sign = 1 if metric != "pair_inversion" else -1
        assert versus["improvement"] == pytest.approx(sign * (result["default_test"][metric] - result["test"][metric]))
    assert held["better_than_best"] == {}  # one system: no other row to beat


def test_verdicts_are_paired_and_say_so_in_words() -> None:
    history, _ = world(0.1, 600, seed=4)
    result = tune(history, "plackett-luce", fixed={"initial": 0.0}, max_evaluations=6, train_fraction=0.5)
    verdict = held_out_verdicts([result], samples=500)[0]
    c = verdict.versus_defaults["kendall_tau"]
    assert c.improvement == pytest.approx(result.default_test.kendall_tau - result.test.kendall_tau, rel=1e-12)
    # the paired interval of the difference is narrower than the interval of either figure alone
    assert 0 < c.margin < verdict.tuned["kendall_tau"].margin
    assert c.words().startswith("better than the defaults: ")
    assert held_out_verdicts([result], samples=500)[0] == verdict  # seeded
    # one system against itself under another name: a difference of exactly zero, never "better"
    twin = dataclasses.replace(result, system="twin")
    both = held_out_verdicts([result, twin], samples=500)
    for v in both:
        assert v.versus_best["kendall_tau"].improvement == 0.0
        assert v.versus_best["kendall_tau"].verdict == "within noise"


def test_cli_compare_lists_every_system(capsys: pytest.CaptureFixture[str]) -> None:
    from ratings import SYSTEM_NAMES

    assert main(["compare", "sample:poker", "--budget", "7"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert table[0][:6] == [
        "system",
        "tuned parameters",
        "kendall tau",
        "kendall tau ± (95%)",
        "kendall tau vs defaults",
        "kendall tau vs best",
    ]
    assert [row[0] for row in table[1:]] == list(SYSTEM_NAMES)
    column = table[0].index("pair inversion vs best")
    best = [row for row in table[1:] if row[column].startswith("better than the runner-up (")]
    others = [row for row in table[1:] if row[column].startswith("better than the best (")]
    assert len(best) == 1 and len(others) == len(SYSTEM_NAMES) - 1
    assert all(row[column - 1].startswith("better than the defaults: ") for row in table[1:])


def test_cli_evaluate_on_the_later_games_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "sample:poker", "--json"]) == 0
    everything = json.loads(capsys.readouterr().out)
    assert main(["evaluate", "sample:poker", "--test-fraction", "0.5", "--json"]) == 0
    later = json.loads(capsys.readouterr().out)
    assert later["first_game"] == 75 and later["games"] < everything["games"]
    assert "intervals" not in everything  # the whole history: no held-out part
    assert set(later["intervals"]) == {"kendall_tau", "pair_inversion", "rank_deviation"}
    assert later["intervals"]["kendall_tau"]["value"] == later["kendall_tau"]
    assert later["intervals"]["kendall_tau"]["margin"] > 0
    assert later["bootstrap"]["games"] == 75
    assert main(["evaluate", "sample:poker", "--from", "not-a-date"]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--burn-in", "1", "is not at least 0 and below 1"),
        ("--burn-in", "-0.1", "is not at least 0 and below 1"),
        ("--min-prior-games", "-1", "is not a whole number"),
        ("--min-prior-games", "2.5", "is not a whole number"),
        ("--equal-ratings", "maybe", "invalid choice"),
    ],
)
def test_cli_scoring_options_refuse_bad_values(
    capsys: pytest.CaptureFixture[str], option: str, value: str, says: str
) -> None:
    assert main(["evaluate", "sample:poker", option, value]) == 2
    assert says in capsys.readouterr().err


def test_a_fit_against_settings_equal_to_the_fitted_ones_is_never_called_better() -> None:
    """fit_verdict pairs the rows game by game: the same settings as "current" differ by exactly zero."""
    history, _ = world(0.1, 600, seed=4)
    result = tune(history, "plackett-luce", fixed={"initial": 0.0}, max_evaluations=6, train_fraction=0.5)
    same = held_out_scores(history, "plackett-luce", result.params, result.cut)
    verdict = fit_verdict(result, same, samples=400)
    c = verdict.versus_current["kendall_tau"]
    assert c.improvement == 0.0 and c.margin == 0.0 and c.verdict == "within noise"
    assert verdict.current["kendall_tau"] == verdict.tuned["kendall_tau"]
    # the row against the defaults is the same comparison held_out_verdicts makes (one bootstrap, same seed)
    alone = held_out_verdicts([result], samples=400)[0]
    assert verdict.versus_defaults["kendall_tau"] == alone.versus_defaults["kendall_tau"]
    assert fit_verdict(result, None, samples=400).versus_current == {}


def test_a_fit_far_from_the_current_settings_is_better_beyond_noise() -> None:
    """The world is generated with eta 0.1 (test_the_world_is_the_model_the_system_implements): settings a tenth
    of it barely move and predict the later games worse than the tuned ones, by more than the interval."""
    history, _ = world(0.1, 1500, seed=5)
    result = tune(history, "plackett-luce", fixed={"initial": 0.0}, max_evaluations=12, train_fraction=0.5)
    slow = held_out_scores(history, "plackett-luce", {"initial": 0.0, "eta": 0.01}, result.cut)
    c = fit_verdict(result, slow, samples=400).versus_current["kendall_tau"]
    assert c.improvement == pytest.approx(slow.evaluation().kendall_tau - result.test.kendall_tau, rel=1e-12)
    assert c.verdict == "better", c.words()
    assert c.words().startswith("better than your current settings: yes, by ")


def test_held_out_games_scored_with_ratings_started_afresh_at_the_cut() -> None:
    """``held_out_start="fresh"``: the held-out figures are those of the later games rated on their own (every player
    a newcomer at the cut), as :func:`ratings.metrics.evaluate` scores such a run; the search is the same."""
    from ratings.metrics import evaluate
    from ratings.samples import load_sample

    history = load_sample("racing")
    carried = tune(history, "multielo", max_evaluations=4, train_fraction=0.5)
    fresh = tune(history, "multielo", max_evaluations=4, train_fraction=0.5, held_out_start="fresh")
    assert fresh.params == carried.params and fresh.train == carried.train  # the search never sees the cut's other side
    later = GameHistory(history.games[fresh.cut :])
    for result, params in ((fresh.test, fresh.params), (fresh.default_test, {})):
        alone = evaluate(create("multielo", **params).rate(later))
        for metric in ("kendall_tau", "pair_inversion", "rank_deviation"):
            assert getattr(result, metric) == pytest.approx(getattr(alone, metric), rel=1e-12)
    # a list reset at the cut knows nobody: it predicts the later races worse than ratings carried through
    assert fresh.default_test.kendall_tau > carried.default_test.kendall_tau
    assert fresh.as_dict()["held_out_start"] == "fresh" and carried.held_out_start == "carried"
    scores = held_out_scores(history, "multielo", fresh.params, fresh.cut, start="fresh")
    assert scores.evaluation().kendall_tau == pytest.approx(fresh.test.kendall_tau, rel=1e-12)
    with pytest.raises(ParameterError, match="held_out_start"):
        tune(history, "multielo", max_evaluations=1, held_out_start="afresh")


def test_cli_tune_searches_seasons_and_scores_afresh_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    # the search evaluates its starting point (the defaults, no season shrink) before it looks at the clock
    argv = ["tune", "sample:racing", "--system", "multielo", "--budget", "1", "--json", "--seasons"]
    assert main([*argv, "--held-out-start", "fresh", "--train-fraction", "0.5"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["held_out_start"] == "fresh"
    assert {"season_days", "season_shrink"} <= set(result["params"])  # the season rule was searched
    assert main(["tune", "sample:poker", "--held-out-start", "sometimes"]) == 2


def test_the_time_rules_are_searched_only_when_asked() -> None:
    """The time-aware dynamics (ParamSpec.time_rule) stay out of the search unless ``dynamics=True``, as the season
    rule does; the system's own numbers are searched either way."""
    from ratings import get_system
    from ratings.tune import searchable

    for system in ("multielo", "trueskill", "elo-mmr", "glicko2"):
        rules = {s.name for s in get_system(system).parameters() if s.time_rule}
        plain = {s.name for s in searchable(system)}
        asked = {s.name for s in searchable(system, dynamics=True)}
        assert not plain & rules and rules <= asked and asked - rules == plain
    assert {s.name for s in get_system("multielo").parameters() if s.time_rule} == {
        "boost",
        "boost_games",
        "forget_per_day",
        "pull_per_day",
    }
    assert {s.name for s in get_system("trueskill").parameters() if s.time_rule} == {"tau_day"}
    assert {s.name for s in get_system("elo-mmr").parameters() if s.time_rule} == {"drift_per_day"}
    history = GameHistory(load_racing().games[:300])
    result = tune(history, "trueskill", max_evaluations=3, dynamics=True)
    assert "tau_day" in result.params
    assert "tau_day" not in tune(history, "trueskill", max_evaluations=3).params


def load_racing() -> GameHistory:
    from ratings.samples import load_sample

    return load_sample("racing")
