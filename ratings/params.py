"""Parameter schemas: frozen dataclasses whose fields carry their valid values, a UI range and a help line.

Each rating system declares its hyper-parameters as a frozen dataclass built with :func:`param`, once per
parameter: the VALID values (an :class:`Interval` of finite numbers, or the choices), the suggested range a
slider offers (``low``/``high``/``step``, always inside the valid interval) and a help line.  Rules that tie
several parameters together are declared once per dataclass as :class:`Rule` objects in its ``RULES``.
:func:`validate` is the one validator: every parameter dataclass derives from :class:`Declared`, whose
``__post_init__`` calls it, so the command line, the address codec and the controls all get the same
:class:`ParameterError`, naming the parameter and its valid interval in words.  The design follows
scikit-learn's ``_parameter_constraints`` with ``Interval``/``StrOptions``
(``sklearn/utils/_param_validation.py``), whose constraint objects also generate the invalid values its
contract tests try.

:func:`specs` turns a dataclass into :class:`ParamSpec` objects, which the command line and the dashboard
read to build their controls, so a new parameter needs no interface code.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "Declared",
    "Interval",
    "Limit",
    "ParamSpec",
    "ParameterError",
    "Rule",
    "check_value",
    "coerce",
    "computed_limit",
    "limits",
    "offered",
    "param",
    "parse_number",
    "specs",
    "validate",
]


def _g(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Interval:
    """The finite real numbers between ``low`` and ``high`` (None: unbounded on that side).

    ``closed`` says which ends belong to it: ``"both"``, ``"left"``, ``"right"`` or ``"neither"``.
    Infinite and NaN values never belong (every parameter is a finite number).
    """

    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both, left, right or neither, not {self.closed!r}")
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ValueError(f"an interval needs low < high, got {self.low}, {self.high}")

    @property
    def left_closed(self) -> bool:
        return self.closed in ("both", "left")

    @property
    def right_closed(self) -> bool:
        return self.closed in ("both", "right")

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return False
        if self.low is not None and (value < self.low or (value == self.low and not self.left_closed)):
            return False
        return not (self.high is not None and (value > self.high or (value == self.high and not self.right_closed)))

    def words(self) -> str:
        """The interval in words: ``above 0 and at most 50``, ``from 0 to 10000``, ``any finite number``."""
        lo = None if self.low is None else (f"at least {_g(self.low)}" if self.left_closed else f"above {_g(self.low)}")
        hi = (
            None
            if self.high is None
            else (f"at most {_g(self.high)}" if self.right_closed else f"below {_g(self.high)}")
        )
        if lo and hi and self.closed == "both":
            return f"from {_g(self.low)} to {_g(self.high)}"  # type: ignore[arg-type]
        return " and ".join(x for x in (lo, hi) if x) or "any finite number"

    def notation(self) -> str:
        """The interval in mathematical notation: ``(0, 50]``."""
        left = "[" if self.left_closed and self.low is not None else "("
        right = "]" if self.right_closed and self.high is not None else ")"
        lo = "-inf" if self.low is None else _g(self.low)
        hi = "inf" if self.high is None else _g(self.high)
        return f"{left}{lo}, {hi}{right}"


#: Any finite number (a location such as an initial rating still gets a declared interval; this is the fallback).
FINITE = Interval()


@dataclass(frozen=True)
class Limit:
    """The values of one parameter a rule allows with the other parameters as they are: from ``low`` to ``high``
    (None: no limit on that side), an end excluded where ``open_low`` or ``open_high`` says so."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False

    def __and__(self, other: Limit) -> Limit:
        """The values both limits allow."""
        low, open_low = self.low, self.open_low
        if other.low is not None and (low is None or other.low > low or (other.low == low and other.open_low)):
            low, open_low = other.low, other.open_low
        high, open_high = self.high, self.open_high
        if other.high is not None and (high is None or other.high < high or (other.high == high and other.open_high)):
            high, open_high = other.high, other.open_high
        return Limit(low, high, open_low, open_high)

    def within(self, low: float, high: float, step: float) -> tuple[float, float]:
        """The range ``[low, high]`` narrowed to these values; an excluded end is kept a ``step`` away.  A limit that
        leaves nothing of the range (it was computed from values no rule allows) leaves the range as it is."""
        narrow_low, narrow_high = low, high
        if self.low is not None:
            narrow_low = max(low, self.low + (step if self.open_low else 0.0))
        if self.high is not None:
            narrow_high = min(high, self.high - (step if self.open_high else 0.0))
        return (narrow_low, narrow_high) if narrow_low <= narrow_high else (low, high)


