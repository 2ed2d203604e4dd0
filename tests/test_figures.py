"""Figure and table builders as pure functions (no browser).

Expected numbers are hand derivations written next to them: with K=32 and D=400 a two-player game
between equal ratings is classic Elo, a change of K/2 = 16 for each player (Cunningham 2021, eq. 7 with N=2,
S=1 or 0, E=1/2).

Sources: Cunningham 2021: Danny Cunningham, "Developing a Generalized Elo Rating System for Multiplayer Games", Towards
Data Science, 2021 (equation numbers are the article's).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math

import numpy as np
import plotly.graph_objects
import plotly.io
import pytest

import figures
from ratings import GameHistory, create


def _history(rows: list[tuple[str, str, object]], dates: dict[str, str] | None = None) -> GameHistory:
    dates = dates or {}
    return GameHistory.from_records([{"game": g, "player": p, "place": pl, "date": dates.get(g)} for g, p, pl in rows])


@pytest.fixture
def duel_run():
    rows = [
        # game player place
        ("1", "Ann", 1),
        ("1", "Bob", 2),
        ("2", "Ann", 1),
        ("2", "Cid", 2),
    ]
    history = _history(rows, {"1": "2024-01-05", "2": "2024-01-12"})
    return create("multielo", k=32.0, d=400.0).rate(history)


def test_one_trace_per_player_and_dashed_initial_line(duel_run):
    fig = figures.trajectory_figure(duel_run, ["Ann", "Bob"])
    assert [t.name for t in fig.data] == ["Ann", "Bob"]
    assert all(t.line.dash in (None, "solid") for t in fig.data)
    # Ann played both games, Bob one: one point per game played, at game numbers 1, 2 and 1.
    assert list(fig.data[0].x) == [1, 2]
    assert list(fig.data[1].x) == [1]
    # Game 1: equal ratings 1000, K=32 -> Ann 1016, Bob 984 (hand derivation above).
    assert fig.data[0].y[0] == pytest.approx(1016.0)
    assert fig.data[1].y[0] == pytest.approx(984.0)
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(lines) == 1 and lines[0].line.dash == "dash"
    assert lines[0].y0 == pytest.approx(1000.0) == lines[0].y1
    assert fig.layout.yaxis.title.text == "Elo points"


def test_a_short_history_has_a_tick_at_every_game_and_none_between(duel_run):
    """Two games: plotly's own ticks fell at 1, 1.2, 1.4 ... (seen on a group's page); a game number is whole."""
    for fig in (figures.trajectory_figure(duel_run, ["Ann", "Bob"]), figures.change_heatmap(duel_run, ["Ann"])):
        assert (fig.layout.xaxis.tick0, fig.layout.xaxis.dtick) == (1, 1)
        assert fig.layout.xaxis.title.text == "game number"
    long = _history([(str(g), p, place) for g in range(1, 12) for place, p in enumerate(("Ann", "Bob"), 1)])
    fig = figures.trajectory_figure(create("multielo").rate(long), ["Ann"])
    assert fig.layout.xaxis.dtick is None  # eleven games: plotly's whole-number ticks
    assert figures.trajectory_figure(duel_run, ["Ann"], by_date=True).layout.xaxis.dtick is None


def test_hover_names_game_place_and_change(duel_run):
    fig = figures.trajectory_figure(duel_run, ["Bob"])
    trace = fig.data[0]
    # Game 1: Bob lost to Ann from equal ratings, -16 by the hand derivation above.  The words are in the
    # template once per trace; per point only the game's name, [game index, place, field size] and the change.
    assert trace.hovertemplate == (
        "<b>Bob</b><br>%{text}<br>place %{customdata[1]} of %{customdata[2]}, change %{hovertext}"
        "<br>rating %{y:,.5~r}<extra></extra>"  # d3: five significant digits, never an exponent
    )
    assert list(trace.text) == ["Game 1, 2024-01-05"]
    assert [list(c) for c in trace.customdata] == [[0, 2, 2]]  # the game index first: a click selects it
    assert list(trace.hovertext) == ["−16"]
    # dcc.Graph copies a clicked point's customdata from the figure as sent; a binary-encoded array
    # ({"dtype", "bdata"}) would reach the click callback without it (issue 11, item 2).
    sent = json.loads(fig.to_json())["data"][0]["customdata"]
    assert sent == [[0, 2, 2]]


def test_a_did_not_finish_point_says_dnf_in_its_place():
    history = GameHistory.from_records(
        [
            {"game": "g1", "player": "Ann", "place": 1},
            {"game": "g1", "player": "Bob", "place": 2},
            {"game": "g1", "player": "Cid", "place": "DNF"},
        ]
    )
    run = create("multielo").rate(history)
    (trace,) = figures.trajectory_figure(run, ["Cid"]).data
    assert [list(c) for c in trace.customdata] == [[0, "DNF", 3]]  # hover: "place DNF of 3"


def test_by_date_uses_dates_and_unknown_players_are_skipped(duel_run):
    fig = figures.trajectory_figure(duel_run, ["Ann", "Nobody"], by_date=True)
    assert len(fig.data) == 1
    assert [str(x) for x in fig.data[0].x] == ["2024-01-05", "2024-01-12"]
    assert fig.layout.xaxis.title.text == "date"


def test_baseline_traces_are_dashed_beside_solid_ones(duel_run):
    baseline = create("multielo", k=16.0).rate(duel_run.history)
    fig = figures.trajectory_figure(duel_run, ["Ann", "Bob"], baseline=baseline, baseline_name="K=16")
    solid = [t for t in fig.data if t.line.dash != "dash"]
    dashed = [t for t in fig.data if t.line.dash == "dash"]
    assert [t.name for t in solid] == ["Ann", "Bob"]
    assert [t.name for t in dashed] == ["Ann (K=16)", "Bob (K=16)"]
    # K=16 moves equal ratings by 8 (hand derivation: K/2).
    assert dashed[0].y[0] == pytest.approx(1008.0)
    assert dashed[0].line.color == solid[0].line.color
    assert "dashed: K=16" in fig.layout.title.text


def test_baseline_of_another_system_gets_its_own_axis(duel_run):
    other = create("trueskill").rate(duel_run.history)
    fig = figures.trajectory_figure(duel_run, ["Ann"], baseline=other, baseline_name="TrueSkill")
    solid, dashed = fig.data
    assert solid.yaxis in (None, "y") and dashed.yaxis == "y2" and dashed.line.dash == "dash"
    assert fig.layout.yaxis2.overlaying == "y"
    assert fig.layout.yaxis2.title.text.startswith(other.scale)
    same = figures.trajectory_figure(duel_run, ["Ann"], baseline=duel_run)
    assert same.data[1].yaxis in (None, "y") and "yaxis2" not in same.layout.to_plotly_json()


@pytest.mark.parametrize("option", ["plain", "by date", "baseline", "baseline of another system"])
def test_trajectories_built_without_validation_are_what_plotly_validates(duel_run, option):
    """figures.build skips plotly.py's per-property validation for speed: plotly's validating constructor must take
    the same dictionaries and send the same JSON (a misspelt property or a value of the wrong kind raises here)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    baseline = {
        "baseline": create("multielo", k=16.0).rate(duel_run.history),
        "baseline of another system": create("trueskill").rate(duel_run.history),
    }.get(option)
    fig = figures.trajectory_figure(duel_run, ["Ann", "Bob", "Cid"], by_date=option == "by date", baseline=baseline)
    checked = go.Figure(fig.to_plotly_json())  # validates every property (skip_invalid is False)
    assert json.loads(pio.to_json(checked)) == json.loads(pio.to_json(fig, validate=False))
    assert fig.layout.template.layout.paper_bgcolor == "white"  # plotly_white's, filled in as validation would


