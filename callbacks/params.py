"""The rating system and its parameters: controls built from the schema -> the settings store (or an error)."""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import urlencode

from dash import ALL, MATCH, Input, Output, State, callback, clientside_callback, ctx, html, no_update

from callbacks.runs import parse_params
from layouts.controls import default_shown, param_controls
from layouts.ids import Page, Params, ParamType, Standings
from ratings import SYSTEM_NAMES, get_system
from ratings.params import parse_number
from sources.generations import next_generation
from sources.links import link_params, settings_pairs

__all__ = ["address_values", "collect", "controls_for", "follow", "slider_for"]


def address_values(system: str, *, reset: bool, url_state: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The page address's valid parameter values when it names ``system`` (none after a reset), and what
    was left out and why (an unknown system too: the page opened on ``system`` instead)."""
    if reset or not url_state or url_state.get("system") != system:
        return {}, []
    values, problems = link_params(system, url_state.get("params") or {})
    return values, [*(url_state.get("unused") or []), *problems]


def controls_for(system: str, *, reset: bool, url_state: dict[str, Any] | None) -> list[Any]:
    """The controls of ``system``: defaults after a reset, else the page address's values when it names this system."""
    values, _ = address_values(system, reset=reset, url_state=url_state)
    return param_controls(system, values)


def collect(system: str, raw: dict[str, Any], switches: dict[str, bool]) -> tuple[dict[str, Any] | None, str | None]:
    """Settings ``{"system", "params"}`` from the controls' raw values, or ``(None, message)``.

    ``raw`` maps a parameter name to its control's value; ``switches`` says, for "none"-able numbers,
    whether they are on (off means ``None``).  Empty number boxes are reported by name.
    """
    values: dict[str, Any] = {}
    for spec in get_system(system).parameters():
        if spec.name not in raw:
            continue
        value = raw[spec.name]
        if spec.kind == "optional-float" and not switches.get(spec.name, value is not None):
            value = None
        elif spec.kind in ("float", "int", "optional-float") and (value is None or str(value).strip() == ""):
            return None, f"parameter '{spec.name}': enter {spec.expected()}"
        elif value is not None and _read(value) == default_shown(spec.default) != spec.default:
            value = spec.default  # the box shows a long default rounded; reading it back means the default
        values[spec.name] = value
    params, error = parse_params(system, values)
    if params is None:
        return None, error
    return {"system": system, "params": params}, None


def _read(value: Any) -> Any:
    """A box's text as the number it means (the box sends text), else the value unchanged."""
    if isinstance(value, str):
        try:
            return parse_number(value)
        except ValueError:
            return value
    return value


# system dropdown, reset button, page address -> parameter controls, the address's unused values
@callback(
    Output(Params.CONTROLS, "children"),
    Output(Params.SYSTEM_SUMMARY, "children"),
    Output(Params.LINK_ERROR, "children"),
    Output(Params.LINK_ERROR, "is_open"),
    Input(Params.SYSTEM, "value"),
    Input(Params.RESET, "n_clicks"),
    Input(Page.URL_STATE, "data"),
    prevent_initial_call=True,
)
def on_system(system: str, _reset: int | None, url_state: dict[str, Any] | None) -> tuple[Any, ...]:
    if system not in SYSTEM_NAMES:
        return no_update, no_update, no_update, no_update
    values, problems = address_values(system, reset=ctx.triggered_id == Params.RESET, url_state=url_state)
    notes = [html.Div(line) for line in problems]
    return param_controls(system, values), get_system(system).summary, notes, bool(problems)


def _by_name(values: list[Any], ids: list[dict[str, Any]]) -> dict[str, Any]:
    return {item["id"]["name"]: value for item, value in zip(ids, values, strict=True)}


#: A box's text that moves its slider: a plain decimal number (the server reads the rest with
#: ratings.params.parse_number and says what is wrong, e.g. a decimal comma).
_PLAIN_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def slider_for(text: Any, low: Any, high: Any) -> float | None:
    """Where a box's ``text`` puts its slider: the number when it is a plain decimal within ``[low, high]``, else
    ``None`` (the slider stays put: a slider clamping a valid value off its range would write its end back)."""
    text = "" if text is None else str(text).strip()
    if not _PLAIN_DECIMAL.fullmatch(text):
        return None
    value = float(text)
    try:
        inside = math.isfinite(value) and float(low) <= value <= float(high)
    except (TypeError, ValueError):
        return None
    return value if inside else None


def follow(
    boxes: dict[str, Any], sliders: dict[str, Any], ranges: dict[str, tuple[Any, Any]], changed: set[tuple[str, str]]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Each number's value, and the boxes and sliders to write, after the ``changed`` ``(type, name)`` controls.

    A moved slider writes its box (and its value is the one used); a changed box moves its slider
    (:func:`slider_for`) and is the value used.
    """
    values = dict(boxes)
    box_out: dict[str, Any] = {}
    slider_out: dict[str, Any] = {}
    for kind, name in changed:
        if kind == ParamType.VALUE and name in sliders:
            moved = slider_for(boxes.get(name), *ranges.get(name, (None, None)))
            if moved is not None and moved != sliders[name]:
                slider_out[name] = moved
        elif kind == ParamType.SLIDER and name in sliders and (ParamType.VALUE, name) not in changed:
            values[name] = box_out[name] = sliders[name]
    return values, box_out, slider_out


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
# its box written back with the answer); the standings callback announces the number, and older work of the same
# page still running stops (sources.generations); the browser joins the query's parts (callbacks/gates.py).
@callback(
    Output(Params.SETTINGS, "data"),
    Output(Params.ERROR, "children"),
    Output(Params.ERROR, "is_open"),
    Output(Standings.GENERATION, "data"),
    Output(Page.SHARE_PARAMS, "data"),
    Output({"type": ParamType.VALUE, "name": ALL}, "value"),
    Output({"type": ParamType.SLIDER, "name": ALL}, "value"),
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
    synced = (
        [box_out.get(item["id"]["name"], no_update) for item in ctx.outputs_list[5]],
        [slider_out.get(item["id"]["name"], no_update) for item in ctx.outputs_list[6]],
    )
    raw: dict[str, Any] = dict(values)
    for group, ids in zip((choices, lists, bools), (groups[2], groups[3], groups[4]), strict=True):
        raw.update(_by_name(group, ids))
    on = _by_name(switches, groups[1])
    if system not in SYSTEM_NAMES or set(raw) != {s.name for s in get_system(system).parameters()}:
        return (no_update,) * 5 + synced  # controls of another system are still on screen
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
