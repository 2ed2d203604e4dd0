"""Likely duplicate names, aliases and seasons (ratings.aliases, ratings.seasons, sources.views).

Expected values are derived by hand from the definitions in the module docstrings: which pairs of names are one
edit apart (Damerau 1964: one insertion, deletion, substitution or swap of neighbours), which games a date range
holds.
"""

from __future__ import annotations

import datetime as dt

import pytest

from ratings import GameHistory, create
from ratings.aliases import AliasError, apply_aliases, check_aliases, fold, likely_duplicates
from ratings.seasons import Season, SeasonError, restrict


def _history(games: list[tuple[str, str | None, list[str]]]) -> GameHistory:
    """Games as (id, date, finishing order) rows."""
    return GameHistory.from_records(
        {"game": gid, "date": date, "player": p, "place": i + 1}
        for gid, date, order in games
        for i, p in enumerate(order)
    )


def _pairs(history: GameHistory) -> set[tuple[str, str, str]]:
    return {(s.rare, s.common, s.reason) for s in likely_duplicates(history)}


def test_fold_drops_case_accents_and_spacing() -> None:
    assert fold("  Zoë   Smith ") == "zoe smith"
    assert fold("ÉMILE") == "emile"


def test_one_edit_apart_names_are_flagged_short_names_are_not() -> None:
    # Hand-checked distances: Anne/Anna substitution (1), Marc/Mark substitution (1), Chris/Crhis swap (1),
    # Dave/David two edits (2), Ann/Anne and Ann/Anna one insertion (the longer has 4 letters), Bob/Rob one
    # substitution but both shorter than 4 letters;
    # Lena/Lina are one substitution apart but played in one game, so they are two players.
    rows = [
        ("g1", None, ["Anne", "Marc", "Chris", "Dave", "Bob"]),
        ("g2", None, ["Anna", "Mark", "Crhis", "David", "Rob"]),
        ("g3", None, ["Ann", "Lena", "Lina"]),
        ("g4", None, ["Anne", "Marc", "Chris", "Dave"]),
    ]
    found = {frozenset((a, b)) for a, b, reason in _pairs(_history(rows)) if reason == "one letter apart"}
    assert found == {
        frozenset(("Anne", "Anna")),
        frozenset(("Marc", "Mark")),
        frozenset(("Chris", "Crhis")),
        frozenset(("Ann", "Anne")),
        frozenset(("Ann", "Anna")),
    }


def test_same_name_up_to_accents_is_flagged_with_fewer_games_first() -> None:
    rows = [("g1", None, ["Zoë", "Ann"]), ("g2", None, ["Zoe", "Ann"]), ("g3", None, ["Zoe", "Ann"])]
    suspects = likely_duplicates(_history(rows))
    assert [(s.rare, s.common, s.rare_games, s.common_games) for s in suspects] == [("Zoë", "Zoe", 1, 2)]
    assert "same name up to case, accents or spacing" in str(suspects[0])
    assert str(suspects[0]).startswith("'Zoë' (1 game) and 'Zoe' (2 games)")


def test_one_game_name_beside_a_regular_is_flagged() -> None:
    # "Jonny" (one game) is 4 edits from "Jonathan" and starts no word of it: not flagged.  "Ann" (one game)
    # is the first word of "Ann Berg" (five games): flagged.  "Kathryn" -> "Katherine": k-a-t-h, then "ryn"
    # against "erine" is 3 edits: not flagged.  "Mikael" beside "Michael": substitution k->c, insertion h: two
    # edits, so flagged by the one-game rule only.
    regular = ["Ann Berg", "Michael", "Katherine", "Jonathan"]
    rows = [(f"r{i}", None, list(regular)) for i in range(5)]
    rows += [
        ("x1", None, ["Ann", "Jonny"]),
        ("x2", None, ["Mikael", "Kathryn"]),
    ]
    pairs = _pairs(_history(rows))
    assert pairs == {
        ("Ann", "Ann Berg", "a one-game name next to a regular's"),
        ("Mikael", "Michael", "a one-game name next to a regular's"),
    }


