"""What if: pin the current source, system and parameters as a baseline; unpin it."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, callback, ctx

from callbacks.runs import describe_source
from layouts.ids import Baseline, Data, Params
from ratings import get_system

__all__ = ["baseline_label", "pin"]

UNPINNED_TEXT = (
    "Pin the current system and parameters, then change them: the baseline is drawn dashed and the "
    "leaderboard shows rank shifts."
)


def baseline_label(system: str, params: dict[str, Any]) -> str:
    """A short name of pinned settings: the system's title and the parameters that differ from the defaults."""
    changed = []
    for spec in get_system(system).parameters():
        value = params.get(spec.name, spec.default)
        default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
        if value != default:
            shown = ",".join(f"{v:g}" for v in value) if isinstance(value, list) else value
            changed.append(f"{spec.name}={shown:g}" if isinstance(shown, float) else f"{spec.name}={shown}")
    title = get_system(system).title
    return f"{title} ({', '.join(changed)})" if changed else f"{title} (defaults)"


def pin(source: dict[str, Any] | None, current: dict[str, Any] | None) -> dict[str, Any] | None:
    """The baseline to store: a copy of the source and the valid settings, with a label (``None`` if not ready)."""
    if not source or not current:
        return None
    params = dict(current.get("params") or {})
    return {
        "source": source,
        "system": current["system"],
        "params": params,
        "label": baseline_label(current["system"], params),
    }


# pin / unpin buttons (with the current source and settings) -> baseline store, status line
@callback(
    Output(Baseline.STORE, "data"),
    Output(Baseline.UNPIN, "disabled"),
    Output(Baseline.STATUS, "children"),
    Input(Baseline.PIN, "n_clicks"),
    Input(Baseline.UNPIN, "n_clicks"),
    State(Data.SOURCE, "data"),
    State(Params.SETTINGS, "data"),
    prevent_initial_call=True,
)
def on_pin(_pin: int | None, _unpin: int | None, source: Any, current: Any) -> tuple[Any, bool, str]:
    pinned = pin(source, current) if ctx.triggered_id == Baseline.PIN else None
    if pinned is None:
        return None, True, UNPINNED_TEXT
    return pinned, False, f"Baseline: {pinned['label']} on {describe_source(source)}. Dashed lines show it."
