"""Floating-point rounding shown as a change: every display of a change reads it as 0 (ratings.numerics.without_noise).

The expected texts are derived by hand in the comments: a double between 2^k and 2^(k+1) has a last-place unit
(ulp) of 2^(k-52), so 80.00000000000007 and 80.00000000000006 (two neighbouring doubles in [64, 128)) differ by
2^-46 = 1.421e-14, and 9016 and the double just below it (in [8192, 16384)) by 2^-39 = 1.819e-12.  The rule: a
change no larger than 1e-9 of the largest number it comes from or stands beside is rounding.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import figures
from ratings import GameHistory, RatingRun, create
from ratings.explain import Explanation, Moved, Term, explain
from ratings.numerics import NOISE, without_noise
from ratings.samples import load_sample
from ratings.stats import player_stats


def test_without_noise_by_hand():
    ulp_80 = 80.00000000000006 - 80.00000000000007
    assert ulp_80 == -(2.0**-46)  # neighbours in [64, 128)
    # 1.4e-14 <= 1e-9 x 80 = 8e-8: rounding; 0.5 and 9e-8 are not; with nothing to compare with, nothing is noise
    assert without_noise([ulp_80, 0.5, 9e-8, 8e-8], 80.0).tolist() == [0.0, 0.5, 9e-8, 0.0]
    assert without_noise(1e-300, 0.0).tolist() == 1e-300
    assert NOISE == 1e-9


def test_uncertainty_at_its_limit_reads_0_in_the_explanation_table():
    # Elo-MMR's sigma settles at its limit 80: one game moves it from 80.00000000000007 to 80.00000000000006.
    e = Explanation(
        "Marta",
        121,
        1500.0,
        1472.37,
        (),
        (
            Moved("mu", 1500.0, 1472.37),
            Moved("sigma", 80.00000000000007, 80.00000000000006),
            Moved("shown rating", 1500.0, 1472.37),
        ),
        (),
    )
    rows = figures.explanation_rows(e, figures.Scale())
    assert rows == [
        {"part": "mu", "before": "1,500", "after": "1,472.4", "change": "−27.63"},
        {"part": "sigma", "before": "80", "after": "80", "change": "0"},  # was "−1.421e−14"
        {"part": "shown rating", "before": "1,500", "after": "1,472.4", "change": "−27.63"},
    ]
    # a real change as small as 1e-6 of the uncertainty stays: 79.99992 - 80 = -8e-5 to four digits
    small = dataclasses.replace(e, moved=(Moved("sigma", 80.0, 79.99992),))
    assert figures.explanation_rows(small, figures.Scale())[0]["change"] == "−8e−05"


def test_a_term_that_is_rounding_reads_0_and_so_does_the_total():
    # Multiplayer Elo, K 32, N 4, all at 1000: 2K/N = 16; Bob +8 (ahead, 1/2 expected), Cid -8 (behind); against
    # Dee a tie whose expected score came out as 0.49999999999999994 (1/2 - 2^-54): 16 x 2^-54 = 8.9e-16.  The
    # total 1000 + 8 - 8 + 8.9e-16 is 1000 and 1 ulp (2^-43 = 1.137e-13) in a replay that summed otherwise.
    tie = 16 * 2.0**-54
    e = Explanation(
        "Ann",
        0,
        1000.0,
        float(np.nextafter(1000.0, 2000.0)),
        (
            Term("Bob", "opponent", 8.0, "ahead", 0.5),
            Term("Cid", "opponent", -8.0, "behind", 0.5),
            Term("Dee", "opponent", tie, "tie", 0.5 - 2.0**-54),
        ),
        (),
        (),
    )
    rows = figures.explanation_rows(e, figures.Scale())
    assert [(r["part"], r["change"]) for r in rows] == [("Bob", "+8"), ("Cid", "−8"), ("Dee", "0"), ("total", "0")]
    # on the points scale (factor 200) the rule is the same: rounding scaled is still rounding
    points = figures.explanation_rows(e, figures.Scale(1500.0, 200.0, "points"))
    assert [r["change"] for r in points] == ["+1,600", "−1,600", "0", "0"]


def test_the_bundled_sample_case_elo_mmr_poker_game_122():
    # The case a user met: poker sample, Elo-MMR defaults, game 122, Marta: her uncertainty at the limit 80.
    run = create("elo-mmr").rate(load_sample("poker"))
    e = explain(run, 121, "Marta")
    sigma = next(r for r in figures.explanation_rows(e, figures.Scale()) if r["part"] == "sigma")
    assert sigma == {"part": "sigma", "before": "80", "after": "80", "change": "0"}
    assert "the uncertainty by 0." in e.notes[0]  # a change of 0 reads 0, as in the table


def rounding_run() -> RatingRun:
    """Two duels, Ann beats Bob twice; ratings by hand on a Rank Points-like scale (around 9000).

    g1: Ann 9000 -> 9016, Bob 8000 -> 7984.  g2: Ann 9016 -> the double just below 9016 (-2^-39 = -1.819e-12, the
    winner "losing" by rounding), Bob 7984 -> 7984.
    """
    h = GameHistory.from_records(
        [
            {"game": "g1", "player": "Ann", "place": 1},
            {"game": "g1", "player": "Bob", "place": 2},
            {"game": "g2", "player": "Ann", "place": 1},
            {"game": "g2", "player": "Bob", "place": 2},
        ]
    )
    run = create("multielo").rate(h)
    below = float(np.nextafter(9016.0, 0.0))
    assert 9016.0 - below == 2.0**-39
    before = np.array([9000.0, 8000.0, 9016.0, 7984.0])
    after = np.array([9016.0, 7984.0, below, 7984.0])
    return dataclasses.replace(run, before=before, after=after, final=np.array([below, 7984.0]))


def test_every_display_of_a_change_reads_rounding_as_0():
    run = rounding_run()
    scale = figures.Scale()
    # the games list: "Ann 0, Bob 0" (was "Ann −1.819e−12, Bob 0"); the player's column 0.0
    assert figures.game_rows(run, [1], scale)[0]["changes"] == "Ann 0, Bob 0"
    assert figures.game_rows(run, [1], scale, "Ann")[0]["change"] == 0.0
    # the leaderboard's last change (was -1.819e-12, which the grid shows in red as −0.00000000000182)
    board = {r["player"]: r["last_change"] for r in figures.leaderboard_rows(run)}
    assert board == {"Ann": 0.0, "Bob": 0.0}
    # one game's bars: labels, hover and colour
    bars = figures.game_change_values(run, 1)
    assert bars.change.tolist() == [0.0, 0.0]
    assert bars.text == ["+0", "+0"]
    assert "9,016 → 9,016 (0)" in bars.hovertext[0]
    assert bars.colors[0] == figures.POSITIVE
    # the winner did not lose: no oddity (1.819e-12 was past the old absolute 1e-12)
    assert figures.oddities(run).tolist() == [False, False, False, False]
    heat = figures.change_heatmap(run, ["Ann", "Bob"])
    assert np.asarray(heat.data[0].z, dtype=float)[0].tolist() == [16.0, 0.0]
    assert len(heat.data[1].x) == 0
    # the trajectory's and the player page's hovers
    trajectory = figures.trajectory_figure(run, ["Ann"])
    assert list(trajectory.data[0].hovertext) == ["+16", "0"]
    stats = player_stats(run, "Ann")
    assert stats is not None
    hover = figures.player_figure(stats, scale).data[0].hovertext
    assert hover[1].endswith("change 0")


@pytest.mark.parametrize("system", ["multielo", "pairwise-elo", "plackett-luce", "trueskill", "glicko2", "elo-mmr"])
def test_no_explanation_of_a_sample_shows_a_change_below_the_noise_rule(system):
    # Every participant of every poker game: no change text in the table is nonzero and smaller than
    # 1e-9 of the numbers of its row (a displayed 4-digit change has an exponent; read it back).
    history = load_sample("poker")
    run = create(system).rate(history)
    scale = figures.scale_for(run)
    for g in range(history.n_games):
        s = history.game_slice(g)
        for p in history.flat_player[s]:
            for row in figures.explanation_rows(explain(run, g, history.players[p]), scale):
                value = float(row["change"].replace("−", "-"))
                others = [float(row[k].replace(",", "")) for k in ("before", "after") if k in row]
                assert value == 0.0 or abs(value) > NOISE * max([1.0, *map(abs, others)]) / 2
