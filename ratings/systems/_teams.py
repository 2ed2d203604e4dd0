"""Team games as the systems see them: the teams of one game, their places, and their members' weights.

A game's entries carry a team number (players of one team share its place) and a weight, the share of the game
each player took part in (partial play).  :func:`team_view` collapses a game to its teams; a system then rates the
teams by its own published method (each system's module says which) and hands each member its share.

Two family-wide rules live here, one declaration each:

- ``team_strength`` (Kerby's single-rating models: Plackett-Luce, Thurstonian, pairwise Elo): a team's strength is
  the **sum** of its members' ratings, each times its weight, or their weighted **mean**.  The update is the
  gradient of the team-level log-likelihood with respect to each member's rating, which the chain rule makes the
  team's gradient times ``d strength / d r_i``: ``w_i`` for the sum, ``w_i / sum_j w_j`` for the mean.  This is
  the Bayesian-approximation method of Weng and Lin ("A Bayesian approximation method for online ranking", JMLR
  12, 2011, its team games: a team's skill is the sum of its members', and each member's mean moves by its own
  variance times the team's gradient), which the openskill package implements; with one learning rate for every
  player in place of each member's variance, it is the update here.
- ``team_method`` (multiplayer Elo and Glicko-2): the **composite team** or **composite opponent** of the
  INVERSUS Deluxe article (design document 002, "What about team vs team matches?"): each player is rated
  against every other team as one virtual opponent.  Composite opponent: the opponent is the other team's mean
  rating (and mean deviation).  Composite team: the opponent stands as far from the player as the other team's
  mean stands from the player's own team's mean, ``r_i + (mean_U - mean_T)`` (the article's
  ``virtualOpponentRating``), with the other team's mean deviation; so a weak partner lowers the expectation.
  Means are weighted by the members' weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.base import GameView
from ratings.params import param

__all__ = [
    "TEAM_METHODS",
    "TEAM_STRENGTHS",
    "TeamView",
    "composite_opponents",
    "share",
    "strength",
    "team_method_param",
    "team_strength_param",
    "team_view",
]

#: Values of ``team_strength``: a team's strength is the (weighted) sum or mean of its members' ratings.
TEAM_STRENGTHS = ("sum", "mean")
#: Values of ``team_method``: the design document's composite team or composite opponent.
TEAM_METHODS = ("composite team", "composite opponent")


def team_strength_param() -> Any:
    """The ``team_strength`` declaration of Kerby's single-rating models."""
    return param(
        "sum",
        "A team's strength in a team game: the sum of its players' ratings (Weng and Lin 2011, as TrueSkill "
        "and openskill), or their mean.  Each player moves by the team's gradient times its share.",
        choices=TEAM_STRENGTHS,
        label="team strength",
    )


def team_method_param() -> Any:
    """The ``team_method`` declaration of multiplayer Elo and Glicko-2."""
    return param(
        "composite team",
        "How a player of a team game is rated against another team: composite team (the other team's mean "
        "relative to the player's own team's mean, so a weak partner lowers the expectation) or composite "
        "opponent (the other team's mean rating).",
        choices=TEAM_METHODS,
        label="team method",
    )


@dataclass(frozen=True)
class TeamView:
    """The teams of one game: ``of[i]`` is entry ``i``'s team (0 .. count-1), ``weights`` the entries' weights,
    ``ranks`` and ``dnf`` one per team (dense, 0 = best, as a game's entries have them)."""

    of: np.ndarray
    weights: np.ndarray
    count: int
    ranks: np.ndarray
    dnf: np.ndarray

    def members(self, team: int) -> np.ndarray:
        return np.flatnonzero(self.of == team)

    @property
    def totals(self) -> np.ndarray:
        """Each team's summed weight."""
        return np.bincount(self.of, weights=self.weights, minlength=self.count)


def team_view(game: GameView) -> TeamView:
    """The teams of ``game`` (every entry its own team, weight 1, when the game has no teams)."""
    n = game.size
    of = np.arange(n) if game.teams is None else np.asarray(game.teams, dtype=np.int64)
    weights = np.ones(n) if game.weights is None else np.asarray(game.weights, dtype=float)
    count = int(of.max()) + 1 if n else 0
    ranks = np.zeros(count, dtype=np.asarray(game.ranks).dtype)
    dnf = np.zeros(count, dtype=bool)
    ranks[of] = game.ranks  # teammates share their place (the history checks it)
    dnf[of] = game.dnf
    return TeamView(of, weights, count, ranks, dnf)


def strength(ratings: np.ndarray, teams: TeamView, how: str) -> np.ndarray:
    """Each team's strength: the weighted sum of its members' ratings, or the weighted mean (``how="mean"``)."""
    total = np.bincount(teams.of, weights=teams.weights * ratings, minlength=teams.count)
    return total / teams.totals if how == "mean" else total


def share(team_gradient: np.ndarray, teams: TeamView, how: str) -> np.ndarray:
    """Each member's gradient: the team's times ``d strength / d r_i`` (``w_i``, or ``w_i / W`` for the mean)."""
    factor = teams.weights / teams.totals[teams.of] if how == "mean" else teams.weights
    return team_gradient[teams.of] * factor


def composite_opponents(ratings: np.ndarray, teams: TeamView, method: str) -> np.ndarray:
    """``[i, u]``: the rating of the virtual opponent player ``i`` meets for team ``u`` (design document 002).

    ``composite opponent``: team ``u``'s weighted mean rating; ``composite team``: ``r_i + mean_u - mean_T(i)``,
    computed as ``mean_u + (r_i - mean_T(i))`` so that a team of one meets exactly the other players' ratings.
    The column of a player's own team holds the player's own rating (a player never meets its own team).
    """
    means = strength(ratings, teams, "mean")
    if method == "composite opponent":
        out = np.broadcast_to(means, (len(ratings), teams.count)).copy()
    else:
        out = means[None, :] + (ratings - means[teams.of])[:, None]
    out[np.arange(len(ratings)), teams.of] = ratings
    return out
