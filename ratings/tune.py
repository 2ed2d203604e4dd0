"""Which settings fit a group's history?  Honest parameter search on the early games, judged on the later ones.

Protocol (as in Kerby's evaluation of single-parameter models, and in the hold-out protocol of Ebtekar and Liu's
Elo-MMR paper, arXiv:2101.00400, section 6): the history is cut at a game; the search sees ONLY the games before the
cut (the training part: it replays that part alone, so no later game can influence what it chooses); the chosen
settings then replay the whole history, ratings carrying on through the cut, and the metric is reported on the
games after it (the held-out part), beside the same figures for the defaults.  If tuning only fitted noise, the
held-out figure shows it.  As an option (``held_out_start="fresh"``), the held-out games are scored with ratings
started afresh at the cut instead (every player a newcomer there, as in a rating list that was reset at the cut),
to compare with such a list.

The search runs over a system's numeric parameters (``float`` and ``int`` kinds) inside their declared ranges
(``ParamSpec.low``/``high``).  It alternates a batch of a scrambled Sobol sequence (``scipy.stats.qmc``, seeded)
with a bounded Nelder-Mead refinement from the best point so far (``scipy.optimize.minimize``) until the time or
evaluation budget is spent.
Every evaluation is recorded.  Categorical and optional parameters keep their values (defaults, or the ``fixed``
ones given).

How sure is the verdict?  :func:`held_out_verdicts` puts a 95% interval on every held-out figure (a paired
bootstrap over the held-out games, :class:`ratings.metrics.PairedBootstrap`) and says, for every metric, whether the
tuned settings beat the defaults, and whether a system beats the best of the others, beyond that interval.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratings.base import ComputationError, RatingRun
from ratings.history import GameHistory
from ratings.metrics import (
    BOOTSTRAP_SAMPLES,
    BOOTSTRAP_SEED,
    LEVEL,
    LOWER_IS_BETTER,
    Comparison,
    Evaluation,
    GameScores,
    Interval,
    PairedBootstrap,
    evaluate_ratings,
    game_scores,
)
from ratings.params import ParameterError, ParamSpec, offered
from ratings.predict import win_probabilities
from ratings.seasons import SEASON_PARAMS
from ratings.systems import create, get_system

__all__ = [
    "HELD_OUT_STARTS",
    "METRICS",
    "Trial",
    "TuneResult",
    "Verdict",
    "cut_index",
    "fit_verdict",
    "held_out",
    "held_out_scores",
    "held_out_verdicts",
    "searchable",
    "tune",
]

#: Metric name -> (Evaluation field, +1 if lower is better, -1 if higher is better; from metrics.LOWER_IS_BETTER).
METRICS: dict[str, tuple[str, int]] = {
    name: (key, 1 if LOWER_IS_BETTER[key] else -1)
    for name, key in (
        ("kendall-tau", "kendall_tau"),
        ("pair-inversion", "pair_inversion"),
        ("rank-deviation", "rank_deviation"),
        ("log-loss", "log_loss"),
    )
}
#: The metric that needs the system's predictions (one per game, so a slower search).
PREDICTIVE = "log-loss"
#: Share of the games the search sees by default (the first 30%).
DEFAULT_TRAIN_FRACTION = 0.3
#: Where the ratings that score the held-out games start: ``carried`` through the cut from the first game (the
#: protocol of the papers above), or ``fresh`` at the cut (every player a newcomer there).
HELD_OUT_STARTS = ("carried", "fresh")


@dataclass(frozen=True)
class Trial:
    """One evaluation of the search: the parameters tried and the training metric (None: no finite ratings)."""

    params: dict[str, Any]
    train: float | None
    seconds: float


@dataclass(frozen=True)
class TuneResult:
    """What the search found and how it held up on the games it never saw."""

    system: str
    metric: str
    cut: int
    params: dict[str, Any]
    train: Evaluation
    test: Evaluation
    default_train: Evaluation
    default_test: Evaluation
    evaluations: list[Trial] = field(default_factory=list)
    replay_seconds: float = 0.0
    #: Per-game figures of the held-out part, tuned and defaults (what the bootstrap resamples).
    test_scores: GameScores | None = None
    default_test_scores: GameScores | None = None
    #: Where the held-out games' ratings started (one of :data:`HELD_OUT_STARTS`).
    held_out_start: str = "carried"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``params``, ``train``, ``test``, ``default_train``, ``default_test``, ``evaluations`` (the
        intervals and verdicts are :func:`held_out_verdicts`'s, :meth:`Verdict.as_dict`)."""
        return {
            "system": self.system,
            "metric": self.metric,
            "cut": self.cut,
            "held_out_start": self.held_out_start,
            "params": self.params,
            "train": self.train.as_dict(),
            "test": self.test.as_dict(),
            "default_train": self.default_train.as_dict(),
            "default_test": self.default_test.as_dict(),
            "evaluations": [
                {"params": t.params, "train": t.train, "seconds": round(t.seconds, 4)} for t in self.evaluations
            ],
            "replay_seconds": self.replay_seconds,
        }


