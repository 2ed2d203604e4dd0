"""How well the settings predict the group's own results (beside the pinned baseline), and the score function."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import dash_bootstrap_components as dbc
import plotly.graph_objects as go
from dash import Input, Output, State, callback, html
from dash.exceptions import PreventUpdate

import figures
from callbacks.runs import baseline_run, current_run
from layouts.ids import Baseline, Data, Evaluate, Page, Params, ScoreFn, Tab, tab_gate
from ratings import get_system
from ratings.metrics import Evaluation, evaluate

__all__ = ["METRICS", "base_of", "metrics_rows", "metrics_table", "score_view"]

#: (field, name, which way is better, what it counts) for each metric of ``ratings.metrics``.
#: Named by what they count, so that "fewer"/"more" reads the right way to a lay user (a "Kendall tau" where
#: lower is better reads backwards to anyone who knows it as a correlation); the technical name follows.
METRICS = (
    (
        "kendall_tau",
        "Pairs called wrong (Kendall tau distance)",
        "lower",
        "share of pairs of players where the higher-rated one finished behind (0.5 for equal ratings)",
    ),
    (
        "pair_inversion",
        "Opponents called right (pair inversion)",
        "higher",
        "share of opponents whose result against the player the ratings called right",
    ),
    (
        "rank_deviation",
        "Places off (rank deviation)",
        "lower",
        "how far the actual places were from the rating order, 0 (none) to 1",
    ),
)
#: The "better when" column: what a better value looks like, in words.
BETTER: Mapping[str, str] = MappingProxyType({"lower": "fewer is better", "higher": "more is better"})


def metrics_rows(current: Evaluation, baseline: Evaluation | None = None) -> list[dict[str, Any]]:
    """One row per metric: value now, the baseline's, which way is better and whether now beats the baseline."""
    rows = []
    for key, name, better, meaning in METRICS:
        now = float(getattr(current, key))
        base = float(getattr(baseline, key)) if baseline is not None else None
        verdict = None
        if base is not None and not (math.isnan(now) or math.isnan(base)):
            verdict = "same" if now == base else "better" if (now < base) == (better == "lower") else "worse"
        rows.append(
            {"metric": name, "now": now, "baseline": base, "better": better, "meaning": meaning, "verdict": verdict}
        )
    return rows


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def metrics_table(rows: list[dict[str, Any]], *, games: int, pairs: int, baseline_label: str | None) -> Any:
    """The metrics as a small table with a line saying what they count and which way is better."""
    head = ["metric", "current"] + (["baseline", ""] if baseline_label else []) + ["better when"]
    body = []
    for r in rows:
        cells = [html.Td(r["metric"], title=r["meaning"]), html.Td(_fmt(r["now"]), className="num")]
        if baseline_label:
            tone = {"better": "text-success", "worse": "text-danger"}.get(r["verdict"] or "", "text-muted")
            cells += [html.Td(_fmt(r["baseline"]), className="num"), html.Td(r["verdict"] or "", className=tone)]
        cells.append(html.Td(BETTER[r["better"]]))
        body.append(html.Tr(cells))
    note = (
        "Each game is judged by the ratings held before it "
        f"({figures.counted(games, 'game')}, {figures.counted(pairs, 'pair')}). "
        "Fewer pairs called wrong and fewer places off is better; more opponents called right is better."
    )
    parts: list[Any] = [
        dbc.Table([html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)], size="sm", className="mb-1"),
        html.Div(note, className="small text-muted"),
    ]
    if baseline_label:
        parts.append(html.Div(f"Baseline: {baseline_label}.", className="small text-muted"))
    else:
        parts.append(html.Div("Pin a baseline (in the controls) to compare.", className="small text-muted"))
    return html.Div(parts)


def base_of(system: str | None, params: dict[str, Any] | None) -> tuple[float, bool]:
    """The score-function base in use: the multielo parameter when multielo is chosen, else its default.

    Returns ``(base, from_settings)``.
    """
    default = next(s.default for s in get_system("multielo").parameters() if s.name == "base")
    if system == "multielo" and params and params.get("base") is not None:
        return float(params["base"]), True
    return float(default), False


def score_view(system: str | None, params: dict[str, Any] | None, size: Any) -> tuple[go.Figure, str]:
    """The score-function figure for the chosen game size and a line saying where the base comes from."""
    try:
        n = int(size)
    except (TypeError, ValueError):
        n = 6
    n = min(max(n, 2), 20)
    base, ours = base_of(system, params)
    if ours:
        note = f"Multiplayer Elo with base {base:g}: "
    else:
        note = f"The current system is not multiplayer Elo; shown with its default base {base:g}: "
    note += (
        "base 1 gives every place step the same score (a straight line, dashed when another base is chosen); "
        "a larger base gives the top places more of the game's total score of 1. "
        "A player gains rating when their score beats the expected score."
    )
    return figures.score_function_figure(n, base), note


# source, settings, pinned baseline -> metrics table
@callback(
    Output(Evaluate.PANEL, "children"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    State(Baseline.STORE, "data"),
    State(Page.TABS, "active_tab"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_metrics(source, current, pinned, tab, _gate=None):
    if tab != Tab.PREDICTIONS:
        raise PreventUpdate  # computed when the tab opens
    now = evaluate(current_run(source, current))
    pinned_run = baseline_run(pinned)
    base = evaluate(pinned_run) if pinned_run is not None else None
    rows = metrics_rows(now, base)
    return metrics_table(rows, games=now.games, pairs=now.pairs, baseline_label=pinned.get("label") if base else None)


# settings (system and base), game size -> score-function figure and note
@callback(
    Output(ScoreFn.FIGURE, "figure"),
    Output(ScoreFn.NOTE, "children"),
    State(Params.SETTINGS, "data"),
    Input(ScoreFn.SIZE, "value"),
    Input(tab_gate(Tab.PREDICTIONS), "data"),
    prevent_initial_call=False,  # fires when the tab's content mounts (layouts.page)
)
def on_score_function(current, size, _gate=None):
    current = current or {}
    return score_view(current.get("system"), current.get("params"), size)
