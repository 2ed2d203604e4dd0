"""The page's views of team games: the games list, the game view, the explanation, partners, predictions.

Expected strings and numbers are written by hand from the small histories below (each test says how).
"""

from __future__ import annotations

import pytest

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


def _first_game_run(system: str, **params: object):
    return create(system, **params).rate(_history())


def test_pairwise_elo_splits_a_2v2_change_by_opposing_team() -> None:
    from ratings.explain import explain

    # Hand derivation (Kerby 2025 §3.1.1 on the teams' strengths, Weng and Lin 2011 for the share): in game 1 every
    # rating is the initial 0, so both teams' strengths are 0 and P(Red beats Blue) = logistic(0) = 1/2; Ann's term
    # against Blue is eta (1 - 1/2) = 0.07 * 0.5 = 0.035 times her share d(sum)/d(r_Ann) = 1.
    e = explain(_first_game_run("pairwise-elo"), 0, "Ann")
    assert [(t.label, t.result) for t in e.terms] == [("Cid & Dee", "ahead")]
    assert e.terms[0].value == pytest.approx(0.035, rel=1e-12)
    assert e.terms[0].expected == pytest.approx(0.5, rel=1e-12)
    assert e.change == pytest.approx(0.035, rel=1e-12)
    assert [(m.name, m.after - m.before) for m in e.teammates] == [("Bob", pytest.approx(0.035))]
    # with the mean, d(mean)/d(r_Ann) = 1/2: half the term, and the loser's term is its negative
    mean = explain(_first_game_run("pairwise-elo", team_strength="mean"), 0, "Cid")
    assert [(t.label, t.result) for t in mean.terms] == [("Ann & Bob", "behind")]
    assert mean.terms[0].value == pytest.approx(-0.0175, rel=1e-12)


def test_multielo_splits_a_2v2_change_by_opposing_team() -> None:
    from ratings.explain import explain

    # Hand derivation (design document 002, composite team; Cunningham 2021 eq. 4 with N = 2 teams): all at 1000,
    # Ann's virtual opponent for Blue is 1000 + (1000 - 1000) = 1000, expected 1/2, so K (N-1)(1 - 1/2) = 16.
    e = explain(_first_game_run("multielo"), 0, "Ann")
    assert [(t.label, t.result, t.value) for t in e.terms] == [("Cid & Dee", "ahead", pytest.approx(16.0))]
    assert e.change == pytest.approx(16.0)


@pytest.mark.parametrize(
    ("system", "params"),
    [
        ("pairwise-elo", {}),
        ("pairwise-elo", {"team_strength": "mean", "variant": "average", "dummy": 0.0}),
        ("pairwise-elo", {"model": "gaussian", "floor": -0.01}),
        ("multielo", {}),
        ("multielo", {"team_method": "composite opponent", "dummy": 1000.0, "base": 2.0}),
    ],
)
def test_the_terms_of_every_team_game_sum_to_the_replayed_change(system: str, params: dict) -> None:
    from ratings.explain import explain

    # The replay (the compiled kernel) is the independent side: the terms are recomputed from the ratings before.
    run = create(system, **params).rate(_history())
    h = run.history
    for g in range(h.n_games):
        for p in h.games[g].players:
            e = explain(run, g, p)
            assert e.exact
            assert sum(t.value for t in e.terms) == pytest.approx(e.change, abs=1e-9), (g, p)
            if h.team_game[g]:
                assert len(e.teammates) == (1 if p != "Eve" else 0)


@pytest.mark.parametrize("system", ["plackett-luce", "thurstonian", "trueskill", "glicko2", "elo-mmr"])
def test_the_other_systems_say_how_they_rate_a_team_and_list_teammates(system: str) -> None:
    import figures
    from layouts.player import explain_view

    run = create(system).rate(_history())
    view = explain_view(run, "Dee", 3, figures.scale_for(run))
    parts = [r["part"] for r in view.rows]
    assert parts[-1] == "teammate Ann"
    assert "Team game" in view.notes
    assert "Team game" not in explain_view(run, "Ann", 2, figures.scale_for(run)).notes  # free-for-all


def test_the_exact_view_keeps_the_total_bold_with_teammates_after_it() -> None:
    import figures
    from layouts.player import explain_view

    run = _first_game_run("pairwise-elo")
    view = explain_view(run, "Ann", 0, figures.scale_for(run))
    assert [r["part"] for r in view.rows] == ["Cid & Dee", "total", "teammate Bob"]
    assert [r.get("total") for r in view.rows] == [None, "1", None]


