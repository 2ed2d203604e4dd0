"""Standings' "why did the rating change?": the clicked trajectory point's player and game are explained."""

from __future__ import annotations

from ratings import GameHistory, create


def _run():
    history = GameHistory.from_records(
        [
            {"game": "g1", "player": "Ann", "place": 1},
            {"game": "g1", "player": "Bob", "place": 2},
            {"game": "g1", "player": "Cid", "place": None},
            {"game": "g2", "player": "Cid", "place": 1},
            {"game": "g2", "player": "Bob", "place": 2},
        ]
    )
    return create("multielo").rate(history)


def test_participants_in_finishing_order_and_the_winner_by_default() -> None:
    from figures import game_players

    run = _run()
    options, player = game_players(run, 0, None)
    assert [o["label"] for o in options] == ["1. Ann", "2. Bob", "DNF. Cid"]
    assert player == "Ann"
    assert game_players(run, 0, "Cid")[1] == "Cid"  # the previous choice, who played
    assert game_players(run, 1, "Ann")[1] == "Cid"  # Ann did not play game 2: its winner
    assert game_players(run, 7, "Ann") == ([], None)


def test_a_clicked_point_picks_the_player_drawn_at_its_height() -> None:
    import figures
    from figures import game_players

    run = _run()
    scale = figures.scale_for(run)
    # The chart draws each player's point at scale.value(rating after the game): a click near Bob's point in
    # game 1 (second place: between Ann's gain and Cid's loss) picks Bob.
    bob = run.history.game_slice(0).start + 1
    y = float(scale.value(run.after[bob])) + 0.01  # a click lands near the point, not exactly on it
    click = {"points": [{"customdata": 0, "x": 1, "y": y}]}
    assert game_players(run, 0, "Ann", click, scale)[1] == "Bob"


def test_the_explanation_is_the_chosen_players_change_in_that_game() -> None:
    import figures
    from layouts.player import explain_view

    run = _run()
    view = explain_view(run, "Bob", 0, figures.scale_for(run))
    text = view.header + " " + " ".join(r["part"] for r in view.rows)
    assert "Bob in" in text and "Ann" in text and "Cid" in text
