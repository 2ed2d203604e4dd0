"""The new pages' pure parts: the games list rows and page, called as functions (no browser)."""

from __future__ import annotations

import numpy as np

import figures
from figures import clicked_game, games_page, parse_day, player_options
from ratings import GameHistory, RatingRun
from tests.test_stats import hand_run


def test_finishing_order_reads_at_a_glance(small_history):
    h = small_history
    assert figures.finishing_order(h, 0) == "1. Ann  2. Bob  3. Cid  DNF: Dee"
    assert figures.finishing_order(h, 1) == "1. Bob / Ann (tie)  3. Dee"  # competition style after a tie
    assert figures.finishing_order(h, 2) == "1. Cid  2. Dee  DNF: Eve, Ann"


def test_names_stay_raw_text_for_the_grid():
    h = GameHistory.from_records(
        [{"game": "1", "player": "<b>Zed</b>", "place": 1}, {"game": "1", "player": "Yan & Co", "place": 2}]
    )
    assert figures.finishing_order(h, 0) == "1. <b>Zed</b>  2. Yan & Co"  # the grid shows text as text


def test_game_rows_with_and_without_a_player(small_history):
    run = hand_run(small_history)
    scale = figures.Scale()
    rows = figures.game_rows(run, [1, 0], scale)
    # g2: before Bob 5, Ann 10, Dee 1; after 12, 11, 0 -> +7, +1, -1 (best place first, ties in entry order)
    assert rows[0] == {
        "index": 1,
        "number": 2,
        "game": "g2",
        "date": "",
        "order": "1. Bob / Ann (tie)  3. Dee",
        "changes": "Bob +7, Ann +1, Dee −1",
    }
    assert rows[1]["changes"] == "Ann +10, Bob +5, Cid +3, Dee +1"
    mine = figures.game_rows(run, [2], scale, "Ann")[0]
    assert (mine["place"], mine["change"]) == ("DNF of 4", -7.0)  # g3: Ann 11 -> 4
    doubled = figures.game_rows(run, [1], figures.Scale(1500.0, 2.0, "points"))[0]
    assert doubled["changes"] == "Bob +14, Ann +2, Dee −2"  # the offset cancels in a change


def test_signed():
    assert [figures.signed(x) for x in (12.345, -0.04123, 0.0, -0.0, 1234.5, 13333.3, 9999.7, -8.131e-5)] == [
        "+12.35",
        "−0.04123",
        "0",
        "0",
        "+1,234",
        "+13,333",  # never "+1.333e+04"
        "+10,000",  # 9999.7 to four digits is 1.000e+04: the whole number
        "−8.131e−05",
    ]


def test_number():
    # five significant digits, thousands separated, the whole number where the digits run out before the units
    values = (1000.0, 1180.5, 1e6, -999975.78, 80.00000000000007, 0.062255, 99999.7)
    assert [figures.number(x) for x in values] == [
        "1,000",
        "1,180.5",
        "1,000,000",  # never "1e+06"
        "−999,976",
        "80",
        "0.062255",
        "100,000",
    ]


def long_run(n_games: int) -> RatingRun:
    """Two players alternating wins (ratings made up: the game index), ``n_games`` games."""
    records = []
    for g in range(n_games):
        records += [
            {"game": str(g), "player": "Ann", "place": 1 + g % 2},
            {"game": str(g), "player": "Bob", "place": 2 - g % 2},
        ]
    h = GameHistory.from_records(records)
    values = np.repeat(np.arange(n_games, dtype=float), 2)
    return RatingRun("hand", None, h, values, values + 1, np.zeros(2), 0.0, "rating")


def test_games_page_cuts_pages_newest_first():
    run = long_run(60)  # 60 games, 25 a page -> 3 pages
    rows, count, shown, pages = games_page(run, figures.Scale(), page=1)
    assert (shown, pages, len(rows)) == (1, 3, 25)
    assert [r["number"] for r in rows[:2]] == [60, 59]
    assert count.startswith("60 games, newest first; showing 1-25")
    rows, count, shown, pages = games_page(run, figures.Scale(), page=3)
    assert (shown, [r["number"] for r in rows]) == (3, list(range(10, 0, -1)))
    assert "showing 51-60" in count
    _, _, shown, _ = games_page(run, figures.Scale(), page=9)  # out of range (e.g. a filter shrank the list)
    assert shown == 1
    _, _, shown, _ = games_page(run, figures.Scale(), page="2")  # not a page number
    assert shown == 1


def test_games_page_filters_by_player(small_history):
    run = hand_run(small_history)
    rows, count, _, pages = games_page(run, figures.Scale(), player="Bob")
    assert [r["number"] for r in rows] == [2, 1]
    assert [r["place"] for r in rows] == ["1 of 3", "2 of 4"]
    assert count.startswith("2 of 4 games")
    rows, _, _, _ = games_page(run, figures.Scale(), player="<unknown>")  # not a player: no player filter
    assert len(rows) == 4 and "place" not in rows[0]


