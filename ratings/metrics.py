"""How well ratings predicted the games that followed them.

Every metric here reads the ratings held BEFORE each game (``RatingRun.before``), so a
game is judged only by what was known before it was played.  Sources: Kerby 2025 (Brent Kerby,
"Multiplayer generalizations of Elo rating system", expository note, 2025) and Ebtekar and Liu 2021
("An Elo-like System for Massive Multiplayer Competitions", WWW 2021, arXiv:2101.00400), with the
authors' evaluation code (the ``multi-skill`` crate of github.com/EbTech/Elo-MMR: ``src/metrics.rs``,
``get_participant_ratings`` in ``src/systems/common/mod.rs``, ``src/bin/eval.rs``); section numbers
are the paper's.  Three metrics:

- **Kendall tau** (Kerby 2025, section 5): over every pair of participants of a game with
  different places, 1 if the player rated higher before the game placed lower, 0.5 if
  their ratings were equal, else 0; the total over all games divided by the number of
  such pairs.  A DNF ranks below every finisher; two DNFs are not a pair (their order is
  unobserved) and neither are two players sharing a place.  Every participant of every
  game counts.  Lower is better.
- **Pair inversion** (Ebtekar and Liu 2021, section 6.3): for each participant, the fraction of
  opponents for whom the ratings predicted the result correctly, "defined as the
  higher-rated player either winning or tying"; averaged over every scored participant of every
  game (each game weighted by its number of scored participants).  Higher is better.
- **Rank deviation** (Ebtekar and Liu 2021, section 6.3): for each participant,
  ``|actual rank - predicted rank| / (|P_t| - 1)``, where the predicted rank comes from
  sorting the game's participants by prior rating and, for a tie, "among the ranks
  within the tied range, we use the one that comes closest to the rating-based
  prediction"; averaged like pair inversion.  Lower is better.

Ebtekar and Liu (2021) report the last two in percent; here all three are fractions in [0, 1].

A fourth, when asked for (it needs the rating system's predictions, one per game):

- **Log-loss of the finishing order**: per game with an outcome, minus the natural log of the Plackett-Luce
  probability of the observed result under the system's win probabilities before the game, tied players and
  DNFs as censored groups (:func:`ratings.predict.partition_log_likelihood`); averaged over games (nats per game).
  Unlike the three above it rewards confidence when right and punishes it when wrong.  Lower is better.

Who is scored by the last two, as the paper and its code do (each a keyword argument, the
paper's choice the default):

- ``min_prior_games`` (default 5): a participant is scored only if they had played at least
  this many games before this one.  The paper: "we excluded players who had competed in less
  than 5 total contests"; the authors' code keeps a player whose history before the contest
  holds at least 5 contests (``get_participant_ratings(.., 5)``, the "experienced" figures of
  Table 2).  ``|P_t|`` and the ranks are then those of the scored participants alone (their
  places renumbered among themselves, ties kept), as the authors' code renumbers them.
  0 scores everyone, first games included (the authors' "everyone" figures, ``min_history`` 0, in fact leave
  out first contests too: a player appears in their table only after a first contest).
- ``burn_in`` (default 0.1): the first ``floor(burn_in * games)`` games of the history are not
  scored (the authors' ``eval.rs`` postpones scoring by a tenth of the contests,
  ``dataset.len() / 10``).  A held-out part that starts later is not affected.
- ``equal_ratings`` (default ``"correct"``): how a pair with equal prior ratings and different
  places counts.  ``"correct"`` is the authors' code: pair inversion counts an inversion only
  where the better-placed player was rated strictly lower (its merge sort keeps equal ratings
  in place), and rank deviation sorts by rating with a stable sort over the standings, so
  equal-rated players are predicted in the order they finished.  ``"half"`` takes the
  expectation over a uniformly random order of equal-rated players (0.5 per pair; a player's
  predicted rank uniform over its equal-rated group's positions).  ``"wrong"`` orders them
  against the result (as another version of the authors' pair inversion does, counting pair by
  pair and requiring the winner to be rated strictly higher).

Adaptations, where Ebtekar and Liu (2021) leave a case open:

- DNF.  The history model stores the DNFs of a game as one tie for the places after the
  last finisher, and that is how the two Ebtekar-Liu metrics see them: two DNFs form a
  tied pair (counted correct in pair inversion, by the paper's tie rule), and a DNF's
  actual rank is the DNF range, of which the one closest to the prediction is used.
- Games without an outcome among the scored participants (fewer than two, or all tied) carry
  no prediction and are left out (the authors' ``outcome_free``); for Kendall tau, games
  without an outcome among all participants are left out.

The work is vectorised: games of equal size are stacked into one array and compared
pairwise at once, so 20,000 games take a fraction of a second.

How sure is a figure?  :class:`PairedBootstrap` resamples the scored games with replacement (seeded,
``numpy.random.default_rng``), the same resamples for every row compared, so a difference between two
rating runs on the same games is judged pair by pair (Efron and Tibshirani, "An Introduction to the
Bootstrap", 1993: the nonparametric bootstrap and its standard-error interval, value +/- z * se).
Each figure gets a 95% interval, and a comparison says whether one run beats another beyond it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ratings.base import RatingRun
from ratings.history import GameHistory
from ratings.params import ParameterError
from ratings.predict import partition_log_likelihood, win_probabilities

__all__ = [
    "BOOTSTRAP_SAMPLES",
    "DEFAULT_BURN_IN",
    "DEFAULT_MIN_PRIOR_GAMES",
    "EQUAL_RATINGS",
    "LOWER_IS_BETTER",
    "Comparison",
    "Evaluation",
    "GameScores",
    "Interval",
    "PairedBootstrap",
    "evaluate",
    "evaluate_ratings",
    "game_scores",
    "prior_games",
]

#: Most pairwise comparisons held in memory at once (games x size x size).
_CHUNK_CELLS = 2_000_000
#: Ebtekar and Liu (2021), section 6.4: players with fewer than 5 earlier contests are not scored.
DEFAULT_MIN_PRIOR_GAMES = 5
#: The authors' eval.rs: the first tenth of the contests is not scored.
DEFAULT_BURN_IN = 0.1
#: How an equal-rated pair with different places counts (see the module), and the credit it earns in
#: pair inversion; the authors' code first.
EQUAL_RATINGS: dict[str, float] = {"correct": 1.0, "half": 0.5, "wrong": 0.0}
#: Which way each metric improves (the one declaration the search, the verdicts and the tables read).
LOWER_IS_BETTER: dict[str, bool] = {
    "kendall_tau": True,
    "pair_inversion": False,
    "rank_deviation": True,
    "log_loss": True,
}
#: Resamples of the paired bootstrap, its seed and its confidence level.
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 0
LEVEL = 0.95


@dataclass(frozen=True)
class Evaluation:
    """The accuracy metrics of one rating run, with the counts behind them.

    ``pairs`` is the number of pairs Kendall tau counted (different places, not two
    DNFs); ``games`` the number of games with an outcome (at least two different
    places), the games Kendall tau used.  ``scored_games`` and ``scored_entries`` are the
    games and participants pair inversion and rank deviation used (after the burn-in, players
    with enough earlier games, an outcome among them).  ``log_loss`` is NaN unless computed
    (it needs the rating system's predictions, not only ratings).  A metric with nothing to
    count is NaN.
    """

    kendall_tau: float
    pair_inversion: float
    rank_deviation: float
    pairs: int
    games: int
    scored_games: int = 0
    scored_entries: int = 0
    log_loss: float = math.nan

    def as_dict(self) -> dict[str, float | int | None]:
        """The fields as a plain dict, NaN written as ``None`` (valid JSON)."""
        out: dict[str, float | int | None] = {}
        for key, value in asdict(self).items():
            out[key] = None if isinstance(value, float) and math.isnan(value) else value
        return out


@dataclass(frozen=True)
class GameScores:
    """Each metric as a numerator and a denominator per game, over games ``first_game`` to ``first_game + n - 1``.

    A metric over any set of these games is ``numerator.sum() / denominator.sum()`` (the same
    aggregate as the paper's), which is what the paired bootstrap resamples.  Kendall tau:
    discordant pairs over pairs; pair inversion and rank deviation: per-participant sums over
    scored participants; log-loss (when computed): negative log-likelihood over 1 per game with
    an outcome.  Games a metric does not use have denominator 0.
    """

    first_game: int
    numerators: dict[str, np.ndarray]
    denominators: dict[str, np.ndarray]

    @property
    def n_games(self) -> int:
        return len(self.numerators["kendall_tau"])

    def value(self, metric: str, games: np.ndarray | None = None) -> float:
        """The metric over all games, or over ``games`` (indices into this range, repeats allowed)."""
        num, den = self.numerators[metric], self.denominators[metric]
        if games is not None:
            num, den = num[games], den[games]
        total = float(den.sum())
        return float(num.sum()) / total if total else math.nan

    def evaluation(self) -> Evaluation:
        """The aggregate metrics with their counts."""
        d = self.denominators
        return Evaluation(
            kendall_tau=self.value("kendall_tau"),
            pair_inversion=self.value("pair_inversion"),
            rank_deviation=self.value("rank_deviation"),
            pairs=int(d["kendall_tau"].sum()),
            games=int((d["kendall_tau"] > 0).sum()),
            scored_games=int((d["pair_inversion"] > 0).sum()),
            scored_entries=int(d["pair_inversion"].sum()),
            log_loss=self.value("log_loss") if "log_loss" in self.numerators else math.nan,
        )


def evaluate(run: RatingRun, *, log_loss: bool = False, **options: Any) -> Evaluation:
    """The metrics of ``run``'s ratings before each game (``options`` as for :func:`game_scores`); with
    ``log_loss``, the log-loss of the finishing order too (from the run's system's predictions)."""
    if log_loss:
        first, last = options.get("first_game", 0), options.get("last_game")
        options["win_probabilities"] = win_probabilities(run, first_game=first, last_game=last)
    return evaluate_ratings(run.history, run.before, **options)


def evaluate_ratings(history: GameHistory, before: np.ndarray, **options: Any) -> Evaluation:
    """The metrics of ratings ``before`` (flat layout, one per entry, held before each game), over the games
    ``first_game`` (included) to ``last_game`` (excluded; default: to the end) -- a held-out part, say.

    The options are :func:`game_scores`'s: the range, who pair inversion and rank deviation score and how equal
    ratings count (the defaults are Ebtekar and Liu's), and ``win_probabilities`` for the log-loss."""
    return game_scores(history, before, **options).evaluation()


def prior_games(history: GameHistory) -> np.ndarray:
    """For every entry (flat layout), how many games its player had played before this one."""
    players = history.flat_player
    order = np.argsort(players, kind="stable")  # entries are in game order, so each player's stay in order
    sorted_players = players[order]
    group_start = np.flatnonzero(np.r_[True, sorted_players[1:] != sorted_players[:-1]])
    counts = np.diff(np.r_[group_start, len(players)])
    out = np.empty(len(players), dtype=np.int64)
    out[order] = np.arange(len(players)) - np.repeat(group_start, counts)
    return out


def _check_options(min_prior_games: object, burn_in: object, equal_ratings: object) -> None:
    if isinstance(min_prior_games, bool) or not isinstance(min_prior_games, (int, np.integer)) or min_prior_games < 0:
        raise ParameterError("min_prior_games", f"must be a whole number of games, 0 or more, got {min_prior_games!r}")
    if isinstance(burn_in, bool) or not isinstance(burn_in, (int, float)) or not 0.0 <= burn_in < 1.0:
        raise ParameterError("burn_in", f"must be a share of the games, at least 0 and below 1, got {burn_in!r}")
    if equal_ratings not in EQUAL_RATINGS:
        raise ParameterError("equal_ratings", f"{equal_ratings!r} is not one of {', '.join(EQUAL_RATINGS)}")


def game_scores(
    history: GameHistory,
    before: np.ndarray,
    *,
    first_game: int = 0,
    last_game: int | None = None,
    min_prior_games: int = DEFAULT_MIN_PRIOR_GAMES,
    burn_in: float = DEFAULT_BURN_IN,
    equal_ratings: str = "correct",
    win_probabilities: np.ndarray | None = None,
) -> GameScores:
    """Every metric's numerator and denominator per game (see :class:`GameScores`) over the games ``first_game``
    (included) to ``last_game`` (excluded; default: to the end).

    ``min_prior_games``, ``burn_in`` and ``equal_ratings`` choose who pair inversion and rank deviation score and
    how equal ratings count (see the module; the defaults are Ebtekar and Liu's).  With ``win_probabilities`` (one
    per entry, as :func:`ratings.predict.win_probabilities` gives them), the log-loss of the finishing order too.
    """
    _check_options(min_prior_games, burn_in, equal_ratings)
    before = np.asarray(before, dtype=float)
    n_entries = int(history.offsets[-1]) if len(history.offsets) else 0
    if before.shape != (n_entries,):
        raise ValueError(f"expected {n_entries} ratings (one per entry of the history), got shape {before.shape}")
    stop = history.n_games if last_game is None else last_game
    first = min(max(first_game, 0), stop)
    sizes = np.diff(history.offsets)[first:stop]
    starts = history.offsets[:-1][first:stop]
    n_range = len(sizes)
    # Scored by the Ebtekar-Liu metrics: enough earlier games, and past the burn-in.
    keep_entry = prior_games(history) >= min_prior_games
    burned = math.floor(history.n_games * burn_in)
    game_index = np.arange(first, stop)

    names = ("kendall_tau", "pair_inversion", "rank_deviation")
    num = {k: np.zeros(n_range) for k in names}
    den = {k: np.zeros(n_range) for k in names}
    credit = EQUAL_RATINGS[equal_ratings]
    for n in np.unique(sizes):
        n = int(n)
        if n < 2:
            continue
        where = np.flatnonzero(sizes == n)
        per_chunk = max(1, _CHUNK_CELLS // (n * n))
        for c in range(0, len(where), per_chunk):
            rows = where[c : c + per_chunk]
            index = starts[rows, None] + np.arange(n)[None, :]
            keep = keep_entry[index] & (game_index[rows] >= burned)[:, None]
            part = _size_batch(history.flat_rank[index].astype(np.int64), before[index], keep, credit, equal_ratings)
            for k, (a, b) in zip(names, part, strict=True):
                num[k][rows] = a
                den[k][rows] = b
    if win_probabilities is not None:
        num["log_loss"], den["log_loss"] = _log_loss(history, np.asarray(win_probabilities, dtype=float), first, stop)
    return GameScores(first_game=first, numerators=num, denominators=den)


def _log_loss(history: GameHistory, wins: np.ndarray, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Per game from ``first`` to ``stop``: minus the log-likelihood of its result, and 1 (0 without an outcome)."""
    if wins.shape != history.flat_rank.shape:
        raise ValueError(f"expected {len(history.flat_rank)} win probabilities, got shape {wins.shape}")
    num, den = np.zeros(stop - first), np.zeros(stop - first)
    for g in range(first, stop):
        s = history.game_slice(g)
        ranks = history.flat_rank[s]
        if len(ranks) < 2 or ranks.min() == ranks.max():
            continue
        p = wins[s]
        if not np.all(np.isfinite(p) & (p > 0)):
            raise ValueError(f"game {history.games[g].id!r}: win probabilities must be positive numbers, got {p}")
        num[g - first] = -partition_log_likelihood(np.log(p), ranks)
        den[g - first] = 1.0
    return num, den


def _size_batch(
    ranks: np.ndarray, ratings: np.ndarray, keep: np.ndarray, credit: float, equal_ratings: str
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per-game (numerator, denominator) of each metric over a batch of games of one size ``n``.

    ``ranks``, ``ratings`` and ``keep`` have shape (games, n); ``ranks`` are dense (0 = best, all DNFs share
    the rank after the finishers); ``keep`` marks the participants the Ebtekar-Liu metrics score.
    """
    # [g, i, j] compares entry i with entry j of game g.
    ahead = ranks[:, :, None] < ranks[:, None, :]  # i placed better than j
    tied = ranks[:, :, None] == ranks[:, None, :]  # includes i == j
    higher = ratings[:, :, None] > ratings[:, None, :]  # i rated higher than j
    level = ratings[:, :, None] == ratings[:, None, :]  # equal ratings (includes i == j)
    behind = ahead.transpose(0, 2, 1)  # i placed worse than j
    lower = higher.transpose(0, 2, 1)  # i rated lower than j

    # Kendall tau (Kerby 2025, section 5), every participant.  Each pair with different places appears once
    # as (better, worse).  DNFs share one rank, so two DNFs are tied and never counted.
    outcome = ranks.max(axis=1) > ranks.min(axis=1)
    pairs = ahead.sum(axis=(1, 2)) * outcome
    discordant = ((ahead & lower).sum(axis=(1, 2)) + 0.5 * (ahead & level).sum(axis=(1, 2))) * outcome

    # The scored participants of each game, compared among themselves (Ebtekar and Liu 2021, section 6.3).
    both = keep[:, :, None] & keep[:, None, :]  # includes i == j for a scored i
    m = keep.sum(axis=1)
    best = np.where(keep, ranks, np.iinfo(np.int64).max).min(axis=1)
    worst = np.where(keep, ranks, -1).max(axis=1)
    scored = (m >= 2) & (worst > best)
    denominator = np.where(scored, m - 1, 1).astype(float)
    weight = np.where(scored, m, 0).astype(float)

    # Pair inversion, per scored entry i: correct matchups over |P_t| - 1.  Correct: tied places (the
    # higher-rated "tying"), or the higher-rated won; an equal-rated pair with different places earns
    # ``credit`` (1 in the authors' code).
    untied = both & ~tied
    correct = ((tied & both).sum(axis=2) - 1).astype(float)  # tied opponents, minus i itself
    correct += (untied & ((ahead & higher) | (behind & lower))).sum(axis=2)
    correct += credit * (untied & level).sum(axis=2)
    inversion = np.where(keep, correct, 0.0).sum(axis=1) / denominator * scored

    # Rank deviation.  Actual rank: the 0-based positions the entry's tie group spans among the scored,
    # [lo, hi]; the rank "closest to the prediction" within it is the prediction clamped to [lo, hi], so the
    # deviation is the distance from the prediction to that range.  Predicted rank: the positions [a, b]
    # the entry can take after sorting by rating (highest first) with equal ratings ordered by the rule
    # (by place for "correct", against it for "wrong", at random for "half"), averaged over [a, b].
    lo = (behind & both).sum(axis=2)
    hi = lo + (tied & both).sum(axis=2) - 1
    a = (lower & both).sum(axis=2)
    same = level & both
    if equal_ratings == "half":
        b = a + same.sum(axis=2) - 1
    else:
        first_among_equals = behind if equal_ratings == "correct" else ahead
        a = a + (same & first_among_equals).sum(axis=2)
        b = a + (same & tied).sum(axis=2) - 1  # equal rating and equal place: any order, same distance sum
    per_entry = _distance_sum(a, b, lo, hi) / np.maximum(b - a + 1, 1)  # (an unscored entry's range is empty)
    deviation = np.where(keep, per_entry, 0.0).sum(axis=1) / denominator * scored

    return (discordant, pairs), (inversion, weight), (deviation, weight)


def _distance_sum(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Sum over integer ``p`` in ``[a, b]`` of the distance from ``p`` to the range ``[lo, hi]``.

    Two arithmetic series: ``lo - p`` for ``p`` below ``lo`` and ``p - hi`` above ``hi``.
    """
    below_end = np.minimum(b, lo - 1)
    k_below = np.maximum(below_end - a + 1, 0)
    below = k_below * lo - k_below * (a + below_end) / 2.0
    above_start = np.maximum(a, hi + 1)
    k_above = np.maximum(b - above_start + 1, 0)
    above = k_above * (above_start + b) / 2.0 - k_above * hi
    return below + above


# ---------------------------------------------------------------------------------------------- uncertainty
@dataclass(frozen=True)
class Interval:
    """A figure and the half-width of its interval: ``value - margin`` to ``value + margin``."""

    value: float
    margin: float

    def as_dict(self) -> dict[str, float | None]:
        return {"value": _plain(self.value), "margin": _plain(self.margin)}


@dataclass(frozen=True)
class Comparison:
    """How much better one run did than another on the same games, with the interval of that difference.

    ``improvement`` is in the metric's own units, positive when this run is better (lower Kendall tau, say);
    ``margin`` the half-width of its interval.  ``verdict``: ``better`` or ``worse`` when the whole interval is on
    one side of zero, else ``within noise``.
    """

    metric: str
    against: str
    improvement: float
    margin: float

    @property
    def verdict(self) -> str:
        if math.isnan(self.improvement) or math.isnan(self.margin):
            return "no figure"
        if self.improvement - self.margin > 0:
            return "better"
        if self.improvement + self.margin < 0:
            return "worse"
        return "within noise"

    def words(self) -> str:
        """``better than the defaults: yes, by 0.006 ± 0.002`` (or ``no, worse by ...``, ``not beyond noise``)."""
        head = f"better than {self.against}:"
        verdict = self.verdict
        if verdict == "no figure":
            return f"{head} no figure to compare"
        digits = _digits(self.margin)
        margin = f"{self.margin:.{digits}f}"
        if verdict == "better":
            return f"{head} yes, by {self.improvement:.{digits}f} ± {margin}"
        if verdict == "worse":
            return f"{head} no, worse by {-self.improvement:.{digits}f} ± {margin}"
        shown = f"{self.improvement:+.{digits}f}"
        if float(shown) == 0.0:
            shown = f"{0.0:.{digits}f}"  # a difference that rounds to nothing has no sign ("-0.0000" read as a loss)
        return f"{head} not beyond noise ({shown} ± {margin})"

    def as_dict(self) -> dict[str, object]:
        return {
            "against": self.against,
            "improvement": _plain(self.improvement),
            "margin": _plain(self.margin),
            "low": _plain(self.improvement - self.margin),
            "high": _plain(self.improvement + self.margin),
            "verdict": self.verdict,
            "words": self.words(),
        }


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _digits(margin: float) -> int:
    """Decimals that show two significant digits of ``margin`` (at least 3)."""
    if not margin > 0 or math.isinf(margin):
        return 3
    return max(3, 1 - math.floor(math.log10(margin)))


class PairedBootstrap:
    """Bootstrap resamples of one set of games, shared by every rating run scored on them.

    ``rows`` maps a label (a system, ``defaults``) to its :class:`GameScores` over the same games.  Each resample
    draws the games with replacement (``numpy.random.default_rng(seed)``); every row's metric is recomputed on it
    as the ratio of its resampled sums, so the difference between two rows is paired game by game.  Intervals are
    the standard bootstrap interval, the figure plus or minus ``z`` standard errors (z = 1.96 at 95%).
    """

    def __init__(
        self,
        rows: Mapping[str, GameScores],
        *,
        samples: int = BOOTSTRAP_SAMPLES,
        seed: int = BOOTSTRAP_SEED,
        level: float = LEVEL,
    ) -> None:
        if not rows:
            raise ValueError("nothing to resample: no rows")
        if not 0.0 < level < 1.0 or samples < 2:
            raise ValueError(f"need 0 < level < 1 and at least 2 samples, got level {level}, samples {samples}")
        first = next(iter(rows.values()))
        for label, scores in rows.items():
            if (scores.first_game, scores.n_games) != (first.first_game, first.n_games):
                raise ValueError(f"row {label!r} was scored on other games than the first row; a pair needs the same")
        self.rows = dict(rows)
        self.samples, self.seed, self.level = samples, seed, level
        self.z = NormalDist().inv_cdf(0.5 + level / 2)
        n = first.n_games
        metrics = [m for m in first.numerators if all(m in r.numerators for r in rows.values())]
        self._stats = {(label, m): np.empty(samples) for label in rows for m in metrics}
        rng = np.random.default_rng(seed)
        chunk = max(1, 2_000_000 // max(n, 1))
        for start in range(0, samples, chunk):
            size = min(chunk, samples - start)
            counts = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float) if n else np.zeros((size, 0))
            for label, scores in rows.items():
                for m in metrics:
                    num = counts @ scores.numerators[m]
                    den = counts @ scores.denominators[m]
                    with np.errstate(invalid="ignore", divide="ignore"):
                        self._stats[(label, m)][start : start + size] = np.where(den > 0, num / den, np.nan)

    def interval(self, row: str, metric: str) -> Interval:
        """The row's figure on all the games, with the half-width of its interval."""
        return Interval(self.rows[row].value(metric), self.z * _spread(self._stats[(row, metric)]))

    def compare(self, row: str, against: str, metric: str, *, label: str | None = None) -> Comparison:
        """How much better ``row`` did than ``against`` (paired), named ``label`` (default: the row's name)."""
        sign = 1.0 if LOWER_IS_BETTER[metric] else -1.0
        improvement = sign * (self.rows[against].value(metric) - self.rows[row].value(metric))
        spread = _spread(sign * (self._stats[(against, metric)] - self._stats[(row, metric)]))
        return Comparison(metric, label or against, improvement, self.z * spread)


def _spread(values: np.ndarray) -> float:
    """Standard deviation of the finite resampled values (NaN if fewer than two)."""
    finite = values[np.isfinite(values)]
    return float(np.std(finite, ddof=1)) if len(finite) >= 2 else math.nan
