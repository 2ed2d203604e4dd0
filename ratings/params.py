"""Parameter schemas: frozen dataclasses whose fields carry a range and a help line.

Each rating system declares its hyper-parameters as a frozen dataclass built with
:func:`param`.  :func:`specs` turns it into :class:`ParamSpec` objects, which the
command line and the dashboard read to build their controls, so a new parameter needs
no interface code.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ParamSpec", "ParameterError", "param", "parse_number", "specs", "coerce", "check"]

#: Plain decimal notation, ASCII digits only: ``12``, ``-0.5``, ``.25``, ``1e-3``.  Python's own
#: ``float()`` also takes ``1_000``, ``inf``, ``nan`` and digits of every script (``٣``), none of
#: which a person means as a parameter value.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_number(value: Any) -> float:
    """A finite number from a JSON number or a text in plain decimal notation; ``ValueError`` otherwise.

    A decimal comma (``1,5``) is refused with a hint rather than read as another number.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?[0-9]+,[0-9]+", text):
            raise ValueError(f"'{text}' uses a decimal comma; write {text.replace(',', '.')}")
        if len(text) > 64 or not _DECIMAL.fullmatch(text):
            raise ValueError(f"'{text[:64]}' is not a number in plain decimal notation")
        number = float(text)
    else:
        raise ValueError(f"{value!r} is not a number")
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number


class ParameterError(ValueError):
    """An unknown parameter or a value the mathematics does not allow."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(f"parameter '{name}': {message}")


@dataclass(frozen=True)
class ParamSpec:
    """What an interface needs to offer one parameter.

    ``kind`` is one of ``float``, ``int``, ``choice``, ``optional-float`` (a number or
    ``None``), ``float-list`` (a tuple of numbers, or ``None``) and ``bool``.  ``low`` and
    ``high`` are the suggested range (controls use it; the library accepts any valid value).
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple[str, ...] = ()
    label: str = ""

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ")


def param(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    step: float | None = None,
    choices: Sequence[str] = (),
    label: str = "",
) -> Any:
    """A dataclass field with a suggested range and a one-line help text."""
    meta = {"help": help, "low": low, "high": high, "step": step, "choices": tuple(choices), "label": label}
    if isinstance(default, (list, tuple)):
        frozen = tuple(default)
        return dataclasses.field(default_factory=lambda: frozen, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def _kind(annotation: Any, choices: tuple[str, ...]) -> str:
    if choices:
        return "choice"
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "int"
    if annotation is float:
        return "float"
    args = set(typing.get_args(annotation))
    if float in args and type(None) in args:
        return "optional-float"
    text = str(annotation)
    if "tuple" in text:
        return "float-list"
    return "float"


def specs(params_cls: type) -> list[ParamSpec]:
    """The parameter specs of a parameter dataclass, in field order."""
    hints = typing.get_type_hints(params_cls)
    out = []
    for f in dataclasses.fields(params_cls):
        meta = f.metadata
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[operator]
        out.append(
            ParamSpec(
                name=f.name,
                kind=_kind(hints[f.name], meta.get("choices", ())),
                default=default,
                help=meta.get("help", ""),
                low=meta.get("low"),
                high=meta.get("high"),
                step=meta.get("step"),
                choices=meta.get("choices", ()),
                label=meta.get("label", ""),
            )
        )
    return out


def coerce(spec: ParamSpec, value: Any) -> Any:
    """Turn a text (command line, URL) or JSON value into the parameter's type.

    Raises :class:`ParameterError` with a readable message.
    """
    text = value.strip() if isinstance(value, str) else value
    try:
        if spec.kind in ("optional-float", "float-list") and (
            text is None or (isinstance(text, str) and text.lower() in ("none", ""))
        ):
            return None
        if spec.kind in ("float", "optional-float"):
            return parse_number(text)
        if spec.kind == "int":
            number = parse_number(text)
            if not number.is_integer() or abs(number) > 2**53:
                raise ValueError
            return int(number)
        if spec.kind == "bool":
            if isinstance(text, bool):
                return text
            lowered = str(text).lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if spec.kind == "float-list":
            items = text.split(",") if isinstance(text, str) else list(text)
            if len(items) > 64:
                raise ValueError
            return tuple(parse_number(x) for x in items)
        if spec.kind == "choice":
            if str(text) not in spec.choices:
                raise ParameterError(spec.name, f"'{text}' is not one of {', '.join(spec.choices)}")
            return str(text)
    except ParameterError:
        raise
    except (TypeError, ValueError) as exc:
        if "decimal comma" in str(exc):
            raise ParameterError(spec.name, str(exc)) from None
        expected = {
            "float": "a number",
            "optional-float": "a number or 'none'",
            "int": "a whole number",
            "bool": "true or false",
            "float-list": "comma-separated numbers or 'none'",
        }.get(spec.kind, "a valid value")
        shown = str(value)[:64]
        raise ParameterError(spec.name, f"'{shown}' is not {expected}") from None
    return text


def check(
    name: str,
    value: Any,
    *,
    positive: bool = False,
    nonnegative: bool = False,
    at_least: float | None = None,
    above: float | None = None,
    at_most: float | None = None,
    below: float | None = None,
) -> None:
    """Validate one numeric parameter; raise :class:`ParameterError` when it is invalid."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(name, f"{value!r} is not a number")
    if not math.isfinite(value):
        raise ParameterError(name, f"{value} is not a finite number")
    if positive and value <= 0:
        raise ParameterError(name, f"must be positive, got {value:g}")
    if nonnegative and value < 0:
        raise ParameterError(name, f"must not be negative, got {value:g}")
    if at_least is not None and value < at_least:
        raise ParameterError(name, f"must be at least {at_least:g}, got {value:g}")
    if above is not None and value <= above:
        raise ParameterError(name, f"must be above {above:g}, got {value:g}")
    if at_most is not None and value > at_most:
        raise ParameterError(name, f"must be at most {at_most:g}, got {value:g}")
    if below is not None and value >= below:
        raise ParameterError(name, f"must be below {below:g}, got {value:g}")


def build(params_cls: type, values: Mapping[str, Any]) -> Any:
    """Construct a parameter dataclass, refusing unknown names with the list of valid ones."""
    names = {f.name for f in dataclasses.fields(params_cls)}
    unknown = [k for k in values if k not in names]
    if unknown:
        raise ParameterError(unknown[0], f"unknown; valid parameters are {', '.join(sorted(names))}")
    return params_cls(**values)