def test_small_adapters(small_history):
    run = hand_run(small_history)
    assert clicked_game(run, {"rowId": "2", "colId": "order"}) == 2
    assert clicked_game(run, {"rowId": "99"}) is None
    assert clicked_game(run, {"rowId": "x"}) is None
    assert clicked_game(run, None) is None
    assert str(parse_day("2024-03-01T00:00:00")) == "2024-03-01"
    assert parse_day("March") is None and parse_day(None) is None
    assert [o["value"] for o in player_options(small_history)] == ["Ann", "Bob", "Cid", "Dee", "Eve"]


def test_player_record_and_figure(small_history):
    from figures import player_pick
    from layouts.player import player_view
    from ratings.stats import head_to_head, player_stats

    run = hand_run(small_history)
    stats = player_stats(run, "Ann")
    assert stats is not None
    items = dict(figures.record_items(stats, figures.Scale()))
    # see tests/test_stats.py: Ann 4 games, 2 wins, 3 podiums, average (1+1+3+2)/4, rating 5, 4th after g4
    assert items["games"] == "4"
    assert items["wins"] == "2 (50%)"
    assert items["podiums"] == "3 (75%)"
    assert items["average place"] == "1.75"
    assert (items["rating"], items["rank"]) == ("5", "4")
    assert (items["best"], items["worst"]) == ("1st", "3rd (DNF)")
    assert items["longest win streak"] == "2 (now 0)"
    assert items["longest run of last places"] == "2 (now 2)"
    assert items["last 10 places"] == "1 1 DNF 2"
    rows = figures.head_to_head_rows(head_to_head(small_history, "Ann"))
    assert rows[0] == {"opponent": "Dee", "games": 3, "ahead": 2, "behind": 1, "ties": 0, "ahead_share": 66.7}

    fig = figures.player_figure(stats, figures.Scale(1500.0, 200.0, "points"))
    rating, rank = fig.data
    assert list(rating.x) == [1, 2, 3, 4]
    assert list(rating.y) == [3500.0, 3700.0, 2300.0, 2500.0]  # 1500 + 200 x (10, 11, 4, 5)
    assert list(rank.y) == [1, 2, 3, 4]
    assert list(fig.layout.yaxis2.range) == [4.5, 0.5]  # worst rank 4 at the bottom, rank 1 at the top

    # the leader is picked by default: final ratings Ann 5, Bob 12, Cid 20, Dee 2, Eve 6 -> Cid
    options, pick = player_pick(run, None)
    assert pick == "Cid" and options[0] == {"label": "1. Cid", "value": "Cid"}
    assert player_pick(run, "Eve")[1] == "Eve"
    assert player_pick(run, "Nobody")[1] == "Cid"
    h2h = player_view(run, "Eve", figures.Scale()).head_to_head
    assert [r["opponent"] for r in h2h] == ["Ann", "Cid", "Dee"]  # Ann twice, then by name


def test_player_names_are_plain_text_in_the_chart():
    h = GameHistory.from_records(
        [{"game": "1", "player": "<b>Zed</b>", "place": 1}, {"game": "1", "player": "Yan", "place": 2}]
    )
    from ratings import create
    from ratings.stats import player_stats

    stats = player_stats(create("multielo").rate(h), "<b>Zed</b>")
    assert stats is not None
    fig = figures.player_figure(stats, figures.Scale())
    assert fig.layout.title.text.startswith("&lt;b&gt;Zed&lt;/b&gt;:")


def test_explanation_rows_and_view(small_history):
    from figures import game_pick
    from layouts.player import explain_view
    from ratings import create
    from ratings.explain import explain

    run = create("multielo").rate(small_history)
    # g1, all at 1000: Bob -8 against Ann (behind), +8 against Cid and Dee (ahead); see tests/test_explain.py
    rows = figures.explanation_rows(explain(run, 0, "Bob"), figures.Scale())
    assert rows[-1] == {"part": "total", "result": "", "chance": "", "change": "+8"}
    assert {(r["part"], r["result"], r["chance"], r["change"]) for r in rows[:-1]} == {
        ("Ann", "behind", "50%", "−8"),
        ("Cid", "ahead", "50%", "+8"),
        ("Dee", "ahead", "50%", "+8"),
    }
    # natural scale shown as points: a change is multiplied by the factor (pairwise Elo: 0.035 -> 7 points)
    two = GameHistory.from_records([{"game": "g", "player": "A", "place": 1}, {"game": "g", "player": "B", "place": 2}])
    pair = create("pairwise-elo").rate(two)
    rows = figures.explanation_rows(explain(pair, 0, "A"), figures.Scale(1500.0, 200.0, "points"))
    assert [r["change"] for r in rows] == ["+7", "+7"]
    # a Bayesian system: what moved, the shown rating on the shown scale
    ts = create("trueskill").rate(two)
    moved = {r["part"]: r for r in figures.explanation_rows(explain(ts, 0, "A"), figures.Scale())}
    assert set(moved) == {"mu", "sigma", "shown rating"}
    assert moved["shown rating"]["change"] == figures.signed(float(ts.after[0] - ts.before[0]))

    options, game = game_pick(run, "Bob", None)
    assert [o["value"] for o in options] == [1, 0] and game == 1  # Bob played g1 and g2; newest first
    assert game_pick(run, "Bob", 0)[1] == 0
    assert game_pick(run, "Bob", 3)[1] == 1  # Bob did not play g4: his newest game instead
    assert game_pick(run, "Bob", 1, {"points": [{"x": 1, "y": 1008.0}]})[1] == 0  # a click on game 1's point
    assert game_pick(run, "Bob", 1, {"points": [{"x": 4, "y": 1.0}]})[1] == 1  # not Bob's game: kept
    assert "did not play" in explain_view(run, "Bob", 3, figures.Scale()).header
    view = explain_view(run, "Bob", 0, figures.scale_for(run))
    assert view.header == "Bob in Game 1 (g1): 1,000 → 1,008 (+8 Elo points)"
    assert [r["part"] for r in view.rows][-1] == "total" and view.rows[-1]["change"] == "+8"


