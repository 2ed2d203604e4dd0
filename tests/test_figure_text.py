"""Names from a user's file are shown literally in every chart, never read by plotly as markup or a template.

plotly.js draws a subset of HTML in legend names, tick labels, hover text, titles and annotations, turns the
entities ``&lt; &gt; &amp;`` and numeric ones (``&#37;``) back into characters (``convertEntities`` in its
``svg_text_utils``; it knows no ``&quot;``), and fills ``%{...}`` in hover templates.  :func:`_as_plotly_shows`
below is that entity rule, written from plotly.js's source, so a round trip through it is what a viewer sees.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

import figures
from ratings import GameHistory, create

LINK = '<a href="x">y</a>'
BOLD = "<b>z</b>"
TEMPLATE = "Zed %{x} & co"
GAME = "<i>g</i>"
NAMES = (LINK, BOLD, TEMPLATE)
RAW_MARKUP = (LINK, BOLD, "<a href", "<b>z", "<i>g", "%{x} &")

_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "nbsp": "\xa0", "mu": "μ", "times": "×", "plusmn": "±", "deg": "°"}
_ENTITY = re.compile(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);")


def _as_plotly_shows(text: str) -> str:
    """plotly.js's entity conversion (``convertEntities``): named ones from its table, numeric ones by code point."""

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner.startswith("#x"):
            return chr(int(inner[2:], 16))
        if inner.startswith("#"):
            return chr(int(inner[1:]))
        return _ENTITIES.get(inner, match.group(0))

    return _ENTITY.sub(one, text)


