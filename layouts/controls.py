"""The control column: data source, rating system, parameter controls built from the schema, display, what if."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

from layouts.aliases import aliases_controls
from layouts.ids import Baseline, Data, DateRange, Page, ParamRow, Params, ParamType, Standings
from layouts.labels import labelled
from ratings import SYSTEM_NAMES, ParamSpec, get_system
from ratings.io import MAX_BYTES
from ratings.params import offered
from sources.model import address_example, address_label

__all__ = [
    "controls_column",
    "default_shown",
    "offered_range",
    "param_control",
    "param_controls",
    "slider_marks",
    "slider_range",
    "team_style",
    "system_options",
]


def default_shown(default: Any) -> Any:
    """A default as its number box shows it: 6 significant digits (TrueSkill's sigma 25/3 as 8.33333).

    :func:`layouts.param_values.collect` reads that shown value back as the exact default.
    """
    return float(f"{default:.6g}") if isinstance(default, float) else default


def system_options() -> list[dict[str, str]]:
    """Dropdown options for every registered system, titled."""
    return [{"label": get_system(name).title, "value": name} for name in SYSTEM_NAMES]


def _card(title: str, *children: Any, class_name: str = "") -> dbc.Card:
    return dbc.Card(
        [dbc.CardHeader(title, className="py-1 fw-semibold small"), dbc.CardBody(list(children), className="p-2")],
        className=f"mb-2 {class_name}".strip(),
    )


def data_card(samples: Sequence[str], sample: str | None) -> dbc.Card:
    """Choose the data: a bundled sample, an uploaded file or a Google Sheet."""
    return _card(
        "Data",
        dbc.Label("Bundled sample", html_for=Data.SAMPLE, className="small mb-0"),
        labelled(
            "Bundled sample",
            dcc.Dropdown(
                id=Data.SAMPLE,
                options=[{"label": s, "value": s} for s in samples],
                value=sample,
                clearable=False,
                className="mb-2",
            ),
        ),
        labelled(
            "Upload a game-history file",
            dcc.Upload(
                id=Data.UPLOAD,
                children=html.Div(
                    ["Drop a CSV, XLSX or ODS file (up to 10 MB) here, or ", html.A("choose one", href="#")]
                ),
                className="upload-area mb-2",
                multiple=False,
                max_size=MAX_BYTES,
                accept=".csv,.tsv,.txt,.xlsx,.xlsm,.ods",
            ),
        ),
        dbc.Label(f"{address_label()} address", html_for=Data.SHEET_URL, className="small mb-0"),
        dbc.InputGroup(
            [
                dbc.Input(
                    id=Data.SHEET_URL,
                    type="url",
                    placeholder=address_example(),
                    size="sm",
                    debounce=True,
                ),
                dbc.Button("Load", id=Data.SHEET_LOAD, size="sm", color="primary"),
                dbc.Button("↻", id=Data.SHEET_REFRESH, size="sm", color="secondary", title="Read it again"),
            ],
            size="sm",
        ),
    )


def slider_range(spec: ParamSpec, value: float | None) -> tuple[float, float, float]:
    """Slider ``(low, high, step)`` from the suggested range, widened to include the default and ``value``
    and never past the valid interval."""
    default = spec.default if isinstance(spec.default, (int, float)) else None
    anchor = next((v for v in (value, default) if isinstance(v, (int, float))), 0.0)
    low = spec.low if spec.low is not None else (0.0 if anchor >= 0 else 2 * anchor)
    high = spec.high if spec.high is not None else (max(2 * abs(anchor), 1.0))
    for v in (default, value):
        if isinstance(v, (int, float)) and math.isfinite(v):
            low, high = min(low, v), max(high, v)
    if spec.valid.low is not None:
        low = max(low, spec.valid.low)
    if spec.valid.high is not None:
        high = min(high, spec.valid.high)
    fallback = 1.0 if spec.kind == "int" else ((high - low) / 100 or 0.01)
    step = spec.step or fallback
    return float(low), float(high), float(step)


def offered_range(system: str, spec: ParamSpec, values: Mapping[str, Any]) -> tuple[float, float, float]:
    """A number's slider ``(low, high, step)``: :func:`slider_range` within the limits the system's rules put on it
    with the other parameters at ``values`` (:func:`ratings.params.offered`: a slider offers only values that
    compute with the others as set), widened again to hold the number's own value there (a slider whose value lies
    off its range writes its end back, changing what the visitor set without a word; a value a rule refuses stays,
    refused with the rule's message, until the visitor moves it)."""
    current = values.get(spec.name, spec.default)
    low, high, step = slider_range(spec, current)
    low, high = offered(get_system(system).Params, spec, values, (low, high))
    if isinstance(current, (int, float)) and not isinstance(current, bool) and math.isfinite(current):
        low, high = min(low, float(current)), max(high, float(current))
    return low, high, step


def slider_marks(spec: ParamSpec, low: float, high: float) -> dict[float, Any]:
    """End labels and a blue "default" mark (when the default lies on the slider); an end label too close to the
    default is left out so none overlap (in the controls column a slider is about 165 px wide: "default" and a short
    end label overlap closer than a quarter of it)."""
    default = spec.default if isinstance(spec.default, (int, float)) and low <= spec.default <= high else None
    marks: dict[float, Any] = {}
    near = 0.25 * (high - low)
    for end in (low, high):
        if default is None or abs(end - default) >= near:
            marks[end] = f"{end:.4g}"
    if default is not None:
        style = {"color": "#0d6efd", "whiteSpace": "nowrap"}
        text = "default"
        if abs(default - low) < near or abs(default - high) < near:
            text = f"{default:.3g} default"
            # the longer label leans away from the end it is near, so that it stays within the column
            style["transform"] = "translateX(-10%)" if abs(default - low) < near else "translateX(-90%)"
        marks[float(default)] = {"label": text, "style": style}
    return marks


def _label(spec: ParamSpec, target: str | None = None) -> html.Label:
    return html.Label(
        [spec.title, html.Span("?", className="help-dot")],
        title=spec.help,
        className="small fw-semibold mb-0 param-label",
    )


#: Parameters that act on team games only (:mod:`ratings.systems._teams`): shown only when the history has one.
TEAM_PARAMS = frozenset({"team_strength", "team_method"})


def team_style(shown: bool) -> dict[str, str]:
    """The style of a team parameter's block: hidden for a history without team games."""
    return {} if shown else {"display": "none"}


def param_control(
    spec: ParamSpec, value: Any = None, *, teams: bool = True, span: tuple[float, float, float] | None = None
) -> html.Div:
    """The control of one parameter, chosen by its kind.

    Numbers get a slider (suggested range, default marked, updates on release) plus an exact number
    box; "none"-able numbers add an on/off switch; choices a dropdown; lists a comma-separated text box;
    booleans a switch.  Every control's id is ``{"type": ParamType..., "name": spec.name}``; the help
    line shows on hover.  A team parameter (:data:`TEAM_PARAMS`) says it applies to team games only, and its block
    (id ``{"type": ParamRow.TEAM, "name": spec.name}``) is hidden unless ``teams`` (the history has a team game).
    ``span``: a number's slider ``(low, high, step)`` (default: :func:`slider_range`; :func:`param_controls` gives
    :func:`offered_range`, within the rules with the other parameters).
    """
    name = spec.name
    current = spec.default if value is None and spec.kind not in ("optional-float", "float-list") else value
    if spec.kind == "choice":
        body: list[Any] = [
            labelled(
                spec.title,
                dcc.Dropdown(
                    id={"type": ParamType.CHOICE, "name": name},
                    options=[{"label": c, "value": c} for c in spec.choices],
                    value=current,
                    clearable=False,
                ),
            )
        ]
    elif spec.kind == "bool":
        body = [dbc.Switch(id={"type": ParamType.BOOL, "name": name}, value=bool(current), label=spec.title)]
    elif spec.kind == "float-list":
        text = "" if current is None else ", ".join(f"{float(v):g}" for v in current)
        body = [
            dbc.Input(
                id={"type": ParamType.LIST, "name": name},
                value=text,
                placeholder="none (comma-separated numbers)",
                size="sm",
                debounce=True,
            )
        ]
    else:
        optional = spec.kind == "optional-float"
        enabled = current is not None
        default = spec.default if isinstance(spec.default, (int, float)) else None
        low, high, step = span or slider_range(spec, current if enabled else None)
        shown = current if enabled else (default if default is not None else (low + high) / 2)
        if default is not None and shown == default:
            shown = default_shown(default)
        slider = dcc.Slider(
            id={"type": ParamType.SLIDER, "name": name},
            min=low,
            max=high,
            step=step,
            value=shown,
            marks=slider_marks(spec, low, high),
            updatemode="mouseup",
            included=False,
            disabled=not enabled,
            allow_direct_input=False,
            className="param-slider",
        )
        # A text box read by the server's strict parser (ratings.params.parse_number), not type="number":
        # Chromium's number box drops a decimal comma ("1,5" arrived as 15) and reports nothing.
        number = dcc.Input(
            id={"type": ParamType.VALUE, "name": name},
            type="text",
            value=shown,
            debounce=True,
            disabled=not enabled,
            placeholder=spec.valid.notation(),
            className="form-control form-control-sm param-number",
        )
        row = [
            labelled(f"{spec.title} (slider)", slider, "flex-grow-1 me-2"),
            labelled(f"{spec.title} (exact value)", number),
        ]
        body = [html.Div(row, className="d-flex align-items-start")]
        if optional:
            body.insert(
                0,
                dbc.Switch(
                    id={"type": ParamType.ON, "name": name},
                    value=enabled,
                    # says what the switch does, true whether it is on or off (a bare "on" read wrong when off)
                    label=f"use a {spec.title}",
                    className="small mb-0 param-switch",
                ),
            )
    if spec.name in TEAM_PARAMS:
        note = html.Div("Team games only.", className="small text-muted")
        return html.Div(
            [_label(spec), *body, note],
            id={"type": ParamRow.TEAM, "name": name},
            className="mb-2 param",
            title=spec.help,
            style=team_style(teams),
        )
    return html.Div([_label(spec), *body], className="mb-2 param", title=spec.help)


#: The summary line of the folded block that holds a system's time-aware rules (:attr:`ParamSpec.time_rule`).
TIME_RULES_SUMMARY = "Time and experience rules (dated games)"


def param_controls(system: str, values: dict[str, Any] | None = None, *, teams: bool = True) -> list[Any]:
    """Controls for every parameter of ``system``, set to ``values`` (defaults for the rest); the team parameters
    hidden unless ``teams``.  The time-aware rules, off by default, are folded into one block after the system's own
    parameters (open when one of them is set), so the panel stays as short as before they existed."""
    values = values or {}
    specs = get_system(system).parameters()
    rules = [s for s in specs if s.time_rule]

    def control(spec: ParamSpec) -> html.Div:
        numeric = spec.kind in ("float", "int", "optional-float")
        span = offered_range(system, spec, values) if numeric else None
        return param_control(spec, values.get(spec.name), teams=teams, span=span)

    out: list[Any] = []
    for spec in specs:
        if spec.time_rule:
            if spec is rules[0]:
                shown = any(values.get(r.name) not in (None, r.default) for r in rules)
                out.append(
                    html.Details(
                        [html.Summary(TIME_RULES_SUMMARY, className="small fw-semibold mb-1"), *map(control, rules)],
                        open=shown,
                        className="mb-2",
                    )
                )
            continue
        out.append(control(spec))
    return out


def system_card(system: str) -> dbc.Card:
    """System dropdown, its one-line summary, the parameter controls, reset and the error line."""
    cls = get_system(system)
    return _card(
        "Rating system",
        labelled(
            "Rating system",
            dcc.Dropdown(id=Params.SYSTEM, options=system_options(), value=system, clearable=False, className="mb-1"),
        ),
        html.Div(cls.summary, id=Params.SYSTEM_SUMMARY, className="small text-muted mb-2"),
        # team parameters hidden until the data is known to have team games (callbacks.params.on_team_params)
        html.Div(param_controls(system, teams=False), id=Params.CONTROLS),
        dbc.Alert(id=Params.ERROR, color="danger", is_open=False, className="small py-1 px-2 mb-2"),
        dbc.Button("Reset to defaults", id=Params.RESET, size="sm", color="outline-secondary"),
    )


def display_card() -> dbc.Card:
    """Leaderboard filter, the points scale for natural-scale systems, the x axis of the trajectories."""
    return _card(
        "Display",
        dbc.Label("Minimum games to be listed", html_for=Standings.MIN_GAMES, className="small mb-0"),
        dbc.Input(id=Standings.MIN_GAMES, type="number", min=0, step=1, value=1, size="sm", className="mb-2"),
        html.Div(
            [
                html.Div("Points scale for natural-scale ratings", className="small fw-semibold"),
                dbc.InputGroup(
                    [
                        dbc.InputGroupText("points ="),
                        dbc.Input(id=Standings.SCALE_OFFSET, type="number", value=1500, debounce=True),
                        dbc.InputGroupText("+"),
                        dbc.Input(id=Standings.SCALE_FACTOR, type="number", value=200, debounce=True),
                        dbc.InputGroupText("× r"),
                    ],
                    size="sm",
                    className="mb-2",
                ),
            ],
            id=Standings.SCALE_ROW,
            title="Kerby's models rate on a natural scale around 0-3; this linear map shows them as points. "
            "Use 0 and 1 for the natural scale itself.",
        ),
        dbc.Label("Trajectories by", className="small mb-0"),
        dbc.RadioItems(
            id=Standings.X_AXIS,
            options=[{"label": "game number", "value": "game"}, {"label": "date", "value": "date"}],
            value="game",
            inline=True,
            className="small",
        ),
    )


def baseline_card() -> dbc.Card:
    """Pin the current settings as a baseline, or unpin it."""
    return _card(
        "What if",
        html.Div(
            [
                dbc.Button("Pin as baseline", id=Baseline.PIN, size="sm", color="primary", className="me-2"),
                dbc.Button("Unpin", id=Baseline.UNPIN, size="sm", color="outline-secondary", disabled=True),
            ],
            className="mb-1",
        ),
        html.Div(
            "Pin the current system and parameters, then change them: the baseline is drawn dashed and the "
            "leaderboard shows rank shifts.",
            id=Baseline.STATUS,
            className="small text-muted",
        ),
    )


def share_card() -> dbc.Card:
    """The shareable address of the current view."""
    return _card(
        "Share",
        dbc.Label("Link to this view", html_for=Page.SHARE_URL, className="visually-hidden"),
        dbc.InputGroup(
            [
                dbc.Input(id=Page.SHARE_URL, readonly=True, size="sm", value=""),
                dbc.InputGroupText(dcc.Clipboard(target_id=Page.SHARE_URL, id=Page.SHARE_COPY, title="Copy the link")),
            ],
            size="sm",
            className="mb-1",
        ),
        html.Div(id=Page.SHARE_TEXT, className="small text-muted"),
        html.A("open this view in a new tab", id=Page.SHARE_LINK, href="?", target="_blank", className="small"),
    )


# ---------------------------------------------------------------- season (date range) and aliases: helper "pages"
def season_card() -> dbc.Card:
    """Rate and show only a season: games from/to a date (the readers' date forms), or the last N games."""
    return _card(
        "Season",
        dbc.Row(
            [
                dbc.Col(
                    [
                        dbc.Label("From", html_for=DateRange.FROM, className="small mb-0"),
                        dbc.Input(id=DateRange.FROM, size="sm", placeholder="first day", autocomplete="off"),
                    ]
                ),
                dbc.Col(
                    [
                        dbc.Label("To", html_for=DateRange.TO, className="small mb-0"),
                        dbc.Input(id=DateRange.TO, size="sm", placeholder="last day", autocomplete="off"),
                    ]
                ),
            ],
            className="g-2 mb-1",
        ),
        dbc.Label("or only the last N games", html_for=DateRange.LAST, className="small mb-0"),
        # no min: a number box below its min sends no value, so "0" or "-3" applied the whole history without a
        # word; the server says what a valid count is (ratings.seasons.Season)
        dbc.Input(id=DateRange.LAST, type="number", step=1, size="sm", className="mb-1"),
        html.Div(
            [
                dbc.Button("Apply", id=DateRange.APPLY, size="sm", color="primary", className="me-2"),
                dbc.Button("Whole history", id=DateRange.CLEAR, size="sm", color="outline-secondary"),
            ],
            className="mb-1",
        ),
        html.Div(id=DateRange.MESSAGE),
        html.Div(
            "Ratings start afresh at the season's first game; the line above the tabs says what is shown.",
            className="small text-muted",
        ),
    )


def controls_column(samples: Sequence[str], sample: str | None, system: str) -> html.Div:
    """Every control card, top to bottom."""
    return html.Div(
        [
            data_card(samples, sample),
            system_card(system),
            display_card(),
            season_card(),
            _card("Aliases", *aliases_controls()),
            baseline_card(),
            share_card(),
        ],
        className="controls",
    )
