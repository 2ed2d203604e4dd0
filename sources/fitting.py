"""Fitting a system to a group's history and comparing every system, as jobs for the dashboard's background work.

Thin service over :func:`ratings.tune.tune`: reads the source (from the shared store, so any process can run the
job), adds the current settings' own held-out figures for comparison, and returns plain JSON for a browser store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ratings import SYSTEM_NAMES, ComputationError, ParameterError, create, get_system
from ratings.tune import held_out, tune
from sources.runs import jsonable, load, typed_params

__all__ = ["compare_systems", "fit_system"]

#: How often a job reports progress (seconds).
PROGRESS_EVERY = 0.4

Progress = Callable[[float, str], None]


def _reporter(progress: Progress | None, budget: float, prefix: str = "") -> Callable[[int, float | None], None]:
    started = time.monotonic()
    last = [0.0]

    def report(done: int, best: float | None) -> None:
        now = time.monotonic()
        if progress is None or now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        share = min(99.0, 100.0 * (now - started) / budget) if budget > 0 else 0.0
        best_text = f", best so far {best:.4f}" if best is not None else ""
        progress(share, f"{prefix}{done} evaluations{best_text}")

    return report


def fit_system(
    source: Any,
    system: str,
    params: dict[str, Any],
    *,
    budget: float,
    metric: str,
    progress: Progress | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Tune ``system`` on ``source`` (categorical settings kept as they are now) and compare with ``params``."""
    history = load(source).history
    current = typed_params(system, params)
    numeric = {s.name for s in get_system(system).parameters() if s.kind in ("float", "int")}
    fixed = {k: v for k, v in current.items() if k not in numeric}
    result = tune(
        history,
        system,
        metric=metric,
        budget_seconds=budget,
        seed=seed,
        fixed=fixed,
        progress=_reporter(progress, budget),
    )
    try:
        now = held_out(history, create(system, **current).rate(history).before, result.cut)
        now_figures: dict[str, Any] | None = now.as_dict()
    except (ComputationError, ParameterError):
        now_figures = None
    return {
        "kind": "fit",
        "system": system,
        "metric": metric,
        "cut": result.cut,
        "games": history.n_games,
        "current": {k: jsonable(v) for k, v in current.items()},
        "fitted": {k: jsonable(v) for k, v in result.params.items()},
        "test": result.test.as_dict(),
        "train": result.train.as_dict(),
        "default_test": result.default_test.as_dict(),
        "current_test": now_figures,
        "evaluations": [t.train for t in result.evaluations],
    }


def compare_systems(
    source: Any, *, budget: float, metric: str, progress: Progress | None = None, seed: int = 0
) -> dict[str, Any]:
    """Tune every system within a share of ``budget`` each; one row per system with its held-out figures."""
    history = load(source).history
    share = budget / len(SYSTEM_NAMES)
    rows = []
    cut = 0
    for i, name in enumerate(SYSTEM_NAMES):
        if progress is not None:
            progress(100.0 * i / len(SYSTEM_NAMES), f"{get_system(name).title} ({i + 1} of {len(SYSTEM_NAMES)})")
        result = tune(history, name, metric=metric, budget_seconds=share, seed=seed)
        cut = result.cut
        rows.append(
            {
                "system": name,
                "title": get_system(name).title,
                "fitted": {k: jsonable(v) for k, v in result.params.items()},
                "test": result.test.as_dict(),
                "default_test": result.default_test.as_dict(),
                "replay_seconds": result.replay_seconds,
                "evaluations": len(result.evaluations),
            }
        )
    return {"kind": "compare", "metric": metric, "games": history.n_games, "cut": cut, "rows": rows}