def _strings(value: Any) -> Iterator[str]:
    """Every string anywhere in a decoded figure (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decoded(fig: go.Figure) -> dict[str, Any]:
    # Through JSON, exactly what the browser receives (plotly escapes "<" as \u003c on the wire, json undoes that).
    return json.loads(fig.to_json())


@pytest.fixture(scope="module")
def hostile_run():
    records = [
        # game   player    place
        (GAME, LINK, 1),
        (GAME, BOLD, 2),
        (GAME, TEMPLATE, "DNF"),
        ("2", BOLD, 1),
        ("2", LINK, 2),
    ]
    history = GameHistory.from_records(
        [{"game": g, "player": p, "place": pl, "date": "2024-03-01"} for g, p, pl in records]
    )
    run = create("multielo").rate(history)
    # The DNF gains in game 1, so the heatmap's cross (and its hover) names TEMPLATE too.
    return dataclasses.replace(run, after=run.after + np.array([0.0, 0.0, 50.0, 0.0, 0.0]))


def _every_figure(run) -> dict[str, go.Figure]:  # type: ignore[no-untyped-def]
    baseline = create("trueskill").rate(run.history)
    probabilities = np.full((3, 3), 1 / 3)
    return {
        "trajectories": figures.trajectory_figure(run, list(NAMES), baseline=baseline, baseline_name=BOLD),
        "trajectories by date": figures.trajectory_figure(run, list(NAMES), by_date=True),
        "game changes": figures.game_changes_figure(run, 0),
        "heatmap": figures.change_heatmap(run, list(NAMES)),
        "probabilities": figures.probability_figure(list(NAMES), probabilities, system_title=LINK),
        "empty": figures.empty_figure(f"not in this history: {TEMPLATE}, {BOLD}"),
        "score function": figures.score_function_figure(4, 1.5),
    }


def test_no_figure_carries_a_name_as_markup_or_template(hostile_run) -> None:
    for title, fig in _every_figure(hostile_run).items():
        texts = list(_strings(_decoded(fig)))
        for raw in RAW_MARKUP:
            assert not [t for t in texts if raw in t], f"{title}: {raw!r} reaches plotly unescaped"


def test_names_are_escaped_in_legend_hover_ticks_and_annotations(hostile_run) -> None:
    shown = {name: figures.plain(name) for name in (*NAMES, GAME)}
    assert shown[BOLD] == "&lt;b&gt;z&lt;/b&gt;"
    drawn = _every_figure(hostile_run)

    traces = _decoded(drawn["trajectories"])["data"]
    solid = [t for t in traces if t["line"].get("dash") != "dash"]
    dashed = [t for t in traces if t["line"].get("dash") == "dash"]
    # legend
    assert [t["name"] for t in solid] == [shown[n] for n in NAMES]
    assert [t["name"] for t in dashed] == [f"{shown[n]} ({shown[BOLD]})" for n in NAMES]
    # hover: the name in the template, the game id in each point's text; customdata and hovertext (also filled
    # into the template) hold only numbers and the word DNF
    assert all(f"<b>{shown[n]}</b>" in t["hovertemplate"] for n, t in zip(NAMES, solid, strict=True))
    assert solid[0]["text"][0] == f"Game 1 ({shown[GAME]}), 2024-03-01"
    assert solid[2]["customdata"] == [[0, "DNF", 3]]  # TEMPLATE did not finish game 1
    assert all(re.fullmatch(r"0|[+−][\d.,]+(e[+−]\d+)?", h) for t in solid for h in t["hovertext"])
    assert shown[BOLD] in _decoded(drawn["trajectories"])["layout"]["title"]["text"]

    bars = _decoded(drawn["game changes"])
    # tick labels and hover of one game's bars; the game id in the title
    assert bars["data"][0]["x"] == [f"1. {shown[LINK]}", f"2. {shown[BOLD]}", f"DNF. {shown[TEMPLATE]}"]
    assert [h.split("</b>")[0] for h in bars["data"][0]["hovertext"]] == [f"<b>{shown[n]}" for n in NAMES]
    assert shown[GAME] in bars["layout"]["title"]["text"]

    heat = _decoded(drawn["heatmap"])["data"]
    assert heat[0]["y"] == [shown[n] for n in NAMES]  # tick labels, and %{y} in its hover
    assert heat[1]["y"] == [shown[TEMPLATE]]  # the cross marks TEMPLATE's gain as a DNF
    assert heat[1]["hovertext"][0].startswith(f"{shown[TEMPLATE]}: DNF of 3")

    chances = _decoded(drawn["probabilities"])
    assert chances["data"][0]["y"] == [shown[n] for n in NAMES]
    assert shown[LINK] in chances["layout"]["title"]["text"]

    note = _decoded(drawn["empty"])["layout"]["annotations"][0]["text"]
    assert note == f"not in this history: {shown[TEMPLATE]}, {shown[BOLD]}"


def test_a_viewer_reads_the_names_as_written(hostile_run) -> None:
    legend = [t.name for t in figures.trajectory_figure(hostile_run, list(NAMES)).data]
    assert [_as_plotly_shows(name) for name in legend] == list(NAMES)


def test_plain_by_hand() -> None:
    assert figures.plain("<b>z</b>") == "&lt;b&gt;z&lt;/b&gt;"
    assert figures.plain("Tom & Jerry") == "Tom &amp; Jerry"
    assert figures.plain("&lt;") == "&amp;lt;"  # an entity typed in a name stays those four characters
    assert figures.plain("%{y}") == "&#37;{y}"  # no longer a hover-template placeholder
    assert figures.plain('say "hi"') == 'say "hi"'  # plotly has no &quot; entity: quotes stay as they are
    assert figures.plain("Ann") == "Ann"


@given(st.text())
def test_plain_round_trips_through_plotlys_entities_and_leaves_no_markup(name: str) -> None:
    text = figures.plain(name)
    assert _as_plotly_shows(text) == name
    assert "<" not in text and ">" not in text and "%" not in text
    assert not _ENTITY.sub("", text).count("&")  # every "&" left starts an entity plotly converts


def test_counts_say_one_game_not_one_games() -> None:
    from figures import counted

    assert [counted(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert counted(1, "did-not-finish result") == "1 did-not-finish result"
    assert counted(3, "match", "matches") == "3 matches"
    assert counted(1234, "game") == "1,234 games"  # thousands separated, as ratings are written