def computed_limit(low: float | None = None, high: float | None = None) -> Limit:
    """A limit computed by a product or a quotient of other parameters, drawn a part in 1e-12 inside its ends, so
    that a value at an end does not round past the rule when the rule multiplies it back."""
    inside = 1e-12
    return Limit(
        None if low is None else low + abs(low) * inside,
        None if high is None else high - abs(high) * inside,
    )


@dataclass(frozen=True)
class Rule:
    """A rule tying parameters together, declared once in a parameter dataclass's ``RULES``.

    ``holds(params)`` is True when the rule is kept; the error names ``names[0]`` and shows every named value.
    ``limits`` maps a parameter the rule bounds to ``limit(params)``: the :class:`Limit` of its values the rule
    allows with the others as they are (``params`` has every parameter as an attribute).  A control offers, and a
    search draws, only values within its parameter's limits (:func:`limits`), so what they offer computes.
    """

    names: tuple[str, ...]
    holds: Callable[[Any], bool]
    says: str
    limits: Mapping[str, Callable[[Any], Limit]] = dataclasses.field(default_factory=dict)


#: Plain decimal notation, ASCII digits only: ``12``, ``-0.5``, ``.25``, ``1e-3``.  Python's own
#: ``float()`` also takes ``1_000``, ``inf``, ``nan`` and digits of every script (``٣``), none of
#: which a person means as a parameter value.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: A number written with a decimal comma (``1,5``): refused with a hint, never read as another number.
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")


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
        if _DECIMAL_COMMA.fullmatch(text):
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

    ``kind`` is one of ``float``, ``int``, ``choice``, ``optional-float`` (a number or ``None``),
    ``float-list`` (a tuple of numbers, or ``None``) and ``bool``.  ``valid`` is the interval of valid
    values (of each element, for a list); ``low`` and ``high`` are the suggested range a slider offers,
    inside ``valid``.
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
    valid: Interval = FINITE
    #: A time-aware dynamic (uncertainty or learning rate that grows with idle days or inexperience): off by default,
    #: and searched by :func:`ratings.tune.tune` only when asked (``dynamics=True``), as the season rule is.
    time_rule: bool = False

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ")

    def expected(self) -> str:
        """What a valid value is, in words (for messages and hover text)."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return "true or false"
        span = self.valid.words()
        if self.kind == "int":
            return f"a whole number {span}" if self.valid != FINITE else "a whole number"
        number = "a number" if self.valid == FINITE else f"a number {span}"
        if self.kind == "optional-float":
            return f"{number}, or none"
        if self.kind == "float-list":
            each = "" if self.valid == FINITE else f", each {span}"
            return f"comma-separated numbers{each}, or none"
        return number


def param(
    default: Any,
    help: str,
    *,
    valid: Interval | None = None,
    low: float | None = None,
    high: float | None = None,
    step: float | None = None,
    choices: Sequence[str] = (),
    label: str = "",
    trailing: bool = False,
    time_rule: bool = False,
) -> Any:
    """A dataclass field declaring its valid values, a suggested UI range and a one-line help text.

    ``valid`` is the interval every accepted value lies in (each element of a list); ``choices`` the
    valid texts of a categorical parameter; ``low``/``high``/``step`` the slider's range.  A ``trailing``
    field is listed after the system's other parameters (before the season rule every system shares), however
    its dataclass inherits it: the time-aware rules a base class declares for several systems.  A ``time_rule``
    is one of the time-aware dynamics (:attr:`ParamSpec.time_rule`).
    """
    meta = {
        "help": help,
        "low": low,
        "high": high,
        "step": step,
        "choices": tuple(choices),
        "label": label,
        "valid": valid or FINITE,
        "trailing": trailing,
        "time_rule": time_rule,
    }
    if isinstance(default, (list, tuple)):
        frozen = tuple(default)
        return dataclasses.field(default_factory=lambda: frozen, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


#: Most numbers a list parameter (the learning-rate knots) holds.
MAX_LIST = 64


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
    return list(_specs(params_cls))


@functools.cache
def _specs(params_cls: type) -> tuple[ParamSpec, ...]:
    """The specs of a class, read once (:func:`validate` reads them at every construction)."""
    hints = typing.get_type_hints(params_cls)
    out = []
    common = {f.name for f in dataclasses.fields(Declared)}
    fields = dataclasses.fields(params_cls)
    own = [f for f in fields if f.name not in common]
    ordered = [f for f in own if not f.metadata.get("trailing")] + [f for f in own if f.metadata.get("trailing")]
    for f in ordered + [f for f in fields if f.name in common]:
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
                valid=meta.get("valid", FINITE),
                time_rule=meta.get("time_rule", False),
            )
        )
    return tuple(out)


def coerce(spec: ParamSpec, value: Any) -> Any:
    """Turn a text (command line, URL, a box) or JSON value into the parameter's type and check it.

    Raises :class:`ParameterError` with a readable message (the valid values in words); a decimal
    comma is refused with the same number written with a point.
    """
    typed = _typed(spec, value)
    check_value(spec, typed)
    return typed


def _typed(spec: ParamSpec, value: Any) -> Any:
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
            if len(items) > MAX_LIST:
                raise ValueError
            return tuple(parse_number(x) for x in items)
        if spec.kind == "choice":
            if str(text) not in spec.choices:
                raise ValueError
            return str(text)
    except ParameterError:
        raise
    except (TypeError, ValueError) as exc:
        if "decimal comma" in str(exc):
            raise ParameterError(spec.name, str(exc)) from None
        shown = str(value)[:64]
        raise ParameterError(spec.name, f"'{shown}' is not {spec.expected()}") from None
    return text


def check_value(spec: ParamSpec, value: Any) -> None:
    """Raise :class:`ParameterError` unless ``value`` (already of the parameter's type) is valid for ``spec``."""

    def refuse(shown: Any) -> typing.NoReturn:
        text = shown if isinstance(shown, str) else repr(shown)
        raise ParameterError(spec.name, f"must be {spec.expected()}, got {text[:64]}")

    def number_ok(x: Any) -> bool:
        return x in spec.valid

    if spec.kind == "choice":
        if not isinstance(value, str) or value not in spec.choices:
            refuse(value)
    elif spec.kind == "bool":
        if not isinstance(value, bool):
            refuse(value)
    elif spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or not number_ok(value):
            refuse(value)
    elif spec.kind == "float-list":
        if value is None:
            return
        if not isinstance(value, tuple) or not value or len(value) > MAX_LIST:
            refuse(value)
        bad = [x for x in value if not number_ok(x)]
        if bad:
            refuse(bad[0] if isinstance(bad[0], str) else _shown(bad[0]))
    elif spec.kind == "optional-float" and value is None:
        return
    elif not number_ok(value):
        refuse(_shown(value))


def _shown(value: Any) -> Any:
    return f"{value:g}" if isinstance(value, float) and not isinstance(value, bool) else value


def validate(params: Any) -> None:
    """The one validator: every field of a parameter dataclass against its declaration, then its ``RULES``.

    Raises :class:`ParameterError` naming the first parameter that is not valid and what would be.
    """
    cls = type(params)
    for spec in specs(cls):
        check_value(spec, getattr(params, spec.name))
    for rule in getattr(cls, "RULES", ()):
        if not rule.holds(params):
            values = ", ".join(  # (a parameter left off, None, is not part of the combination refused)
                f"{n}={_g(v) if isinstance(v, float) else v}"
                for n in rule.names
                for v in [getattr(params, n)]
                if v is not None
            )
            raise ParameterError(rule.names[0], f"{rule.says} (got {values})")


def _as_set(params_cls: type, values: Mapping[str, Any]) -> types.SimpleNamespace:
    """Every parameter of ``params_cls`` as an attribute: ``values``, the rest at their defaults (what a rule and its
    limits read)."""
    given = {spec.name: spec.default for spec in specs(params_cls)}
    given.update(values)
    return types.SimpleNamespace(**given)


def _limits_of(params_cls: type, current: types.SimpleNamespace) -> dict[str, Limit]:
    out: dict[str, Limit] = {}
    for rule in getattr(params_cls, "RULES", ()):
        for name, limit in rule.limits.items():
            try:
                found = limit(current)
            except (TypeError, ValueError, ArithmeticError, KeyError):
                continue
            out[name] = out[name] & found if name in out else found
    return out


def limits(params_cls: type, values: Mapping[str, Any]) -> dict[str, Limit]:
    """Each parameter of ``params_cls`` its ``RULES`` bound: the values every rule allows (:attr:`Rule.limits`)
    with the other parameters at ``values`` (those missing at their defaults).  A rule whose limit cannot be read
    from these values (a parameter that is not a number yet) limits nothing."""
    return _limits_of(params_cls, _as_set(params_cls, values))


def offered(
    params_cls: type, spec: ParamSpec, values: Mapping[str, Any], span: tuple[float, float] | None = None
) -> tuple[float, float]:
    """The range of the number ``spec`` that a control offers and a search draws: ``span`` (default: its declared
    ``low``-``high``) within the limits ``params_cls``'s rules put on it with the other parameters at ``values``
    (:func:`limits`).  An end a limit moved lies on the slider's grid (``spec.step`` from ``span``'s low: 0.8, not
    0.7999999999992), at the value nearest the limit that the rules allow; an excluded end is a step inside."""
    low, high = span if span is not None else (float(spec.low), float(spec.high))  # type: ignore[arg-type]
    current = _as_set(params_cls, values)
    limit = _limits_of(params_cls, current).get(spec.name)
    if limit is None:
        return (low, high)
    step = spec.step or (high - low) / 100
    narrow_low, narrow_high = limit.within(low, high, step)
    bounding = [rule for rule in getattr(params_cls, "RULES", ()) if spec.name in rule.limits]

    def allowed(value: float) -> bool:
        trial = types.SimpleNamespace(**{**vars(current), spec.name: value})
        try:
            return all(rule.holds(trial) for rule in bounding)
        except (TypeError, ValueError, ArithmeticError):
            return True  # the others do not read yet: the settings' own check says what is wrong

    def on_grid(end: float, direction: int) -> float:
        """``end`` moved onto the grid, inward (``direction`` +1 from below, -1 from above), as far as allowed."""
        steps = (end - low) / step
        k = math.ceil(steps - 1e-9) if direction > 0 else math.floor(steps + 1e-9)
        for candidate in (k, k + direction):
            value = round(low + candidate * step, 12)
            if low <= value <= high and allowed(value):
                return value
        return end

    if narrow_low != low:
        narrow_low = on_grid(narrow_low, +1)
    if narrow_high != high:
        narrow_high = on_grid(narrow_high, -1)
    return (narrow_low, narrow_high) if narrow_low <= narrow_high else (low, high)


@dataclass(frozen=True, kw_only=True)
class Declared:
    """Base of every parameter dataclass: construction validates the instance with :func:`validate`.

    Subclasses may list cross-parameter rules in ``RULES`` (a tuple of :class:`Rule`).  The fields declared here
    are every system's: the season rule (:mod:`ratings.seasons`), which the replay applies between games
    (:class:`ratings.base.RatingSystem`); :func:`specs` lists them after the system's own.
    """

    RULES: ClassVar[tuple[Rule, ...]] = ()

    season_days: float | None = param(
        None,
        "Length of a rating season in days, counted from the first dated game: at each season's first game every "
        "rating moves back toward a newcomer's by the season shrink (none: no seasons; undated games: none).",
        valid=Interval(1.0, 36500.0),
        low=7.0,
        high=730.0,
        step=1.0,
        label="season length (days)",
    )
    season_shrink: float = param(
        1.0,
        "How far each rating moves back toward a newcomer's at a season's start: 1 starts everyone afresh (a reset, "
        "as racetime.gg does each season), 0.5 halfway, 0 keeps the ratings (used only with a season length).",
        valid=Interval(0.0, 1.0),
        low=0.0,
        high=1.0,
        step=0.05,
        label="season shrink",
    )

    def __post_init__(self) -> None:
        validate(self)


def build(params_cls: type, values: Mapping[str, Any]) -> Any:
    """Construct a parameter dataclass, refusing unknown names with the list of valid ones."""
    names = {f.name for f in dataclasses.fields(params_cls)}
    unknown = [k for k in values if k not in names]
    if unknown:
        raise ParameterError(unknown[0], f"unknown; valid parameters are {', '.join(sorted(names))}")
    return params_cls(**values)
