"""Pairwise Elo (Kerby 2025, section 3.2.1) on the natural (logistic) scale.

Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note,
2025; section numbers below are the note's.

A game of n players is read as its n(n-1)/2 one-on-one results, each updated with a
two-player model:

- ``logistic`` (the exponential version, section 3.1.1): the winner of a pair gains
  ``1 / (1 + e^{r_w - r_l})`` and the loser loses as much; in score form
  ``S - P(win)`` with ``P(i beats j) = 1 / (1 + e^{r_j - r_i})``.
- ``gaussian`` (the likelihood version of section 3.1.2, unit-variance performances):
  with ``d = r_w - r_l`` the winner gains ``phi(d/sqrt2) / (sqrt2 Phi(d/sqrt2))``.

A drawn pair (a shared place) gets the average of the two possible results' updates
(score 1/2 in the logistic model, as in chess).  Two DNFs are an unobserved comparison
(section 4) and update nothing; a finisher beats every DNF.

``variant="sum"`` adds a player's pair updates; ``variant="average"`` divides them by
``average_over``: ``all`` (the default) the number of opponents in the game, n - 1 (every
opponent, including DNFs whose comparison is unobserved, so that the game stays zero-sum), or
``compared`` the number of opponents with a different rank, as Kerby's published code does (a
DNF-DNF pair is not compared, nor a shared place; a player tied with every opponent, who has
none, is divided by n - 1).

With the censored dummy (``dummy_tie="censored"``, see :mod:`ratings.systems._single`) the
players of the worst rank and the dummy are censored like DNFs: each loses its pair to every
other player and is not compared with the others in the group, so its update is a sum of
``0 - P(win)`` terms (logistic) or of negative Mills-ratio terms (Gaussian), never a gain.

Cost: every pair is compared, so this per-game path (the reference) costs n^2 for a game of n players.  The
compiled kernel (:mod:`ratings.kernels.elo`) gives the logistic model's sums from 64 players on by rank counts and a
Chebyshev interpolant of the field sum of pair probabilities, within 1.1e-15 of its size: about linear in the
field.  The Gaussian model's rank-restricted sums (its pair update depends on the result through two different
functions) come from 384 players from running sums over the rank order on Chebyshev panels
(:mod:`ratings.kernels.gaussian_pairs`): about linear in the field too.

Divergence: the Gaussian model's update for an upset grows with its margin (the inverse Mills ratio, about ``-d / 2``
for ``d = r_w - r_l`` far below 0), so a learning rate times the field's size large enough to overshoot overshoots
further each game, and the ratings run apart without bound: the summed variant did on the bundled racing sample
(up to 30 entrants) from eta 0.5, and on the poker sample from 1.0; the averaged one on the doubles sample from
1.25.  So the Gaussian model's rules bound its step, (1 + boost) x eta, by :data:`GAUSSIAN_ETA` (0.2 summed, 0.8
averaged) and hold its initial rating, dummy and floor within 40 of each other, as Thurstonian's do; a larger field
may still diverge within them (a summed step overshoots once eta times the game's curvature passes 2, and that
curvature grows with the field: a pair's is at most 1/2), and a game whose ratings spread over more than
:data:`GAUSSIAN_MAX_SPREAD` stops the replay with a :class:`~ratings.base.ComputationError` that says so, as
Plackett-Luce and Thurstonian stop (the logistic model's update is bounded by 1 a pair and does not run away).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.base import ComputationError, State
from ratings.numerics import logistic, mills_ratio
from ratings.params import Rule, param
from ratings.systems._single import (
    ETA,
    KNOT_RULES,
    KerbyParams,
    SingleRatingSystem,
    anchors_rule,
    boost_rule,
    largest_step,
    step_limits,
)

__all__ = ["PairwiseElo", "PairwiseParams", "pair_scores", "pairwise_gradient"]

VARIANTS = ("sum", "average")
MODELS = ("logistic", "gaussian")
AVERAGES = ("all", "compared")
SQRT2 = float(np.sqrt(2.0))
#: Widest spread of one game's ratings (natural scale: performance standard deviations) the Gaussian pair model is
#: computed for.  The initial rating, the dummy and the floor lie within 40 (ANCHOR_SPREAD); play spreads a group's
#: ratings over a few units (at most 10 on the bundled samples at the largest rates GAUSSIAN_ETA allows), and 400
#: units apart an upset has a probability below 1e-30,000: only updates that diverge get there, within a few games of
#: starting to.
GAUSSIAN_MAX_SPREAD = 400.0
#: Largest step of the Gaussian model, (1 + boost) x the learning rate, by variant.  A game's step overshoots when
#: eta times its curvature passes 2, and the summed curvature grows with the field (a pair's is at most 1/2), so no
#: summed rate is safe for every field: these are the largest at which every bundled sample's ratings stay within
#: 10 units.  Summed: the racing sample (up to 30 entrants) spreads over 8.4 at 0.2, 14 at 0.25, 26 at 0.3, and
#: diverges from 0.5.  Averaged: the doubles sample (two-player sides) over 8.7 at 0.8, 22 at 1.0, 86 at 1.1, and
#: diverges from 1.25.  Larger fields may still diverge below them; GAUSSIAN_MAX_SPREAD then stops the replay.
GAUSSIAN_ETA = {"sum": 0.2, "average": 0.8}


def _gaussian_largest_step(p: Any) -> float:
    return GAUSSIAN_ETA[p.variant] if p.model == "gaussian" else math.inf


def _gaussian_step_bounded(p: Any) -> bool:
    return largest_step(p) <= _gaussian_largest_step(p)


@dataclass(frozen=True, kw_only=True)
class PairwiseParams(KerbyParams):
    """Parameters of pairwise Elo."""

    RULES = (
        *KNOT_RULES,
        boost_rule("eta", ETA),
        Rule(
            ("eta", "model", "variant", "boost", "eta_values"),
            _gaussian_step_bounded,
            f"with the gaussian pair model, (1 + boost) x the learning rate must be at most {GAUSSIAN_ETA['sum']:g} "
            f"summed, {GAUSSIAN_ETA['average']:g} averaged",
            limits=step_limits("eta", _gaussian_largest_step),
        ),
        anchors_rule(lambda p: p.model == "gaussian", where=" with the gaussian pair model"),
    )

    # Kerby 2025, section 5, first table: eta = 0.07 for the sum variant (0.75 for the average).
    eta: float = param(
        0.07,
        "Learning rate: how far one pair result moves a rating (Kerby 2025 tuned 0.07 for sum, 0.75 for average).",
        valid=ETA,
        low=0.01,
        high=2.0,
        step=0.01,
        label="learning rate eta",
    )
    variant: str = param(
        "sum",
        "Combine a player's pair updates by their sum, or by their mean over the player's opponents.",
        choices=VARIANTS,
        label="combine pairs by",
    )
    model: str = param(
        "logistic",
        "Two-player model: logistic (exponential performances) or gaussian (unit-variance normal performances).",
        choices=MODELS,
        label="pair model",
    )
    average_over: str = param(
        "all",
        "With variant average, divide by all opponents (n - 1) or only those compared, with a different "
        "rank (a DNF-DNF pair is not compared).",
        choices=AVERAGES,
        label="average over",
    )


def pair_scores(ranks: np.ndarray, dnf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``S[i, j]``: 1 if i beat j, 1/2 for a draw, 0 if j beat i; and the mask of observed pairs."""
    ranks = np.asarray(ranks)
    dnf = np.asarray(dnf, dtype=bool)
    better = ranks[:, None] < ranks[None, :]
    scores = np.where(better, 1.0, np.where(ranks[:, None] == ranks[None, :], 0.5, 0.0))
    observed = ~(dnf[:, None] & dnf[None, :])
    np.fill_diagonal(observed, False)
    return scores, observed


