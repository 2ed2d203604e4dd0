"""How well ratings predicted the games that followed them.

Every metric here reads the ratings held BEFORE each game (``RatingRun.before``), so a
game is judged only by what was known before it was played.  Sources: Kerby 2025 (Brent Kerby,
"Multiplayer generalizations of Elo rating system", expository note, 2025) and Ebtekar and Liu 2021
("An Elo-like System for Massive Multiplayer Competitions", WWW 2021); section numbers are
theirs.  Three metrics:

- **Kendall tau** (Kerby 2025, section 5): over every pair of participants of a game with
  different places, 1 if the player rated higher before the game placed lower, 0.5 if
  their ratings were equal, else 0; the total over all games divided by the number of
  such pairs.  A DNF ranks below every finisher; two DNFs are not a pair (their order is
  unobserved) and neither are two players sharing a place.  Lower is better.
- **Pair inversion** (Ebtekar and Liu 2021, section 6.3): for each participant, the fraction of
  opponents for whom the ratings predicted the result correctly, "defined as the
  higher-rated player either winning or tying"; averaged over every participant of every
  game (each game weighted by its number of participants).  Higher is better.
- **Rank deviation** (Ebtekar and Liu 2021, section 6.3): for each participant,
  ``|actual rank - predicted rank| / (|P_t| - 1)``, where the predicted rank comes from
  sorting the game's participants by prior rating and, for a tie, "among the ranks
  within the tied range, we use the one that comes closest to the rating-based
  prediction"; averaged like pair inversion.  Lower is better.

Ebtekar and Liu (2021) report the last two in percent; here all three are fractions in [0, 1].

Adaptations, where Ebtekar and Liu (2021) leave a case open:

- DNF.  The history model stores the DNFs of a game as one tie for the places after the
  last finisher, and that is how the two Ebtekar-Liu metrics see them: two DNFs form a
  tied pair (counted correct in pair inversion, by the paper's tie rule), and a DNF's
  actual rank is the DNF range, of which the one closest to the prediction is used.
- Equal prior ratings.  The paper sorts players by rating into a total order and does
  not say how equal ratings are ordered.  Both metrics here take the expectation over
  a uniformly random order among equal-rated players: an equal-rated pair with
  different places counts 0.5 in pair inversion (as in Kendall tau), and a player's
  predicted rank is uniform over the positions its equal-rated group occupies.  This
  keeps the metrics independent of how players are listed.  (The authors' own code
  instead counts such a pair as wrong and breaks rating ties in the actual order.)
- Games without an outcome (one participant, or everyone tied) carry no prediction and
  are left out of all three metrics; ``|P_t| - 1`` would be zero for a lone player.

The work is vectorised: games of equal size are stacked into one array and compared
pairwise at once, so 20,000 games take a fraction of a second.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ratings.base import RatingRun
from ratings.history import GameHistory

__all__ = ["Evaluation", "evaluate", "evaluate_ratings"]

#: Most pairwise comparisons held in memory at once (games x size x size).
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class Evaluation:
    """The three accuracy metrics of one rating run, with the counts behind them.

    ``pairs`` is the number of pairs Kendall tau counted (different places, not two
    DNFs); ``games`` the number of games with an outcome (at least two different
    places), the games every metric used.  A metric with nothing to count is NaN.
    """

    kendall_tau: float
    pair_inversion: float
    rank_deviation: float
    pairs: int
    games: int

    def as_dict(self) -> dict[str, float | int | None]:
        """The fields as a plain dict, NaN written as ``None`` (valid JSON)."""
        out: dict[str, float | int | None] = {}
        for key, value in asdict(self).items():
            out[key] = None if isinstance(value, float) and math.isnan(value) else value
        return out


def evaluate(run: RatingRun) -> Evaluation:
    """Kendall tau, pair inversion and rank deviation of ``run``'s ratings before each game."""
    return evaluate_ratings(run.history, run.before)


