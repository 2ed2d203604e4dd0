"""The "Fit" tab: which settings fit this group's games, honestly measured, and how every system compares.

The search sees only the early games (the first 30%) and is judged on the later ones (see ratings.tune); it runs in
the background with a progress bar and a Cancel button, and the page stays usable meanwhile.
"""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

from figures import METRIC_WORDS, graph_config, lower_is_better, search_figure
from layouts.ids import Fit, FitType, Tab
from ratings import get_system
from ratings.tune import METRICS

__all__ = ["compare_view", "failed_view", "fit_view", "tab", "waiting_label"]

METRIC_OPTIONS = [
    {"label": "pairs the higher-rated player lost (Kendall tau, lower is better)", "value": "kendall-tau"},
    {"label": "matchups the higher-rated player won or tied (higher is better)", "value": "pair-inversion"},
    {"label": "distance from the predicted rank (lower is better)", "value": "rank-deviation"},
    {"label": "surprise at each finishing order (log-loss, lower is better)", "value": "log-loss"},
]


def tab() -> dbc.Tab:
    """Budget, metric, the two actions, the progress bar and the result."""
    controls = dbc.Row(
        [
            dbc.Col(
                [
                    dbc.Label("Search time (seconds)", html_for=Fit.BUDGET, className="small mb-0"),
                    dcc.Slider(id=Fit.BUDGET, min=5, max=120, step=5, value=20, marks={5: "5", 60: "60", 120: "120"}),
                ],
                md=4,
                xs=12,
            ),
            dbc.Col(
                [
                    dbc.Label("Judge by", html_for=Fit.METRIC, className="small mb-0"),
                    dcc.Dropdown(id=Fit.METRIC, options=METRIC_OPTIONS, value="kendall-tau", clearable=False),
                ],
                md=8,
                xs=12,
            ),
        ],
        className="g-2 mb-2",
    )
    seasons = dbc.Switch(
        id=Fit.SEASONS,
        value=False,
        label="Also try seasons: reset or shrink every rating at regular intervals (dated games only)",
        className="small mb-1",
    )
    dynamics = dbc.Switch(
        id=Fit.DYNAMICS,
        value=False,
        label="Also try time rules: uncertainty growing with the days between a player's games, newcomers learning "
        "faster (dated games only)",
        className="small mb-1",
    )
    fresh = dbc.Switch(
        id=Fit.FRESH,
        value=False,
        label="Judge the later games with ratings started afresh where they begin (as a list reset there would)",
        className="small mb-2",
    )
    buttons = html.Div(
        [
            dbc.Button("Fit to our games", id=Fit.RUN, color="primary", size="sm", className="me-2"),
            dbc.Button("Compare all systems", id=Fit.COMPARE, color="outline-primary", size="sm", className="me-2"),
            dbc.Button("Cancel", id=Fit.CANCEL, color="outline-secondary", size="sm", disabled=True),
        ],
        className="mb-2",
    )
    return dbc.Tab(
        html.Div(
            [
                html.P(
                    "The search tries settings on the first 30% of the games only, then shows how the best ones "
                    "predict the later games beside the defaults and your current settings, so you see whether "
                    "fitting helped or only fitted noise.",
                    className="small text-muted mb-2",
                ),
                controls,
                seasons,
                dynamics,
                fresh,
                buttons,
                dbc.Progress(
                    id=Fit.PROGRESS, value=0, label="", striped=True, className="mb-2", style={"height": "1.2rem"}
                ),
                html.Div(id=Fit.VIEW),
                dcc.Store(id=Fit.RESULT),
                dcc.Store(id=Fit.REQUEST),
            ],
            className="pt-2",
        ),
        label="Fit",
        tab_id=Tab.FIT,
    )


def waiting_label(ahead: int, running: int) -> str:
    """The progress bar's words while a search waits for a free slot on the job board."""
    jobs = "1 job" if ahead == 1 else f"{ahead} jobs"
    line = "next in line" if ahead == 0 else f"{jobs} ahead of yours"
    return f"Waiting: {line} ({running} running)"


def failed_view(result: dict[str, Any]) -> Any:
    """A search that could not run or stopped, in its own words (``web.background.failed_result``)."""
    return dbc.Alert(str(result.get("message", "The search failed.")), color="danger", className="small py-1")


