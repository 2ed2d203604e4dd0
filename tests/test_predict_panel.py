"""Win probabilities, the metrics panel and the score function as pure functions and figures."""

from __future__ import annotations

import math

import numpy as np
import pytest

import figures
from layouts.predict import metrics_table
from ratings import SYSTEM_NAMES, GameHistory, create
from ratings.metrics import Evaluation
from sources import predictions

# Ann beat Bo once.
HISTORY = GameHistory.from_records(
    [
        {"game": 1, "date": "2024-01-01", "player": "Ann", "place": 1},
        {"game": 1, "date": "2024-01-01", "player": "Bo", "place": 2},
        {"game": 2, "date": "2024-01-08", "player": "Cy", "place": 1},
        {"game": 2, "date": "2024-01-08", "player": "Di", "place": 2},
        {"game": 2, "date": "2024-01-08", "player": "Ann", "place": 3},
    ]
)


def test_two_player_chance_is_the_elo_expected_score() -> None:
    # Multiplayer Elo defaults (K=32, D=400, start 1000): after game 1 Ann has 1016 and Bo 984 (+-16, Cunningham 2021
    # eq. 7 for two equals).  Game 2 moves Ann again, so take a history with game 1 only.  Two players under
    # Plackett-Luce with weights 10^(R/D) give the classic Elo expectation:
    # P(Ann first) = 1 / (1 + 10^((984 - 1016) / 400)) = 1 / (1 + 10^-0.08) = 1 / 1.8317638 = 0.5459219.
    one = HISTORY.with_games(HISTORY.games[:1])
    run = create("multielo").rate(one)
    players, probs = predictions.win_probabilities(run, "multielo", {}, ["Ann", "Bo"])
    assert players == ["Ann", "Bo"]
    assert probs[0, 0] == pytest.approx(0.5459219, abs=1e-7)
    assert probs[1, 0] == pytest.approx(1 - 0.5459219, abs=1e-7)


@pytest.mark.parametrize("system", SYSTEM_NAMES)
def test_every_row_and_column_sums_to_one(system: str) -> None:
    run = create(system).rate(HISTORY)
    _, probs = predictions.win_probabilities(run, system, {}, ["Ann", "Bo", "Cy", "Di"])
    assert probs.shape == (4, 4)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-6)


def test_bad_picks_say_why() -> None:
    run = create("multielo").rate(HISTORY)
    with pytest.raises(ValueError, match="at least two"):
        predictions.win_probabilities(run, "multielo", {}, ["Ann", "Ann"])
    with pytest.raises(ValueError, match="not in this history: Zed"):
        predictions.win_probabilities(run, "multielo", {}, ["Ann", "Zed"])
    with pytest.raises(ValueError, match=f"at most {predictions.MAX_PLAYERS}"):
        predictions.win_probabilities(run, "multielo", {}, [f"p{i}" for i in range(predictions.MAX_PLAYERS + 1)])


def test_default_pick_keeps_known_players_else_the_top_of_the_leaderboard() -> None:
    run = create("multielo").rate(HISTORY)
    assert figures.default_pick(run, ["Di", "Zed"]) == ["Di"]
    top = figures.default_pick(run, None, count=2)
    # Cy won game 2 against Di and Ann; Ann is 1016 - x after losing to both; Cy leads.
    assert top[0] == "Cy" and len(top) == 2


def test_probability_figure_and_rows_show_percentages() -> None:
    probs = np.array([[0.75, 0.25], [0.25, 0.75]])
    fig = figures.probability_figure(["Ann", "Bo"], probs, system_title="Test")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), [[75.0, 25.0], [25.0, 75.0]])
    assert list(fig.data[0].x) == ["1st", "2nd"]
    rows = figures.probability_rows(["Ann", "Bo"], probs)
    # expected place = 1 * 0.75 + 2 * 0.25 = 1.25 (and 1.75 for Bo)
    assert rows[0] == {"player": "Ann", "1st": 75.0, "2nd": 25.0, "expected place": 1.25, "total": 100.0}
    assert rows[1]["expected place"] == pytest.approx(1.75)


@pytest.mark.parametrize(
    ("k", "name"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (21, "21st")]
)
def test_place_names(k: int, name: str) -> None:
    assert figures.place_name(k) == name


def test_score_function_figure_draws_the_base_and_the_linear_scores() -> None:
    # Cunningham 2021, eq. 6, by hand for N = 3: linear (N - p) / (N (N - 1) / 2) = 2/3, 1/3, 0;
    # base 2: (2^(N-p) - 1) / sum = (3, 1, 0) / 4 = 0.75, 0.25, 0.
    fig = figures.score_function_figure(3, 2.0)
    by_name = {t.name: list(t.y) for t in fig.data}
    assert by_name["linear (base 1)"] == pytest.approx([2 / 3, 1 / 3, 0.0])
    assert by_name["base 2"] == pytest.approx([0.75, 0.25, 0.0])
    only = figures.score_function_figure(3, 1.0)
    assert [t.name for t in only.data] == ["base 1 (linear)"]


def test_score_view_uses_the_multielo_base_and_clamps_the_size() -> None:
    fig, note = figures.score_view("multielo", {"base": 1.5}, "40")
    assert len(fig.data[-1].y) == 20 and "base 1.5" in note
    fig, note = figures.score_view("trueskill", {}, None)
    assert len(fig.data[-1].y) == 6 and "not multiplayer Elo" in note


def test_metric_verdicts_follow_each_metrics_direction() -> None:
    # Kendall tau and rank deviation: lower is better; pair inversion: higher is better (ratings.metrics docs).
    now = Evaluation(kendall_tau=0.30, pair_inversion=0.60, rank_deviation=0.25, pairs=10, games=3)
    base = Evaluation(kendall_tau=0.40, pair_inversion=0.70, rank_deviation=0.25, pairs=10, games=3)
    rows = figures.metrics_rows(now, base)
    assert [(r["metric"], r["verdict"]) for r in rows] == [
        ("Pairs called wrong (Kendall tau distance)", "better"),
        ("Opponents called right (pair inversion)", "worse"),
        ("Places off (rank deviation)", "same"),
    ]
    lonely = Evaluation(kendall_tau=math.nan, pair_inversion=0.5, rank_deviation=0.5, pairs=0, games=0)
    assert figures.metrics_rows(lonely, base)[0]["verdict"] is None
    assert all(r["baseline"] is None for r in figures.metrics_rows(now))


def test_graph_config_names_the_png() -> None:
    config = figures.graph_config("win probabilities: poker/1")
    assert config["toImageButtonOptions"] == {"format": "png", "filename": "win-probabilities-poker-1", "scale": 2}


def test_metrics_are_worded_so_the_better_direction_reads_right() -> None:
    now = Evaluation(kendall_tau=0.30, pair_inversion=0.60, rank_deviation=0.25, pairs=10, games=3)
    table = metrics_table(figures.metrics_rows(now), games=3, pairs=10, baseline_label=None)
    rows = table.children[0].children[1].children
    words = [(row.children[0].children, row.children[-1].children) for row in rows]
    assert words == [
        ("Pairs called wrong (Kendall tau distance)", "fewer is better"),
        ("Opponents called right (pair inversion)", "more is better"),
        ("Places off (rank deviation)", "fewer is better"),
    ]