def test_head_to_head_counts_only_the_other_teams() -> None:
    from ratings.stats import HeadToHead, head_to_head

    # Bob, by hand from _history: g1 (Red, with Ann) beat Cid, Dee; g2 (B, with Dee) tied Ann, Cid, ahead of Eve;
    # g3 alone: DNF behind Cid and Ann; g4 (X, with Cid) behind Ann, Dee.
    assert head_to_head(_history(), "Bob") == [
        HeadToHead("Ann", 3, 0, 2, 1),
        HeadToHead("Cid", 3, 1, 1, 1),
        HeadToHead("Dee", 2, 1, 1, 0),
        HeadToHead("Eve", 1, 1, 0, 0),
    ]


def test_partners_count_games_and_wins_together_and_the_players_own_change() -> None:
    from ratings.stats import partners

    run = create("pairwise-elo").rate(_history())
    h = run.history
    # Ann's teams by hand: g1 with Bob (won), g2 with Cid (tied first: a win), g4 with Dee (won); g3 has no team.
    rows = partners(run, "Ann")
    assert [(r.partner, r.games, r.wins) for r in rows] == [("Bob", 1, 1), ("Cid", 1, 1), ("Dee", 1, 1)]
    k = {g: h.game_slice(g).start + h.games[g].players.index("Ann") for g in range(h.n_games)}
    change = {g: float(run.after[k[g]] - run.before[k[g]]) for g in k}
    assert [r.change for r in rows] == [change[0], change[1], change[3]]
    assert partners(run, "Eve") == []  # she played alone, also in a team game
    assert partners(create("pairwise-elo").rate(h.with_games(h.games[2:3])), "Ann") == []  # no team games


def test_best_and_worst_partner_by_change_per_game_with_a_minimum() -> None:
    import figures
    from ratings.stats import PARTNER_MIN_GAMES, Partner

    scale = figures.Scale(factor=10.0)
    assert PARTNER_MIN_GAMES == 3
    rows = [Partner("Bob", 4, 3, 2.0), Partner("Cid", 3, 0, -0.3), Partner("Dee", 2, 2, 5.0)]
    text = figures.partner_summary(rows, scale, "points")
    # Bob +0.5 a game (x10 on the shown scale = +5), Cid -0.1 (-1); Dee has too few games to be named
    assert text.startswith("Best partner: Bob (+5 points a game over 4 games, 3 won). Worst: Cid (−1 points a game")
    assert "Dee" not in text
    grid = figures.partner_rows(rows, scale)
    assert grid[0] == {"partner": "Bob", "games": 4, "wins": 3, "win_share": 75.0, "change_per_game": 5.0}
    assert "No partner with 3" in figures.partner_summary(rows[2:], scale)
    assert figures.partner_summary([], scale).startswith("No team games")


def test_the_player_view_carries_partners() -> None:
    import figures
    from layouts.player import player_view

    run = create("pairwise-elo").rate(_history())
    view = player_view(run, "Ann", figures.scale_for(run))
    assert [r["partner"] for r in view.partners] == ["Bob", "Cid", "Dee"]
    assert "No partner with 3" in view.partner_summary


def _doubles_run(system: str, **params: object):
    from ratings.samples import load_sample

    return create(system, **params).rate(load_sample("doubles"))


def _pair(run):
    names = list(run.history.games[-1].players)  # the last match's four players
    return names[:2], names[2:]


@pytest.mark.parametrize("how", ["sum", "mean"])
def test_two_teams_under_plackett_luce_by_hand(how: str) -> None:
    import math

    from sources.predictions import team_win_probabilities

    # Hand derivation: Plackett-Luce with two entrants of strengths S_A, S_B (sum or mean of the members' ratings,
    # Weng and Lin 2011) gives P(A first) = e^S_A / (e^S_A + e^S_B) = 1 / (1 + e^(S_B - S_A)).
    run = _doubles_run("plackett-luce", team_strength=how)
    a, b = _pair(run)
    r = {p: float(run.final[run.history.player_index[p]]) for p in a + b}
    combine = sum if how == "sum" else (lambda xs: sum(xs) / len(xs))
    s_a, s_b = combine([r[p] for p in a]), combine([r[p] for p in b])
    labels, probs = team_win_probabilities(run, "plackett-luce", {"team_strength": how}, a, b)
    assert labels == [" & ".join(a), " & ".join(b)]
    assert probs[0, 0] == pytest.approx(1.0 / (1.0 + math.exp(s_b - s_a)), rel=1e-12)
    assert probs[:, 0].sum() == pytest.approx(1.0, rel=1e-12)


