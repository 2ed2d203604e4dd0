"""Multiplayer Elo with score functions (Cunningham 2021).

Cunningham, "Developing a Generalized Elo Rating System for Multiplayer Games", Towards Data
Science, 26 September 2021, and his ``multielo`` Python package; equation numbers are the article's.

Expected score over all pairs (Cunningham 2021, eq. 4)::

    E_A = sum_{i != A} 1 / (1 + 10^((R_i - R_A) / D))  /  (N (N - 1) / 2)

Actual score from a score function of the finishing position p (eq. 6): linear
``(N - p) / (N (N - 1) / 2)`` or exponential with base alpha
``(alpha^(N-p) - 1) / sum_i (alpha^(N-i) - 1)``; tied players share the mean of their
positions' scores, and DNFs count as tied for the positions below the finishers.
Update (eq. 7): ``R' = R + K (N - 1) (S - E)``.  With two players this is classic Elo.

The dummy (a never-updated player tied with the last entrant, as in Kerby's models) takes part
as an N-th player.  Its tie is a shared place with ``dummy_tie="draw"``.  With
``dummy_tie="censored"`` (the default) the order inside the worst-rank group ``G`` (the players
of the last place, or the DNFs, and the dummy) is unobserved: ``G`` is known to hold the last
``m = |G|`` positions, so it earns their total score ``T_G = s_{N-m+1} + ... + s_N``, and, since
nothing says who in ``G`` beat whom, ``T_G`` is shared in proportion to the members' expected
scores, ``S_i = T_G E_i / sum_{j in G} E_j`` (instead of ``T_G / m`` each).  Scores still sum to
1, and no member of ``G`` gains: ``T_G <= sum_{j in G} E_j``, because the ``m(m-1)/2`` pairs
inside ``G`` contribute exactly ``m(m-1)/2 / (N(N-1)/2)`` to the right side, which is the
linear ``T_G``, and the exponential score function gives the bottom positions no more than the
linear one (``(alpha^k - 1) / k`` increases with ``k``).  A whole game tied with the dummy
(``G`` everyone) leaves every rating unchanged.

Team games use the composite methods of the INVERSUS Deluxe article (design document 002, ``team_method``, see
:mod:`ratings.systems._teams`): each player plays a game of ``T`` entrants, one per team, in which the player
stands for its own team and each other team is one virtual opponent (its mean rating, or, for the composite
team, the player's rating plus that team's mean minus the player's own team's mean).  The score function runs
over the ``T`` teams' places, and ``R' = R + K w (T - 1) (S - E)`` with ``w`` the player's weight (partial play).
With one player per team this is the free-for-all game exactly.

The new-player boost and the idle rules (``boost`` ... ``pull_per_day``) are those of every single-rating system
(:mod:`ratings.systems._single`), with K as the learning rate.

Cost: eq. 4 sums the logistic of every rating difference, so this per-game path (the reference) costs N^2 for a game
of N players.  The compiled kernel (:mod:`ratings.kernels.elo`) computes the same sums from 64 players on from a
Chebyshev interpolant of the field sum, within 1.1e-15 of its size, and the actual scores by counting ranks: about
linear in the field (2.7 ms for a game of 20,000 players against 2.2 s summing every pair).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ratings.base import GameView, State
from ratings.params import Declared, Interval, param
from ratings.systems._single import SingleRatingSystem, boost_rule, dummy_tie_param, dynamics_param
from ratings.systems._teams import composite_opponents, team_method_param, team_view

__all__ = ["MultiElo", "MultiEloParams", "expected_scores", "score_function", "actual_scores", "censor_last"]


#: Valid Elo ratings (initial, dummy, floor): a million Elo points either side of 0.
RATING = Interval(-1e6, 1e6)
#: Valid K factors.
K = Interval(0.0, 1e4)


@dataclass(frozen=True, kw_only=True)
class MultiEloParams(Declared):
    RULES = (boost_rule("k", K, curve=False),)

    k: float = param(
        32.0,
        "K factor: the largest change one two-player game can bring.",
        valid=K,
        low=1.0,
        high=100.0,
        step=1.0,
        label="K",
    )
    d: float = param(
        400.0,
        "D: the rating gap at which the stronger player is 10 times as likely to win.",
        valid=Interval(1.0, 1e5),
        low=50.0,
        high=1000.0,
        step=10.0,
        label="D",
    )
    base: float = param(
        1.0,
        "Score-function base: 1 is linear (every place step worth the same); above 1 rewards the top places more.",
        valid=Interval(1.0, 10.0),
        low=1.0,
        high=3.0,
        step=0.05,
        label="score base",
    )
    initial: float = param(
        1000.0, "Rating of a new player.", valid=RATING, low=0.0, high=2000.0, step=50.0, label="initial rating"
    )
    dummy: float | None = param(
        None,
        "Rating of a never-updated dummy player tied with the last entrant of every game (none: no dummy).",
        valid=RATING,
        low=0.0,
        high=2000.0,
        step=50.0,
        label="dummy rating",
    )
    floor: float | None = param(
        None,
        "Lowest rating a player can fall to (none: no floor).",
        valid=RATING,
        low=0.0,
        high=2000.0,
        step=50.0,
        label="rating floor",
    )
    dummy_tie: str = dummy_tie_param()
    team_method: str = team_method_param()
    boost: float = dynamics_param("boost")
    boost_games: float = dynamics_param("boost_games")
    forget_per_day: float = dynamics_param("forget_per_day")
    pull_per_day: float = dynamics_param("pull_per_day")


def score_function(n: int, base: float = 1.0) -> np.ndarray:
    """Scores s_1..s_n of positions 1..n (Cunningham 2021, eq. 6); they decrease, end at 0 and sum to 1."""
    positions = np.arange(1, n + 1, dtype=float)
    if n == 1:
        return np.ones(1)
    if base == 1.0:
        return (n - positions) / (n * (n - 1) / 2)
    # alpha^(n-p) - 1, divided through by alpha^(n-1) so that large fields do not overflow.
    log_base = np.log(base)
    raw = np.exp((1 - positions) * log_base) - np.exp(-(n - 1) * log_base)
    return raw / raw.sum()


def expected_scores(ratings: np.ndarray, d: float) -> np.ndarray:
    """Expected score of each player (Cunningham 2021, eq. 4); they sum to 1."""
    n = len(ratings)
    diff = (ratings[None, :] - ratings[:, None]) / d  # [A, i] = (R_i - R_A) / D
    pairwise = 1.0 / (1.0 + np.power(10.0, diff))
    np.fill_diagonal(pairwise, 0.0)
    return pairwise.sum(axis=1) / (n * (n - 1) / 2)


def actual_scores(ranks: np.ndarray, base: float) -> np.ndarray:
    """Each player's score: the mean of the score-function values of the positions their tie group spans."""
    n = len(ranks)
    scores = score_function(n, base)
    order = np.argsort(ranks, kind="stable")
    sorted_ranks = ranks[order]
    out = np.empty(n)
    start = 0
    while start < n:
        stop = start
        while stop < n and sorted_ranks[stop] == sorted_ranks[start]:
            stop += 1
        out[order[start:stop]] = scores[start:stop].mean()
        start = stop
    return out