def test_no_duplicates_in_distinct_names() -> None:
    rows = [("g1", None, ["Alice", "Bruno", "Chen"]), ("g2", None, ["Dmitri", "Alice", "Bruno"])]
    assert likely_duplicates(_history(rows)) == []


def test_aliases_resolve_chains_and_refuse_cycles_and_self() -> None:
    assert check_aliases({"Ann.": "Anne", "Anne": "Ann"}) == {"Ann.": "Ann", "Anne": "Ann"}
    with pytest.raises(AliasError, match="circle: 'A' -> 'B' -> 'A'"):
        check_aliases({"A": "B", "B": "A"})
    with pytest.raises(AliasError, match="alias of itself"):
        check_aliases({" Ann ": "Ann"})
    with pytest.raises(AliasError, match="two names"):
        check_aliases({"Ann": " "})


def test_apply_aliases_merges_games_into_one_player() -> None:
    rows = [
        ("g1", "2024-01-01", ["Ann", "Bob", "Cid"]),
        ("g2", "2024-01-08", ["Bob", "Anne", "Cid"]),
        ("g3", "2024-01-15", ["Cid", "Ann", "Bob"]),
    ]
    history = _history(rows)
    merged = apply_aliases(history, check_aliases({"Anne": "Ann"}))
    assert merged.players == ("Ann", "Bob", "Cid")
    assert [g.players for g in merged.games] == [("Ann", "Bob", "Cid"), ("Bob", "Ann", "Cid"), ("Cid", "Ann", "Bob")]
    assert [g.places for g in merged.games] == [g.places for g in history.games]
    # The merged history rates exactly as a history typed with one name from the start.
    typed = _history([(gid, d, [("Ann" if p == "Anne" else p) for p in o]) for gid, d, o in rows])
    assert create("multielo").rate(merged).leaderboard().equals(create("multielo").rate(typed).leaderboard())
    assert apply_aliases(history, {"Nobody": "Ann"}) is history


def test_alias_conflict_names_the_game() -> None:
    history = _history([("g1", None, ["Ann", "Bob"]), ("night 2", "2024-02-03", ["Ann", "Anne", "Bob"])])
    with pytest.raises(AliasError, match=r"game 'night 2' \(played 2024-02-03\) has both 'Ann' and 'Anne'"):
        apply_aliases(history, {"Anne": "Ann"})


def test_season_by_dates_and_last_games() -> None:
    rows = [(f"g{i}", f"2024-0{i}-01", ["Ann", "Bob"]) for i in range(1, 8)]
    history = _history(rows)
    spring = restrict(history, Season(dt.date(2024, 3, 1), dt.date(2024, 5, 31)))
    assert [g.id for g in spring.games] == ["g3", "g4", "g5"]
    last = restrict(history, Season(last=2))
    assert [g.id for g in last.games] == ["g6", "g7"]
    both = restrict(history, Season(start=dt.date(2024, 2, 1), end=dt.date(2024, 5, 1), last=2))
    assert [g.id for g in both.games] == ["g4", "g5"]
    assert restrict(history, Season()) is history
    assert str(Season(dt.date(2024, 1, 1), dt.date(2024, 6, 30))) == "games from 2024-01-01 to 2024-06-30"


def test_empty_or_undatable_season_is_a_clear_error() -> None:
    history = _history([("g1", "2024-01-01", ["Ann", "Bob"]), ("g2", "2024-02-01", ["Ann", "Bob"])])
    with pytest.raises(SeasonError, match="no game was played in the range .* run from 2024-01-01 to 2024-02-01"):
        restrict(history, Season(dt.date(2025, 1, 1)))
    undated = _history([("g1", None, ["Ann", "Bob"])])
    with pytest.raises(SeasonError, match="no dates"):
        restrict(undated, Season(end=dt.date(2025, 1, 1)))
    with pytest.raises(SeasonError, match="starts"):
        Season(dt.date(2025, 1, 2), dt.date(2025, 1, 1))
    with pytest.raises(SeasonError, match="whole number from 1"):
        Season(last=0)