def test_two_teams_under_trueskill_sum_their_performances() -> None:
    import math

    from scipy.stats import norm

    from sources.predictions import team_win_probabilities

    # The difference of the teams' summed performances is normal with mean sum mu_A - sum mu_B and variance
    # sum sigma^2 + (n_A + n_B) beta^2 (Herbrich, Minka and Graepel 2006; the trueskill package's documented
    # win-probability recipe).  The prediction is a 20,000-draw Monte Carlo: its standard error is under 0.004.
    run = _doubles_run("trueskill")
    a, b = _pair(run)
    mu, sigma = run.state["mu"], run.state["sigma"]
    idx = run.history.player_index
    diff = sum(mu[idx[p]] for p in a) - sum(mu[idx[p]] for p in b)
    var = sum(sigma[idx[p]] ** 2 for p in a + b) + 4 * run.params.beta**2
    _, probs = team_win_probabilities(run, "trueskill", {}, a, b)
    assert probs[0, 0] == pytest.approx(norm.cdf(diff / math.sqrt(var)), abs=0.015)


@pytest.mark.parametrize(
    ("system", "params"),
    [
        ("plackett-luce", {}),
        ("thurstonian", {}),
        ("pairwise-elo", {"team_strength": "mean"}),
        ("multielo", {}),
        ("glicko2", {"team_method": "composite opponent"}),
        ("trueskill", {}),
        ("elo-mmr", {}),
    ],
)
def test_teams_of_one_are_the_two_players_prediction(system: str, params: dict) -> None:
    from sources.predictions import team_win_probabilities, win_probabilities

    run = _doubles_run(system, **params)
    a, b = _pair(run)
    _, teams = team_win_probabilities(run, system, params, a[:1], b[:1])
    _, players = win_probabilities(run, system, params, [a[0], b[0]])
    assert teams == pytest.approx(players, abs=1e-12)
    _, four = team_win_probabilities(run, system, params, a, b)
    assert four.sum(axis=0) == pytest.approx([1.0, 1.0], abs=1e-9)


def test_two_teams_refuse_what_cannot_be_a_game() -> None:
    from sources.predictions import team_win_probabilities

    run = _doubles_run("multielo")
    a, b = _pair(run)
    with pytest.raises(ValueError, match="each team"):
        team_win_probabilities(run, "multielo", {}, a, [])
    with pytest.raises(ValueError, match=f"on both teams: {a[0]}"):
        team_win_probabilities(run, "multielo", {}, a, [a[0], b[0]])
    with pytest.raises(ValueError, match="not in this history: Nobody"):
        team_win_probabilities(run, "multielo", {}, a, ["Nobody"])


def test_the_team_prediction_callbacks_default_to_the_latest_team_game() -> None:
    from callbacks import predict
    from figures import plain
    from layouts.ids import Tab

    source, current = {"kind": "sample", "name": "doubles"}, {"system": "plackett-luce", "params": {}}
    run = _doubles_run("plackett-luce")
    last = run.history.games[-1]
    options, first, _, second = predict.on_predict_teams(source, current, Tab.PREDICTIONS, None, None)
    assert {o["value"] for o in options} == set(run.players)
    # the last match's two teams, as its entries list them (a team's members share its team cell)
    by_team: dict[str, list[str]] = {}
    for e in last.entries:
        by_team.setdefault(str(e.team), []).append(e.player)
    assert sorted([first, second]) == sorted(by_team.values())
    figure, table, note = predict.on_predict_team_game(source, current, first, second, Tab.PREDICTIONS)
    # chart text is escaped for plotly's markup (figures.text.plain): '&' is drawn from '&amp;'
    assert list(figure.data[0].y) == [plain(" & ".join(first)), plain(" & ".join(second))]
    assert "own team model" in note
    figure, table, note = predict.on_predict_team_game(source, current, first, first, Tab.PREDICTIONS)
    assert "On both teams" in figure.layout.annotations[0].text and table is None


