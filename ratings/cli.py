"""The command line: ``python -m ratings``.

Commands:

- ``systems``: every registered rating system with its parameters (default, suggested
  range, meaning), read from the registry and the systems' parameter schemas;
- ``samples``: the bundled sample histories;
- ``rate HISTORY``: the final leaderboard as CSV (or, with ``--trajectory``, every
  participant's rating before and after every game);
- ``evaluate HISTORY``: how well the ratings held before each game predicted it
  (Kendall tau, pair inversion, rank deviation, and with ``--metric log-loss`` the log-loss of the finishing
  order; see :mod:`ratings.metrics`), on every game or, with ``--from DATE`` / ``--test-fraction F``, on the later
  games only, each figure then with its 95% interval;
- ``tune HISTORY``: search the system's numeric parameters on the early games for the best metric and report
  it on the later games beside the defaults, with intervals and a verdict in words (see :mod:`ratings.tune`);
- ``compare HISTORY``: tune every system within a shared budget and tabulate the held-out figures, each with its
  interval and its verdict against the defaults and against the best other system.

HISTORY is a file (.csv, .tsv, .xlsx, .ods; long or wide shape), ``-`` for CSV on
standard input, ``sample:NAME``, or a ``.json`` file or folder of contests in the Elo-MMR data sets' layout
(:mod:`ratings.io.contests`).  A file is read without the hosted caps (``--limits hosted`` sets them; standard input
has them unless ``--limits none``).  Reading and replaying show a progress bar on stderr when it is a terminal and
the step takes more than a few seconds (:mod:`ratings.progress`).  User errors (unknown system or parameter, invalid
value, unreadable file) end with exit status 2 and a one-line message on stderr; a history
with problems gets one line per problem (file, row, column, what), at most
:data:`MAX_PROBLEMS` of them and then a count of the rest.  Dates of options are read by the
readers' rule (:func:`ratings.io.dates.parse_date`) and text cells are written formula-safe
(:func:`ratings.io.writing.safe_cell`), as everywhere else in the project.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from ratings.base import ComputationError, RatingRun, RatingSystem
from ratings.history import GameHistory, HistoryError
from ratings.io.dates import parse_date
from ratings.io.files import BY_INPUT, FROM_LIMITS
from ratings.io.limits import HOSTED, READ_CPU_SECONDS
from ratings.io.writing import write_rows
from ratings.params import ParameterError, ParamSpec, coerce, parse_number
from ratings.progress import Progress
from ratings.samples import list_samples, load_history
from ratings.systems import SYSTEM_NAMES, UnknownSystemError, get_system

if TYPE_CHECKING:
    from ratings.metrics import Evaluation, Interval
    from ratings.tune import TuneResult, Verdict

__all__ = ["main", "build_parser", "load_history", "parse_settings"]

PROG = "python -m ratings"
DEFAULT_SYSTEM = "multielo"
#: Exit status of a user error (the same as argparse's usage errors).
USAGE_ERROR = 2
#: Most history warnings printed before they are summarised.
_MAX_WARNINGS = 3
#: Most problems of a history listed (one line each) before the rest are only counted.
MAX_PROBLEMS = 100
#: The commands that score ratings: their options and their code need :mod:`ratings.metrics` and
#: :mod:`ratings.tune` (scipy's optimisers and integrators, about half a second of CPU to import), which the
#: other commands do not load.
SCORING_COMMANDS = ("evaluate", "tune", "compare")
#: ``--limits``: the hosted caps, or none (a trusted local file).
_LIMITS = {"hosted": HOSTED, "none": None}


class CommandError(Exception):
    """A user error the command line reports in one line (exit status 2)."""


# ---------------------------------------------------------------------------------------------- parsing
def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``python -m ratings`` (systems listed from the registry).

    ``command``: the command about to be parsed; when it is not one of :data:`SCORING_COMMANDS`, those commands
    are declared without their options (so their modules are not imported); None declares everything.
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Rate game groups (poker nights, board-game clubs, races) with several rating systems.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "systems",
        help="list every rating system with its parameters",
        description="List every rating system with each parameter's default, suggested range and meaning.",
    )
    commands.add_parser("samples", help="list the bundled sample histories", description="List the bundled samples.")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "history",
        metavar="HISTORY",
        help="a .csv/.tsv/.xlsx/.ods file (long or wide shape), a .json file or folder of contests (Elo-MMR layout), "
        "'-' for CSV on standard input, or sample:NAME",
    )
    common.add_argument(
        "--limits",
        choices=list(_LIMITS),
        default=None,
        help="the bounds a read is held to: 'none' (the default for a file: a trusted local file of any size) or "
        f"'hosted' (the app's caps for uploads: {HOSTED.max_bytes // (1024 * 1024)} MB, {HOSTED.max_rows:,} rows, "
        f"{HOSTED.cpu_seconds:g} s of processing; the default for standard input)",
    )
    common.add_argument(
        "--read-seconds",
        type=_read_seconds,
        default=None,
        metavar="SECONDS",
        help="most processing time reading the history may take (default: the limits', "
        f"{READ_CPU_SECONDS:g} with --limits hosted, none otherwise; 0: no limit)",
    )
    common.add_argument(
        "--system",
        default=DEFAULT_SYSTEM,
        metavar="NAME",
        help=f"rating system, one of: {', '.join(SYSTEM_NAMES)} (default: {DEFAULT_SYSTEM})",
    )
    common.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a parameter (repeatable); lists are comma-separated (eta_knots=0,1,2); 'none' turns "
        "an optional parameter off (dummy=none); see the 'systems' command",
    )
    rate = commands.add_parser(
        "rate",
        parents=[common],
        help="print ratings as CSV",
        description="Print the final ratings as CSV, one row per player, highest rating first.",
    )
    rate.add_argument(
        "--trajectory",
        action="store_true",
        help="print every participant's rating before and after every game instead",
    )
    if command is None or command in SCORING_COMMANDS:
        _scoring_commands(commands, common)
    else:
        for name, text in _SCORING_HELP.items():
            commands.add_parser(name, help=text)
    return parser


#: The one-line help of each of :data:`SCORING_COMMANDS`.
_SCORING_HELP = {
    "evaluate": "measure how well the ratings predicted each game",
    "tune": "fit the system's parameters on the early games, judged on the later ones",
    "compare": "tune every system within a shared budget and tabulate the held-out figures",
}


def _scoring_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    """The ``evaluate``, ``tune`` and ``compare`` commands with their options."""
    from ratings.tune import HELD_OUT_STARTS, METRICS

    score = commands.add_parser(
        "evaluate",
        parents=[common],
        help=_SCORING_HELP["evaluate"],
        description="Kendall tau, pair inversion and rank deviation of the ratings held before each game.",
    )
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument(
        "--metric",
        choices=list(METRICS),
        default="kendall-tau",
        help="the first three are always printed; log-loss (of the finishing order) is added when named here, as "
        "it costs one prediction per game",
    )
    _scoring_options(score)
    held = score.add_mutually_exclusive_group()
    held.add_argument("--from", dest="from_date", metavar="DATE", help="score only the games after DATE (YYYY-MM-DD)")
    held.add_argument(
        "--test-fraction", type=_fraction, metavar="F", help="score only the last F of the games (0 < F < 1)"
    )

    tune = commands.add_parser(
        "tune",
        parents=[common],
        help=_SCORING_HELP["tune"],
        description="Search the numeric parameters on the games before a cut (default: the first 30%%), then "
        "report the metric on the games after it, beside the defaults.",
    )
    compare = commands.add_parser(
        "compare",
        parents=[common],
        help=_SCORING_HELP["compare"],
        description="Tune every system (a share of the budget each) and print a table of held-out metrics.",
    )
    for sub in (tune, compare):
        sub.add_argument("--metric", choices=list(METRICS), default="kendall-tau", help="what to optimise")
        sub.add_argument("--budget", type=_seconds, default=30.0, metavar="SECONDS", help="search time (default 30)")
        cut = sub.add_mutually_exclusive_group()
        cut.add_argument("--train-fraction", type=_fraction, metavar="F", help="share of games the search sees")
        cut.add_argument("--train-until", metavar="DATE", help="the search sees the games up to DATE (YYYY-MM-DD)")
        sub.add_argument("--seed", type=int, default=0, help="seed of the search and the bootstrap (default 0)")
        sub.add_argument(
            "--seasons",
            action="store_true",
            help="search the season rule too (season length and shrink; dated games only), starting from none",
        )
        sub.add_argument(
            "--dynamics",
            action="store_true",
            help="search the time-aware rules too (uncertainty or learning rate growing with idle days, a new "
            "player's faster learning; dated games), starting from off",
        )
        sub.add_argument(
            "--held-out-start",
            choices=list(HELD_OUT_STARTS),
            default="carried",
            help="score the held-out games with ratings carried through the cut (default) or started afresh there, "
            "as a rating list reset at the cut would",
        )
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        _scoring_options(sub)


def _scoring_options(sub: argparse.ArgumentParser) -> None:
    """Who pair inversion and rank deviation score, and how equal ratings count (Ebtekar and Liu's options)."""
    from ratings.metrics import DEFAULT_BURN_IN, DEFAULT_MIN_PRIOR_GAMES, EQUAL_RATINGS

    group = sub.add_argument_group("pair inversion and rank deviation (Ebtekar and Liu 2021, section 6)")
    group.add_argument(
        "--min-prior-games",
        type=_count,
        default=DEFAULT_MIN_PRIOR_GAMES,
        metavar="N",
        help=f"score only players with at least N earlier games (default {DEFAULT_MIN_PRIOR_GAMES}, the paper's)",
    )
    group.add_argument(
        "--burn-in",
        type=_share,
        default=DEFAULT_BURN_IN,
        metavar="F",
        help=f"do not score the first F of the games (default {DEFAULT_BURN_IN:g}, the authors' evaluation)",
    )
    group.add_argument(
        "--equal-ratings",
        choices=list(EQUAL_RATINGS),
        default="correct",
        help="an equal-rated pair with different places counts as a correct prediction (the authors' code, "
        "default), half, or wrong",
    )


def _scoring(args: argparse.Namespace) -> dict[str, Any]:
    return {"min_prior_games": args.min_prior_games, "burn_in": args.burn_in, "equal_ratings": args.equal_ratings}


def _number_in(low: float, high: float, what: str) -> Callable[[str], float]:
    """An argparse type: a plain decimal number with ``low < value <= high`` (``< high`` when ``high`` is 1)."""

    def parse(text: str) -> float:
        try:
            value = parse_number(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        inside = low < value < high if high == 1.0 else low < value <= high
        if not inside:
            raise argparse.ArgumentTypeError(f"{text} is not {what}")
        return value

    return parse


_fraction = _number_in(0.0, 1.0, "between 0 and 1")


def _share(text: str) -> float:
    """An argparse type: a share from 0 (included) to 1 (excluded)."""
    try:
        value = parse_number(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not at least 0 and below 1")
    return value


def _count(text: str) -> int:
    """An argparse type: a whole number, 0 or more."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, 0 or more")
    return int(text.strip())


_seconds = _number_in(0.0, 24 * 3600.0, "a number of seconds between 0 and 86400")


def _read_seconds(text: str) -> float:
    """``--read-seconds``: a number of seconds, or 0 for no limit."""
    return 0.0 if text.strip() in ("0", "0.0") else _seconds(text)


def _date(text: str | None, option: str) -> dt.date | None:
    if text is None:
        return None
    try:
        date = parse_date(text, option)
    except ValueError as exc:
        raise CommandError(f"{option} {text!r}: {exc}") from None
    if date is None:
        raise CommandError(f"{option} needs a date (YYYY-MM-DD)")
    return date


def parse_settings(system: type[RatingSystem], settings: Sequence[str]) -> dict[str, Any]:
    """Turn ``NAME=VALUE`` texts into typed parameter values for ``system`` (later ones win)."""
    specs = {spec.name: spec for spec in system.parameters()}
    values: dict[str, Any] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CommandError(f"--set expects NAME=VALUE, got '{setting}'")
        spec = specs.get(name)
        if spec is None:
            raise CommandError(
                f"--set {setting}: {system.name} has no parameter '{name}'; its parameters are {', '.join(specs)}"
            )
        try:
            values[name] = coerce(spec, text)
        except ParameterError as exc:
            raise CommandError(f"--set {setting}: {exc}") from None
    return values


def _make_system(name: str, settings: Sequence[str]) -> RatingSystem:
    cls = get_system(name)
    values = parse_settings(cls, settings)
    try:
        return cls(**values)
    except ParameterError as exc:
        where = " ".join(f"--set {s}" for s in settings if s.partition("=")[0].strip() == exc.name)
        raise CommandError(f"{exc} ({where}, system {name})" if where else f"{exc} (system {name})") from None


# ---------------------------------------------------------------------------------------------- output
def write_leaderboard(run: RatingRun, out: IO[str]) -> None:
    """One CSV row per player, highest rating first: player, rating, games, wins, average_place, extras."""
    order = sorted(range(len(run.players)), key=lambda p: (-float(run.final[p]), run.players[p]))
    extras = list(run.final_extras.items())
    games, wins, average = run.games_played, run.wins, run.average_place
    header = ["player", "rating", "games", "wins", "average_place", *(name for name, _ in extras)]
    body = (
        [run.players[p], run.final[p], games[p], wins[p], average[p], *(values[p] for _, values in extras)]
        for p in order
    )
    write_rows(out, itertools.chain([header], body), precise=True)


def write_trajectory(run: RatingRun, out: IO[str]) -> None:
    """One CSV row per participant of every game, in play order, with ratings before and after (and each entry's
    team and weight when the history names teams)."""
    h = run.history
    extras = list(run.extras.items())
    teams = h.labels_teams
    header = ["game", "date", "player", "place"] + (["team", "weight"] if teams else [])
    header += ["rating_before", "rating_after", "change"]
    for name, _ in extras:
        header += [f"{name}_before", f"{name}_after"]
    change = run.change

    def body() -> Iterator[list[Any]]:
        for g, game in enumerate(h.games):
            date = game.date.isoformat() if game.date else ""
            for i in range(int(h.offsets[g]), int(h.offsets[g + 1])):
                row = [
                    game.id,
                    date,
                    h.players[h.flat_player[i]],
                    "DNF" if h.flat_dnf[i] else int(h.flat_place[i]),
                ]
                if teams:
                    entry = game.entries[i - int(h.offsets[g])]
                    row += [entry.team or "", entry.weight]
                row += [
                    run.before[i],
                    run.after[i],
                    change[i],
                ]
                for _, (before, after) in extras:
                    row += [before[i], after[i]]
                yield row

    write_rows(out, itertools.chain([header], body()), precise=True)


def _format_default(spec: ParamSpec) -> str:
    value = spec.default
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ",".join(f"{v:g}" for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _format_range(spec: ParamSpec) -> str:
    """The valid values (the declaration's interval) and, where there is one, the suggested range."""
    if spec.choices:
        return "one of " + ", ".join(spec.choices)
    if spec.kind == "bool":
        return "true or false"
    valid = f"valid {spec.valid.notation()}"
    if spec.kind == "float-list":
        return f"comma-separated list, each {valid}"
    if spec.low is not None and spec.high is not None:
        return f"{valid}, suggested {spec.low:g} to {spec.high:g}"
    return valid


def write_systems(out: IO[str]) -> None:
    """Every registered system and its parameters, as readable text."""
    for index, name in enumerate(SYSTEM_NAMES):
        cls = get_system(name)
        if index:
            out.write("\n")
        out.write(f"{name}: {cls.title}. {cls.summary}\n")
        rows = [
            (spec.name, spec.kind, f"default {_format_default(spec)}", _format_range(spec), spec.help)
            for spec in cls.parameters()
        ]
        widths = [max(len(row[c]) for row in rows) for c in range(4)]
        for row in rows:
            cells = [row[c].ljust(widths[c]) for c in range(4)]
            out.write(f"  {'  '.join(cells)}  {row[4]}\n")
        for rule in getattr(cls.Params, "RULES", ()):
            out.write(f"  rule on {', '.join(rule.names)}: {rule.says}\n")


def write_samples(out: IO[str]) -> None:
    """The bundled samples with their one-line descriptions."""
    samples = list(list_samples())
    width = max((len(s.name) for s in samples), default=0)
    for sample in samples:
        out.write(f"sample:{sample.name.ljust(width)}  {sample.description}\n")


def write_evaluation(
    evaluation: Evaluation, run: RatingRun, spec: str, out: IO[str], intervals: dict[str, Interval] | None = None
) -> None:
    """The metrics, readable, with what they were computed on (and each one's 95% interval, where given)."""

    def show(key: str, percent: bool) -> str:
        value = getattr(evaluation, key)
        if math.isnan(value):
            return "n/a"
        interval = (intervals or {}).get(key)
        text = f"{100 * value:.2f}%" if percent else f"{value:.4f}"
        if interval is not None and not math.isnan(interval.margin):
            text += f" ± {100 * interval.margin:.2f}%" if percent else f" ± {interval.margin:.4f}"
        return text

    out.write(f"history         {spec} ({run.history.n_games} games, {run.history.n_players} players)\n")
    out.write(f"system          {run.system}\n")
    out.write(
        f"Kendall tau     {show('kendall_tau', False)}  share of pairs the higher-rated player lost (lower is better)\n"
    )
    out.write(
        f"pair inversion  {show('pair_inversion', True)}  "
        "matchups where the higher-rated player won or tied (higher is better)\n"
    )
    out.write(
        f"rank deviation  {show('rank_deviation', True)}  "
        "distance between actual and rating-predicted rank, per opponent (lower is better)\n"
    )
    if not math.isnan(evaluation.log_loss):
        out.write(
            f"log-loss        {show('log_loss', False)}  "
            "minus the log-probability of the finishing order, nats per game (lower is better)\n"
        )
    out.write(f"counted         {evaluation.pairs} pairs in {evaluation.games} games with an outcome (Kendall tau); ")
    out.write(f"{evaluation.scored_entries} entries in {evaluation.scored_games} games (the other two)\n")


# ---------------------------------------------------------------------------------------------- running
def history_problem_lines(exc: HistoryError, most: int = MAX_PROBLEMS) -> list[str]:
    """Every problem of a history, one line each (file, row, column: what), the first ``most`` of them and then
    ``and N more problems``."""
    if not exc.problems:
        return [str(exc).splitlines()[0]]
    lines = [str(p) for p in exc.problems[:most]]
    more = len(exc.problems) - len(lines)
    if more:
        lines.append(f"and {more:,} more problem{'s' if more != 1 else ''}")
    return lines


def _warn(history: GameHistory, err: IO[str]) -> None:
    warnings = history.warnings
    for text in warnings[:_MAX_WARNINGS]:
        err.write(f"ratings: warning: {text}\n")
    if len(warnings) > _MAX_WARNINGS:
        err.write(f"ratings: warning: (and {len(warnings) - _MAX_WARNINGS} more warnings)\n")


def _run(args: argparse.Namespace, out: IO[str], err: IO[str]) -> None:
    if args.command == "systems":
        write_systems(out)
        return
    if args.command == "samples":
        write_samples(out)
        return
    system = _make_system(args.system, args.settings)
    limits = BY_INPUT if args.limits is None else _LIMITS[args.limits]
    seconds = FROM_LIMITS if args.read_seconds is None else (args.read_seconds or None)  # 0: no limit
    with Progress(err, f"reading {args.history}") as bar:
        history = load_history(args.history, cpu_seconds=seconds, limits=limits, progress=bar.update)
    _warn(history, err)
    if args.limits == "none" or (args.limits is None and args.history != "-"):
        # a trusted local file: no bound on one game's work either (a Thurstonian crowd beyond 6,000 players)
        _lift_game_bounds(system)
    if args.command in ("tune", "compare"):
        _tune(args, system, history, out)
        return
    with Progress(err, f"rating with {system.name}") as bar:
        run = system.rate(history, progress=bar.update)
    if args.command == "rate":
        (write_trajectory if args.trajectory else write_leaderboard)(run, out)
    else:
        _evaluate(args, run, history, out)


def _lift_game_bounds(system: RatingSystem) -> None:
    """Take off the bounds a hosted app keeps on one game's work (the systems that have one)."""
    from ratings.systems.thurstonian import Thurstonian

    if isinstance(system, Thurstonian):
        system.crowd_cells = None


def _evaluate(args: argparse.Namespace, run: RatingRun, history: GameHistory, out: IO[str]) -> None:
    """``evaluate``: the metrics of ``run`` on every game, or on the held-out part with intervals."""
    from ratings.metrics import PairedBootstrap, game_scores
    from ratings.predict import win_probabilities
    from ratings.tune import PREDICTIVE, cut_index

    first = 0
    if args.from_date is not None or args.test_fraction is not None:
        first = cut_index(
            history, fraction=args.test_fraction and 1 - args.test_fraction, until=_date(args.from_date, "--from")
        )
    wins = win_probabilities(run, first_game=first) if args.metric == PREDICTIVE else None
    scores = game_scores(history, run.before, first_game=first, win_probabilities=wins, **_scoring(args))
    evaluation = scores.evaluation()
    # a held-out part: each figure with its 95% interval (bootstrap over the scored games)
    boot = PairedBootstrap({"run": scores}) if first else None
    intervals = {m: boot.interval("run", m) for m in scores.numerators} if boot else {}
    if args.json:
        extra: dict[str, Any] = {}
        if boot is not None:  # the games scored start there (a held-out part)
            extra = {
                "first_game": first,
                "intervals": {m: i.as_dict() for m, i in intervals.items()},
                "bootstrap": {
                    "games": scores.n_games,
                    "samples": boot.samples,
                    "seed": boot.seed,
                    "level": boot.level,
                },
            }
        out.write(json.dumps({**evaluation.as_dict(), **extra}) + "\n")
    else:
        write_evaluation(evaluation, run, args.history, out, intervals)
        if first:
            out.write(f"scored          games {first + 1} to {history.n_games} (the earlier ones only rate)\n")
            out.write(
                f"intervals       95%, bootstrap over the {scores.n_games} scored games "
                f"({boot.samples if boot else 0} resamples, seed {boot.seed if boot else 0})\n"
            )


def _tune(args: argparse.Namespace, system: RatingSystem, history: GameHistory, out: IO[str]) -> None:
    """``tune`` (the chosen system, its --set values kept fixed) and ``compare`` (every system)."""
    from ratings.tune import held_out_verdicts, tune

    until = _date(args.train_until, "--train-until")
    if args.command == "tune":
        fixed = {
            k: v for k, v in system.get_params().items() if k in {s.partition("=")[0].strip() for s in args.settings}
        }
        result = tune(
            history,
            system.name,
            metric=args.metric,
            budget_seconds=args.budget,
            train_fraction=args.train_fraction,
            train_until=until,
            seed=args.seed,
            fixed=fixed,
            scoring=_scoring(args),
            seasons=args.seasons,
            dynamics=args.dynamics,
            held_out_start=args.held_out_start,
        )
        verdict = held_out_verdicts([result], seed=args.seed)[0]
        if args.json:
            out.write(json.dumps({**result.as_dict(), "held_out": verdict.as_dict()}, default=_plain) + "\n")
        else:
            write_tuning(result, verdict, out)
        return
    share = args.budget / len(SYSTEM_NAMES)
    results = [
        tune(
            history,
            name,
            metric=args.metric,
            budget_seconds=share,
            train_fraction=args.train_fraction,
            train_until=until,
            seed=args.seed,
            scoring=_scoring(args),
            seasons=args.seasons,
            dynamics=args.dynamics,
            held_out_start=args.held_out_start,
        )
        for name in SYSTEM_NAMES
    ]
    verdicts = held_out_verdicts(results, seed=args.seed)
    if args.json:
        rows = [{**r.as_dict(), "held_out": v.as_dict()} for r, v in zip(results, verdicts, strict=True)]
        out.write(json.dumps(rows, default=_plain) + "\n")
    else:
        write_comparison(results, verdicts, out)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return str(value)


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items()) or "defaults"


#: Names of the metrics in text output, in the order shown.
_METRIC_NAMES = {
    "kendall_tau": "kendall tau",
    "pair_inversion": "pair inversion",
    "rank_deviation": "rank deviation",
    "log_loss": "log-loss",
}


def write_tuning(result: TuneResult, verdict: Verdict, out: IO[str]) -> None:
    """The tuned parameters and the metric on the training and the held-out games, beside the defaults; then every
    metric's held-out figures with their 95% intervals and whether the tuned settings beat the defaults."""
    from ratings.tune import METRICS

    name, _ = METRICS[result.metric]
    out.write(f"system          {result.system}, metric {result.metric} ({len(result.evaluations)} evaluations)\n")
    fresh = "; their ratings started afresh at the cut" if result.held_out_start == "fresh" else ""
    out.write(f"training games  1 to {result.cut}; held-out games {result.cut + 1} on{fresh}\n")
    out.write(f"tuned           {_params_text(result.params)}\n")
    out.write(f"{'':16}{'training':>10}{'held out':>10}{'± (95%)':>10}\n")
    for label, train, interval in (
        ("tuned", result.train, verdict.tuned[name]),
        ("defaults", result.default_train, verdict.defaults[name]),
    ):
        out.write(f"{label:16}{getattr(train, name):>10.4f}{interval.value:>10.4f}{interval.margin:>10.4f}\n")
    out.write(
        f"held out, every metric, 95% intervals from a paired bootstrap over the {verdict.games} held-out games "
        f"({verdict.samples} resamples, seed {verdict.seed}):\n"
    )
    for key, comparison in verdict.versus_defaults.items():
        tuned, defaults = verdict.tuned[key], verdict.defaults[key]
        out.write(
            f"{_METRIC_NAMES.get(key, key):16}tuned {_interval_text(tuned)}, defaults {_interval_text(defaults)}; "
            f"{comparison.words()}\n"
        )


def _interval_text(interval: Interval) -> str:
    if math.isnan(interval.value):
        return "n/a"
    return f"{interval.value:.4f} ± {interval.margin:.4f}"


def write_comparison(results: list[TuneResult], verdicts: list[Verdict], out: IO[str]) -> None:
    """One row per system: tuned parameters; for every metric the held-out figure, the half-width of its 95%
    interval, whether it beats the system's defaults and whether it beats the best other system; replay time."""
    keys = list(verdicts[0].tuned) if verdicts else []
    header = ["system", "tuned parameters"]
    for key in keys:
        words = _METRIC_NAMES.get(key, key)
        header += [words, f"{words} ± (95%)", f"{words} vs defaults", f"{words} vs best"]
    header.append("replay s")

    def row(result: TuneResult, verdict: Verdict) -> list[Any]:
        cells: list[Any] = [result.system, _params_text(result.params)]
        for key in keys:
            interval = verdict.tuned[key]
            best = verdict.versus_best.get(key)
            cells += [
                None if math.isnan(interval.value) else round(interval.value, 4),
                None if math.isnan(interval.margin) else round(interval.margin, 4),
                verdict.versus_defaults[key].words(),
                "" if best is None else best.words(),
            ]
        return [*cells, round(result.replay_seconds, 3)]

    body = (row(r, v) for r, v in zip(results, verdicts, strict=True))
    write_rows(out, itertools.chain([header], body), precise=True)


def main(argv: Sequence[str] | None = None, *, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return exc.code if isinstance(exc.code, int) else USAGE_ERROR
    try:
        _run(args, out, err)
    except HistoryError as exc:
        for line in history_problem_lines(exc):
            err.write(f"ratings: error: {line}\n")
        return USAGE_ERROR
    except (CommandError, ComputationError, ParameterError, UnknownSystemError) as exc:
        message = str(exc)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{exc.strerror or exc}"
    else:
        return 0
    # one line whatever the input held: control characters (a newline in a system name, say) written as escapes
    err.write(f"ratings: error: {_one_line(message)}\n")
    return USAGE_ERROR


def _one_line(text: str) -> str:
    """``text`` with every non-printable character written as its Python escape (``\\n``, ``\\x85``)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