# ---------------------------------------------------------------- the view: aliases kept on the server, a season
def test_view_merges_aliases_on_any_source_and_says_what_is_shown() -> None:
    from sources.model import DataError, Upload, keep_history
    from sources.runs import load, run_for
    from sources.views import View, keep_aliases, with_view

    cid = keep_aliases({"Anne": "Ann"})
    assert cid is not None and keep_aliases({"Anne": "Ann"}) == cid  # content-addressed: the same map, one id
    rows = [("g1", None, ["Ann", "Bob"]), ("g2", None, ["Anne", "Bob"]), ("g3", None, ["Bob", "Ann"])]
    upload = Upload(keep_history(_history(rows)), "club.csv").to_json()
    viewed = load(with_view(upload, View(cid)))
    assert viewed.history.players == ("Ann", "Bob")
    assert viewed.label == "upload club.csv · 1 alias declared"
    board = run_for(with_view(upload, View(cid)), "multielo", {}).leaderboard()
    assert sorted(board["player"]) == ["Ann", "Bob"]
    assert dict(zip(board["player"], board["games"], strict=True)) == {"Ann": 3, "Bob": 3}
    sample = {"kind": "sample", "name": "poker"}
    assert load(with_view(sample, View(cid))).history.players == load(sample).history.players  # no Anne there
    clash = Upload(keep_history(_history([("night 2", None, ["Ann", "Anne"])])), "c.csv").to_json()
    with pytest.raises(DataError, match="game 'night 2' has both 'Ann' and 'Anne'"):
        load(with_view(clash, View(cid)))


def test_view_season_restricts_before_rating_and_errors_plainly() -> None:
    from sources.model import DataError
    from sources.runs import load, load_raw
    from sources.views import View, view_of, with_view

    sample = {"kind": "sample", "name": "poker"}
    raw = load_raw(sample).history
    dates = [g.date for g in raw.games]
    start, end = dates[10], dates[29]
    assert start is not None and end is not None
    expected = [g.id for g in raw.games if start <= g.date <= end]  # type: ignore[operator]
    source = with_view(sample, View(season=Season(start, end)))
    assert view_of(source) == View(season=Season(start, end))
    viewed = load(source)
    assert [g.id for g in viewed.history.games] == expected
    assert viewed.label == f"sample 'poker' · games from {start} to {end}: {len(expected)} of {raw.n_games}"
    assert viewed.key != load(sample).key  # runs of the season are cached apart from the whole history's
    with pytest.raises(DataError, match="no game was played in the range"):
        load(with_view(sample, View(season=Season(dt.date(2099, 1, 1)))))
    with pytest.raises(DataError, match="not a date"):
        load({**sample, "view": {"from": "yesterday"}})
    with pytest.raises(DataError, match="aliases' id .* not valid"):
        load({**sample, "view": {"aliases": "../etc"}})


# ---------------------------------------------------------------- the page's adapters, called as functions
def _club() -> dict:
    from sources.model import Upload, keep_history

    rows = [(f"n{i}", f"2024-0{i}-01", ["Ann", "Bob", "Cid"]) for i in range(1, 6)]
    rows += [("n6", "2024-06-01", ["Anne", "Bob"]), ("n7", "2024-07-01", ["Bob", "Cid"])]
    return Upload(keep_history(_history(rows)), "club.csv").to_json()


def test_declaring_and_removing_an_alias_through_the_page() -> None:
    from sources.aliasing import declare, remove, suspects_of
    from sources.runs import load

    club = _club()
    assert [(s.rare, s.common) for s in suspects_of(club)] == [("Anne", "Ann")]
    refused = declare(club, "Zed", "Ann")
    assert refused.source is None and refused.message == "Not merged: no player is called 'Zed' in this data."
    clash = declare(club, "Cid", "Bob")
    assert clash.source is None and "game 'n1' (played 2024-01-01) has both 'Bob' and 'Cid'" in clash.message
    done = declare(club, " Anne ", "Ann")
    assert done.ok and done.source is not None
    assert load(done.source).history.players == ("Ann", "Bob", "Cid")
    assert suspects_of(done.source) == []
    cycle = declare(done.source, "Ann", "Anne")
    assert cycle.source is None and "circle" in cycle.message
    undone = remove(done.source, 0)
    assert undone.ok and undone.source is not None and "view" not in undone.source
    assert "Anne" in load(undone.source).history.players


