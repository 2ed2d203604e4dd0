"""The pure functions behind the callbacks, called directly (no Dash server, no browser)."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json

import numpy as np
import plotly.graph_objects as go
import pytest
from dash import dcc, no_update

import figures
from callbacks import standings, url
from callbacks.runs import DataError, baseline_run, current_run, load_source, parse_params, run_for, sample_shown
from layouts import controls, param_values
from layouts.ids import TAB_NAMES, Params, ParamType
from layouts.leaderboard import PHONE_WIDTH, leaderboard_view
from layouts.standings import StandingsInputs, trajectories_patch
from layouts.summary import data_messages, summary_text
from ratings import GameHistory, ParamSpec, create
from ratings.samples import load_sample
from sources import baselines, links, settings
from sources.choosing import choose_source
from sources.runs import read_upload


def _data_url(text: str, mime: str = "text/csv") -> str:
    return f"data:{mime};base64," + base64.b64encode(text.encode()).decode()


GOOD_CSV = "game,date,player,place\n1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n2,2024-03-08,Yan,1\n2,2024-03-08,Xia,DNF\n"
BROKEN_CSV = "game,date,player,place\n1,2024-03-01,Zed,first\n1,2024-03-01,,2\n"
POKER = {"kind": "sample", "name": "poker"}


# ------------------------------------------------------------------ data
def test_upload_is_read_into_long_records():
    typed, warnings = read_upload(_data_url(GOOD_CSV), "club.csv")
    source = typed.to_json()
    assert source["kind"] == "upload" and source["filename"] == "club.csv"
    assert set(source) == {"kind", "id", "filename"}  # the browser holds an id, not the data
    history = load_source(source).history
    assert {"game": "2", "date": dt.date(2024, 3, 8), "player": "Xia", "place": "DNF"} in history.to_records()
    assert history.n_games == 2 and history.players == ("Zed", "Yan", "Xia")


def test_broken_upload_reports_every_problem_and_keeps_previous():
    choice = choose_source("upload", previous=POKER, upload=_data_url(BROKEN_CSV), filename="bad.csv")
    assert choice.source is None  # the store is not touched
    text = "\n".join(choice.errors)
    assert "Could not read bad.csv" in text
    assert "row 2" in text and "first" in text  # the place that is not a number, located
    assert "row 3" in text  # the empty player name
    assert "Still using the previous data (sample 'poker')" in text
    assert summary_text(choice.shown).startswith("150 games")  # the previous data's summary stays


def test_undecodable_upload_is_a_plain_error():
    with pytest.raises(DataError, match="did not arrive as a base64 data URL"):
        read_upload("no comma here", "x.csv")


def test_sample_choice_summarises_games_players_dates():
    choice = choose_source("sample", previous=None, sample="poker")
    history = load_sample("poker")
    info = history.summary()
    assert choice.source == POKER and not choice.errors
    assert summary_text(choice.shown).startswith(
        f"{info['games']} games, {info['players']} players, {info['first_date']}"
    )


def test_unknown_sample_in_address_falls_back_to_default(monkeypatch):
    monkeypatch.setattr(settings, "_current", settings.load({"SECRET_KEY": "x"}))
    choice = choose_source(None, previous=None, url_source={"kind": "sample", "name": "nope"})
    assert choice.source == POKER
    assert any("no sample called 'nope'" in e for e in choice.errors)


def test_sheet_without_address_asks_for_one():
    choice = choose_source("address", previous=POKER, address="  ")
    assert choice.source is None and "Enter the address" in choice.errors[0]


def test_messages_render_errors_and_warnings():
    out = data_messages(["Could not read x:", "row 2: bad"], ["w1"])
    assert [a.color for a in out] == ["danger", "warning"]


# ------------------------------------------------------------------ parameters
def test_parse_params_uses_the_library_message():
    ok, error = parse_params("multielo", {"k": "24", "d": "400"})
    assert ok == {"k": 24.0, "d": 400.0} and error is None
    ok, error = parse_params("multielo", {"d": 0})
    assert ok is None and "parameter 'd'" in error and "from 1 to 100000" in error


def test_collect_handles_switches_and_empty_boxes():
    raw = {"k": 20, "d": 400, "base": 1.5, "initial": 1000, "dummy": 900, "floor": 700}
    good, error = param_values.collect("multielo", raw, {"dummy": True, "floor": False})
    assert error is None
    assert good == {
        "system": "multielo",
        "params": {"k": 20.0, "d": 400.0, "base": 1.5, "initial": 1000.0, "dummy": 900.0, "floor": None},
    }
    bad, error = param_values.collect("multielo", {**raw, "k": None}, {})
    assert bad is None and error == "parameter 'k': enter a number from 0 to 10000"


def test_controls_are_built_from_the_schema():
    specs = [
        ParamSpec("k", "float", 32.0, "help k", low=1.0, high=100.0, step=1.0),
        ParamSpec("dummy", "optional-float", None, "help dummy", low=0.0, high=10.0),
        ParamSpec("variant", "choice", "a", "help v", choices=("a", "b")),
        ParamSpec("eta_knots", "float-list", None, "help knots"),
        ParamSpec("max_history", "int", 500, "help n", low=1, high=2000),
    ]

    def ids(component, out):
        if getattr(component, "id", None) is not None:
            out.append((component.id, component))
        children = getattr(component, "children", None)
        for child in children if isinstance(children, list) else [children] if children is not None else []:
            ids(child, out)
        return out

    found = {}
    for spec in specs:
        div = controls.param_control(spec)
        assert div.title == spec.help  # the help line shows on hover
        for cid, comp in ids(div, []):
            found[(cid["type"], cid["name"])] = comp
    slider = found[(ParamType.SLIDER, "k")]
    assert isinstance(slider, dcc.Slider) and slider.updatemode == "mouseup"
    assert (slider.min, slider.max, slider.step, slider.value) == (1.0, 100.0, 1.0, 32.0)
    assert slider.marks[32.0]["label"] == "default"
    assert found[(ParamType.VALUE, "k")].value == 32.0
    assert found[(ParamType.ON, "dummy")].value is False
    assert found[(ParamType.VALUE, "dummy")].disabled is True
    assert found[(ParamType.CHOICE, "variant")].options == [{"label": "a", "value": "a"}, {"label": "b", "value": "b"}]
    assert found[(ParamType.LIST, "eta_knots")].value == ""
    assert found[(ParamType.SLIDER, "max_history")].step == 1.0


def test_slider_range_widens_to_hold_the_value():
    spec = ParamSpec("k", "float", 32.0, "", low=1.0, high=100.0)
    assert controls.slider_range(spec, 250.0)[:2] == (1.0, 250.0)


@pytest.mark.parametrize("system", list(__import__("ratings").SYSTEM_NAMES))
def test_every_system_gets_controls_that_collect_to_its_defaults(system):
    cls = __import__("ratings").get_system(system)
    raw = {s.name: s.default for s in cls.parameters()}
    switches = {s.name: s.default is not None for s in cls.parameters() if s.kind == "optional-float"}
    good, error = param_values.collect(system, raw, switches)
    assert error is None
    assert create(system, **{k: tuple(v) if isinstance(v, list) else v for k, v in good["params"].items()})
    shown = controls.param_controls(system)
    # one control a parameter; the time-aware rules folded into one block after the system's own parameters
    folded = [c for c in shown if type(c).__name__ == "Details"]
    rules = [s for s in cls.parameters() if s.time_rule]
    assert len(folded) == (1 if rules else 0)
    inside = len(folded[0].children) - 1 if folded else 0  # after its summary line
    assert len(shown) - len(folded) + inside == len(cls.parameters()) and inside == len(rules)
    assert folded == [] or folded[0].open is False  # off by default: folded
    if rules:
        opened = controls.param_controls(system, {rules[0].name: rules[0].high})
        assert next(c for c in opened if type(c).__name__ == "Details").open is True  # a rule in use shows


def test_controls_take_the_address_values_only_for_their_system():
    state = {"system": "multielo", "params": {"k": "12", "base": "oops"}}
    built = param_values.controls_for("multielo", reset=False, url_state=state)
    k_box = built[0].children[1].children[1].children  # the box inside its accessible-name wrapper
    assert k_box.id == {"type": ParamType.VALUE, "name": "k"} and k_box.value == 12.0
    reset = param_values.controls_for("multielo", reset=True, url_state=state)
    assert reset[0].children[1].children[1].children.value == 32.0


def test_long_defaults_show_rounded_and_read_back_exactly():
    sigma = next(s for s in __import__("ratings").get_system("trueskill").parameters() if s.name == "sigma")
    box = controls.param_control(sigma).children[1].children[1].children
    assert box.id == {"type": ParamType.VALUE, "name": "sigma"}
    assert box.value == 8.33333  # not 8.333333333333334
    good, error = param_values.collect("trueskill", {"sigma": box.value}, {})
    assert error is None and good["params"]["sigma"] == 25 / 3
    good, _ = param_values.collect("trueskill", {"sigma": 8.3}, {})
    assert good["params"]["sigma"] == 8.3  # a value the user typed stays as typed


def test_switches_say_what_they_do_rather_than_a_bare_on():
    dummy = controls.param_control(ParamSpec("dummy", "optional-float", None, "help", label="dummy rating"))
    switch = dummy.children[1]
    assert switch.id == {"type": ParamType.ON, "name": "dummy"}
    assert switch.value is False and switch.label == "use a dummy rating"


def test_a_box_moves_its_slider_only_for_a_plain_number_within_its_range():
    # the rule the browser applied before the server kept the pair together (a slider clamping a value would write its
    # end back into the box; a decimal comma is for the server's parser to refuse with a message)
    assert param_values.slider_for("1.5", 1, 2) == 1.5
    assert param_values.slider_for(" .5 ", 0, 1) == 0.5
    assert param_values.slider_for("1e3", 0, 2000) == 1000.0
    assert param_values.slider_for(32, 1, 64) == 32.0
    for text in ("1,5", "", None, "inf", "nan", "1.5x", "3"):
        assert param_values.slider_for(text, 1, 2) is None, text
    assert param_values.slider_for("1.5", None, 2) is None  # no range known: the slider stays put


def test_a_moved_slider_writes_its_box_and_a_typed_box_moves_its_slider():
    boxes, sliders, ranges = {"k": 32, "d": 400}, {"k": 24, "d": 400}, {"k": (1, 64), "d": (100, 800)}
    values, box_out, slider_out = param_values.follow(boxes, sliders, ranges, {(ParamType.SLIDER, "k")})
    assert values == {"k": 24, "d": 400} and box_out == {"k": 24} and slider_out == {}
    values, box_out, slider_out = param_values.follow({**boxes, "k": "12.5"}, sliders, ranges, {(ParamType.VALUE, "k")})
    assert values == {"k": "12.5", "d": 400} and box_out == {} and slider_out == {"k": 12.5}
    # a typed value off the slider's range is used (the server validates it) and leaves the slider where it is
    values, box_out, slider_out = param_values.follow({**boxes, "k": "100"}, sliders, ranges, {(ParamType.VALUE, "k")})
    assert values["k"] == "100" and slider_out == {}
    # both changed in one call (the box moved the slider): the box's text is the value
    both = {(ParamType.VALUE, "k"), (ParamType.SLIDER, "k")}
    values, box_out, _ = param_values.follow({**boxes, "k": "12.5"}, {**sliders, "k": 12.5}, ranges, both)
    assert values["k"] == "12.5" and box_out == {}


# ------------------------------------------------------------------ address
def test_address_round_trip():
    current = {"system": "multielo", "params": {"k": 24.0, "d": 400.0, "base": 1.5, "dummy": 900.0, "floor": None}}
    query = links.build_query(POKER, current)
    assert query == "?sample=poker&system=multielo&k=24&base=1.5&dummy=900"  # defaults are left out
    state = links.parse_query(query, tabs=TAB_NAMES)
    assert state["source"] == POKER and state["system"] == "multielo"
    assert state["params"] == {"k": "24", "base": "1.5", "dummy": "900"}
    assert parse_params("multielo", state["params"])[0] == {"k": 24.0, "base": 1.5, "dummy": 900.0}


def test_address_names_the_open_tab_unless_it_is_the_standings():
    current = {"system": "multielo", "params": {}}
    assert links.build_query(POKER, current, tab="player", tabs=TAB_NAMES) == "?sample=poker&system=multielo&tab=player"
    assert links.build_query(POKER, current, tab="standings", tabs=TAB_NAMES) == "?sample=poker&system=multielo"
    assert (
        links.build_query(POKER, current, tab=["player"], tabs=TAB_NAMES) == "?sample=poker&system=multielo"
    )  # not a tab
    assert links.parse_query("?sample=poker&tab=edit", tabs=TAB_NAMES)["tab"] == "edit"
    assert links.parse_query("?sample=poker&tab=nowhere", tabs=TAB_NAMES)["tab"] is None
    assert links.view_part(POKER, 1, None, None, "games", tabs=TAB_NAMES)["tail"] == "tab=games"
    # the link opens on its tab (the last output of the address's reader); without one the tab is left alone
    assert url.read_address("?sample=poker&tab=compare")[-1] == "compare"
    assert url.read_address("?sample=poker")[-1] is no_update


def test_address_with_sheet_and_upload():
    sheet = {"kind": "sheet", "url": "https://docs.google.com/spreadsheets/d/abc/edit#gid=0", "worksheet": "Games"}
    state = links.parse_query(links.build_query(sheet, None), tabs=TAB_NAMES)
    assert state["source"] == sheet
    upload = {"kind": "upload", "filename": "x.csv", "id": "0" * 32}
    assert (
        links.build_query(upload, {"system": "multielo", "params": {}})
        == f"?data={'0' * 32}&file=x.csv&system=multielo"
    )
    assert links.parse_query(links.build_query(upload, None), tabs=TAB_NAMES)["source"] == upload


def test_address_ignores_unknown_systems_and_defaults_to_settings():
    config = settings.load({"SECRET_KEY": "x", "RATINGS_SHEET": "https://example.org/sheet"})
    state, system = links.url_state("?system=nope&k=3", config, tabs=TAB_NAMES)
    assert state["system"] == system == "multielo" and state["params"] == {}
    assert state["source"] == {"kind": "sheet", "url": "https://example.org/sheet", "worksheet": None}


# ------------------------------------------------------------------ standings and baseline
def test_standings_views_read_the_same_run():
    current = {"system": "multielo", "params": {"k": 32.0}}
    run = current_run(POKER, current)
    assert run is run_for(POKER, "multielo", {"k": 32.0})  # cached by content
    options, chosen = figures.player_choice(run, ["Nobody"])
    top = [r["player"] for r in figures.leaderboard_rows(run)][:10]
    assert chosen == top and len(options) == len(run.players)  # the leaderboard's top ten by default
    assert [o["value"] for o in options][:10] == top
    fig = go.Figure(figures.trajectories_view(run, None, x_axis="date", offset=None, factor=None, baseline=None))
    assert [t.name for t in fig.data] == top and fig.layout.xaxis.title.text == "date"


def test_a_clicked_leaderboard_player_joins_the_drawn_lines():
    known = {"Ann", "Bob", "Cid"}
    assert standings.with_player(["Ann"], {"rowId": "Cid", "colId": "rating"}, known) == ["Ann", "Cid"]
    assert standings.with_player(None, {"rowId": "Bob"}, known) == ["Bob"]
    assert standings.with_player(["Ann"], {"rowId": "Ann"}, known) is None  # already drawn
    assert standings.with_player(["Ann"], {"rowId": "Zed"}, known) is None  # not a player of this data
    assert standings.with_player(["Ann"], None, known) is None


def test_game_choice_follows_a_click():
    run = current_run(POKER, {"system": "multielo", "params": {}})
    last = run.history.n_games - 1
    assert figures.game_choice(run, None, None, False) == last
    assert figures.game_choice(run, 3, None, False) == 3
    assert figures.game_choice(run, 3, {"points": [{"customdata": [7]}]}, True) == 7
    assert figures.game_choice(run, 3, {"points": [{"customdata": 8}]}, True) == 8
    assert figures.game_choice(run, 3, {"points": [{"customdata": 10**6}]}, True) == 3


def test_pin_copies_settings_and_labels_changes():
    pinned = baselines.pin(POKER, {"system": "multielo", "params": {"k": 16.0, "d": 400.0}})
    assert pinned["label"] == "Multiplayer Elo (k=16)"
    assert pinned["source"] == POKER and pinned["params"] == {"k": 16.0, "d": 400.0}
    assert baselines.pin(None, None) is None
    run = baseline_run(pinned)
    assert run is not None and run.params.k == 16.0


def test_using_a_fitted_result_pins_the_current_settings_and_loads_the_fitted_values():
    current = {"system": "multielo", "params": {"k": 16.0}}
    fit = {"kind": "fit", "system": "multielo", "fitted": {"k": 20.0}}
    pinned, system, state = baselines.use_fitted("multielo", fit, POKER, current)
    assert pinned["label"] == "Multiplayer Elo (k=16)" and system == "multielo"
    assert state == {"source": POKER, "system": "multielo", "params": {"k": 20.0}}
    compared = {"kind": "compare", "rows": [{"system": "trueskill", "fitted": {"beta": 3.0}}]}
    assert baselines.use_fitted("trueskill", compared, POKER, current)[2]["params"] == {"beta": 3.0}
    assert baselines.use_fitted("multielo", compared, POKER, current) is None  # no fitted values for it
    assert (
        baselines.use_fitted("nope", fit, POKER, current) is None
        and baselines.use_fitted("multielo", [], POKER, current) is None
    )


def test_a_baseline_on_other_data_says_so():
    pinned = baselines.pin(POKER, {"system": "multielo", "params": {"k": 16.0}})
    disabled, same = baselines.status(pinned, POKER)
    assert not disabled and same == "Baseline: Multiplayer Elo (k=16) on sample 'poker'. Dashed lines show it."
    _, other = baselines.status(pinned, {"kind": "sample", "name": "chess"})
    assert other.startswith("Baseline: Multiplayer Elo (k=16) on sample 'poker'. It belongs to other data")
    assert "(sample 'chess')" in other and "only the players both have" in other
    assert "Dashed lines show it" not in other


def test_ids_are_unique_strings():
    from layouts import ids

    values = [
        m.value for cls in vars(ids).values() if isinstance(cls, type) for m in getattr(cls, "__members__", {}).values()
    ]
    assert len(values) == len(set(values))
    assert Params.SETTINGS == "params-settings"


# ------------------------------------------------------------------ Google Sheets (through sources.sheets)
class _FakeBackend:
    """A stand-in for Google: returns the given rows, or fails with a SheetError once told to."""

    writable = False

    def __init__(self, rows):
        self.rows = rows
        self.error = None
        self.calls = 0

    def fetch(self, ref):
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.rows

    def append(self, ref, rows):  # pragma: no cover - reading only here
        raise AssertionError


def test_sheet_is_read_refreshed_and_its_last_good_copy_kept(monkeypatch):
    from sources.cache import LastGoodCache
    from sources.model import Sheet
    from sources.sheets import SheetError, SheetSource, parse_sheet_ref

    rows = [["date", "1st", "2nd", "3rd"], ["2024-05-01", "Uma", "Vic", "Wen"], ["2024-05-08", "Vic", "Wen", "Uma"]]
    backend = _FakeBackend(rows)
    cache = LastGoodCache()
    url = "https://docs.google.com/spreadsheets/d/" + "k" * 30 + "/edit#gid=0"
    monkeypatch.setattr(Sheet, "opener", lambda self: SheetSource(parse_sheet_ref(self.url), backend, cache=cache))
    choice = choose_source("address", previous=POKER, address=url)
    assert choice.source == {"kind": "sheet", "url": url, "worksheet": None}
    assert summary_text(choice.shown).startswith("2 games, 3 players, 2024-05-01 to 2024-05-08")
    calls = backend.calls
    choose_source("address", previous=choice.source, address=url)
    assert backend.calls == calls  # a recent read is reused
    backend.error = SheetError("Google answered 503.", "server", retryable=False)
    refreshed = choose_source("refresh", previous=choice.source, address=url)
    assert backend.calls == calls + 1  # the refresh button reads anew
    assert refreshed.source == choice.source and not refreshed.errors
    assert any("Google answered 503." in w and "Showing the copy read at" in w for w in refreshed.warnings)


def test_unreachable_sheet_without_copy_keeps_previous_data(monkeypatch):
    from sources.cache import LastGoodCache
    from sources.model import Sheet
    from sources.sheets import SheetError, SheetSource, parse_sheet_ref

    backend = _FakeBackend([])
    backend.error = SheetError("The sheet is not shared with anyone who has the link.", "forbidden")
    url = "https://docs.google.com/spreadsheets/d/" + "q" * 30 + "/edit"
    monkeypatch.setattr(
        Sheet, "opener", lambda self: SheetSource(parse_sheet_ref(self.url), backend, cache=LastGoodCache())
    )
    choice = choose_source("address", previous=POKER, address=url)
    assert choice.source is None
    assert "not shared" in "\n".join(choice.errors) and "Still using the previous data" in choice.errors[-1]


def test_knots_without_values_is_the_library_error():
    from ratings import get_system

    raw = {s.name: s.default for s in get_system("plackett-luce").parameters()}
    raw["eta_knots"] = "0, 1.5"
    good, error = param_values.collect("plackett-luce", raw, {})
    assert good is None and error.startswith("parameter 'eta_knots': eta_knots and eta_values must be given together")
    raw["eta_values"] = "0.4, 0.2"
    good, error = param_values.collect("plackett-luce", raw, {})
    assert error is None and good["params"]["eta_knots"] == [0.0, 1.5] and good["params"]["eta_values"] == [0.4, 0.2]


def test_summary_says_one_game_and_one_did_not_finish_result():
    from callbacks.runs import load_source
    from sources.model import Upload, keep_history

    one = GameHistory.from_records(
        [{"game": "g", "player": "Ann", "place": 1}, {"game": "g", "player": "Bo", "place": "DNF"}]
    )
    text = summary_text(load_source(Upload(keep_history(one), "one.csv").to_json()))
    assert text.startswith("1 game, 2 players, no dates, 1 did-not-finish result")


def test_sample_dropdown_follows_the_data_in_use():
    from sources.model import Upload, keep_history

    assert sample_shown(POKER) == ("poker", "choose a sample")
    upload = Upload(keep_history(load_sample("chess")), "club.csv").to_json()
    value, placeholder = sample_shown(upload)
    assert value is None and placeholder == "none (using upload club.csv)"


def test_phone_leaderboard_keeps_who_where_and_how_much():
    run = current_run(POKER, {"system": "multielo", "params": {}})
    wide = leaderboard_view(run, min_games=1, offset=None, factor=None, baseline=None)
    narrow = leaderboard_view(run, min_games=1, offset=None, factor=None, baseline=run, narrow=True)
    assert [c["field"] for c in wide.columns if not c.get("hide")] == [
        "rank",
        "player",
        "rating",
        "games",
        "wins",
        "average_place",
        "last_change",
        "trend",
    ]
    assert [c["field"] for c in narrow.columns if not c.get("hide")] == [
        "rank",
        "shift",
        "player",
        "rating",
        "last_change",
    ]
    # the shift column is always there (hidden without a baseline), so pinning one never moves it to the end
    assert [c["field"] for c in wide.columns][:2] == ["rank", "shift"]
    assert not any("pinned" in c for c in narrow.columns)
    fixed = sum(c.get("width", 0) + c.get("minWidth", 0) for c in narrow.columns)
    assert fixed <= PHONE_WIDTH  # fits a 360 px phone inside the page's margins (tests/browser/test_phone_fit.py)
    assert [r["player"] for r in narrow.rows] == [r["player"] for r in wide.rows]


# ------------------------------------------------------------------ one response for every standings view
THURSTONIAN = {"system": "thurstonian", "params": {}}
STANDINGS_OUTPUTS = ("standings-leaderboard", "standings-trajectories", "standings-game-changes", "standings-drawn")


@pytest.fixture(scope="module")
def client():
    import app

    return app.server.test_client()


def _standings(client, settings_value, *, changed=None, drawn=None, tab="standings", players=None):
    from tests.dash_requests import post

    values = {
        "data-source.data": POKER,
        "params-settings.data": settings_value,
        "standings-game.value": 149,
        "page-tabs.active_tab": tab,
        "standings-drawn.data": drawn,
        "standings-players.value": players,
    }
    response = post(client, "standings-leaderboard", values, changed=changed)
    assert response.status_code in (200, 204)
    return response.get_json() if response.status_code == 200 else {}


def test_a_failed_computation_updates_no_view_and_says_what_failed(client, failing_replay):
    first = _standings(client, THURSTONIAN, changed=[])  # the page's first call: every view drawn
    assert set(STANDINGS_OUTPUTS) <= set(first["response"])
    drawn = first["response"]["standings-drawn"]["data"]
    failed = _standings(client, failing_replay, changed=["params-settings.data"], drawn=drawn)
    # not one of the views is in the answer: the page keeps the leaderboard, the lines and the bars of the last
    # good result together, and the banner says what failed and where
    assert not set(STANDINGS_OUTPUTS) & set(failed.get("response", {}))
    banner = str(failed["sideUpdate"]["page-error"]["children"])
    assert "game 6" in banner and "standard deviations" in banner and "Anything drawn before stays on screen" in banner


def test_another_open_tab_keeps_its_last_good_result_too(client, failing_replay):
    from layouts.ids import Tab, tab_gate
    from tests.dash_requests import post

    # the Games tab is open, so a change of settings opens its gate (callbacks/gates.py) and its views recompute
    gate = f"{tab_gate(Tab.GAMES)}.data"
    values = {"data-source.data": POKER, "params-settings.data": failing_replay, "page-tabs.active_tab": "games"}
    response = post(client, "games-grid", {**values, gate: 1}, changed=[gate])
    body = response.get_json()
    assert "games-grid" not in body.get("response", {})
    assert "game 6" in str(body["sideUpdate"]["page-error"]["children"])


def test_a_parameter_change_sends_only_the_new_values_of_the_charts(client):
    drawn_players = ["Marta", "Ines", "Jonas", "Priya"]
    first = _standings(client, {"system": "multielo", "params": {"k": 32}}, changed=[], players=drawn_players)
    drawn = first["response"]["standings-drawn"]["data"]
    lines = first["response"]["standings-trajectories"]["figure"]
    changed = _standings(
        client,
        {"system": "multielo", "params": {"k": 16}},
        changed=["params-settings.data"],
        drawn=drawn,
        players=drawn_players,
    )
    patch = changed["response"]["standings-trajectories"]["figure"]
    assert patch["__dash_patch_update"] == "__dash_patch_update"
    targets = {tuple(op["location"]) for op in patch["operations"]}
    solid = len(lines["data"])  # no baseline: one solid line per drawn player
    assert targets == {
        *(("data", i, "y") for i in range(solid)),
        *(("data", i, "hovertext") for i in range(solid)),
        ("layout", "shapes", 0, "y0"),
        ("layout", "shapes", 0, "y1"),
        ("layout", "annotations", 0, "y"),
    }
    # K halved: multielo's every change is K(N-1)(S-E) (Cunningham's multiplayer Elo), so from equal ratings the
    # first game's changes halve; the drawn players' first change (hovertext) is therefore half the K=32 one
    # whenever it is their first game of all (game index 0).
    before = {i: t["hovertext"][0] for i, t in enumerate(lines["data"]) if t["customdata"][0][0] == 0}
    after = {
        op["location"][1]: op["params"]["value"][0] for op in patch["operations"] if op["location"][-1] == "hovertext"
    }
    assert before, "some drawn player played the first game"

    def read(text: str) -> float:  # a change as the hover writes it (figures.signed): "−16", "+1,234", "0"
        return float(text.replace("−", "-").replace(",", ""))

    for i, text in before.items():
        assert read(after[i]) == pytest.approx(read(text) / 2, rel=1e-3)
    # the leaderboard: the same grid (columns, height), so only its rows (the grid is never rebuilt)
    board = changed["response"]["standings-leaderboard"]
    assert set(board) == {"rowData"}
    rows = board["rowData"]
    assert {r["player"] for r in rows} == {r["player"] for r in first_rows(first)}
    assert {r["player"]: r["rating"] for r in rows} != {r["player"]: r["rating"] for r in first_rows(first)}
    # one game's bars: the same game, so a patch of its values too
    bars = changed["response"]["standings-game-changes"]["figure"]
    assert {tuple(op["location"]) for op in bars["operations"]} == {
        ("data", 0, "y"),
        ("data", 0, "text"),
        ("data", 0, "hovertext"),
        ("data", 0, "marker", "color"),
    }
    # what did not change is not sent: the scale row's look
    assert "standings-scale-row" in first["response"] and "standings-scale-row" not in changed["response"]
    # another system: a whole new figure (its axis says its unit)
    other = _standings(client, {"system": "trueskill", "params": {}}, changed=["params-settings.data"], drawn=drawn)
    assert "data" in other["response"]["standings-trajectories"]["figure"]


def test_the_explanations_notes_are_sent_only_when_they_change(client):
    from tests.dash_requests import post

    def explain(params, drawn):
        values = {
            "data-source.data": POKER,
            "params-settings.data": {"system": "multielo", "params": params},
            "standings-game.value": 149,
            "page-tabs.active_tab": "standings",
            "standings-drawn.data": drawn,
            "game-explain-player.value": "Priya",  # she played the last game (the sample's file)
        }
        body = post(client, "standings-leaderboard", values, changed=["params-settings.data"]).get_json()["response"]
        return body, body.get("standings-drawn", {}).get("data", drawn)

    notes = "game-explain-notes"
    first, drawn = explain({"k": 32}, None)
    assert "K = 32" in str(first[notes]["children"])
    # the notes quote K (multielo's change is K(N-1)(S-E) shared out): a new K sends them, a new d does not
    new_k, drawn = explain({"k": 16}, drawn)
    assert "K = 16" in str(new_k[notes]["children"])
    new_d, _ = explain({"k": 16, "d": 300}, drawn)
    assert "game-explain-header" in new_d and "game-explain-table" in new_d and notes not in new_d


def test_the_patch_puts_the_new_run_where_the_figure_has_it():
    # Applied to the K=32 figure, the K=16 patch gives exactly the K=16 figure's values (a reference built whole).
    history = load_sample("poker")
    old, new = create("multielo", k=32.0).rate(history), create("multielo", k=16.0).rate(history)
    players = figures.top_players(old)[:4]
    scale = figures.Scale(unit=new.scale)
    patch = trajectories_patch(new, players, scale=scale, baseline=None).to_plotly_json()
    whole = figures.trajectory_figure(new, players, scale=scale)
    for op in patch["operations"]:
        where, value = op["location"], op["params"]["value"]
        if where[0] == "data" and where[-1] == "y":
            y = np.frombuffer(base64.b64decode(value["bdata"]), dtype="<f8")
            assert np.array_equal(y, np.asarray(whole.data[where[1]].y))
        elif where[0] == "data":
            assert value == list(whole.data[where[1]].hovertext)
        else:
            assert value == whole.layout.shapes[0].y0 == whole.layout.annotations[0].y


def test_each_change_gets_the_next_number_of_its_page():
    import re

    from sources.generations import next_generation

    first = next_generation(None)  # the page's first change: a new random id
    assert re.fullmatch(r"[0-9a-f]{32}", first["page"]) and first["n"] == 1
    assert next_generation(None)["page"] != first["page"]
    assert next_generation({"page": first["page"], "n": 7}) == {"page": first["page"], "n": 8}
    # what the page sends is untrusted: anything that is not an id and a count starts afresh
    for hostile in ({"page": "<b>x</b>", "n": 3}, {"page": first["page"], "n": "3"}, [1, 2], "x"):
        fresh = next_generation(hostile)
        assert fresh["n"] == 1 and fresh["page"] != first["page"]


def test_a_newer_change_of_the_same_page_stops_older_work():
    from dash.exceptions import PreventUpdate

    from sources.generations import announce, generation_of, superseded

    page, other = "a1" * 16, "b2" * 16
    older = StandingsInputs(POKER, SETTINGS_K16, tab="standings", generation={"page": page, "n": 1})
    newer = dataclasses.replace(older, generation={"page": page, "n": 2})
    assert standings_views_ok(older)  # alone, the first change is computed
    announce(generation_of(newer.generation))  # the page's second change has started (on any worker)
    with pytest.raises(PreventUpdate):
        standings.standings_views(older, drawn=None)
    assert standings_views_ok(newer)
    # another page's first change is its own business; a request without a page id is never stopped
    assert standings_views_ok(dataclasses.replace(older, generation={"page": other, "n": 1}))
    assert standings_views_ok(dataclasses.replace(older, generation=None))
    assert not superseded(None)


def test_an_answer_draws_every_view_the_page_does_not_show_yet_whatever_triggered_it():
    """Dash drops the answer of a callback's request still running when the same callback is asked again (its
    renderer keeps the newest request only), so the next answer must bring what the dropped one would have drawn."""
    from dash.exceptions import PreventUpdate

    def answer(inputs, drawn):
        values = standings.standings_views(inputs, drawn=drawn)
        # in StandingsViews.outputs()'s order: rows first, trajectories 11th, heatmap 13th, 'drawn' last
        return {"rows": values[0], "trajectories": values[10], "heatmap": values[12], "drawn": values[-1]}

    shown = StandingsInputs(POKER, SETTINGS_K16, tab="standings")
    first = answer(shown, None)
    assert isinstance(first["rows"], list) and isinstance(first["drawn"], dict)
    with pytest.raises(PreventUpdate):  # nothing changed: nothing to draw
        standings.standings_views(shown, drawn=first["drawn"])
    # the "All games" tab opens; that answer is dropped in the browser, so the page still holds first["drawn"]; the
    # next request (any trigger) has the tab open and must draw the heatmap, and only it
    opened = dataclasses.replace(shown, tab="overview")
    second = answer(opened, first["drawn"])
    assert second["heatmap"] is not no_update and second["rows"] is no_update and second["trajectories"] is no_update
    # a parameter changed while the tab shows: the heatmap again; back on Standings, the leaderboard catches up
    moved = dataclasses.replace(opened, settings={"system": "multielo", "params": {"k": 40}})
    third = answer(moved, second["drawn"])
    assert third["heatmap"] is not no_update
    back = answer(dataclasses.replace(moved, tab="standings"), third["drawn"])
    assert isinstance(back["rows"], list) and back["heatmap"] is no_update and back["trajectories"] is not no_update
    assert back["rows"] != first["rows"]  # K=40 rates the sample differently from K=16


def test_before_the_pickers_answer_the_newest_game_and_its_winner_are_shown():
    """The game and player pickers fill in from callbacks of their own; until they have (or when their answer is
    lost), the standings show the pickers' defaults: the newest game's bars and its winner's explanation.  Expected,
    read from the sample itself: the last game of the poker sample and the player placed first in it."""
    history = load_sample("poker")
    last = history.games[-1]
    winner = next(e.player for e in last.entries if e.place == 1)
    values = standings.standings_views(StandingsInputs(POKER, SETTINGS_K16, tab="standings"), drawn=None)
    bars, header, rows = values[11], values[13], values[14]
    assert bars is not no_update and f"Game {history.n_games}" in json.dumps(bars["layout"])
    assert header.startswith(f"{winner} in Game {history.n_games}") and isinstance(rows, list) and rows


@pytest.mark.parametrize(
    "value",
    [
        None,
        3,
        "x",
        {"page": "A1" * 16, "n": 1},
        {"page": "a1" * 15, "n": 1},
        {"page": "a1" * 16, "n": True},
        {"page": "a1" * 16, "n": -1},
        {"page": "a1" * 16, "n": 1.5},
        {"page": "a1" * 16, "n": 10**13},
    ],
)
def test_a_forged_change_number_is_ignored(value):
    from sources.generations import generation_of

    assert generation_of(value) is None


SETTINGS_K16 = {"system": "multielo", "params": {"k": 16}}


def first_rows(body) -> list:
    """The leaderboard grid's rows in a whole answer of the standings callback."""
    return body["response"]["standings-leaderboard"]["rowData"]