def test_game_changes_built_without_validation_are_what_plotly_validates(duel_run):
    import plotly.graph_objects as go
    import plotly.io as pio

    for g in range(duel_run.history.n_games):
        fig = figures.game_changes_figure(duel_run, g)
        checked = go.Figure(fig.to_plotly_json())  # validates every property, as in the test above
        assert json.loads(pio.to_json(checked)) == json.loads(pio.to_json(fig, validate=False))


def test_the_views_callbacks_send_are_the_figures_as_plotly_sends_them(duel_run):
    """trajectories_view and game_changes_view skip plotly.py's Figure (two deep copies of every trace); what they
    send must be what that Figure would have sent."""

    def decoded(value):  # plotly.js's typed arrays ({"dtype", "bdata"}) as the numbers they hold
        if isinstance(value, dict) and set(value) == {"dtype", "bdata"}:
            return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
        if isinstance(value, dict):
            return {key: decoded(item) for key, item in value.items()}
        return [decoded(item) for item in value] if isinstance(value, list) else value

    def sent(value):
        return decoded(json.loads(plotly.io.to_json(value)))

    view = figures.trajectories_view(duel_run, ["Ann", "Bob"], x_axis=None, offset=None, factor=None, baseline=None)
    assert sent(view) == sent(figures.trajectory_figure(duel_run, ["Ann", "Bob"]))
    assert sent(figures.game_changes_view(duel_run, 1)) == sent(figures.game_changes_figure(duel_run, 1))
    plotly.graph_objects.Figure(view)  # plotly's validating constructor accepts it as it is