@dataclass(frozen=True)
class Verdict:
    """One system's held-out figures with their 95% intervals, and whether it beat the defaults and the best.

    ``tuned`` and ``defaults`` map each metric (an :class:`~ratings.metrics.Evaluation` field) to its interval;
    ``versus_defaults`` says how much better the tuned settings did than the defaults on the same games;
    ``versus_best`` (in a comparison of several systems) how much better this system did than the best of the
    others (for the best system: than the runner-up).
    """

    system: str
    games: int
    samples: int
    seed: int
    level: float
    tuned: dict[str, Interval]
    defaults: dict[str, Interval]
    versus_defaults: dict[str, Comparison]
    versus_best: dict[str, Comparison]
    #: In a fit (:func:`fit_verdict`): the settings in use before the search, and the tuned ones against them.
    current: dict[str, Interval] = field(default_factory=dict)
    versus_current: dict[str, Comparison] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``bootstrap`` (games, samples, seed, level), ``tuned`` and ``defaults`` (metric -> value,
        margin), ``better_than_defaults`` and ``better_than_best`` (metric -> improvement, margin, low, high,
        verdict, words); in a fit also ``current`` and ``better_than_current``."""
        return {
            "bootstrap": {"games": self.games, "samples": self.samples, "seed": self.seed, "level": self.level},
            "tuned": {m: i.as_dict() for m, i in self.tuned.items()},
            "defaults": {m: i.as_dict() for m, i in self.defaults.items()},
            "better_than_defaults": {m: c.as_dict() for m, c in self.versus_defaults.items()},
            "better_than_best": {m: c.as_dict() for m, c in self.versus_best.items()},
            "current": {m: i.as_dict() for m, i in self.current.items()},
            "better_than_current": {m: c.as_dict() for m, c in self.versus_current.items()},
        }


def held_out_verdicts(
    results: Sequence[TuneResult], *, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED, level: float = LEVEL
) -> list[Verdict]:
    """The verdict of each result, from one paired bootstrap over their shared held-out games.

    Every result must have been scored on the same held-out games (one history, one cut), as ``compare`` does.
    With more than one result, each row is also compared with the best of the others on each metric.
    """
    rows: dict[str, GameScores] = {}
    for r in results:
        if r.test_scores is None or r.default_test_scores is None:
            raise ValueError(f"{r.system}: no per-game held-out figures to resample")
        rows[r.system] = r.test_scores
        rows[f"{r.system} defaults"] = r.default_test_scores
    boot = PairedBootstrap(rows, samples=samples, seed=seed, level=level)
    first = results[0].test_scores
    assert first is not None
    metrics = [m for m in first.numerators if all(m in rows[name].numerators for name in rows)]
    names = [r.system for r in results]
    best_of: dict[str, list[str]] = {}
    for m in metrics:
        sign = 1.0 if LOWER_IS_BETTER[m] else -1.0
        finite = [n for n in names if not math.isnan(rows[n].value(m))]
        best_of[m] = sorted(finite, key=lambda n: sign * rows[n].value(m))  # best first
    verdicts = []
    for name in names:
        versus_best: dict[str, Comparison] = {}
        for m in metrics:
            ranked = best_of[m]
            if len(names) < 2 or name not in ranked or len(ranked) < 2:
                continue
            if ranked[0] == name:
                versus_best[m] = boot.compare(name, ranked[1], m, label=f"the runner-up ({ranked[1]})")
            else:
                versus_best[m] = boot.compare(name, ranked[0], m, label=f"the best ({ranked[0]})")
        verdicts.append(
            Verdict(
                system=name,
                games=first.n_games,
                samples=samples,
                seed=seed,
                level=level,
                tuned={m: boot.interval(name, m) for m in metrics},
                defaults={m: boot.interval(f"{name} defaults", m) for m in metrics},
                versus_defaults={m: boot.compare(name, f"{name} defaults", m, label="the defaults") for m in metrics},
                versus_best=versus_best,
            )
        )
    return verdicts


def fit_verdict(
    result: TuneResult,
    current: GameScores | None,
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = LEVEL,
) -> Verdict:
    """A fit's verdict: the tuned settings against the defaults and against the ``current`` ones (the settings in
    use before the search, scored on the same held-out games by :func:`held_out_scores`; None if they gave no
    finite ratings), from one paired bootstrap over the held-out games.

    This is what tells a group whether a fit is worth taking: a tuned figure a few thousandths better than theirs
    is often ``within noise``."""
    if result.test_scores is None or result.default_test_scores is None:
        raise ValueError(f"{result.system}: no per-game held-out figures to resample")
    rows = {"tuned": result.test_scores, "defaults": result.default_test_scores}
    if current is not None:
        rows["current"] = current
    boot = PairedBootstrap(rows, samples=samples, seed=seed, level=level)
    metrics = [m for m in result.test_scores.numerators if all(m in r.numerators for r in rows.values())]
    return Verdict(
        system=result.system,
        games=result.test_scores.n_games,
        samples=samples,
        seed=seed,
        level=level,
        tuned={m: boot.interval("tuned", m) for m in metrics},
        defaults={m: boot.interval("defaults", m) for m in metrics},
        versus_defaults={m: boot.compare("tuned", "defaults", m, label="the defaults") for m in metrics},
        versus_best={},
        current={m: boot.interval("current", m) for m in metrics} if current is not None else {},
        versus_current=(
            {m: boot.compare("tuned", "current", m, label="your current settings") for m in metrics}
            if current is not None
            else {}
        ),
    )


def cut_index(history: GameHistory, *, fraction: float | None = None, until: dt.date | None = None) -> int:
    """The first held-out game: after ``fraction`` of the games, or the first game dated after ``until``.

    At least one game on each side (a history of fewer than two games cannot be split).
    """
    n = history.n_games
    if n < 2:
        raise ParameterError("history", "needs at least two games to set some aside for testing")
    if until is not None:
        dates = [g.date for g in history.games]
        if any(d is None for d in dates):
            raise ParameterError("train_until", "the history has games without a date; cut by a fraction instead")
        cut = sum(1 for d in dates if d is not None and d <= until)
    else:
        share = DEFAULT_TRAIN_FRACTION if fraction is None else fraction
        if not (isinstance(share, (int, float)) and 0.0 < share < 1.0):
            raise ParameterError("train_fraction", f"must be between 0 and 1 (exclusive), got {share!r}")
        cut = int(round(n * share))
    if not 0 < cut < n:
        raise ParameterError("train_until" if until else "train_fraction", f"leaves no games on one side ({cut}/{n})")
    return cut


def held_out(history: GameHistory, before: np.ndarray, cut: int, **scoring: Any) -> Evaluation:
    """The metrics of the ratings ``before`` each game, over the games from ``cut`` on (``scoring``: the options
    of :func:`ratings.metrics.evaluate_ratings`)."""
    return evaluate_ratings(history, before, first_game=cut, **scoring)


def held_out_scores(
    history: GameHistory,
    system: str,
    params: Mapping[str, Any],
    cut: int,
    *,
    metric: str = "kendall-tau",
    scoring: Mapping[str, Any] | None = None,
    start: str = "carried",
) -> GameScores:
    """Per-game figures of ``system`` with ``params`` over the games from ``cut`` on, scored as :func:`tune`
    scores its own rows (the log-loss too when it is the ``metric``; ratings carried through the cut or started
    afresh there, ``start``), so they can be paired with a :class:`TuneResult`'s in :func:`fit_verdict`."""
    rater = create(system, **params)
    run = rater.rate(history)
    return _held_out_scores(history, rater, run, _wins(run, metric), cut, metric, dict(scoring or {}), start)


