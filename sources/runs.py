"""From a source and settings to a rating run, computed at most once per (history, system, parameters).

Runs are memoised at two levels: in each process (the last few runs, as objects) and in the store every worker
shares (the run's arrays, as an ``.npz`` without pickles), so that when one parameter move sends several requests
to several workers, one computes and the others wait for its result instead of replaying the history again.

Incremental replay: the last few runs of each (system, parameters) this process computed are kept as well, and a
new history resumes from the one it shares the most first games with (``RatingSystem.rate(..., resume=run)``), so
Apply of an edit near the end of a long history, or a game recorded at its end, replays only the games from the
edit on (from the last checkpoint before it).  A run read back from the shared store has no checkpoints; it still
serves games appended after its end.

One replay at a time per process: the compiled kernels release the GIL while they run (``nogil``), so the worker's
other threads (pages, scripts, answers already computed: :mod:`serving`'s light lane) keep being served during a
replay; replays themselves take :data:`_REPLAYING` in turn, as they did when the GIL ordered them, so a burst of
them still finishes one after another instead of all late together, and the overload gate's estimate (the CPU
still needed by the requests ahead, :mod:`sources.admission`) stays what it measures.

Settings are ``{"system": name, "params": {name: JSON value}}``; everything taken from a request is checked here
(:func:`settings_of`, :func:`typed_params`) before it reaches the library.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import time
from typing import Any

import numpy as np

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
from ratings.base import shared_prefix
from ratings.params import coerce
from sources import views
from sources.forksafe import ForkSafeLock
from sources.model import LRU, DataError, Loaded, Source, Upload, keep_history, read_source
from sources.store import Store, StoreError, shared_store, wait_for_lock

__all__ = [
    "jsonable",
    "load",
    "load_raw",
    "parse_params",
    "prewarm",
    "read_upload",
    "run_for",
    "settings_of",
    "shared_name",
    "typed_params",
]

log = logging.getLogger(__name__)

#: Held while this process replays a history (see the module docstring).
_REPLAYING = ForkSafeLock()


def run_bytes(run: RatingRun) -> int:
    """The bytes of a run's own arrays and its checkpoints (its history is cached and counted on its own)."""
    arrays = [run.before, run.after, run.final, *run.final_extras.values(), *run.state.values()]
    arrays += [a for pair in run.extras.values() for a in pair]
    return sum(a.nbytes for a in arrays) + sum(c.nbytes for c in run.checkpoints)


#: Bytes of runs one process keeps (as objects; the shared store keeps every run besides), and of the runs kept for
#: resuming.  By bytes, not by count: an Elo-MMR run of the 2,000-race sample holds about 1.7 MB of checkpoints (7 MB
#: when checkpoints were four times as dense), so 64 runs a worker (the bound by count alone) grew two workers under
#: 50 visitors' moves by about 350 MB.
RUNS_BYTES = 48 * 2**20
RECENT_BYTES = 24 * 2**20
_RUNS: LRU[RatingRun] = LRU(64, max_bytes=RUNS_BYTES, weigh=run_bytes)
#: The latest runs of each (system, parameters), newest first: what a new history may resume from.
_RECENT: LRU[tuple[RatingRun, ...]] = LRU(
    32, max_bytes=RECENT_BYTES, weigh=lambda kept: sum(run_bytes(run) for run in kept)
)
#: How many runs of one (system, parameters) are kept for resuming (they are also in ``_RUNS``, or were).
RESUMABLE_PER_SETTING = 4
#: How long a worker waits for another worker computing the same run before computing it itself.
WAIT_SECONDS = 30.0


def load(source: Any, *, force: bool = False) -> Loaded:
    """The history of ``source`` (typed or its JSON form) seen through the view it carries (aliases, season:
    :mod:`sources.views`); :class:`DataError` when it cannot be read."""
    view = views.view_of(source)
    return views.apply(read_source(source, force=force), view)


def load_raw(source: Any, *, force: bool = False) -> Loaded:
    """The history of ``source`` as read, without its view (what the edit grid edits)."""
    return read_source(source, force=force)


def read_upload(contents: Any, filename: Any) -> tuple[Upload, list[str]]:
    """Read a ``dcc.Upload`` data URL with the guarded reader and keep the history on the server.

    Returns the upload source (content id computed here, and the user's own file name) and the reader's
    warnings; raises :class:`DataError` with every problem found.
    """
    from sources import uploads

    try:
        result = uploads.read_upload(contents, filename if isinstance(filename, str) else None)
    except HistoryError as exc:
        raise DataError([str(p) for p in exc.problems] or [str(exc)]) from None
    name = uploads.clean_filename(filename) or "the uploaded file"
    if result.history.n_games == 0:
        raise DataError([f"{name}: the file holds no games"])
    warnings = list(dict.fromkeys([*result.warnings, *(str(p) for p in result.skipped)]))
    return Upload(keep_history(result.history), name), warnings


def settings_of(value: Any) -> tuple[str, dict[str, Any]] | None:
    """``(system, params)`` from a settings-shaped store value, or None when it is not one (stores are untrusted)."""
    if not isinstance(value, dict):
        return None
    system, params = value.get("system"), value.get("params") or {}
    if not isinstance(system, str) or system not in SYSTEM_NAMES or not isinstance(params, dict):
        return None
    return system, params


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


