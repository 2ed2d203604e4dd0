"""Seasons as a rating rule (issue 27 item 2): ``season_days`` and ``season_shrink``, declared once for every system.

References: a hand derivation of two-player Elo (K = 32, D = 400: a win between equals moves each rating by
K * (1 - 0.5) = 16, Elo 1978) for the shrink; for a full reset, each season rated on its own as a separate history
(the season VIEW, ratings.seasons.restrict, an independent path through the code); and each system's per-game
reference path for its compiled kernel.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ratings import SYSTEM_NAMES, GameHistory, ParameterError, create
from ratings.seasons import Season, restrict, season_starts

DAY0 = dt.date(2024, 1, 1)


def _day(n: int) -> dt.date:
    return DAY0 + dt.timedelta(days=n)


def _two_games(second_day: int) -> GameHistory:
    return GameHistory.from_records(
        [
            {"game": "g1", "player": "Ann", "place": 1, "date": _day(0)},
            {"game": "g1", "player": "Bob", "place": 2, "date": _day(0)},
            {"game": "g2", "player": "Ann", "place": 1, "date": _day(second_day)},
            {"game": "g2", "player": "Bob", "place": 2, "date": _day(second_day)},
        ]
    )


@pytest.mark.parametrize(
    ("shrink", "ann", "bob"),
    [(1.0, 1000.0, 1000.0), (0.5, 1008.0, 992.0), (0.25, 1012.0, 988.0), (0.0, 1016.0, 984.0)],
)
def test_a_season_start_shrinks_every_rating_toward_the_initial_one(shrink: float, ann: float, bob: float) -> None:
    # after game 1 Ann has 1016 and Bob 984 (16 each way); game 2 on day 10 opens the second 7-day season
    run = create("multielo", k=32.0, d=400.0, season_days=7.0, season_shrink=shrink).rate(_two_games(10))
    assert run.after[:2].tolist() == pytest.approx([1016.0, 984.0])
    assert run.before[2:].tolist() == pytest.approx([ann, bob])
    # the same game 2 days after the first stays in the first season: no shrink
    same = create("multielo", k=32.0, d=400.0, season_days=7.0, season_shrink=shrink).rate(_two_games(2))
    assert same.before[2:].tolist() == pytest.approx([1016.0, 984.0])


def _dated_history(seed: int, games: int = 240, undated_every: int = 17) -> GameHistory:
    rng = np.random.default_rng(seed)
    records = []
    for g in range(games):
        who = rng.choice(12, size=int(rng.integers(2, 6)), replace=False)
        day = None if g % undated_every == 0 and g else _day(int(g * 1.5))
        for i, p in enumerate(who):
            place = i + 1 if rng.random() > 0.1 else None
            records.append({"game": f"g{g:04d}", "player": f"P{p:02d}", "place": place, "date": day})
    return GameHistory.from_records(records)


@pytest.mark.parametrize("system", ["multielo", "pairwise-elo", "plackett-luce", "thurstonian", "trueskill"])
def test_a_full_reset_rates_each_season_as_a_history_of_its_own(system: str) -> None:
    """Systems whose whole state is the rating (and TrueSkill's mu and sigma) start each season afresh."""
    history = GameHistory.from_records(
        [
            {"game": g.id, "player": e.player, "place": e.place, "date": g.date}
            for g in _dated_history(3, undated_every=10**9).games
            for e in g.entries
        ]
    )
    run = create(system, season_days=60.0, season_shrink=1.0).rate(history)
    starts = season_starts(np.array([d.toordinal() for d in history.dates]), 60.0)
    assert len(starts) >= 4
    edges = [0, *starts.tolist(), history.n_games]
    for a, b in zip(edges, edges[1:], strict=False):
        alone = create(system).rate(restrict(history, Season(start=history.dates[a], end=history.dates[b - 1])))
        got = run.after[history.offsets[a] : history.offsets[b]]
        assert np.allclose(got, alone.after, rtol=0, atol=1e-9), f"season from game {a}"


@pytest.mark.parametrize("system", SYSTEM_NAMES)
@pytest.mark.parametrize("shrink", [1.0, 0.4])
def test_the_kernel_agrees_with_the_reference_path_with_seasons(system: str, shrink: float) -> None:
    history = _dated_history(5)
    rule = create(system, season_days=30.0, season_shrink=shrink)
    kernel, reference = rule.rate(history), rule.rate_per_game(history)
    assert np.allclose(kernel.before, reference.before, rtol=0, atol=1e-9)
    assert np.allclose(kernel.after, reference.after, rtol=0, atol=1e-9)
    plain = create(system).rate(history)
    assert not np.allclose(kernel.after, plain.after)  # the rule did something
    # a run resumed after appended games equals the whole replay (checkpoints taken before a season's start)
    head = GameHistory(history.games[:150])
    resumed = rule.rate(history, resume=rule.rate(head))
    assert np.array_equal(resumed.after, kernel.after)


@pytest.mark.parametrize("system", SYSTEM_NAMES)
def test_no_shrink_or_no_length_changes_nothing(system: str) -> None:
    history = _dated_history(7)
    plain = create(system).rate(history)
    for rule in (create(system, season_days=30.0, season_shrink=0.0), create(system, season_shrink=0.5)):
        assert np.array_equal(rule.rate(history).after, plain.after)


def test_season_starts_follow_the_dated_games() -> None:
    days = np.array([10, 12, -1, 17, 16, 25, -1, 40])  # -1: undated; 16 comes after 17 in the file
    # seasons of 7 days from day 10: [10, 17), [17, 24), [24, 31), [31, 38), [38, 45)
    assert season_starts(days, 7.0).tolist() == [3, 5, 7]
    assert season_starts(days, None).tolist() == []
    assert season_starts(np.array([-1, -1, -1]), 7.0).tolist() == []


@pytest.mark.parametrize(("name", "value"), [("season_days", 0.5), ("season_days", -3.0), ("season_shrink", 1.5)])
def test_the_season_rule_refuses_values_it_cannot_mean(name: str, value: float) -> None:
    with pytest.raises(ParameterError, match=name):
        create("trueskill", **{name: value})


def test_every_system_declares_the_season_rule_after_its_own_parameters() -> None:
    for system in SYSTEM_NAMES:
        names = [s.name for s in create(system).parameters()]
        assert names[-2:] == ["season_days", "season_shrink"], system


def test_the_search_varies_the_season_rule_only_when_asked() -> None:
    from ratings.tune import searchable, tune

    assert not {s.name for s in searchable("multielo")} & {"season_days", "season_shrink"}
    history = _dated_history(9, games=300)
    result = tune(history, "multielo", max_evaluations=6, seasons=True, train_fraction=0.5)
    first = result.evaluations[0].params
    assert first["season_shrink"] == 0.0  # the search starts from the rule's no-op
    # ... whose training figure is the plain system's (the same ratings)
    plain = tune(history, "multielo", max_evaluations=1, train_fraction=0.5)
    assert result.evaluations[0].train == plain.evaluations[0].train
    assert {"season_days", "season_shrink"} <= set(result.params)