def _held_out_scores(
    history: GameHistory,
    rater: Any,
    run: RatingRun,
    wins: np.ndarray | None,
    cut: int,
    metric: str,
    scoring: dict[str, Any],
    start: str,
) -> GameScores:
    """Per-game figures over the games from ``cut`` on: from ``run`` (``rater``'s run of the whole history, with
    its win probabilities ``wins`` when the metric needs them; ``start="carried"``), or from ``rater``'s run of those
    games alone (``"fresh"``: every player a newcomer at the cut)."""
    if start not in HELD_OUT_STARTS:
        raise ParameterError("held_out_start", f"'{start}' is not one of {', '.join(HELD_OUT_STARTS)}")
    if start == "carried":
        return game_scores(history, run.before, first_game=cut, win_probabilities=wins, **scoring)
    later = GameHistory(history.games[cut:])
    fresh = rater.rate(later)
    return game_scores(later, fresh.before, first_game=0, win_probabilities=_wins(fresh, metric), **scoring)


def _wins(run: RatingRun, metric: str) -> np.ndarray | None:
    """The run's win probabilities when the metric needs them (the log-loss: a prediction per game), else None."""
    return win_probabilities(run) if metric == PREDICTIVE else None


def searchable(system: str, *, seasons: bool = False, dynamics: bool = False) -> list[ParamSpec]:
    """The parameters the search varies: numeric, with a declared range; with ``seasons``, the season rule too
    (:mod:`ratings.seasons`: its length over its slider's range and its shrink, starting from no shrink, which
    changes nothing), which is left out otherwise (without a length the shrink does nothing); with ``dynamics``, the
    time-aware rules too (:attr:`ratings.params.ParamSpec.time_rule`, from their defaults, which are off), left out
    otherwise: they only act on dated histories, and each is another dimension for the search's budget."""
    out = [
        s
        for s in get_system(system).parameters()
        if s.kind in ("float", "int")
        and s.low is not None
        and s.high is not None
        and s.high > s.low
        and s.name not in SEASON_PARAMS
        and (dynamics or not s.time_rule)
    ]
    if seasons:
        rule = {s.name: s for s in get_system(system).parameters() if s.name in SEASON_PARAMS}
        length = rule["season_days"]
        # the search starts from the rule's no-op (no shrink), so seasons are kept only if they help
        out += [
            dataclasses.replace(length, kind="float", default=length.high),
            dataclasses.replace(rule["season_shrink"], default=0.0),
        ]
    return out


