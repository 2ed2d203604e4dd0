"""The rating system and its parameters: controls built from the schema -> the settings store (or an error)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from dash import ALL, MATCH, Input, Output, State, callback, clientside_callback, ctx, html, no_update

from callbacks.runs import DataError, history_for
from layouts.controls import param_controls, team_style
from layouts.ids import Data, Page, ParamRow, Params, ParamType, Standings
from layouts.param_values import collect, follow, sliders_moved
from ratings import SYSTEM_NAMES, get_system
from sources.generations import next_generation
from sources.links import address_values, settings_pairs


def has_teams(source: Any) -> bool:
    """Whether the data in use has a team game (what the team parameters act on); unreadable data says no."""
    try:
        return history_for(source).has_teams
    except DataError:
        return False


# system dropdown, reset button, page address (and whether the data has teams) -> parameter controls, the
# address's unused values
@callback(
    Output(Params.CONTROLS, "children"),
    Output(Params.SYSTEM_SUMMARY, "children"),
    Output(Params.LINK_ERROR, "children"),
    Output(Params.LINK_ERROR, "is_open"),
    Input(Params.SYSTEM, "value"),
    Input(Params.RESET, "n_clicks"),
    Input(Page.URL_STATE, "data"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_system(system: str, _reset: int | None, url_state: dict[str, Any] | None, source: Any = None) -> tuple[Any, ...]:
    if system not in SYSTEM_NAMES:
        return no_update, no_update, no_update, no_update
    values, problems = address_values(system, reset=ctx.triggered_id == Params.RESET, url_state=url_state)
    notes = [html.Div(line) for line in problems]
    controls = param_controls(system, values, teams=has_teams(source))
    return controls, get_system(system).summary, notes, bool(problems)


# data source -> the team parameters shown only for data with team games
@callback(
    Output({"type": ParamRow.TEAM, "name": ALL}, "style"),
    Input(Data.SOURCE, "data"),
    prevent_initial_call=False,
)
def on_team_params(source: Any) -> list[dict[str, str]]:
    return [team_style(has_teams(source))] * len(ctx.outputs_list)


def _by_name(values: list[Any], ids: list[dict[str, Any]]) -> dict[str, Any]:
    return {item["id"]["name"]: value for item, value in zip(ids, values, strict=True)}


def _changed() -> set[tuple[str, str]]:
    """The ``(type, name)`` of each pattern-matching control that triggered this call."""
    out = set()
    for prop in ctx.triggered_prop_ids:
        ident = prop.rpartition(".")[0]
        if ident.startswith("{"):
            parsed = json.loads(ident)
            out.add((str(parsed.get("type")), str(parsed.get("name"))))
    return out


# every parameter control -> settings store (valid only), the error line, this page's change number, the settings'
# part of the shareable query, and the slider and box of each number kept together (all in this one answer: neither
# the standings callback nor the address waits for another request, and a moved slider goes to the server at once,
# its box written back with the answer), and each slider's range where the rules between parameters move it (what
# they allow with the others as now set: layouts.param_values.sliders_moved); the standings callback announces the
# number, and older work of the same page still running stops (sources.generations); the browser joins the query's
# parts (callbacks/gates.py).
@callback(
    Output(Params.SETTINGS, "data"),
    Output(Params.ERROR, "children"),
    Output(Params.ERROR, "is_open"),
    Output(Standings.GENERATION, "data"),
    Output(Page.SHARE_PARAMS, "data"),
    Output({"type": ParamType.VALUE, "name": ALL}, "value"),
    Output({"type": ParamType.SLIDER, "name": ALL}, "value"),
    Output({"type": ParamType.SLIDER, "name": ALL}, "min"),
    Output({"type": ParamType.SLIDER, "name": ALL}, "max"),
    Output({"type": ParamType.SLIDER, "name": ALL}, "marks"),
    Input({"type": ParamType.VALUE, "name": ALL}, "value"),
    Input({"type": ParamType.ON, "name": ALL}, "value"),
    Input({"type": ParamType.CHOICE, "name": ALL}, "value"),
    Input({"type": ParamType.LIST, "name": ALL}, "value"),
    Input({"type": ParamType.BOOL, "name": ALL}, "value"),
    Input({"type": ParamType.SLIDER, "name": ALL}, "value"),
    State(Params.SYSTEM, "value"),
    State(Standings.GENERATION, "data"),
    State(Params.ERROR, "is_open"),
    State({"type": ParamType.SLIDER, "name": ALL}, "min"),
    State({"type": ParamType.SLIDER, "name": ALL}, "max"),
    prevent_initial_call="initial_duplicate",  # the page's first settings: the controls as the layout draws them
)
def on_params(
    numbers: list[Any],
    switches: list[Any],
    choices: list[Any],
    lists: list[Any],
    bools: list[Any],
    slider_values: list[Any],
    system: str,
    generation: Any,
    error_shown: Any,
    lows: list[Any],
    highs: list[Any],
) -> tuple[Any, ...]:
    groups = ctx.inputs_list
    boxes = _by_name(numbers, groups[0])
    sliders = _by_name(slider_values, groups[5])
    ranges = {name: (low, high) for name, low, high in zip(sliders, lows, highs, strict=True)}
    values, box_out, slider_out = follow(boxes, sliders, ranges, _changed())
    raw: dict[str, Any] = dict(values)
    for group, ids in zip((choices, lists, bools), (groups[2], groups[3], groups[4]), strict=True):
        raw.update(_by_name(group, ids))
    on = _by_name(switches, groups[1])
    if system not in SYSTEM_NAMES or set(raw) != {s.name for s in get_system(system).parameters()}:
        nothing = [no_update] * len(ctx.outputs_list[6])
        # controls of another system are still on screen
        return (no_update,) * 5 + ([no_update] * len(ctx.outputs_list[5]), nothing, nothing, nothing, nothing)
    moved = sliders_moved(system, raw, on, ranges)
    names = [item["id"]["name"] for item in ctx.outputs_list[6]]
    synced = (
        [box_out.get(item["id"]["name"], no_update) for item in ctx.outputs_list[5]],
        [slider_out.get(name, no_update) for name in names],
        *([moved[name][prop] if name in moved else no_update for name in names] for prop in ("min", "max", "marks")),
    )
    settings_, error = collect(system, raw, on)
    if settings_ is None:
        return no_update, f"{error}. The last valid result stays on screen.", True, no_update, no_update, *synced
    # the change's number goes out with the settings, so the standings callback starts as soon as they arrive
    cleared = ("", False) if error_shown else (no_update, no_update)  # an unchanged output costs the page nothing
    return settings_, *cleared, next_generation(generation), urlencode(settings_pairs(settings_)), *synced


# on/off switch of a "none"-able number -> its slider and box enabled or not
clientside_callback(
    "function(on) { return [!on, !on]; }",
    Output({"type": ParamType.SLIDER, "name": MATCH}, "disabled"),
    Output({"type": ParamType.VALUE, "name": MATCH}, "disabled"),
    Input({"type": ParamType.ON, "name": MATCH}, "value"),
    prevent_initial_call=True,
)
