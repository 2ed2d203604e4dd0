"""The standings' game picker and whom its explanation explains, one callback (callbacks/standings.py ``on_game``):
new data refreshes both (the game's players too when the game's number stays the same), a picked game brings its
players, a click on a trajectory point picks its game and its line's player."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.dash_requests import post
from tests.test_hostile_requests import _upload

POKER = {"kind": "sample", "name": "poker"}
SETTINGS = {"system": "multielo", "params": {}}
#: Two histories of two games whose last game differs in who played: the game picker's value (the last game, 1)
#: stays, its players change.
FIRST = "game,date,player,place\n1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n2,2024-03-08,Xia,1\n2,2024-03-08,Yan,2\n"
SECOND = "game,date,player,place\n1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n2,2024-03-08,Wu,1\n2,2024-03-08,Yan,2\n"


@pytest.fixture(scope="module")
def client() -> Any:
    import app

    return app.server.test_client()


def _answer(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.status_code
    return json.loads(response.get_data(as_text=True))["response"]


def _source(client: Any, text: str, name: str) -> dict[str, Any]:
    return _upload(client, text, name)["data-source"]["data"]


def _pick(client: Any, changed: str, **values: Any) -> dict[str, Any]:
    # each keyword is an id and a property: standings_game__value is standings-game.value
    sent = {"params-settings.data": SETTINGS}
    for key, value in values.items():
        ident, prop = key.split("__")
        sent[f"{ident.replace('_', '-')}.{prop}"] = value
    return _answer(post(client, "standings-game", sent, changed=[changed]))


def _names(options: list[dict[str, str]]) -> list[str]:
    return [o["value"] for o in options]


def test_new_data_refreshes_the_explained_games_players_even_when_its_number_stays(client: Any) -> None:
    first, second = _source(client, FIRST, "first.csv"), _source(client, SECOND, "second.csv")
    answer = _pick(client, "data-source.data", data_source__data=first)
    assert answer["standings-game"]["value"] == 1  # the last game
    assert _names(answer["game-explain-player"]["options"]) == ["Xia", "Yan"]
    assert answer["game-explain-player"]["value"] == "Xia"  # the winner
    # the other history, the same game number shown and Xia explained: Xia did not play its last game
    answer = _pick(
        client,
        "data-source.data",
        data_source__data=second,
        standings_game__value=1,
        game_explain_player__value="Xia",
    )
    assert "value" not in answer.get("standings-game", {})  # the game's number did not change
    assert _names(answer["game-explain-player"]["options"]) == ["Wu", "Yan"]
    assert answer["game-explain-player"]["value"] == "Wu"


def test_a_picked_game_brings_its_players_and_keeps_the_one_explained_if_they_played(client: Any) -> None:
    first = _source(client, FIRST, "first.csv")
    answer = _pick(
        client,
        "standings-game.value",
        data_source__data=first,
        standings_game__value=0,
        game_explain_player__value="Yan",
    )
    assert "options" not in answer.get("standings-game", {})  # the games are the same: their list is not sent again
    assert _names(answer["game-explain-player"]["options"]) == ["Zed", "Yan"]
    assert answer["game-explain-player"]["value"] == "Yan"


def test_a_click_on_a_trajectory_point_picks_its_game_and_its_lines_player(client: Any) -> None:
    # the poker sample's game 10 (index 9) as a trajectory point carries it: customdata's first value; the point's
    # height picks the player whose rating after that game it is (here: far below everyone, the lowest)
    click = {"points": [{"customdata": [9], "y": -1e6}]}
    answer = _pick(
        client,
        "standings-trajectories.clickData",
        data_source__data=POKER,
        standings_trajectories__clickData=click,
        standings_game__value=149,
    )
    assert answer["standings-game"]["value"] == 9
    players = _names(answer["game-explain-player"]["options"])
    assert answer["game-explain-player"]["value"] in players
    assert "options" not in answer["standings-game"]
