"""The page's views of team games: the games list, the game view, the explanation, partners, predictions.

Expected strings and numbers are written by hand from the small histories below (each test says how).
"""

from __future__ import annotations

from ratings import GameHistory, create


def _history() -> GameHistory:
    # g1: Ann & Bob beat Cid & Dee.  g2: Ann & Cid tie with Bob & Dee, Eve alone last.  g3: a free-for-all.
    # g4: Ann & Dee beat Bob & Cid, who are listed first.
    rows = [
        ("g1", "Ann", 1, "Red"),
        ("g1", "Bob", 1, "Red"),
        ("g1", "Cid", 2, "Blue"),
        ("g1", "Dee", 2, "Blue"),
        ("g2", "Ann", 1, "A"),
        ("g2", "Cid", 1, "A"),
        ("g2", "Bob", 1, "B"),
        ("g2", "Dee", 1, "B"),
        ("g2", "Eve", 3, None),
        ("g3", "Cid", 1, None),
        ("g3", "Ann", 2, None),
        ("g3", "Bob", None, None),
        ("g4", "Bob", 2, "X"),
        ("g4", "Cid", 2, "X"),
        ("g4", "Ann", 1, "Y"),
        ("g4", "Dee", 1, "Y"),
    ]
    return GameHistory.from_records(
        [{"game": g, "player": p, "place": place, "team": team} for g, p, place, team in rows]
    )


def test_the_finishing_order_lists_a_team_as_one_place() -> None:
    from figures import finishing_order

    h = _history()
    assert finishing_order(h, 0) == "1. Ann & Bob  2. Cid & Dee"
    # two teams tied for first take places 1 and 1; Eve is third (two teams ahead of her, competition style)
    assert finishing_order(h, 1) == "1. Ann & Cid / Bob & Dee (tie)  3. Eve"
    assert finishing_order(h, 2) == "1. Cid  2. Ann  DNF: Bob"
    assert finishing_order(h, 3) == "1. Ann & Dee  2. Bob & Cid"


def test_a_players_row_counts_places_by_teams() -> None:
    import figures

    run = create("pairwise-elo").rate(_history())
    rows = figures.game_rows(run, [0, 1, 3], figures.scale_for(run), player="Bob")
    assert [r["place"] for r in rows] == ["1 of 2", "1 of 3", "2 of 2"]
    assert [r["order"] for r in rows][0] == "1. Ann & Bob  2. Cid & Dee"


def test_the_game_view_names_each_players_teammates() -> None:
    import figures

    run = create("pairwise-elo").rate(_history())
    options, chosen = figures.game_players(run, 3, None)
    assert [o["label"] for o in options] == [
        "1. Ann, with Dee",
        "1. Dee, with Ann",
        "2. Bob, with Cid",
        "2. Cid, with Bob",
    ]
    assert chosen == "Ann"
    bars = figures.game_change_values(run, 3)
    assert bars.labels == ["1. Ann", "1. Dee", "2. Bob", "2. Cid"]
    assert "with Dee" in bars.hovertext[0] and "place 1 of 2" in bars.hovertext[0]
    assert figures.game_players(run, 2, None)[0][0]["label"] == "1. Cid"  # a free-for-all names no teammate