def _number(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


#: What the fit's verdict says, by :class:`ratings.metrics.Comparison`'s verdict of the fitted settings against the
#: current ones on the held-out games (``words``: the comparison in figures).
FIT_VERDICTS = {
    "better": "The fitted settings predict the later games better than your current ones, beyond noise ({words}).",
    "within noise": (
        "The fitted settings and yours differ by less than the noise of these games ({words}): "
        "the fit found no real improvement, keep yours."
    ),
    "worse": "The fitted settings predict the later games worse than your current ones ({words}): keep yours.",
    "no figure": "There is no figure to compare the fitted settings with yours: keep yours.",
}
INTERVAL_NOTE = (
    "± is a 95% interval from resampling the later games (a paired bootstrap); the verdict compares the rows "
    "game by game, so it can be surer than the intervals of the rows alone."
)


def _figure(intervals: dict[str, Any] | None, figures: dict[str, Any] | None, metric: str) -> str:
    """A held-out figure with its interval (``0.2892 ± 0.0067``), or without one when none was computed."""
    interval = (intervals or {}).get(METRICS[metric][0]) or {}
    value, margin = interval.get("value"), interval.get("margin")
    if value is None:
        return _metric(figures, metric)
    return f"{value:.4f}" if margin is None else f"{value:.4f} ± {margin:.4f}"


def _metric(figures: dict[str, Any] | None, metric: str) -> str:
    if not figures:
        return "–"
    value = figures.get(METRICS[metric][0])
    return "–" if value is None else f"{value:.4f}"


def fit_view(result: dict[str, Any]) -> Any:
    """Fitted beside current parameters, the held-out figures, the search plot and the Apply button."""
    system, metric = result["system"], result["metric"]
    specs = {s.name: s for s in get_system(system).parameters()}
    changed = [name for name in result["fitted"] if result["fitted"][name] != result["current"].get(name)]
    params = dbc.Table(
        [
            html.Thead(html.Tr([html.Th("parameter"), html.Th("now"), html.Th("fitted")])),
            html.Tbody(
                [
                    html.Tr(
                        [
                            html.Td(specs[name].title if name in specs else name),
                            html.Td(
                                _number(result["current"].get(name, specs[name].default if name in specs else None))
                            ),
                            html.Td(_number(result["fitted"][name]), className="fw-semibold"),
                        ]
                    )
                    for name in changed
                ]
            ),
        ],
        size="sm",
        className="mb-2",
    )
    words, lower = METRIC_WORDS[metric], lower_is_better(metric)
    verdict = result.get("verdict") or {}
    key = METRICS[metric][0]
    figures_table = dbc.Table(
        [
            html.Thead(html.Tr([html.Th(later_games(result)), html.Th(words)])),
            html.Tbody(
                [
                    html.Tr(
                        [
                            html.Td("fitted settings"),
                            html.Td(_figure(verdict.get("tuned"), result["test"], metric), className="fw-semibold"),
                        ]
                    ),
                    html.Tr(
                        [
                            html.Td("your current settings"),
                            html.Td(_figure(verdict.get("current"), result.get("current_test"), metric)),
                        ]
                    ),
                    html.Tr(
                        [html.Td("defaults"), html.Td(_figure(verdict.get("defaults"), result["default_test"], metric))]
                    ),
                ]
            ),
        ],
        size="sm",
        className="mb-1",
    )
    versus = (verdict.get("better_than_current") or {}).get(key)
    if versus is None:  # the current settings gave no figure (or a result kept from before verdicts existed)
        better = _better(result["test"], result.get("current_test"), metric, lower)
        line = (
            "The fitted settings predict the later games better than your current ones."
            if better
            else "The fitted settings do not predict the later games better than your current ones: keep yours."
        )
    else:
        better = versus["verdict"] == "better"
        line = FIT_VERDICTS.get(versus["verdict"], FIT_VERDICTS["no figure"]).format(words=versus["words"])
    return html.Div(
        [
            html.Div(f"{get_system(system).title}: {len(result['evaluations'])} settings tried.", className="small"),
            html.Div(line, className="small fw-semibold mb-1"),
            params if changed else html.Div("The search kept the current values.", className="small"),
            figures_table,
            html.Div(INTERVAL_NOTE, className="small text-muted mb-2"),
            dbc.Button(
                "Use the fitted settings (your current ones become the baseline)",
                id={"type": FitType.APPLY, "index": system},
                size="sm",
                color="success" if better else "outline-secondary",
                className="mb-2",
            ),
            dcc.Graph(
                id=Fit.FIGURE, figure=search_figure(result["evaluations"], metric), config=graph_config("search")
            ),
        ]
    )


def later_games(result: dict[str, Any]) -> str:
    """The held-out games, in words: how many, and where their ratings started."""
    count = f"on the {result['games'] - result['cut']} later games"
    return f"{count} (ratings started afresh there)" if result.get("held_out_start") == "fresh" else count


def _better(test: dict[str, Any], current: dict[str, Any] | None, metric: str, lower: bool) -> bool:
    key = METRICS[metric][0]
    a, b = test.get(key), (current or {}).get(key)
    if a is None or b is None:
        return False
    return bool(a < b) if lower else bool(a > b)


#: The measures a comparison shows, each as a column (the log-loss only when the rows have it).
COMPARE_COLUMNS = (
    ("kendall-tau", "pairs the higher-rated lost"),
    ("pair-inversion", "matchups won or tied by the higher-rated"),
    ("rank-deviation", "rank distance"),
    ("log-loss", "log-loss"),
)


def compare_view(result: dict[str, Any]) -> Any:
    """One row per system: fitted parameters, the held-out figures with their intervals, whether tuning beat the
    system's defaults beyond noise, replay time and a button to use it; above, whether the best system is better
    than the runner-up beyond noise."""
    metric = result["metric"]
    rows = sorted(result["rows"], key=lambda r: (r["test"].get(METRICS[metric][0]) is None, _key(r, metric)))
    columns = [
        (m, label) for m, label in COMPARE_COLUMNS if any(r["test"].get(METRICS[m][0]) is not None for r in rows)
    ]
    header = html.Tr(
        [
            html.Th("system"),
            html.Th("fitted settings"),
            *[html.Th(label) for _, label in columns],
            html.Th("tuned against its defaults"),
            html.Th("replay"),
            html.Th(""),
        ]
    )
    key = METRICS[metric][0]
    body = [
        html.Tr(
            [
                html.Td(row["title"]),
                html.Td(
                    ", ".join(f"{k}={_number(v)}" for k, v in row["fitted"].items()) or "defaults", className="small"
                ),
                *[html.Td(_figure((row.get("verdict") or {}).get("tuned"), row["test"], m)) for m, _ in columns],
                html.Td(
                    _versus(row, "better_than_defaults", key).removeprefix("better than the defaults: "),
                    className="small",
                ),
                html.Td(f"{row['replay_seconds']:.2f} s"),
                html.Td(dbc.Button("use", id={"type": FitType.APPLY, "index": row["system"]}, size="sm", color="link")),
            ]
        )
        for row in rows
    ]
    titles = {r["system"]: r["title"] for r in rows}
    best = _versus(rows[0], "better_than_best", key, titles) if rows else ""
    return html.Div(
        [
            html.Div(
                f"Held out: the later {result['games'] - result['cut']} games"
                f"{' (ratings started afresh there)' if result.get('held_out_start') == 'fresh' else ''}; "
                "best first by the chosen measure. "
                "'use' switches to that system with its fitted settings (the current ones become the baseline).",
                className="small text-muted mb-1",
            ),
            html.Div(f"{rows[0]['title']}, {best}" if best else "", className="small fw-semibold mb-1"),
            html.Div(
                dbc.Table([html.Thead(header), html.Tbody(body)], size="sm", hover=True), className="table-responsive"
            ),
            html.Div(INTERVAL_NOTE, className="small text-muted"),
        ]
    )


def _versus(row: dict[str, Any], which: str, key: str, titles: dict[str, str] | None = None) -> str:
    """A comparison's words (``better than the defaults: not beyond noise (+0.0012 ± 0.0031)``), or nothing;
    systems named by their titles."""
    found = ((row.get("verdict") or {}).get(which) or {}).get(key)
    if not found:
        return ""
    words = str(found["words"])
    for name, title in (titles or {}).items():
        words = words.replace(f"({name})", f"({title})")
    return words


def _key(row: dict[str, Any], metric: str) -> float:
    """Sort key, best first: the held-out value, signed as the search minimises it (ratings.tune.METRICS)."""
    field, sign = METRICS[metric]
    value = row["test"].get(field)
    return 0.0 if value is None else sign * float(value)