def standings_views_ok(inputs) -> bool:
    rows, *_ = standings.standings_views(inputs, drawn=None)
    return isinstance(rows, list)


def test_the_grid_gets_numbers_to_seven_significant_digits():
    run = create("multielo").rate(load_sample("racing"))
    rows = figures.leaderboard_rows(run)[: figures.leaderboard.LEADERBOARD_PAGE]  # the first page of 150 players
    grid = leaderboard_view(run, min_games=None, offset=None, factor=None, baseline=None)
    assert [r["player"] for r in grid.rows] == [r["player"] for r in rows]
    for shown, row in zip(grid.rows, rows, strict=True):
        for field in ("rating", "average_place", "last_change"):
            assert shown[field] == pytest.approx(row[field], rel=5e-7, abs=1e-12)
            assert len(repr(shown[field]).lstrip("-").replace(".", "").lstrip("0").split("e")[0]) <= 7
        assert (shown["rank"], shown["games"], shown["wins"], shown["trend"]) == (
            row["rank"],
            row["games"],
            row["wins"],
            row["trend"],
        )


# ------------------------------------------------------------------ the Games tab's page and game (issue 26)
def _games(client, gate_why, *, page=3, click=None):
    from layouts.ids import Tab, tab_gate
    from tests.dash_requests import post

    gate = f"{tab_gate(Tab.GAMES)}.data"
    values = {
        "data-source.data": POKER,
        "params-settings.data": {"system": "multielo", "params": {"k": 16}},
        "page-tabs.active_tab": "games",
        "games-pages.active_page": page,
        "games-grid.cellClicked": click,
        gate: {"n": 5, "why": gate_why},
    }
    grid = post(client, "games-grid", values, changed=[gate]).get_json()["response"]
    game = post(client, "games-game", values, changed=[gate]).get_json()["response"]
    return grid, game


def test_a_parameter_change_keeps_the_games_page_and_the_clicked_game(client):
    # Before the fix the gated callbacks read their trigger as the gate and went back to page 1 on every change.
    click = {"rowIndex": 0, "colId": "order", "value": "x", "rowId": "3"}
    for why in (["params-settings"], ["standings-scale-offset"], ["params-settings", "baseline-store"]):
        grid, game = _games(client, why, click=click)
        assert grid["games-pages"].get("active_page", "kept") == "kept", why  # no new page sent: page 3 stays
        assert str(game["games-game"]["children"]).startswith("Game 4"), why  # the clicked game (row id 3)


def test_new_data_or_the_tab_opening_returns_to_page_one_and_the_newest_game(client):
    click = {"rowIndex": 0, "colId": "order", "value": "x", "rowId": "3"}
    for why in (["data-source"], ["page-tabs"], ["data-source", "params-settings"]):
        grid, game = _games(client, why, click=click)
        assert grid["games-pages"]["active_page"] == 1, why
    grid, game = _games(client, ["data-source"], click=click)
    newest = str(game["games-game"]["children"])
    assert newest.startswith("Game 150"), newest  # the poker sample's newest game, not the clicked one