def evaluate_ratings(
    history: GameHistory, before: np.ndarray, *, first_game: int = 0, last_game: int | None = None
) -> Evaluation:
    """The metrics of ratings ``before`` (flat layout, one per entry, held before each game), over the games
    ``first_game`` (included) to ``last_game`` (excluded; default: to the end) -- a held-out part, say."""
    before = np.asarray(before, dtype=float)
    n_entries = int(history.offsets[-1]) if len(history.offsets) else 0
    if before.shape != (n_entries,):
        raise ValueError(f"expected {n_entries} ratings (one per entry of the history), got shape {before.shape}")
    chosen = slice(first_game, history.n_games if last_game is None else last_game)
    sizes = np.diff(history.offsets)[chosen]
    starts = history.offsets[:-1][chosen]

    tau_sum = 0.0  # Kendall tau: discordant pairs (+ 0.5 per equal-rated pair)
    tau_pairs = 0
    games = 0
    weight = 0  # sum of |P_t| over games with an outcome
    inversion_sum = 0.0  # sum over entries of pair_inversion(i, t)
    deviation_sum = 0.0  # sum over entries of rank_deviation(i, t)

    for n in np.unique(sizes):
        n = int(n)
        if n < 2:
            continue
        game_starts = starts[sizes == n]
        per_chunk = max(1, _CHUNK_CELLS // (n * n))
        for c in range(0, len(game_starts), per_chunk):
            index = game_starts[c : c + per_chunk, None] + np.arange(n)[None, :]
            part = _size_batch(history.flat_rank[index].astype(np.int64), before[index])
            tau_sum += part[0]
            tau_pairs += part[1]
            games += part[2]
            weight += part[2] * n
            inversion_sum += part[3]
            deviation_sum += part[4]

    nan = float("nan")
    return Evaluation(
        kendall_tau=tau_sum / tau_pairs if tau_pairs else nan,
        pair_inversion=inversion_sum / weight if weight else nan,
        rank_deviation=deviation_sum / weight if weight else nan,
        pairs=tau_pairs,
        games=games,
    )


def _size_batch(ranks: np.ndarray, ratings: np.ndarray) -> tuple[float, int, int, float, float]:
    """Metric sums over a batch of games of one size ``n``: arrays of shape (games, n).

    ``ranks`` are dense (0 = best, all DNFs share the rank after the finishers).
    Returns (Kendall discordance total, Kendall pairs, games with an outcome,
    sum of per-entry pair inversion, sum of per-entry rank deviation).
    """
    n = ranks.shape[1]
    outcome = ranks.max(axis=1) > ranks.min(axis=1)
    ranks, ratings = ranks[outcome], ratings[outcome]
    if not len(ranks):
        return 0.0, 0, 0, 0.0, 0.0

    # [g, i, j] compares entry i with entry j of game g.
    ahead = ranks[:, :, None] < ranks[:, None, :]  # i placed better than j
    tied = ranks[:, :, None] == ranks[:, None, :]  # includes i == j
    higher = ratings[:, :, None] > ratings[:, None, :]  # i rated higher than j
    level = ratings[:, :, None] == ratings[:, None, :]  # equal ratings (includes i == j)

    # Kendall tau (Kerby 2025, section 5).  Each pair with different places appears once as
    # (better, worse).  DNFs share one rank, so two DNFs are tied and never counted.
    pairs = int(ahead.sum())
    discordant = float((ahead & higher.transpose(0, 2, 1)).sum()) + 0.5 * float((ahead & level).sum())

    # Pair inversion (Ebtekar and Liu 2021, section 6.3), per entry i: correct matchups over |P_t| - 1.
    # Correct: tied places (the higher-rated "tying"), or the higher-rated won.  Equal
    # ratings with different places: 0.5 (expectation over a random tie-break).
    untied = ~tied
    correct = (tied.sum(axis=2) - 1).astype(float)  # tied opponents, minus i itself
    correct += (untied & ((ahead & higher) | (~ahead & higher.transpose(0, 2, 1)))).sum(axis=2)
    correct += 0.5 * (untied & level).sum(axis=2)
    inversion = float(correct.sum()) / (n - 1)

    # Rank deviation (Ebtekar and Liu 2021, section 6.3).  Actual rank: the 0-based positions the
    # entry's tie group spans, [lo, hi]; the rank "closest to the prediction" within it
    # is the prediction clamped to [lo, hi], so the deviation is the distance from the
    # prediction to that range.  Predicted rank: uniform over [a, b], the positions of
    # the entry's equal-rated group after sorting by rating (highest first).
    lo = ahead.transpose(0, 2, 1).sum(axis=2)  # players placed strictly better
    hi = lo + tied.sum(axis=2) - 1
    a = higher.transpose(0, 2, 1).sum(axis=2)  # players rated strictly higher
    b = a + level.sum(axis=2) - 1
    deviation = float((_distance_sum(a, b, lo, hi) / (b - a + 1)).sum()) / (n - 1)

    return discordant, pairs, int(outcome.sum()), inversion, deviation


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
