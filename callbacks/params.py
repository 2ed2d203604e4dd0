"""The rating system and its parameters: controls built from the schema -> the settings store (or an error)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from dash import ALL, MATCH, Input, Output, State, callback, clientside_callback, ctx, html, no_update

from callbacks.runs import parse_params
from callbacks.url import link_params, settings_pairs
from layouts.controls import default_shown, param_controls
from layouts.ids import Page, Params, ParamType, Standings
from ratings import SYSTEM_NAMES, get_system
from ratings.params import parse_number
from sources.generations import next_generation

__all__ = ["address_values", "collect", "controls_for"]


def address_values(system: str, *, reset: bool, url_state: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The page address's valid parameter values when it names ``system`` (none after a reset), and what
    was left out and why."""
    if reset or not url_state or url_state.get("system") != system:
        return {}, []
    return link_params(system, url_state.get("params") or {})


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


# every parameter control -> settings store (valid only), the error line, this page's change number and the settings'
# part of the shareable query (all in this one answer, so neither the standings callback nor the address waits for
# another request); the standings callback announces the number, and older work of the same page still running stops
# (sources.generations); the browser joins the query's parts (callbacks/gates.py).
@callback(
    Output(Params.SETTINGS, "data"),
    Output(Params.ERROR, "children"),
    Output(Params.ERROR, "is_open"),
    Output(Standings.GENERATION, "data"),
    Output(Page.SHARE_PARAMS, "data"),
    Input({"type": ParamType.VALUE, "name": ALL}, "value"),
    Input({"type": ParamType.ON, "name": ALL}, "value"),
    Input({"type": ParamType.CHOICE, "name": ALL}, "value"),
    Input({"type": ParamType.LIST, "name": ALL}, "value"),
    Input({"type": ParamType.BOOL, "name": ALL}, "value"),
    State(Params.SYSTEM, "value"),
    State(Standings.GENERATION, "data"),
    State(Params.ERROR, "is_open"),
    prevent_initial_call="initial_duplicate",  # the page's first settings: the controls as the layout draws them
)
def on_params(
    numbers: list[Any],
    switches: list[Any],
    choices: list[Any],
    lists: list[Any],
    bools: list[Any],
    system: str,
    *shown: Any,
) -> tuple[Any, ...]:
    groups = ctx.inputs_list
    raw: dict[str, Any] = {}
    for values, ids in zip((numbers, choices, lists, bools), (groups[0], groups[2], groups[3], groups[4]), strict=True):
        raw.update(_by_name(values, ids))
    on = _by_name(switches, groups[1])
    if system not in SYSTEM_NAMES or set(raw) != {s.name for s in get_system(system).parameters()}:
        return (no_update,) * 5  # controls of another system are still on screen
    settings_, error = collect(system, raw, on)
    if settings_ is None:
        return no_update, f"{error}. The last valid result stays on screen.", True, no_update, no_update
    generation, error_shown = shown
    # the change's number goes out with the settings, so the standings callback starts as soon as they arrive
    cleared = ("", False) if error_shown else (no_update, no_update)  # an unchanged output costs the page nothing
    return settings_, *cleared, next_generation(generation), urlencode(settings_pairs(settings_))


# slider <-> exact number box of one parameter, in the browser (no round trip)
clientside_callback(
    r"""
    function(slider, number, low, high) {
        var nu = window.dash_clientside.no_update;
        var trig = window.dash_clientside.callback_context.triggered;
        var fromSlider = trig.length > 0 && trig[0].prop_id.indexOf('"param-slider"') >= 0;
        if (fromSlider) { return [nu, slider]; }
        // the box holds text: move the slider only for a plain decimal number (the server reads the rest
        // with ratings.params.parse_number and says what is wrong, e.g. a decimal comma)
        var text = (number === null || number === undefined) ? "" : String(number).trim();
        if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text)) { return [nu, nu]; }
        var value = parseFloat(text);
        // outside the slider's range (the server refuses it, or it is valid but off the slider) the
        // slider stays put: a slider clamping it would write its own end back into the box
        if (!isFinite(value) || value < low || value > high) { return [nu, nu]; }
        return [value, nu];
    }
    """,
    Output({"type": ParamType.SLIDER, "name": MATCH}, "value"),
    Output({"type": ParamType.VALUE, "name": MATCH}, "value"),
    Input({"type": ParamType.SLIDER, "name": MATCH}, "value"),
    Input({"type": ParamType.VALUE, "name": MATCH}, "value"),
    State({"type": ParamType.SLIDER, "name": MATCH}, "min"),
    State({"type": ParamType.SLIDER, "name": MATCH}, "max"),
    prevent_initial_call=True,
)

# on/off switch of a "none"-able number -> its slider and box enabled or not
clientside_callback(
    "function(on) { return [!on, !on]; }",
    Output({"type": ParamType.SLIDER, "name": MATCH}, "disabled"),
    Output({"type": ParamType.VALUE, "name": MATCH}, "disabled"),
    Input({"type": ParamType.ON, "name": MATCH}, "value"),
    prevent_initial_call=True,
)
