"""The parameter controls read back: the settings they give (or what is wrong), each number's box and slider kept
together, and the controls a system gets from the page's address."""

from __future__ import annotations

import math
import re
from typing import Any

from layouts.controls import default_shown, offered_range, param_controls, slider_marks
from layouts.ids import ParamType
from ratings import get_system
from ratings.params import ParameterError, coerce, parse_number
from sources.links import address_values
from sources.runs import parse_params

__all__ = ["collect", "controls_for", "follow", "slider_for", "sliders_moved"]


def controls_for(system: str, *, reset: bool, url_state: dict[str, Any] | None) -> list[Any]:
    """The controls of ``system``: defaults after a reset, else the page address's values when it names this system."""
    values, _ = address_values(system, reset=reset, url_state=url_state)
    return param_controls(system, values)


def _switched_off(spec: Any, value: Any, switches: dict[str, bool]) -> bool:
    """Whether a "none"-able number is off (its switch, else whether it has a value): it then means ``None``."""
    return spec.kind == "optional-float" and not switches.get(spec.name, value is not None)


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
        if _switched_off(spec, value, switches):
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


def sliders_moved(
    system: str, raw: dict[str, Any], switches: dict[str, bool], shown: dict[str, tuple[Any, Any]]
) -> dict[str, dict[str, Any]]:
    """The sliders whose range changes with the controls' values ``raw``: each one's new ``min``, ``max`` and
    ``marks`` (:func:`layouts.controls.offered_range`: what the rules allow with the other parameters as now set),
    by name, for those whose range ``shown`` (``(min, max)`` by name) differs.  A value that does not read yet
    (an empty or refused box) counts as its default here; the settings say what is wrong with it."""
    values: dict[str, Any] = {}
    specs = {spec.name: spec for spec in get_system(system).parameters()}
    for name, value in raw.items():
        spec = specs.get(name)
        if spec is None:
            continue
        if _switched_off(spec, value, switches):
            values[name] = None
            continue
        try:
            values[name] = coerce(spec, value)
        except ParameterError:
            continue
    out = {}
    for name, (low, high) in shown.items():
        if name not in specs:
            continue
        new_low, new_high, _ = offered_range(system, specs[name], values)
        if (new_low, new_high) != (low, high):
            out[name] = {"min": new_low, "max": new_high, "marks": slider_marks(specs[name], new_low, new_high)}
    return out


def _read(value: Any) -> Any:
    """A box's text as the number it means (the box sends text), else the value unchanged."""
    if isinstance(value, str):
        try:
            return parse_number(value)
        except ValueError:
            return value
    return value


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