def run_for(source: Source | dict[str, Any], system: str, params: dict[str, Any]) -> RatingRun:
    """The rating run of ``system`` with JSON ``params`` on ``source`` (memoised by content, across workers)."""
    loaded = load(source)
    typed = typed_params(system, params)
    canonical = json.dumps({k: jsonable(v) for k, v in typed.items()}, sort_keys=True)
    key = f"{loaded.key}|{system}|{canonical}"
    return _RUNS.get_or_make(key, lambda: _remembered(system, canonical, key, typed, loaded.history))


def prewarm(sources: list[dict[str, Any]], systems: tuple[str, ...], deadline: float) -> int:
    """Compute the run of each source (JSON form) with each system at its default parameters into the memo, in that
    order, until ``deadline`` (``time.monotonic()``; a run under way is finished); how many are ready.  What cannot
    be read or computed is skipped (a visitor gets the clear message when asking for it)."""
    done = 0
    for source in sources:
        for system in systems:
            if time.monotonic() >= deadline:
                return done
            try:
                run_for(source, system, {})
            except (DataError, HistoryError, ParameterError, ComputationError, ValueError) as exc:
                log.warning("not computed ahead: %s with %s: %s", source, system, exc)
                continue
            done += 1
    return done


def _remembered(system: str, canonical: str, key: str, typed: dict[str, Any], history: GameHistory) -> RatingRun:
    """The run of ``key``, resumed from the recent run of the same settings that shares most games with it."""
    setting = f"{system}|{canonical}"
    recent = _RECENT.get(setting) or ()
    parent = max(recent, key=lambda run: shared_prefix(run.history, history), default=None)
    run = _shared_run(key, system, typed, history, parent)
    _RECENT.put(setting, (run, *(r for r in recent if r is not run))[:RESUMABLE_PER_SETTING])
    return run


def shared_name(key: str) -> str:
    """The shared store's name of the run memoised under ``key`` (``source key|system|canonical parameters``)."""
    return "run:" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _read_shared(store: Store, name: str, rater: Any, history: GameHistory) -> RatingRun | None:
    """The run stored under ``name``, or None when it is absent or cannot be read back."""
    packed = store.get(name)
    if packed is None:
        return None
    try:
        return _unpack(packed, rater, history)
    except (ValueError, KeyError, OSError):
        log.warning("a shared run could not be read; computing it again")
        return None


def _shared_run(
    key: str, system: str, typed: dict[str, Any], history: GameHistory, parent: RatingRun | None = None
) -> RatingRun:
    rater = create(system, **typed)
    name = shared_name(key)
    try:
        store = shared_store()
        # Reading a finished run takes no lock: the lock is only for computing, so that readers never queue
        # behind a worker that is computing some other run, nor behind each other.
        found = _read_shared(store, name, rater, history)
        if found is not None:
            return found
        with _claim(store, name):
            found = _read_shared(store, name, rater, history)  # another worker may have finished it meanwhile
            if found is not None:
                return found
            run = _replay(rater, history, parent)
            store.put(name, _pack(run))
            return run
    except StoreError:
        return _replay(rater, history, parent)  # the shared memo is an optimisation: compute here without it


def _replay(rater: Any, history: GameHistory, parent: RatingRun | None) -> RatingRun:
    with _REPLAYING:
        return rater.rate(history, resume=parent)


class _claim:
    """Hold ``name`` while computing it, so that other workers wait for the result (a lock in the store).

    A worker that waits longer than :data:`WAIT_SECONDS` computes the run itself (the lock lapses then too).
    """

    def __init__(self, store: Store, name: str) -> None:
        self._store = store
        self._key = f"lock:{name}"
        self._held = False

    def __enter__(self) -> _claim:
        self._held, _ = wait_for_lock(self._store, self._key, WAIT_SECONDS)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._held:
            self._store.release(self._key)


def _pack(run: RatingRun) -> bytes:
    arrays: dict[str, np.ndarray] = {"before": run.before, "after": run.after, "final": run.final}
    for name, value in run.state.items():
        arrays[f"state.{name}"] = np.asarray(value)
    for name, (before, after) in run.extras.items():
        arrays[f"extra_before.{name}"] = before
        arrays[f"extra_after.{name}"] = after
    for name, value in run.final_extras.items():
        arrays[f"final_extra.{name}"] = value
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    return buffer.getvalue()


def _unpack(data: bytes, rater: Any, history: GameHistory) -> RatingRun:
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    n_entries = int(history.offsets[-1]) if len(history.offsets) else 0
    if arrays["before"].shape != (n_entries,):
        raise ValueError("shape")
    part = lambda prefix: {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}  # noqa: E731
    before_extras, after_extras = part("extra_before."), part("extra_after.")
    return RatingRun(
        system=rater.name,
        params=rater.params,
        history=history,
        before=arrays["before"],
        after=arrays["after"],
        final=arrays["final"],
        initial=rater.initial_rating(),
        scale=rater.scale,
        extras={k: (before_extras[k], after_extras[k]) for k in before_extras},
        final_extras=part("final_extra."),
        state=part("state."),
    )