def test_the_edit_grid_keeps_teams_and_moves_a_player_to_another_team() -> None:
    from sources import edits
    from sources.model import Sample
    from sources.reading import history_for

    base = Sample("doubles").to_json()
    history = history_for(base)
    rows = edits.grid_rows(history)
    # unchanged rows apply to the same games, teams and weights
    same = edits.apply_rows(rows, edits.fresh_state(base))
    assert same.ok, same.message
    assert [g.entries for g in history_for(same.source).games] == [g.entries for g in history.games]
    # swap two players of the first match between its teams (Milo & Carla lost to Kemal & Greta)
    first = [r for r in rows if r["game"] == history.games[0].id]
    assert [(r["player"], r["team"]) for r in first] == [
        ("Milo", "Milo & Carla"),
        ("Carla", "Milo & Carla"),
        ("Kemal", "Kemal & Greta"),
        ("Greta", "Kemal & Greta"),
    ]
    first[1].update(team="Kemal & Greta", place="1")  # Carla joins the winners
    first[2].update(team="Milo & Carla", place="2")  # Kemal joins the losers
    moved = edits.apply_rows(rows, edits.fresh_state(base))
    assert moved.ok, moved.message
    game = history_for(moved.source).games[0]
    teams = {e.player: (e.team, e.place) for e in game.entries}
    assert teams == {
        "Milo": ("Milo & Carla", 2),
        "Carla": ("Kemal & Greta", 1),
        "Kemal": ("Milo & Carla", 2),
        "Greta": ("Kemal & Greta", 1),
    }
    # a player moved without its place is refused, naming the game, the player and the rule
    first[1].update(place="2")
    refused = edits.apply_rows(rows, edits.fresh_state(base))
    assert not refused.ok and "teammates share their team's place" in refused.message


def test_rows_kept_before_the_team_columns_still_undo() -> None:
    from sources import edits
    from sources.model import Sample

    base = Sample("poker").to_json()
    old = [["1", "2024-01-01", "Ann", "1", False], ["1", "2024-01-01", "Bob", "2", False]]  # five cells a row
    state = {"base": base, "rows": None, "undo": [None, old], "shown": base}
    outcome = edits.undo(state)
    assert outcome.ok and outcome.rows is not None
    assert outcome.rows[0]["team"] is None and outcome.rows[0]["player"] == "Ann"


def test_the_record_form_refuses_a_team_game_for_the_sheet_and_names_the_rule() -> None:
    from sources import record_form

    step = record_form.plan({"kind": "sheet"}, "2024-03-01", ["Ann", "Bob"], ["1", "2"], "t", writable=True)
    assert not step.problems  # without teams the sheet's confirm step is unchanged
    players, places = ["Ann", "Bob", "Cid", "Dee"], ["1", "1", "2", "2"]
    teams = ["Red", "Red", "Blue", "Blue"]
    step = record_form.plan({"kind": "sheet"}, "2024-03-01", players, places, "t", writable=True, teams=teams)
    assert step.problems == ["a team game cannot be written to the group's sheet yet; clear the team fields"]
    step = record_form.plan(None, "2024-03-01", players, ["1", "2", "2", "2"], "t", writable=False, teams=teams)
    assert step.problems == [
        "team 'Red' has player 'Bob' in place 2 but 'Ann' in place 1 (teammates share their team's place)"
    ]


def test_the_team_parameters_show_only_for_data_with_team_games() -> None:
    from callbacks.params import has_teams
    from layouts.controls import TEAM_PARAMS, param_controls

    assert has_teams({"kind": "sample", "name": "doubles"})
    assert not has_teams({"kind": "sample", "name": "poker"})
    assert not has_teams({"kind": "nonsense"})
    for system, name in [("plackett-luce", "team_strength"), ("multielo", "team_method")]:
        assert name in TEAM_PARAMS
        for teams, style in [(True, {}), (False, {"display": "none"})]:
            blocks = [b for b in param_controls(system, teams=teams) if isinstance(getattr(b, "id", None), dict)]
            assert [(b.id["name"], b.style) for b in blocks] == [(name, style)]
            assert "Team games only." in str(blocks[0].children[-1].children)
    # the systems without a team option show every control whatever the data
    assert all(getattr(b, "style", None) is None for b in param_controls("trueskill", teams=False))


def test_the_edit_grid_shows_team_and_weight_columns_for_a_history_with_them() -> None:
    from callbacks.edit import grid_for
    from layouts.ids import Tab

    def hidden(columns: list[dict]) -> set[str]:
        return {c["field"] for c in columns if c.get("hide")}

    for sample, expected in [("poker", {"team", "weight"}), ("doubles", set())]:
        source = {"kind": "sample", "name": sample}
        rows, _, columns = grid_for(source, Tab.EDIT, None)
        assert hidden(columns) == expected, sample
        assert all({"team", "weight"} <= set(r) for r in rows)


def test_a_players_record_counts_a_team_game_by_its_teams() -> None:
    from ratings.stats import player_stats

    # Bob by hand: g1 2 teams, g2 3 sides (two teams and Eve), g3 3 players, g4 2 teams
    stats = player_stats(create("pairwise-elo").rate(_history()), "Bob")
    assert stats is not None
    assert stats.size.tolist() == [2, 3, 3, 2]
    assert stats.lasts == 2  # g3 (DNF) and g4 (second of two teams)