def test_the_players_chart_has_plotlys_subplot_grid_and_sends_what_its_figure_would(duel_run):
    """The player's chart is laid out as plotly's make_subplots lays out two rows sharing the x axis (heights 0.68
    and 0.32, a gap of 0.06): the axes' domains and anchors are plotly's own, read from make_subplots here."""
    from plotly.subplots import make_subplots

    from ratings.stats import player_stats

    grid = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32], vertical_spacing=0.06)
    expected = grid.to_plotly_json()["layout"]
    stats = player_stats(duel_run, "Ann")
    view = figures.player_figure_view(stats, figures.Scale())
    for axis in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        for key, value in expected[axis].items():
            assert view["layout"][axis][key] == (pytest.approx(value) if key == "domain" else value), (axis, key)
    assert [(t["xaxis"], t["yaxis"]) for t in view["data"]] == [("x", "y"), ("x2", "y2")]
    plotly.graph_objects.Figure(view)  # plotly's validating constructor accepts it as it is
    figure = figures.player_figure(stats, figures.Scale())
    assert list(figure.data[0].x) == [1, 2] and figure.layout.yaxis2.title.text == "rank"


def test_game_changes_bars_in_place_order(duel_run):
    fig = figures.game_changes_figure(duel_run, 0)
    bar = fig.data[0]
    assert list(bar.x) == ["1. Ann", "2. Bob"]
    assert list(bar.y) == pytest.approx([16.0, -16.0])
    assert "1,000 → 1,016" in bar.hovertext[0]


def test_dnf_bar_is_labelled():
    history = _history([("g", "Ann", 1), ("g", "Bob", "DNF"), ("g", "Cid", 2)])
    fig = figures.game_changes_figure(create("multielo").rate(history), 0)
    assert list(fig.data[0].x) == ["1. Ann", "2. Cid", "DNF. Bob"]


def test_heatmap_shape_blanks_and_oddity_marks(duel_run):
    fig = figures.change_heatmap(duel_run, ["Ann", "Bob", "Cid"])
    heat = fig.data[0]
    z = np.array(heat.z, dtype=float)
    assert z.shape == (3, 2)  # players x games
    assert z[0, 0] == pytest.approx(16.0) and z[1, 0] == pytest.approx(-16.0)
    assert math.isnan(z[1, 1]) and math.isnan(z[2, 0])  # Bob skipped game 2, Cid game 1
    assert heat.zmid == 0
    assert len(fig.data[1].x) == 0  # nothing odd in plain Elo duels


def test_oddities_mark_last_place_gains():
    history = _history([("g", "Ann", 1), ("g", "Bob", 2), ("g", "Cid", "DNF")])
    run = create("multielo").rate(history)
    # A hand-made result in which the DNF gained and the winner lost: both must be flagged.
    odd_run = dataclasses.replace(run, after=run.before + np.array([-1.0, 0.5, 0.5]))
    assert list(figures.oddities(odd_run)) == [True, False, True]
    fig = figures.change_heatmap(odd_run, ["Ann", "Bob", "Cid"])
    assert sorted(fig.data[1].y) == ["Ann", "Cid"]
    assert list(figures.oddities(run)) == [False, False, False]


def test_natural_scale_maps_to_points(duel_run):
    natural = dataclasses.replace(duel_run, scale=figures.NATURAL_SCALE)
    scale = figures.scale_for(natural, 1500, 200)
    assert scale.value(1.0) == pytest.approx(1700.0)  # 1500 + 200 * 1
    assert scale.change(0.1) == pytest.approx(20.0)
    assert "1500" in scale.unit and "200" in scale.unit
    assert figures.scale_for(natural, 0, 1).unit == figures.NATURAL_SCALE
    # Systems with their own unit are never remapped.
    assert figures.scale_for(duel_run, 1500, 200) == figures.Scale(unit="Elo points")


def test_sparkline_by_hand():
    # (x - 1) / 2 * 7 for x = 1, 2, 3 -> 0, 3.5 -> 4 (round half to even), 7.
    assert figures.sparkline([1, 2, 3]) == "▁▅█"
    assert figures.sparkline([5, 5]) == "▄▄"
    assert figures.sparkline(range(30), width=10) == figures.sparkline(range(20, 30))


