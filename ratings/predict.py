"""Finishing-place probabilities for an upcoming game, and how likely an observed result was.

Plackett-Luce orders have an exact answer (a dynamic programme over subsets of the
players, exact for small fields); any model that can sample performances gets a
fixed-seed Monte Carlo estimate.

The likelihood of a result (:func:`partition_log_likelihood`) is the Plackett-Luce probability (Luce 1959,
Plackett 1975) of the observed finishing order, with each group of tied players, and the did-not-finish group, as
a censored group: the probability that its members take its places in any order among themselves.  A rating
system's own win probabilities (the first column of its :meth:`~ratings.base.RatingSystem.place_probabilities`)
serve as the weights (:func:`win_probabilities`): Luce's choice axiom, the chance of being drawn next in proportion
to one's chance of winning, which is exact for the systems whose order model is Plackett-Luce (multielo, logistic
pairwise Elo) and a common approximation for the others.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ratings.base import RatingRun
    from ratings.history import GameHistory

__all__ = [
    "Calibration",
    "EXACT_GROUP_LIMIT",
    "EXACT_LIMIT",
    "WIN_FLOOR",
    "calibration",
    "monte_carlo_places",
    "partition_log_likelihood",
    "places_from_orders",
    "plackett_luce_places",
    "team_entrants",
    "win_probabilities",
]

#: Largest field for which the exact subset dynamic programme is used.
EXACT_LIMIT = 10
#: Samples drawn by the Monte Carlo estimates.
SAMPLES = 20_000
SEED = 20_211


def plackett_luce_places(log_weights: np.ndarray, *, worst_first: bool = False) -> np.ndarray:
    """Place probabilities of a Plackett-Luce order with weights ``exp(log_weights)``.

    The order is built by drawing players one at a time with probability proportional to
    their weight among those not yet drawn: the first drawn takes first place, or last
    place when ``worst_first`` (Kerby's exponential model picks the first eliminated).
    Returns ``P[i, j]`` = probability that player ``i`` takes place ``j + 1``.
    Exact for up to :data:`EXACT_LIMIT` players, Monte Carlo (Gumbel-max sampling,
    fixed seed) beyond.
    """
    logw = np.asarray(log_weights, dtype=float)
    n = len(logw)
    if n == 0:
        return np.zeros((0, 0))
    if n > EXACT_LIMIT:
        rng = np.random.default_rng(SEED)
        keys = logw[None, :] + rng.gumbel(size=(SAMPLES, n))
        order = np.argsort(-keys, axis=1)  # draw order: first drawn first
        probs = places_from_orders(order, n)
        return probs[:, ::-1] if worst_first else probs
    w = np.exp(logw - logw.max())
    full = (1 << n) - 1
    # mass[S] = probability that the first |S| draws are exactly the set S.
    mass = np.zeros(1 << n)
    mass[0] = 1.0
    subset_weight = np.zeros(1 << n)
    for s in range(1, 1 << n):
        low = s & -s
        subset_weight[s] = subset_weight[s ^ low] + w[low.bit_length() - 1]
    total = subset_weight[full]
    probs = np.zeros((n, n))
    for s in range(1 << n):
        if mass[s] == 0.0 or s == full:
            continue
        remaining = total - subset_weight[s]
        drawn = bin(s).count("1")
        for i in range(n):
            bit = 1 << i
            if s & bit:
                continue
            p = mass[s] * w[i] / remaining
            mass[s | bit] += p
            probs[i, drawn] += p
    return probs[:, ::-1] if worst_first else probs


def places_from_orders(order: np.ndarray, n: int) -> np.ndarray:
    """Turn sampled orders (row: player indices best first) into place frequencies."""
    samples = order.shape[0]
    probs = np.zeros((n, n))
    for place in range(n):
        probs[:, place] = np.bincount(order[:, place], minlength=n) / samples
    return probs


def monte_carlo_places(sample: Callable[[np.random.Generator, int], np.ndarray], n: int) -> np.ndarray:
    """Place probabilities from ``sample(rng, count)``, which returns ``(count, n)`` performances.

    Higher performance is better; the generator is seeded, so the answer is repeatable.
    """
    rng = np.random.default_rng(SEED)
    performances = sample(rng, SAMPLES)
    order = np.argsort(-performances, axis=1, kind="stable")
    return places_from_orders(order, n)


#: Largest tied group whose probability is summed exactly over its orders (a subset dynamic programme); larger
#: groups use the one-dimensional integral of :func:`_group_probability`.
EXACT_GROUP_LIMIT = 12
#: Smallest win probability used as a weight: half a Monte Carlo sample, so that an estimate of zero does not make
#: a result impossible (the same floor for every system keeps them comparable).
WIN_FLOOR = 0.5 / SAMPLES


def partition_log_likelihood(
    log_weights: np.ndarray, ranks: np.ndarray, *, exact_limit: int = EXACT_GROUP_LIMIT
) -> float:
    """Natural log of the Plackett-Luce probability of an observed result, ties and DNFs as censored groups.

    ``log_weights[i]`` is player ``i``'s log weight (best drawn first, with probability proportional to its weight
    among the players left); ``ranks[i]`` its dense rank (0 best; tied players, and all DNFs, share one rank).
    The probability is the product, over the groups in rank order, of the probability that the group's members are
    the next ``|G|`` drawn, in any order.  The last group has probability 1.
    """
    logw = np.asarray(log_weights, dtype=float)
    ranks = np.asarray(ranks)
    if logw.shape != ranks.shape:
        raise ValueError(f"one log weight per rank: {logw.shape} against {ranks.shape}")
    if not len(logw):
        return 0.0
    w = np.exp(logw - logw.max())  # a common factor cancels in every ratio
    total = float(w.sum())
    out = 0.0
    groups = np.unique(ranks)
    for r in groups[:-1]:  # the last group is whoever is left: probability 1
        members = w[ranks == r]
        rest = total - float(members.sum())
        out += math.log(_group_probability(members, rest, exact_limit))
        total = rest
    return out


def _group_probability(members: np.ndarray, rest: float, exact_limit: int) -> float:
    """Probability that the players of weights ``members`` are all drawn before any of the rest (total ``rest``).

    Small groups: a dynamic programme over the subsets S already drawn, f(S + i) += f(S) w_i / (W - W_S), summing
    every order.  Large groups: the same probability written with the exponential race behind Plackett-Luce (each
    player finishes at an exponential time of rate w; the order of finishing is the Plackett-Luce draw): the group
    is ahead of the rest iff its slowest beats the rest's fastest, so, with x = rest * t,
    P = integral over x >= 0 of exp(-x) * prod_i (1 - exp(-x w_i / rest)) dx.
    """
    k = len(members)
    if k == 1:
        return float(members[0] / (members[0] + rest))
    if k <= exact_limit:
        total = float(members.sum()) + rest
        subset_weight = np.zeros(1 << k)
        for s in range(1, 1 << k):
            low = s & -s
            subset_weight[s] = subset_weight[s ^ low] + members[low.bit_length() - 1]
        f = np.zeros(1 << k)
        f[0] = 1.0
        for s in range(1 << k):
            if f[s] == 0.0:
                continue
            left = total - subset_weight[s]
            for i in range(k):
                bit = 1 << i
                if not s & bit:
                    f[s | bit] += f[s] * members[i] / left
        return float(f[-1])
    from scipy import integrate  # its import costs about 0.3 s; only ties of more than a few players need it

    rates = members / rest
    value, _ = integrate.quad(
        lambda x: math.exp(-x) * float(np.prod(-np.expm1(-x * rates))), 0.0, np.inf, epsabs=0.0, epsrel=1e-10, limit=200
    )
    return float(value)


def win_probabilities(run: RatingRun, *, first_game: int = 0, last_game: int | None = None) -> np.ndarray:
    """Each participant's probability of winning, as the run's system predicted before each game (flat layout).

    For the games ``first_game`` to ``last_game`` (others NaN): the system's own
    :meth:`~ratings.base.RatingSystem.place_probabilities` on the state before the game, rebuilt from the run (the
    displayed rating as ``rating`` and each reported series such as ``mu``, ``sigma``), first column, floored at
    :data:`WIN_FLOOR`.  Costs one prediction per game: exact Plackett-Luce for up to :data:`EXACT_LIMIT` players,
    else a Monte Carlo of :data:`SAMPLES` draws.
    """
    from ratings.systems import create

    system = create(run.system, **dataclasses.asdict(run.params))
    h = run.history
    out = np.full(len(run.before), np.nan)
    stop = h.n_games if last_game is None else last_game
    for g in range(first_game, stop):
        s = h.game_slice(g)
        n = s.stop - s.start
        if n < 2:
            continue
        state = {"rating": run.before[s]} | {name: before[s] for name, (before, _) in run.extras.items()}
        places = system.place_probabilities(state, np.arange(n))
        out[s] = np.maximum(places[:, 0], WIN_FLOOR)
    return out


def team_entrants(system: str, params: object, state: Mapping[str, np.ndarray], teams: Sequence[Sequence[int]]) -> dict:
    """A state with one entrant per team (players given by index into ``state``), as ``system`` rates a team game,
    for its own :meth:`~ratings.base.RatingSystem.place_probabilities` on ``range(len(teams))``.

    Each system's team model, the one it rates with (its module documents the source):

    - Plackett-Luce, Thurstonian, pairwise Elo: the team's strength is the sum, or the mean (``team_strength``), of
      its members' ratings (Weng and Lin 2011).
    - TrueSkill: the team's performance is the sum of its members' performances (Herbrich, Minka and Graepel 2006):
      mean ``sum mu``, variance ``sum sigma^2 + n beta^2``; the entrant gets ``sigma^2 = sum sigma^2 + (n-1) beta^2``
      because the prediction adds one ``beta^2`` per entrant.
    - Multiplayer Elo and Glicko-2 (composite team or composite opponent, design document 002): two teams meet as
      their mean ratings (and mean deviations).  Under composite team every member's expectation is exactly the one
      between the means; under composite opponent each member meets the other team's mean, and the team-level
      chance shown is the one between the two means.
    - Elo-MMR: the team is one entrant with its members' pooled (mean) skill and variance.

    Players play whole games here (weight 1).
    """
    members = [np.asarray(t, dtype=np.int64) for t in teams]
    if system in ("plackett-luce", "thurstonian", "pairwise-elo"):
        combine = np.mean if getattr(params, "team_strength", "sum") == "mean" else np.sum
        return {"rating": np.array([combine(state["rating"][m]) for m in members])}
    if system == "trueskill":
        beta2 = float(params.beta) ** 2  # type: ignore[attr-defined]
        return {
            "mu": np.array([state["mu"][m].sum() for m in members]),
            "sigma": np.sqrt([(state["sigma"][m] ** 2).sum() + (len(m) - 1) * beta2 for m in members]),
        }
    if system in ("multielo",):
        return {"rating": np.array([state["rating"][m].mean() for m in members])}
    if system == "glicko2":
        return {key: np.array([state[key][m].mean() for m in members]) for key in ("mu", "sigma")}
    if system == "elo-mmr":
        return {
            "mu": np.array([state["mu"][m].mean() for m in members]),
            "sigma": np.sqrt([(state["sigma"][m] ** 2).mean() for m in members]),
        }
    raise NotImplementedError(f"no team prediction for {system}")


@dataclass(frozen=True)
class Calibration:
    """Predicted against observed win rate, in bins of the predicted probability (a reliability diagram).

    Bin ``b`` holds the entries whose predicted win probability lies in ``[edges[b], edges[b + 1])`` (the last bin
    includes 1): ``count`` of them, their mean prediction ``predicted`` and their observed win rate ``observed``
    (NaN for an empty bin).  A well-calibrated system has ``observed`` close to ``predicted`` in every bin.
    """

    edges: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    count: np.ndarray

    @property
    def error(self) -> float:
        """Expected calibration error: the mean over entries of |observed - predicted| of their bin."""
        total = int(self.count.sum())
        if not total:
            return math.nan
        full = self.count > 0
        return float((self.count[full] * np.abs(self.observed[full] - self.predicted[full])).sum() / total)

    def as_dict(self) -> dict[str, object]:
        def plain(values: np.ndarray) -> list[float | None]:
            return [None if math.isnan(v) else float(v) for v in values]

        return {
            "edges": [float(e) for e in self.edges],
            "predicted": plain(self.predicted),
            "observed": plain(self.observed),
            "count": [int(c) for c in self.count],
            "error": None if math.isnan(self.error) else self.error,
        }


def calibration(
    history: GameHistory,
    wins: np.ndarray,
    *,
    bins: int = 10,
    first_game: int = 0,
    last_game: int | None = None,
) -> Calibration:
    """Calibration of win probabilities ``wins`` (one per entry, flat layout, as :func:`win_probabilities` gives
    them) over the games ``first_game`` to ``last_game``, in ``bins`` equal bins of [0, 1].

    An entry's observed win is 1 if it took first place alone, ``1/k`` if it shared first place with ``k - 1``
    others (so each game's observed wins sum to 1, as its predictions do), else 0.  Games without an outcome (one
    player, everyone tied, everyone DNF) are left out.
    """
    if not isinstance(bins, int) or isinstance(bins, bool) or bins < 1:
        raise ValueError(f"bins must be a whole number, 1 or more, got {bins!r}")
    wins = np.asarray(wins, dtype=float)
    if wins.shape != history.flat_rank.shape:
        raise ValueError(f"expected {len(history.flat_rank)} win probabilities, got shape {wins.shape}")
    stop = history.n_games if last_game is None else last_game
    lo, hi = int(history.offsets[first_game]), int(history.offsets[stop])
    sizes = np.diff(history.offsets)[first_game:stop]
    game = np.repeat(np.arange(stop - first_game), sizes)
    ranks, dnf, p = history.flat_rank[lo:hi], history.flat_dnf[lo:hi], wins[lo:hi]
    first = (ranks == 0) & ~dnf
    sharing = np.bincount(game, weights=first, minlength=stop - first_game)
    spread = np.bincount(game, weights=ranks, minlength=stop - first_game)  # 0 only if everyone is tied first
    outcome = (sharing > 0) & (spread > 0) & (sizes >= 2)
    chosen = outcome[game]
    if not np.all(np.isfinite(p[chosen])):
        raise ValueError("win probabilities are missing for some scored games")
    observed = np.where(first, 1.0 / np.maximum(sharing[game], 1), 0.0)[chosen]
    predicted = p[chosen]
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.searchsorted(edges, predicted, side="right") - 1, 0, bins - 1)
    count = np.bincount(which, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_predicted = np.bincount(which, weights=predicted, minlength=bins) / count
        mean_observed = np.bincount(which, weights=observed, minlength=bins) / count
    return Calibration(edges=edges, predicted=mean_predicted, observed=mean_observed, count=count)
