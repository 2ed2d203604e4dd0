"""Adapters from the browser's stores (untrusted JSON) to the service layer in :mod:`sources`.

A source travels as the small JSON form of :mod:`sources.model` (``{"kind": "sample", "name": "poker"}``,
``{"kind": "upload", "id": ..., "filename": ...}``, ...): histories themselves stay on the server.  Settings travel as
``{"system": name, "params": {...}}``.  Runs come from :func:`sources.runs.run_for` (memoised across workers).
"""

from __future__ import annotations

from typing import Any

from dash.exceptions import PreventUpdate

from ratings import ComputationError, GameHistory, ParameterError, RatingRun
from sources.model import DataError, Edited, Loaded, Sheet, keep_history, parse_source
from sources.reading import describe_source, history_for
from sources.runs import jsonable, parse_params, run_for, settings_of, typed_params
from sources.runs import load as load_source
from sources.views import view_of, with_view

__all__ = [
    "DataError",
    "Loaded",
    "baseline_run",
    "current_run",
    "describe_source",
    "edited_source",
    "history_for",
    "jsonable",
    "load_source",
    "open_sheet",
    "opened_by",
    "parse_params",
    "read_upload",
    "records_of",
    "run_for",
    "settings_of",
    "typed_params",
]


def read_upload(contents: Any, filename: Any) -> tuple[dict[str, Any], list[str]]:
    """The upload's source (JSON, for the store) and the reader's warnings; :class:`DataError` on failure."""
    from sources.runs import read_upload as read

    source, warnings = read(contents, filename)
    return source.to_json(), warnings


def edited_source(history: GameHistory, base: Any) -> dict[str, Any]:
    """The JSON source of an edit of ``base`` (kept on the server by content)."""
    try:
        parsed = parse_source(base)
    except DataError:
        parsed = None
    edited = Edited.of(keep_history(history), parsed).to_json()
    return with_view(edited, view_of(base)) if isinstance(base, dict) else edited


def open_sheet(url: str, worksheet: str | None = None) -> Any:
    """A ``sources.sheets.SheetSource`` for ``url`` with the host's sheet settings (credentials, cache, retries)."""
    return Sheet(url, worksheet).opener()


def records_of(history: GameHistory) -> list[dict[str, Any]]:
    """JSON-ready long-shape records (dates as ISO text, DNF as the word)."""
    return [
        {
            "game": r["game"],
            "date": r["date"].isoformat() if r["date"] is not None else None,
            "player": r["player"],
            "place": r["place"],
        }
        for r in history.to_records()
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