def one_game_run(finals: dict[str, float], unit: str = "rating") -> RatingRun:
    """One game of the given players whose ratings are ``finals`` before and after (made up, for ranks)."""
    h = GameHistory.from_records([{"game": "g", "player": p, "place": i + 1} for i, p in enumerate(finals)])
    values = np.array(list(finals.values()), dtype=float)
    return RatingRun("hand", None, h, values, values, values, 0.0, unit)


def test_comparison_rows_by_hand():
    now = one_game_run({"Ann": 5.0, "Bob": 12.0, "Cid": 20.0, "Dee": 2.0})  # ranks Cid 1, Bob 2, Ann 3, Dee 4
    before = one_game_run({"Ann": 20.0, "Bob": 12.0, "Cid": 5.0, "Zed": 1.0})  # Ann 1, Bob 2, Cid 3, Zed 4
    rows = figures.comparison_rows(now, before, figures.Scale(), figures.Scale())
    by = {r["player"]: r for r in rows}
    assert [r["player"] for r in rows] == ["Cid", "Bob", "Ann", "Dee", "Zed"]
    assert by["Cid"] == {
        "player": "Cid",
        "rank": 1,
        "rating": 20.0,
        "base_rank": 3,
        "base_rating": 5.0,
        "rank_change": 2,  # 3rd -> 1st: two places up
        "rating_change": 15.0,
    }
    assert (by["Ann"]["rank_change"], by["Ann"]["rating_change"]) == (-2, -15.0)
    assert (by["Bob"]["rank_change"], by["Bob"]["rating_change"]) == (0, 0.0)
    assert (by["Dee"]["base_rank"], by["Dee"]["rank_change"]) == (None, None)  # new since the baseline
    assert (by["Zed"]["rank"], by["Zed"]["base_rank"]) == (None, 4)  # only in the baseline
    other = figures.comparison_rows(now, before, figures.Scale(), figures.Scale(unit="points"))
    assert all(r["rating_change"] is None for r in other)  # two scales: no rating difference
    assert {r["player"]: r["rank_change"] for r in other}["Cid"] == 2


def test_comparison_csv_is_formula_safe():
    from callbacks.runs import baseline_run, current_run
    from figures import comparison_csv
    from layouts.compare import comparison

    rows = [
        {
            "player": "=HYPERLINK(1)",
            "rank": 1,
            "base_rank": 2,
            "rank_change": 1,
            "rating": 1016.0,
            "base_rating": 1000.0,
            "rating_change": 16.0,
        },
        {
            "player": "Bob",
            "rank": 2,
            "base_rank": None,
            "rank_change": None,
            "rating": 984.0,
            "base_rating": None,
            "rating_change": None,
        },
    ]
    text = comparison_csv(rows, "Elo points", "Elo points")
    assert text.splitlines() == [
        "player,rank now,rank before,places moved,rating now (Elo points),rating before (Elo points),rating change",
        "'=HYPERLINK(1),1,2,1,1016,1000,16",
        "Bob,2,,,984,,",
    ]
    source = {"kind": "sample", "name": "poker"}
    settings = {"system": "multielo", "params": {}}
    run = current_run(source, settings)
    empty = comparison(run, None, source=source, pinned=None, offset=None, factor=None)
    assert empty.rows == [] and empty.status.startswith("Pin a baseline")
    pinned = {"source": source, "system": "multielo", "params": {"k": 16}, "label": "Multiplayer Elo, K 16"}
    view = comparison(run, baseline_run(pinned), source=source, pinned=pinned, offset=None, factor=None)
    assert len(view.rows) == 10 and view.unit == view.base_unit == "Elo points"
    assert "Multiplayer Elo, K 16" in view.status