def censor_last(actual: np.ndarray, expected: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Share the worst-rank group's total actual score in proportion to its members' expected scores."""
    group = ranks == ranks.max()
    out = actual.copy()
    out[group] = actual[group].sum() * expected[group] / expected[group].sum()
    return out


class MultiElo(SingleRatingSystem):
    """Cunningham's multiplayer Elo: pairwise expected scores, a score function, K (N-1)(S-E)."""

    name = "multielo"
    title = "Multiplayer Elo"
    summary = "Elo generalised to any number of players through a score function (Cunningham 2021)."
    scale = "Elo points"
    Params = MultiEloParams

    def _learning_rate(self) -> float:
        return float(self.params.k)

    def _kernel(self) -> tuple[int, np.ndarray]:
        from ratings.kernels.single import MULTIELO

        censored = 1.0 if self._censored_dummy() else 0.0
        return MULTIELO, np.array([self.params.d, self.params.base, censored], dtype=float)

    def _gradient(self, ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
        # DNFs already share one rank below every finisher, so they are tied, as the poker
        # dashboard of Cunningham 2021 treated them.
        n = len(ratings)
        actual = actual_scores(ranks, self.params.base)
        expected = expected_scores(ratings, self.params.d)
        if self._censored_dummy():
            actual = censor_last(actual, expected, np.asarray(ranks))
        return (n - 1) * (actual - expected)

    def _team_mode(self) -> int:
        from ratings.kernels.single import COMPOSITE_OPPONENT, COMPOSITE_TEAM

        return COMPOSITE_OPPONENT if self.params.team_method == "composite opponent" else COMPOSITE_TEAM

    def _team_gradient(self, ratings: np.ndarray, game: GameView) -> np.ndarray:
        """Each player against the other teams as composite opponents (design document 002), its own team's
        entry holding its own rating; the dummy, when there is one, a further entrant tied with the last team."""
        teams = team_view(game)
        virtual = composite_opponents(ratings, teams, self.params.team_method)
        between = GameView(game.index, np.arange(teams.count), teams.ranks, teams.dnf, game.date)
        out = np.empty(len(ratings))
        for i in range(len(ratings)):
            field, ranks, dnf = self._with_dummy(virtual[i], between)
            out[i] = self._gradient(field, ranks, dnf)[teams.of[i]] * teams.weights[i]
        return out

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Plackett-Luce with weights 10^(R/D): first place drawn first."""
        from ratings.predict import plackett_luce_places  # with scipy's integrators, loaded when first asked for

        ratings = state["rating"][np.asarray(players, dtype=int)]
        return plackett_luce_places(ratings * np.log(10.0) / self.params.d)