def _score(evaluation: Evaluation, metric: str) -> float | None:
    name, sign = METRICS[metric]
    value = getattr(evaluation, name)
    return None if value is None or math.isnan(value) else sign * float(value)


def tune(
    history: GameHistory,
    system: str,
    *,
    metric: str = "kendall-tau",
    budget_seconds: float = 30.0,
    max_evaluations: int | None = None,
    train_fraction: float | None = None,
    train_until: dt.date | None = None,
    seed: int = 0,
    fixed: Mapping[str, Any] | None = None,
    progress: Callable[[int, float | None], None] | None = None,
    stop: Callable[[], bool] | None = None,
    scoring: Mapping[str, Any] | None = None,
    seasons: bool = False,
    dynamics: bool = False,
    held_out_start: str = "carried",
) -> TuneResult:
    """Search ``system``'s numeric parameters on the games before the cut to minimise ``metric`` (see the module).

    ``progress(evaluations done, best training score so far)`` is called after each evaluation; ``stop()``
    returning True ends the search early (a cancelled job).  The result is reproducible for a given ``seed``
    and evaluation budget (a time budget may end it at a different evaluation on a busier machine).
    ``scoring`` holds the options of :func:`ratings.metrics.evaluate_ratings` (``min_prior_games``, ``burn_in``,
    ``equal_ratings``; default: Ebtekar and Liu's), used for every figure.  With ``seasons`` the search varies
    the season rule too, and with ``dynamics`` the time-aware rules (:func:`searchable`); the defaults it is judged
    against have neither.
    ``held_out_start`` (:data:`HELD_OUT_STARTS`) says whether the held-out games are scored with ratings carried
    through the cut (default) or started afresh there; the search itself is the same either way.
    """
    score_options = dict(scoring or {})
    if metric not in METRICS:
        raise ParameterError("metric", f"'{metric}' is not one of {', '.join(METRICS)}")
    if held_out_start not in HELD_OUT_STARTS:
        raise ParameterError("held_out_start", f"'{held_out_start}' is not one of {', '.join(HELD_OUT_STARTS)}")
    cut = cut_index(history, fraction=train_fraction, until=train_until)
    training = GameHistory(history.games[:cut])  # the search never sees a game from the cut on
    base = dict(fixed or {})
    # fixed values are kept, never searched
    specs = [s for s in searchable(system, seasons=seasons, dynamics=dynamics) if s.name not in base]
    trials: list[Trial] = []
    deadline = time.monotonic() + max(0.0, budget_seconds)
    limit = max_evaluations if max_evaluations is not None else 10_000

    def train_score(params: dict[str, Any]) -> float | None:
        started = time.perf_counter()
        try:
            run = create(system, **base, **params).rate(training)
            wins = _wins(run, metric)
            value = _score(evaluate_ratings(training, run.before, win_probabilities=wins, **score_options), metric)
        except (ComputationError, ParameterError):
            value = None
        trials.append(
            Trial(dict(params), None if value is None else METRICS[metric][1] * value, time.perf_counter() - started)
        )
        if progress is not None:
            finite = [t.train for t in trials if t.train is not None]
            best = (min if METRICS[metric][1] > 0 else max)(finite) if finite else None
            progress(len(trials), best)
        return value

    def over() -> bool:
        return len(trials) >= limit or time.monotonic() > deadline or (stop is not None and stop())

    params_cls = get_system(system).Params

    def params_at(point: np.ndarray) -> dict[str, Any]:
        # each parameter within the limits the system's rules put on it with those before it as drawn (the rest
        # fixed or at their defaults), so that every point of the box is a setting the rules allow
        out: dict[str, Any] = {}
        for spec, u in zip(specs, point, strict=True):
            low, high = offered(params_cls, spec, {**base, **out})
            value = low + float(np.clip(u, 0.0, 1.0)) * (high - low)
            out[spec.name] = int(round(value)) if spec.kind == "int" else min(max(round(value, 6), low), high)
        return out

    def point_of(values: Mapping[str, Any]) -> np.ndarray:
        """The point of the box whose parameters are ``values`` (:func:`params_at`'s inverse, ends clipped)."""
        known, point = dict(base), []
        for spec in specs:
            low, high = offered(params_cls, spec, known)
            point.append((float(values[spec.name]) - low) / (high - low) if high > low else 0.0)
            known[spec.name] = values[spec.name]
        return np.clip(np.array(point), 0.0, 1.0)

    best_point: np.ndarray | None = None
    best_value = math.inf
    if specs:
        # scipy's optimize and stats cost about 0.5 s of import: only a search pays for them (the command line's
        # parser reads this module's METRICS for every command).
        from scipy import optimize
        from scipy.stats import qmc

        # Phase 1: a scrambled Sobol design over the unit box (the defaults first, so tuning can only help).
        defaults = point_of({s.name: s.default for s in specs})
        size = max(8, 4 * len(specs))
        sobol = qmc.Sobol(d=len(specs), scramble=True, seed=seed)
        drawn = math.ceil(math.log2(size))
        design = [defaults, *sobol.random_base2(drawn)]

        class _Done(Exception):
            pass

        def objective(point: np.ndarray) -> float:
            if over():
                raise _Done
            value = train_score(params_at(point))
            return math.inf if value is None else value

        # Rounds until the budget is spent: evaluate a batch of Sobol points (the defaults first, so tuning can
        # only help), then a bounded Nelder-Mead refinement from the best point so far; the next round takes the
        # next points of the same Sobol sequence.
        while not over():
            for point in design:
                if over():
                    break
                value = train_score(params_at(point))
                if value is not None and value < best_value:
                    best_point, best_value = point, value
            if best_point is None or over():
                break
            try:
                found = optimize.minimize(
                    objective,
                    best_point,
                    method="Nelder-Mead",
                    bounds=[(0.0, 1.0)] * len(specs),
                    options={"xatol": 1e-3, "fatol": 1e-6, "initial_simplex": _simplex(best_point)},
                )
                if found.fun < best_value:
                    best_point, best_value = np.asarray(found.x), float(found.fun)
            except _Done:
                break
            design = list(sobol.random_base2(drawn))  # as many again: the sequence keeps its balance (2^k points)
            drawn += 1
        chosen = {**base, **params_at(best_point)} if best_point is not None else dict(base)
        # the search's own record of the best point is authoritative (Nelder-Mead's may be a stale vertex)
        scored = [t for t in trials if t.train is not None]
        if scored:
            sign = METRICS[metric][1]
            top = min(scored, key=lambda t: sign * t.train)  # type: ignore[operator]
            chosen = {**base, **top.params}
    else:
        chosen = dict(base)

    tuned_rater, default_rater = create(system, **chosen), create(system, **base)
    started = time.perf_counter()
    tuned_run = tuned_rater.rate(history)
    replay = time.perf_counter() - started
    default_run = default_rater.rate(history)
    # the log-loss, when it is the metric, for every figure (it costs a prediction per game)
    tuned_wins, default_wins = _wins(tuned_run, metric), _wins(default_run, metric)
    test_scores = _held_out_scores(
        history, tuned_rater, tuned_run, tuned_wins, cut, metric, score_options, held_out_start
    )
    default_scores = _held_out_scores(
        history, default_rater, default_run, default_wins, cut, metric, score_options, held_out_start
    )
    return TuneResult(
        system=system,
        metric=metric,
        cut=cut,
        params=chosen,
        train=evaluate_ratings(history, tuned_run.before, last_game=cut, win_probabilities=tuned_wins, **score_options),
        test=test_scores.evaluation(),
        default_train=evaluate_ratings(
            history, default_run.before, last_game=cut, win_probabilities=default_wins, **score_options
        ),
        default_test=default_scores.evaluation(),
        evaluations=trials,
        replay_seconds=replay,
        test_scores=test_scores,
        default_test_scores=default_scores,
        held_out_start=held_out_start,
    )


def _simplex(point: np.ndarray, size: float = 0.15) -> np.ndarray:
    """A starting simplex around ``point`` inside the unit box (steps towards the box's interior)."""
    vertices = [point]
    for i in range(len(point)):
        step = np.zeros_like(point)
        step[i] = size if point[i] + size <= 1.0 else -size
        vertices.append(np.clip(point + step, 0.0, 1.0))
    return np.array(vertices)
