"""From a source description to a game history and a rating run, with pure caches.

A *source* is a small JSON dict kept in the browser (``dcc.Store``):

- ``{"kind": "sample", "name": "poker"}``: a bundled sample (recomputed on the server);
- ``{"kind": "sheet", "url": ..., "worksheet": ...}``: a Google Sheet (read on the server
  through ``sources.sheets``, which keeps its own cache and last good copy);
- ``{"kind": "upload", "id": ..., "filename": ...}``: an uploaded (or edited, ``"edited": true``) history, kept
  on the server in the store every worker shares (:mod:`sources.histories`) under a content id the server
  computed; the browser holds only the id and the user's own file name.

The caches below are keyed by content (a sample name, a content id, a system and its parameters):
they hold no per-user state, so every gunicorn worker can answer every request.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from dash.exceptions import PreventUpdate

from ratings import (
    SYSTEM_NAMES,
    ComputationError,
    GameHistory,
    HistoryError,
    ParameterError,
    RatingRun,
    create,
    get_system,
)
from ratings.params import coerce

__all__ = [
    "DataError",
    "Loaded",
    "LRU",
    "describe_source",
    "history_for",
    "load_source",
    "parse_params",
    "read_upload",
    "run_for",
    "source_key",
]

T = TypeVar("T")


class LRU(Generic[T]):
    """A small thread-safe least-recently-used cache of pure results.

    Several callbacks of one page update ask for the same run at once; the first computes it and the
    others wait for that result instead of computing it again (a per-key lock).
    """

    def __init__(self, maxsize: int) -> None:
        self._max = maxsize
        self._items: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[Hashable, threading.Lock] = {}

    def get_or_make(self, key: Hashable, make: Callable[[], T]) -> T:
        """The cached value for ``key``, made once (other threads wait for it) and stored when missing."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            key_lock = self._making.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    return self._items[key]
            try:
                value = make()
            finally:
                with self._lock:
                    self._making.pop(key, None)
            with self._lock:
                self._items[key] = value
                while len(self._items) > self._max:
                    self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class DataError(Exception):
    """A source that cannot be read; ``messages`` are plain-language lines for the user."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        super().__init__("; ".join(messages))


@dataclass(frozen=True)
class Loaded:
    """A history read from a source, the key it is cached under and what to tell the user."""

    history: GameHistory
    key: str
    label: str
    warnings: tuple[str, ...] = ()


_HISTORIES: LRU[Loaded] = LRU(32)
_RUNS: LRU[RatingRun] = LRU(64)


def _problems(exc: HistoryError) -> list[str]:
    return [str(p) for p in exc.problems] or [str(exc)]


def history_digest(history: GameHistory) -> str:
    """The content id of a history (see :mod:`sources.histories`), used as a cache key."""
    from sources.histories import content_id, serialise

    return content_id(serialise(history))


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


def read_upload(contents: Any, filename: Any) -> tuple[dict[str, Any], list[str]]:
    """Read a ``dcc.Upload`` data URL with the guarded reader and keep the history on the server.

    Returns the upload source (content id and the user's file name) and the reader's warnings; raises
    :class:`DataError` with every problem found.
    """
    from sources import uploads

    try:
        result = uploads.read_upload(contents, filename if isinstance(filename, str) else None)
    except HistoryError as exc:
        raise DataError(_problems(exc)) from None
    history = result.history
    name = uploads.clean_filename(filename) or "the uploaded file"
    if history.n_games == 0:
        raise DataError([f"{name}: the file holds no games"])
    source = {"kind": "upload", "id": _keep(history), "filename": name}
    # The reader's warnings already include the history's own.
    warnings = list(dict.fromkeys([*result.warnings, *(str(p) for p in result.skipped)]))
    return source, warnings


def _keep(history: GameHistory) -> str:
    from sources.histories import keep
    from sources.store import StoreError

    try:
        return keep(history)
    except StoreError as exc:
        raise DataError([str(exc)]) from None


def stored_source(history: GameHistory, filename: str, *, edited: bool = False) -> dict[str, Any]:
    """An upload-kind source for ``history``, kept on the server (``edited`` marks a what-if edit)."""
    source: dict[str, Any] = {"kind": "upload", "id": _keep(history), "filename": filename}
    if edited:
        source["edited"] = True
    return source


def source_key(source: dict[str, Any]) -> str:
    """A short text naming ``source`` for caches (an upload is named by its content hash)."""
    kind = source.get("kind")
    if kind == "sample":
        return f"sample:{source.get('name')}"
    if kind == "upload":
        return f"upload:{source.get('id')}"
    if kind == "sheet":
        return f"sheet:{source.get('url')}|{source.get('worksheet') or ''}"
    raise DataError([f"unknown data source {kind!r}"])


def describe_source(source: dict[str, Any]) -> str:
    """A human label: "sample 'poker'", "upload results.csv", "Google Sheet ..."."""
    kind = source.get("kind")
    if kind == "sample":
        return f"sample '{source.get('name')}'"
    if kind == "upload":
        return f"{'' if source.get('edited') else 'upload '}{str(source.get('filename'))[:200]}"
    if kind == "sheet":
        return f"Google Sheet {source.get('url')}"
    return "unknown source"


def _load_sample(name: str) -> Loaded:
    from ratings.samples import load_sample

    try:
        history = load_sample(name)
    except HistoryError as exc:
        raise DataError(_problems(exc)) from None
    except (KeyError, ValueError) as exc:
        raise DataError([str(exc).strip("'\"")]) from None
    return Loaded(history, f"sample:{name}", f"sample '{name}'", tuple(history.warnings))


def _load_upload(cid: str) -> Loaded:
    from sources.histories import MissingHistory, fetch
    from sources.store import StoreError

    try:
        history = fetch(cid)
    except MissingHistory:
        raise DataError(
            [
                "this data is no longer on the server (uploaded and edited data are kept 30 days after their "
                "last use) or the link is incomplete; upload the file again"
            ]
        ) from None
    except StoreError as exc:
        raise DataError([str(exc)]) from None
    return Loaded(history, f"upload:{cid}", "upload", tuple(history.warnings))


def open_sheet(url: str, worksheet: str | None = None) -> Any:
    """A ``sources.sheets.SheetSource`` for ``url`` with the host's sheet settings (credentials, cache, retries)."""
    from sources import sheets

    config = sheets.load_settings()
    source = sheets.open_configured_source(dataclasses.replace(config, sheet=url, worksheet=worksheet))
    if source is None:
        raise DataError(["enter the address of a Google Sheet"])
    return source


def _load_sheet(source: dict[str, Any], force: bool = False) -> Loaded:
    from sources.sheets import SheetError

    url = str(source.get("url") or "").strip()
    if not url:
        raise DataError(["enter the address of a Google Sheet"])
    try:
        read = open_sheet(url, source.get("worksheet")).read(force=force)
    except SheetError as exc:
        raise DataError([exc.message]) from None
    except HistoryError as exc:
        raise DataError(_problems(exc)) from None
    history = read.history
    warnings = tuple(dict.fromkeys([*read.warnings, *history.warnings]))
    if read.stale and read.message:
        warnings = (read.message, *warnings)
    return Loaded(history, f"sheet:{url}:{history_digest(history)}", f"Google Sheet {url}", warnings)


def load_source(source: dict[str, Any], *, force: bool = False) -> Loaded:
    """Read ``source`` (cached by its key for samples and uploads); raises :class:`DataError`.

    ``force`` reads a sheet anew instead of using a recent copy (the refresh button).
    """
    if not isinstance(source, dict):
        raise DataError(["the page sent no readable data source; reload the page"])
    kind = source.get("kind")
    if kind == "sheet":
        # sources.sheets keeps its own time-limited cache and last good copy.
        return _load_sheet(source, force)
    if kind == "sample":
        name = source.get("name")
        if not isinstance(name, str):
            raise DataError(["the page sent no readable sample name; reload the page"])
        return _HISTORIES.get_or_make(f"sample:{name}", lambda: _load_sample(name))
    if kind == "upload":
        cid = source.get("id")
        loaded = _HISTORIES.get_or_make(f"upload:{cid}", lambda: _load_upload(str(cid)))
        # The label is the user's own (file name or edit), never the shared content's.
        return dataclasses.replace(loaded, label=describe_source(source))
    raise DataError([f"unknown data source {kind!r}"])


def history_for(source: dict[str, Any]) -> GameHistory:
    """The game history of ``source``."""
    return load_source(source).history


def run_for(source: dict[str, Any], system: str, params: dict[str, Any]) -> RatingRun:
    """The rating run of ``system`` with JSON ``params`` on ``source`` (cached by content)."""
    loaded = load_source(source)
    typed = typed_params(system, params)
    key = (loaded.key, system, json.dumps(params, sort_keys=True, default=str))
    return _RUNS.get_or_make(key, lambda: create(system, **typed).rate(loaded.history))


def settings_of(value: Any) -> tuple[str, dict[str, Any]] | None:
    """``(system, params)`` from a settings-shaped store value, or None when it is not one (stores are untrusted)."""
    if not isinstance(value, dict):
        return None
    system, params = value.get("system"), value.get("params") or {}
    if not isinstance(system, str) or system not in SYSTEM_NAMES or not isinstance(params, dict):
        return None
    return system, params


def current_run(source: dict[str, Any] | None, current: dict[str, Any] | None) -> RatingRun:
    """The run for the stores' source and settings; ``PreventUpdate`` while either is missing or malformed."""
    settings = settings_of(current)
    if not isinstance(source, dict) or settings is None:
        raise PreventUpdate
    # A DataError (for example a sheet this worker cannot read and holds no copy of) propagates: the app's
    # error handler shows its message, so the charts never stay silently stale.
    return run_for(source, *settings)


def baseline_run(pinned: dict[str, Any] | None) -> RatingRun | None:
    """The pinned baseline's run, or ``None`` (also when it can no longer be read or computed)."""
    settings = settings_of(pinned)
    if settings is None or not isinstance(pinned, dict) or not isinstance(pinned.get("source"), dict):
        return None
    try:
        return run_for(pinned["source"], *settings)
    except (DataError, ParameterError, ComputationError):
        return None


def typed_params(system: str, raw: dict[str, Any]) -> dict[str, Any]:
    """JSON parameter values turned into the schema's types (lists become tuples); unknown names dropped."""
    out: dict[str, Any] = {}
    for spec in get_system(system).parameters():
        if spec.name in raw:
            out[spec.name] = coerce(spec, raw[spec.name])
    return out


def jsonable(value: Any) -> Any:
    """A parameter value as JSON (tuples become lists)."""
    if isinstance(value, tuple):
        return [float(v) for v in value]
    return value


def parse_params(system: str, raw: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """Check raw control values for ``system``: ``(params as JSON, None)`` or ``(None, message)``.

    The parameters are validated by constructing the system, so the message is the library's own
    :class:`ParameterError` text.
    """
    try:
        typed = typed_params(system, raw)
        create(system, **typed)
    except ParameterError as exc:
        return None, str(exc)
    except (TypeError, ValueError) as exc:
        return None, f"invalid parameters: {exc}"
    return {k: jsonable(v) for k, v in typed.items()}, None
