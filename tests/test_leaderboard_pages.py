"""The leaderboard is paged, searched and sorted on the server (issues 28 item 5 and 30 item 1): an answer about a
history of 20,000 players carries one page of rows, whatever the column sorted or the page asked for.

Driven through Flask's test client with the standings callback's own request bodies (tests/dash_requests.py).  The
expected order is checked as a property of the whole ranking (the page is the run of the sorted whole that its
position names), not against the code's own sort.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np
import pytest

import app as app_module
import figures
from figures.leaderboard import LEADERBOARD_PAGE, SORTABLE
from layouts.ids import Baseline, Data, Page, Params, Standings
from ratings import Entry, Game, GameHistory, create
from sources.model import Upload, keep_history
from tests.dash_requests import post

PLAYERS = 20_000
SETTINGS = {"system": "multielo", "params": {}}
#: The most an answer with a page of 100 rows may take (a row is about 150 bytes as JSON; the answer also carries the
#: trajectories and, with no game picked yet, the newest game's bars and explanation); the whole leaderboard of
#: 20,000 players is over 2.5 MB.
PAGE_BYTES = 48_000


def _big_history() -> GameHistory:
    """20,000 players named P00000..P19999: 5,000 four-player games meet each once, 3,000 more games are drawn at
    random (a seeded generator), so games played, wins and places differ from player to player."""
    rng = np.random.default_rng(28)
    tables = [list(range(i, i + 4)) for i in range(0, PLAYERS, 4)]
    tables += [list(rng.choice(PLAYERS, size=4, replace=False)) for _ in range(3_000)]
    return GameHistory(
        [
            Game(f"g{g}", tuple(Entry(f"P{p:05d}", place) for place, p in enumerate(table, 1)))
            for g, table in enumerate(tables)
        ]
    )


@pytest.fixture(scope="module")
def big() -> dict[str, Any]:
    history = _big_history()
    return {"source": Upload(keep_history(history), "big.csv").to_json(), "history": history}


@pytest.fixture(scope="module")
def whole(big: dict[str, Any]) -> list[dict[str, Any]]:
    """Every leaderboard row of the big history, best first."""
    return figures.leaderboard_rows(create("multielo").rate(big["history"]), trends=False)


@pytest.fixture
def client() -> Any:
    return app_module.server.test_client()


def _answer(client: Any, source: Any, changed: list[str] | None = None, **more: Any) -> tuple[dict[str, Any], int]:
    values = {f"{Data.SOURCE}.data": source, f"{Params.SETTINGS}.data": SETTINGS, f"{Baseline.STORE}.data": None}
    values |= {f"{Standings.MIN_GAMES}.value": 0, f"{Page.TABS}.active_tab": "standings"}
    values |= {f"{key}": value for key, value in more.items()}
    response = post(client, Standings.LEADERBOARD, values, changed=changed)
    assert response.status_code == 200
    data = response.data
    size = len(data)
    if response.headers.get("Content-Encoding") == "gzip":
        data = zlib.decompress(data, 31)
    return json.loads(data)["response"], size


def _key(row: dict[str, Any], column: str) -> tuple[bool, Any]:
    """A row's place in an order by ``column``: a missing value first; numbers as the grid gets them (7 significant
    digits)."""
    value = row.get(column)
    return (value is not None, float(f"{value:.7g}") if isinstance(value, float) else value or 0)


def test_a_20000_player_answer_carries_one_page_best_first(client: Any, big: dict[str, Any], whole: list) -> None:
    answer, size = _answer(client, big["source"], changed=[])
    rows = answer[Standings.LEADERBOARD]["rowData"]
    assert len(whole) == PLAYERS
    assert len(rows) == LEADERBOARD_PAGE
    assert size < PAGE_BYTES, f"{size:,} bytes for one page"
    assert [r["player"] for r in rows] == [r["player"] for r in whole[:LEADERBOARD_PAGE]]
    assert [r["rank"] for r in rows] == list(range(1, LEADERBOARD_PAGE + 1))
    assert all(r["trend"] for r in rows)  # the page's trends are drawn
    assert answer[Standings.LEADERBOARD_PAGES]["max_value"] == PLAYERS // LEADERBOARD_PAGE
    assert "20,000 players; showing 1-100" in answer[Standings.LEADERBOARD_COUNT]["children"]
    assert answer[Standings.LEADERBOARD_PAGER]["style"] == {"display": "block"}


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("column", SORTABLE)
def test_each_column_sorts_the_whole_leaderboard(
    client: Any, big: dict[str, Any], whole: list, column: str, descending: bool
) -> None:
    sort = f"{Standings.LEADERBOARD_SORT}.data"
    order = {"column": column, "descending": descending}
    answer, size = _answer(client, big["source"], changed=[sort], **{sort: order})
    rows = answer[Standings.LEADERBOARD]["rowData"]
    assert len(rows) == LEADERBOARD_PAGE and size < PAGE_BYTES
    keys = [_key(r, column) for r in rows]
    assert keys == sorted(keys, reverse=descending)
    # the page is the head of the whole ranking in that order: nobody left out sorts before its last row
    everyone = sorted((_key(r, column) for r in whole), reverse=descending)
    assert keys == everyone[:LEADERBOARD_PAGE]
    # the grid marks the column it is sorted by
    marked = {c["field"]: c.get("sort") for c in answer[Standings.LEADERBOARD]["columnDefs"] if c.get("sort")}
    assert marked == {column: "desc" if descending else "asc"}


def test_a_page_turn_and_a_parameter_change_keep_the_page_a_new_sort_starts_again(
    client: Any, big: dict[str, Any], whole: list
) -> None:
    pages = f"{Standings.LEADERBOARD_PAGES}.active_page"
    drawn = f"{Standings.DRAWN}.data"  # what the page has drawn, sent back with each request as the page does
    answer, _ = _answer(client, big["source"], changed=[pages], **{pages: 3})
    rows = answer[Standings.LEADERBOARD]["rowData"]
    assert [r["player"] for r in rows] == [r["player"] for r in whole[200:300]]
    assert Standings.LEADERBOARD_PAGES not in answer or "active_page" not in answer[Standings.LEADERBOARD_PAGES]
    settings = f"{Params.SETTINGS}.data"
    moved = {**SETTINGS, "params": {**SETTINGS["params"], "k": 20.0}}
    shown = answer[Standings.DRAWN]["data"]
    answer, _ = _answer(client, big["source"], changed=[settings], **{pages: 3, settings: moved, drawn: shown})
    assert answer[Standings.LEADERBOARD]["rowData"][0]["rank"] == 201
    sort = f"{Standings.LEADERBOARD_SORT}.data"
    by_games = {"column": "games", "descending": True}
    shown = answer[Standings.DRAWN]["data"]
    answer, _ = _answer(
        client, big["source"], changed=[sort], **{pages: 3, settings: moved, sort: by_games, drawn: shown}
    )
    assert answer[Standings.LEADERBOARD_PAGES]["active_page"] == 1
    # a page beyond the last is the first
    answer, _ = _answer(client, big["source"], changed=[pages], **{pages: 10_000})
    assert answer[Standings.LEADERBOARD]["rowData"][0]["rank"] == 1


def test_the_search_is_made_on_the_server(client: Any, big: dict[str, Any], whole: list) -> None:
    search = f"{Standings.LEADERBOARD_SEARCH}.value"
    answer, _ = _answer(client, big["source"], changed=[search], **{search: " p1234 "})
    rows = answer[Standings.LEADERBOARD]["rowData"]
    # P12340..P12349 hold "p1234" (case aside): 10 players, in rank order, with their whole-board ranks
    want = [r for r in whole if "P1234" in r["player"]]
    assert len(want) == 10
    assert [(r["player"], r["rank"]) for r in rows] == [(r["player"], r["rank"]) for r in want]
    assert answer[Standings.LEADERBOARD_COUNT]["children"] == "10 players whose name holds “p1234”"
    answer, _ = _answer(client, big["source"], changed=[search], **{search: "nobody"})
    assert answer[Standings.LEADERBOARD]["rowData"] == []
    assert answer[Standings.LEADERBOARD_EMPTY]["children"] == "No player's name holds “nobody”."
    assert answer[Standings.LEADERBOARD_EMPTY]["style"] == {"display": "block"}


@pytest.mark.parametrize(
    "hostile",
    [None, 7, "rating", {"column": "trend", "descending": True}, {"column": "__proto__"}, {"column": "games"}],
)
def test_a_forged_sort_is_the_best_first(client: Any, big: dict[str, Any], whole: list, hostile: Any) -> None:
    sort = f"{Standings.LEADERBOARD_SORT}.data"
    answer, _ = _answer(client, big["source"], changed=[sort], **{sort: hostile})
    rows = answer[Standings.LEADERBOARD]["rowData"]
    assert [r["player"] for r in rows] == [r["player"] for r in whole[:LEADERBOARD_PAGE]]


def test_a_small_group_sees_everyone_without_a_page_picker(client: Any) -> None:
    answer, _ = _answer(client, {"kind": "sample", "name": "poker"}, changed=[])
    rows = answer[Standings.LEADERBOARD]["rowData"]
    assert 0 < len(rows) < LEADERBOARD_PAGE
    assert answer[Standings.LEADERBOARD_PAGER]["style"] == {"display": "none"}
