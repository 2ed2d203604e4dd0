"""Adapters from the browser's stores (untrusted JSON) to the service layer in :mod:`sources`, and back to the
outputs every feature that changes the data in use sets (the summary line, the sample dropdown).

A source travels as the small JSON form of :mod:`sources.model` (``{"kind": "sample", "name": "poker"}``,
``{"kind": "upload", "id": ..., "filename": ...}``, ...): histories themselves stay on the server.  Settings travel as
``{"system": name, "params": {...}}``.  Runs come from :func:`sources.runs.run_for` (memoised across workers).
"""

from __future__ import annotations

from typing import Any

from dash import Output, no_update
from dash.exceptions import PreventUpdate

from layouts.ids import Data
from layouts.summary import summary_text
from ratings import ComputationError, ParameterError, RatingRun
from sources.model import DataError, Loaded, Sample, parse_source
from sources.reading import describe_source, history_for
from sources.runs import jsonable, parse_params, run_for, settings_of, typed_params
from sources.runs import load as load_source

__all__ = [
    "SAMPLE_SHOWN",
    "DataError",
    "Loaded",
    "baseline_run",
    "current_run",
    "describe_source",
    "history_for",
    "jsonable",
    "load_source",
    "opened_by",
    "parse_params",
    "run_for",
    "sample_shown",
    "settings_of",
    "source_summary",
    "typed_params",
]


def current_run(source: dict[str, Any] | None, current: dict[str, Any] | None) -> RatingRun:
    """The run for the stores' source and settings; ``PreventUpdate`` while either is missing or malformed."""
    settings = settings_of(current)
    if source is None or settings is None:
        raise PreventUpdate
    # A DataError (for example a sheet this worker cannot read and holds no copy of) propagates: the app's
    # error handler shows its message, so the charts never stay silently stale.
    return run_for(source, *settings)


def baseline_run(pinned: dict[str, Any] | None) -> RatingRun | None:
    """The pinned baseline's run, or ``None`` (also when it can no longer be read or computed)."""
    settings = settings_of(pinned)
    if settings is None or not isinstance(pinned, dict):
        return None
    try:
        return run_for(pinned.get("source") or {}, *settings)
    except (DataError, ParameterError, ComputationError):
        return None


def opened_by(gate: Any) -> frozenset[str]:
    """The ids whose change opened a tab's gate (its value as the browser sent it: ``{"n": count, "why": [ids]}``,
    :mod:`callbacks.gates`), empty when unknown."""
    why = gate.get("why") if isinstance(gate, dict) else None
    return frozenset(str(w) for w in why if isinstance(w, str)) if isinstance(why, list) else frozenset()


#: The sample dropdown's outputs for the other callbacks that can change the kind of data in use (see sample_shown).
SAMPLE_SHOWN = (
    Output(Data.SAMPLE, "value", allow_duplicate=True),
    Output(Data.SAMPLE, "placeholder", allow_duplicate=True),
)


def sample_shown(source: Any) -> tuple[Any, Any]:
    """The sample dropdown's value and placeholder for the source in use: blank, naming the data, when it is no sample.

    ``no_update`` for both when nothing new is in use.  The callbacks that can change the *kind* of data in use (the
    data callback, an applied edit, a recorded game) set the dropdown with their new source; no callback reads the
    data store to set it.  The dropdown is an input of the data callback, so such a reader would close a
    loop (data -> dropdown -> data) in the callback graph, and Dash's renderer can stall on a loop: when the loop's
    callbacks are requested while another callback is still running, it holds them all and never sends them (the
    Season's boxes and the address then kept a season the data no longer had).  ``tests/test_callback_graph.py``
    keeps the graph free of loops.
    """
    if not isinstance(source, dict):
        return no_update, no_update
    try:
        typed = parse_source(source)
    except DataError:
        return no_update, no_update
    if isinstance(typed, Sample):
        return typed.name, "choose a sample"
    return None, f"none (using {describe_source(source)})"


def source_summary(source: dict[str, Any] | None) -> Any:
    """The data summary line for a source an edit or a recorded game put in use (``no_update`` when none)."""
    if source is None:
        return no_update
    try:
        return summary_text(load_source(source))
    except DataError:
        return no_update