def test_leaderboard_rows_filter_placeholders_and_rank_shifts():
    rows = [("1", "Ann", 1), ("1", "Bob", 2), ("1", "Dummy", 3), ("2", "Ann", 1), ("2", "Cid", 2)]
    history = _history(rows)
    run = create("multielo").rate(history)
    table = figures.leaderboard_rows(run)
    # Game 1 (Ann, Bob, Dummy all at 1000, linear scores 2/3, 1/3, 0 vs expected 1/3 each): Bob's change is 0.
    # Game 2: Cid loses to Ann, who is above 1000, so Cid ends below 1000.  Hence Ann, Bob, Cid.
    assert [r["player"] for r in table] == ["Ann", "Bob", "Cid"]
    assert [r["rank"] for r in table] == [1, 2, 3]
    assert table[0]["games"] == 2 and table[0]["wins"] == 2 and table[0]["average_place"] == 1.0
    assert table[1]["rating"] == pytest.approx(1000.0)
    assert [r["player"] for r in figures.leaderboard_rows(run, min_games=2)] == ["Ann"]
    # Baseline with the results reversed: Bob beats Ann (1016 vs 984), then Cid beats the weakened Ann
    # (an expected win, so Cid gains less than 16): Bob, Cid, Ann.
    reversed_rows = [("1", "Ann", 2), ("1", "Bob", 1), ("2", "Ann", 2), ("2", "Cid", 1)]
    baseline = create("multielo").rate(_history(reversed_rows))
    assert [r["player"] for r in figures.leaderboard_rows(baseline)] == ["Bob", "Cid", "Ann"]
    shifted = {r["player"]: r["shift"] for r in figures.leaderboard_rows(run, baseline=baseline)}
    assert shifted == {"Ann": 2, "Bob": -1, "Cid": -1}


def test_a_baseline_on_other_data_shifts_only_the_players_both_have():
    # Now: Bob beats Cid (1016, 984), then Ann (1000) beats Bob (an upset: Bob loses more than 16, ends above 984):
    # Ann, Bob, Cid.  Baseline on other data: Eve beats Cid, then Cid (984) beats Bob (1000): Eve, Cid, Bob.
    # Ann is not in the baseline, Eve not in the current data.
    run = create("multielo").rate(_history([("1", "Bob", 1), ("1", "Cid", 2), ("2", "Ann", 1), ("2", "Bob", 2)]))
    other = create("multielo").rate(_history([("1", "Eve", 1), ("1", "Cid", 2), ("2", "Cid", 1), ("2", "Bob", 2)]))
    assert [r["player"] for r in figures.leaderboard_rows(other)] == ["Eve", "Cid", "Bob"]
    assert [r["player"] for r in figures.leaderboard_rows(run)] == ["Ann", "Bob", "Cid"]
    shifted = {r["player"]: r["shift"] for r in figures.leaderboard_rows(run, baseline=other)}
    # among the players both have (Bob, Cid): baseline Cid, Bob; now Bob, Cid
    assert shifted == {"Ann": None, "Bob": 1, "Cid": -1}


def test_colours_never_repeat_among_24_lines_then_the_line_style_changes():
    players = [f"P{i}" for i in range(30)]
    colours = [figures.player_color(players, p) for p in players]
    assert len(set(colours[:24])) == 24
    assert colours[24] == colours[0]
    dashes = [figures.player_dash(players, p) for p in players]
    assert set(dashes[:24]) == {"solid"} and set(dashes[24:]) == {"dot"}
    assert "dash" not in figures.LINE_DASHES  # the pinned baseline's style
    # in a chart: each drawn line gets its own colour, by its place among the lines
    run = create("multielo").rate(_history([("1", p, i + 1) for i, p in enumerate(players)]))
    fig = figures.trajectory_figure(run, players)
    drawn = [(t.line.color, t.line.dash) for t in fig.data]
    assert len(set(drawn)) == 30


def test_top_players_follow_the_leaderboard(duel_run):
    order = [r["player"] for r in figures.leaderboard_rows(duel_run)]
    assert figures.top_players(duel_run) == order
    assert figures.top_players(duel_run, limit=1) == order[:1]


def test_default_players_most_active_first(duel_run):
    # Ann played twice; Bob and Cid once each, so by name.
    assert figures.default_players(duel_run) == ["Ann", "Bob", "Cid"]
    assert figures.default_players(duel_run.history) == ["Ann", "Bob", "Cid"]
    assert figures.default_players(duel_run, limit=1) == ["Ann"]


def test_leaderboard_trend_is_each_players_last_ten_ratings_in_play_order():
    # Ann beats Bob twelve times: Ann's rating rises after every game and Bob's falls (Elo is zero-sum here),
    # so each trend has ten characters, Ann's from lowest to highest and Bob's from highest to lowest.
    rows = [(str(g), p, place) for g in range(1, 13) for p, place in (("Ann", 1), ("Bob", 2))]
    rows += [("13", "Cid", 1), ("13", "Dee", 2)]  # one game each: a single value shows as the middle block
    trend = {r["player"]: r["trend"] for r in figures.leaderboard_rows(create("multielo").rate(_history(rows)))}
    assert len(trend["Ann"]) == len(trend["Bob"]) == 10
    assert trend["Ann"][0] == "▁" and trend["Ann"][-1] == "█" and list(trend["Ann"]) == sorted(trend["Ann"])
    assert trend["Bob"][0] == "█" and trend["Bob"][-1] == "▁" and list(trend["Bob"]) == sorted(trend["Bob"])[::-1]
    assert trend["Cid"] == trend["Dee"] == "▄"
