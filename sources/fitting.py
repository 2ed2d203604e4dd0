"""Fitting a system to a group's history and comparing every system, as jobs for the dashboard's background work.

Thin service over :func:`ratings.tune.tune`: reads the source (from the shared store, so any process can run the
job), adds the current settings' own held-out figures for comparison and the verdicts (95% intervals from a paired
bootstrap over the held-out games: is the difference beyond noise?), and returns plain JSON for a browser store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ratings import SYSTEM_NAMES, ComputationError, ParameterError, get_system
from ratings.seasons import SEASON_PARAMS
from ratings.tune import fit_verdict, held_out_scores, held_out_verdicts, searchable, tune
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
    seasons: bool = False,
    dynamics: bool = False,
    held_out_start: str = "carried",
) -> dict[str, Any]:
    """Tune ``system`` on ``source`` (categorical settings kept as they are now) and compare with ``params``;
    with ``seasons``, the season rule is searched too, with ``dynamics`` the time-aware rules
    (:func:`ratings.tune.searchable`); ``held_out_start``: the
    later games scored with ratings carried through the cut or started afresh there (:func:`ratings.tune.tune`)."""
    history = load(source).history
    current = typed_params(system, params)
    searched = {s.name for s in searchable(system, dynamics=dynamics)}
    if seasons:
        searched |= set(SEASON_PARAMS)
    fixed = {k: v for k, v in current.items() if k not in searched}
    result = tune(
        history,
        system,
        metric=metric,
        budget_seconds=budget,
        seed=seed,
        fixed=fixed,
        progress=_reporter(progress, budget),
        seasons=seasons,
        dynamics=dynamics,
        held_out_start=held_out_start,
    )
    try:
        now = held_out_scores(history, system, current, result.cut, metric=metric, start=held_out_start)
    except (ComputationError, ParameterError):
        now = None
    verdict = fit_verdict(result, now)
    return {
        "kind": "fit",
        "system": system,
        "metric": metric,
        "cut": result.cut,
        "held_out_start": held_out_start,
        "games": history.n_games,
        "current": {k: jsonable(v) for k, v in current.items()},
        "fitted": {k: jsonable(v) for k, v in result.params.items()},
        "test": result.test.as_dict(),
        "train": result.train.as_dict(),
        "default_test": result.default_test.as_dict(),
        "current_test": None if now is None else now.evaluation().as_dict(),
        "evaluations": [t.train for t in result.evaluations],
        "verdict": verdict.as_dict(),
    }


def compare_systems(
    source: Any,
    *,
    budget: float,
    metric: str,
    progress: Progress | None = None,
    seed: int = 0,
    seasons: bool = False,
    dynamics: bool = False,
    held_out_start: str = "carried",
) -> dict[str, Any]:
    """Tune every system within a share of ``budget`` each (the season rule too, with ``seasons``, and the
    time-aware rules with ``dynamics``; the later games
    scored as ``held_out_start`` says); one row per system with its held-out figures."""
    history = load(source).history
    share = budget / len(SYSTEM_NAMES)
    rows = []
    results = []
    cut = 0
    for i, name in enumerate(SYSTEM_NAMES):
        if progress is not None:
            progress(100.0 * i / len(SYSTEM_NAMES), f"{get_system(name).title} ({i + 1} of {len(SYSTEM_NAMES)})")
        result = tune(
            history,
            name,
            metric=metric,
            budget_seconds=share,
            seed=seed,
            seasons=seasons,
            dynamics=dynamics,
            held_out_start=held_out_start,
        )
        cut = result.cut
        results.append(result)
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
    for row, verdict in zip(rows, held_out_verdicts(results), strict=True):
        row["verdict"] = verdict.as_dict()  # intervals, and each system against its defaults and the best other
    return {
        "kind": "compare",
        "metric": metric,
        "games": history.n_games,
        "cut": cut,
        "held_out_start": held_out_start,
        "rows": rows,
    }