def pairwise_gradient(
    ratings: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    *,
    model: str = "logistic",
    variant: str = "sum",
    average_over: str = "all",
) -> np.ndarray:
    """Each player's summed (or averaged) pair updates, before the learning rate."""
    ratings = np.asarray(ratings, dtype=float)
    scores, observed = pair_scores(ranks, dnf)
    diff = ratings[:, None] - ratings[None, :]  # [i, j] = r_i - r_j
    if model == "logistic":
        # Section 3.1.1: r_i' = r_i + eta (S_ij - P(i beats j)).
        per_pair = scores - logistic(diff)
    else:
        spread = float(np.ptp(ratings)) if len(ratings) else 0.0
        if not spread <= GAUSSIAN_MAX_SPREAD:  # also NaN
            raise ComputationError(
                f"the players' ratings spread over {spread:,.3g} (natural scale): the Gaussian pair updates "
                "diverge; lower the learning rate, or average each player's pair updates (variant average) in "
                "games of many players"
            )
        # Section 3.1.2: gradient of log Phi((r_w - r_l)/sqrt2); a draw averages both results.
        win = mills_ratio(diff / SQRT2) / SQRT2
        per_pair = scores * win - scores.T * win.T
    total = np.where(observed, per_pair, 0.0).sum(axis=1)
    if variant == "average":
        n = len(ratings)
        if average_over == "compared":
            ranks = np.asarray(ranks)
            compared = (ranks[:, None] != ranks[None, :]).sum(axis=1)
            total /= np.where(compared > 0, compared, n - 1)
        else:
            total /= n - 1
    return total


class PairwiseElo(SingleRatingSystem):
    """Elo applied to every pair of a game (Kerby 2025, section 3.2.1)."""

    name = "pairwise-elo"
    title = "Pairwise Elo"
    summary = (
        "Every pair of players in a game is scored as a two-player Elo game (logistic or Gaussian), "
        "and a player's pair updates are summed or averaged."
    )
    Params = PairwiseParams

    def _gradient(self, ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
        p = self.params
        return pairwise_gradient(ratings, ranks, dnf, model=p.model, variant=p.variant, average_over=p.average_over)

    def _kernel(self) -> tuple[int, np.ndarray]:
        from ratings.kernels.elo import AVERAGE, COMPARED, GAUSSIAN
        from ratings.kernels.single import PAIRWISE

        p = self.params
        average = 0.0 if p.variant != "average" else COMPARED if p.average_over == "compared" else AVERAGE
        theta = [GAUSSIAN if p.model == "gaussian" else 0.0, average]
        return PAIRWISE, np.array(theta, dtype=float)

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Logistic: Plackett-Luce with weights e^r (its two-player marginal is the logistic
        probability); gaussian: Monte Carlo of unit-variance normal performances."""
        from ratings.predict import (
            monte_carlo_places,
            plackett_luce_places,
        )  # with scipy's integrators, loaded when first asked for

        ratings = state["rating"][np.asarray(players, dtype=int)]
        if self.params.model == "logistic":
            return plackett_luce_places(ratings)
        return monte_carlo_places(lambda rng, count: ratings + rng.standard_normal((count, len(ratings))), len(ratings))