def test_season_boxes_and_a_change_of_data_keep_the_view() -> None:
    from layouts.summary import summary_text
    from sources.choosing import choose_source, season_boxes, season_from, set_season
    from sources.model import DataError

    club = _club()
    season = season_from("1 March 2024", "2024-06-30", None)
    assert season == Season(dt.date(2024, 3, 1), dt.date(2024, 6, 30))
    with pytest.raises(DataError, match="From: 'soon'"):
        season_from("soon", "", None)
    with pytest.raises(DataError, match="Last N games: enter a whole number"):
        season_from("", "", 2.5)
    source, problem = set_season(club, season)
    assert problem == "" and source is not None
    assert season_boxes(source) == ("2024-03-01", "2024-06-30", "")
    empty, problem = set_season(club, Season(dt.date(2030, 1, 1)))
    assert empty is None and problem.startswith("no game was played in the range (games from 2030-01-01)")
    # another data set keeps the season where it selects games, and drops it (saying so) where it selects none
    poker = choose_source("sample", previous=source, sample="poker")
    assert poker.source == {"kind": "sample", "name": "poker", "view": {"from": "2024-03-01", "to": "2024-06-30"}}
    assert poker.shown is not None and "games from 2024-03-01 to 2024-06-30: " in summary_text(poker.shown)
    chess = choose_source("sample", previous={**club, "view": {"from": "2030-01-01"}}, sample="chess")
    assert chess.source == {"kind": "sample", "name": "chess"}
    assert chess.warnings[0] == "The season (games from 2030-01-01) holds none of these games: showing all games."


def test_the_address_carries_the_view() -> None:
    from layouts.ids import TAB_NAMES
    from sources.links import build_query, parse_query

    source = {"kind": "sample", "name": "poker", "view": {"aliases": "a" * 32, "from": "2024-01-01", "last": 20}}
    query = build_query(source, {"system": "multielo", "params": {}})
    assert query == f"?sample=poker&aliases={'a' * 32}&from=2024-01-01&last=20&system=multielo"
    assert parse_query(query, tabs=TAB_NAMES)["source"] == {
        "kind": "sample",
        "name": "poker",
        "view": {"aliases": "a" * 32, "from": "2024-01-01", "last": "20"},
    }


def test_the_share_card_says_when_the_link_holds_aliases_and_a_season() -> None:
    from sources.links import share_text

    plain = share_text({"kind": "sample", "name": "poker"})
    assert "aliases" not in plain and "season" not in plain
    viewed = share_text({"kind": "sample", "name": "poker", "view": {"aliases": "a" * 32, "from": "2024-01-01"}})
    assert "the group's aliases" in viewed
    assert "the season (games from 2024-01-01)" in viewed


def test_an_alias_in_a_team_game_keeps_the_players_team_and_share():
    """Hand-made: a doubles game recorded once under a nickname ("Jo") is the same game as recorded under the player's
    name ("Joanna"), partners and partial play included; the ratings of both histories are equal."""
    from ratings.history import Entry, Game

    def doubles(first: str) -> list[Game]:
        return [
            Game("d1", (Entry(first, 1, "A"), Entry("Kim", 1, "A", 0.5), Entry("Lee", 2, "B"), Entry("Max", 2, "B"))),
            Game("d2", (Entry("Joanna", 2, "C"), Entry("Lee", 2, "C"), Entry("Kim", 1, "D"), Entry("Max", 1, "D"))),
        ]

    aliased = apply_aliases(GameHistory(doubles("Jo")), {"Jo": "Joanna"})
    direct = GameHistory(doubles("Joanna"))
    assert aliased.games == direct.games
    assert aliased.games[0].entries[0] == Entry("Joanna", 1, "A")
    system = create("trueskill")
    a, b = system.rate(aliased), system.rate(direct)
    assert a.players == b.players and a.final.tolist() == b.final.tolist()
