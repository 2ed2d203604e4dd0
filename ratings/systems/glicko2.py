"""Glicko-2 with player-facing Rank Points (Glickman's Glicko-2; the INVERSUS Deluxe article).

Sources: Glickman, "Example of the Glicko-2 system" (step numbers below are his); "The Online
Skill Ranking of INVERSUS Deluxe" (Hypersect, 2018), cited as INVERSUS Deluxe, with its section
titles and function names.

Rating model
------------
Each player carries a rating ``mu``, a rating deviation ``phi`` and a volatility ``sigma``
(Glickman, "Example of the Glicko-2 system", steps 1-8).  Internally everything runs on the
Glicko-2 scale; the Glicko scale is ``r = 173.7178 mu + initial_rating`` and
``RD = 173.7178 phi`` (step 2; the INVERSUS Deluxe article prints 172.7178, a typo for Glickman's constant).

The INVERSUS Deluxe article ("But I don't want rating periods!") makes every game one rating period for its
participants.  Within a game every other participant is one match, scored 1 when the player
finished better, 0.5 for the same place and 0 when worse.  Every did-not-finish ranks below
every finisher.  Two DNFs play **no match** against each other: the history model records
their order as unknown (not as equal), and a 0.5 would invent an observation, pulling two
DNFs together on evidence the game never gave.  A game in which a player has no match at all
(all participants DNF) is an empty rating period for them: Glickman's rule for a player who
did not compete, ``phi' = sqrt(phi^2 + sigma^2)``.

The volatility step 5 solves ``f(x) = 0`` by the Illinois variant of regula falsi with
tolerance 1e-6 as Glickman describes.  The bracket follows Glickman: ``B = ln(Delta^2 - phi^2
- v)`` when positive (the INVERSUS Deluxe article's listing subtracts the volatility instead of ``v``, which is
not Glickman's rule and can lose the bracket).  The side update uses ``f(C) f(B) <= 0``, so an
iterate landing exactly on the root also ends the loop.

Bounds (INVERSUS Deluxe, "Why the numerical bounds?"): the rating stays in ``[min_rating,
max_rating]`` (Glicko-2 units relative to a new player; default +-3 x 2.015 = +-6.045), the
deviation in ``[min_deviation, initial_deviation]`` (default 0.175 and 2.015) and the
volatility in ``[min_volatility, max_volatility]`` (default 0.04 and 0.08).  They are applied
after every update and every inactivity step, as the INVERSUS Deluxe article does.

Inactivity (INVERSUS Deluxe, ``Glicko2_ApplyInactiveRatingPeriods``): when games carry dates, before
a game each participant's deviation grows over ``t = days / period_days`` fractional rating
periods since their previous dated game, ``phi* = sqrt(phi^2 + t sigma^2)``, never above the
new-player deviation.  Without dates only the one-period step of every game applies.

Team games (INVERSUS Deluxe, "What about team vs team matches?" and "Updating Skill"): each player's rating
period has one match per other team, against a virtual opponent: with ``team_method="composite team"`` (the
article's choice and code) at ``mu_i + (mean_U - mean_T)``, the other team's mean relative to the player's own
team's mean; with ``"composite opponent"`` at the other team's mean ``mean_U``; either way with the other team's
mean deviation.  Teammates play no match.  Means are weighted by partial-play weights; a player's own update does
not scale with its weight (Glickman's rating period has no partial play).  One player per team is exactly the
free-for-all game.

Rank Points (INVERSUS Deluxe, "Player Facing Rank Points")
-----------------------------------------------------------
The *target* is the lower end of the 99.7% interval, ``mu - 3 phi``, remapped linearly from
``[min_rating, max_rating]`` to ``[0, 10000]`` and clamped there; a new player's target is 0.
Players start at 0 points.  After each game the displayed points step halfway towards the
new target, by at most 500 points, and never against the game's result:

* The result of a multiplayer game is the player's score against the field: the mean of its
  match scores above.  Above 0.5 is a **win**, below 0.5 a **loss**; in a two-player game this
  is exactly the article's win/loss.
* A win never lowers the points and always adds at least 1 point, except that the points never
  pass the upper end of the 99.7% interval (``mu + 3 phi``, remapped) nor 10000 (INVERSUS Deluxe:
  "unless it will step you past the upper end ... or the 10000 limit").
* A loss never raises the points and always deducts at least 1 point, but never below 0.
* An exact 0.5 (a drawn two-player game, the middle of a field, a tie for everything) is
  neither: the points step halfway towards the target in whichever direction it lies, capped
  at 500, with no 1-point minimum, since no direction contradicts an even result.
* A player with no match in the game (all participants DNF) keeps their points.

The 500-point cap makes the first wins of a new player worth 500 each while the model
learns (INVERSUS Deluxe).  The article's optional "upset bonus" is left out, as its author advises.
Points are per-player state, replayed with everything else.

Place predictions
-----------------
``place_probabilities`` samples each player's skill from the posterior ``N(mu, phi^2)`` and
adds standard Gumbel noise: the difference of two Gumbel variables is logistic, so given the
skills ``P(i beats j) = 1 / (1 + exp(-(theta_i - theta_j)))``, the Glicko-2 win model (step 3,
``E``), and averaging over the skills is the integral that Glickman's ``g(phi)`` attenuation
approximates.  Orders are then Plackett-Luce given the skills.

Cost: every other participant is one match, so this per-game path costs n^2 a game of n players; the compiled
replay (:mod:`ratings.kernels.glicko2`) takes a large game's sums from interpolants of the field, about linear.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ratings.base import ComputationError, GameView, RatingSystem, Replay, State, idle_days
from ratings.params import Declared, Interval, Limit, Rule, param
from ratings.systems._teams import composite_opponents, strength, team_method_param, team_view

__all__ = [
    "GLICKO_SCALE",
    "RANK_POINTS_MAX",
    "RANK_POINTS_MAX_STEP",
    "Glicko2",
    "Glicko2Params",
    "glicko2_period",
    "inactive_deviation",
    "match_scores",
    "rank_points_step",
]

#: Glicko-2 to Glicko scale factor (Glickman, step 2).
GLICKO_SCALE = 173.7178
#: Top of the Rank Points range (INVERSUS Deluxe).
RANK_POINTS_MAX = 10000.0
#: Largest change of Rank Points in one game (INVERSUS Deluxe).
RANK_POINTS_MAX_STEP = 500.0
#: Smallest change of Rank Points after a win or a loss (INVERSUS Deluxe).
RANK_POINTS_MIN_STEP = 1.0
#: Fraction of the distance to the target covered per game (INVERSUS Deluxe: halfway).
RANK_POINTS_APPROACH = 0.5
#: Width of the confidence interval in deviations (99.7%, INVERSUS Deluxe).
CONFIDENCE_SIGMAS = 3.0
#: Convergence tolerance of the volatility iteration (Glickman, step 5).
TOLERANCE = 1e-6
#: Bound on the iterations of each loop of the volatility update (it converges in far fewer).
MAX_ITERATIONS = 1000


@dataclass(frozen=True, kw_only=True)
class Glicko2Params(Declared):
    RULES = (
        Rule(
            ("min_deviation", "initial_deviation"),
            lambda p: p.min_deviation <= p.initial_deviation,
            "must be at most the new-player deviation",
            limits={
                "min_deviation": lambda p: Limit(high=p.initial_deviation),
                "initial_deviation": lambda p: Limit(low=p.min_deviation),
            },
        ),
        Rule(
            ("min_volatility", "initial_volatility"),
            lambda p: p.min_volatility <= p.initial_volatility,
            "must be at most the new-player volatility",
            limits={
                "min_volatility": lambda p: Limit(high=p.initial_volatility),
                "initial_volatility": lambda p: Limit(low=p.min_volatility),
            },
        ),
        Rule(
            ("max_volatility", "initial_volatility"),
            lambda p: p.max_volatility >= p.initial_volatility,
            "must be at least the new-player volatility",
            limits={
                "max_volatility": lambda p: Limit(low=p.initial_volatility),
                "initial_volatility": lambda p: Limit(high=p.max_volatility),
            },
        ),
    )

    tau: float = param(
        0.5,
        "System constant tau: how much the volatility may change; smaller is steadier (Glickman: 0.3-1.2).",
        valid=Interval(0.01, 5.0),
        low=0.2,
        high=1.2,
        step=0.05,
        label="tau",
    )
    initial_rating: float = param(
        1500.0,
        "Rating of a new player on the Glicko scale.",
        valid=Interval(-1e6, 1e6),
        low=0.0,
        high=3000.0,
        step=50.0,
        label="initial rating",
    )
    initial_deviation: float = param(
        2.015,
        "Deviation of a new player on the Glicko-2 scale (2.015 is about 350 Glicko points); also the largest "
        "deviation inactivity can reach.",
        valid=Interval(0.01, 10.0),
        low=0.5,
        high=3.0,
        step=0.005,
        label="new-player deviation",
    )
    initial_volatility: float = param(
        0.06,
        "Volatility of a new player (Glickman's suggestion; within the lowest and highest volatility).",
        valid=Interval(1e-4, 1.0),
        low=0.04,  # the slider's ends within the default lowest and highest volatility, which bound it
        high=0.08,
        step=0.005,
        label="volatility",
    )
    min_rating: float = param(
        -6.045,
        "Lowest rating, Glicko-2 scale, relative to a new player (INVERSUS Deluxe: 3 new-player deviations below); "
        "also the 0 of Rank Points.",
        valid=Interval(-15.0, 0.0, closed="left"),
        low=-10.0,
        high=-1.0,
        step=0.005,
        label="lowest rating",
    )
    max_rating: float = param(
        6.045,
        "Highest rating, Glicko-2 scale, relative to a new player (INVERSUS Deluxe: 3 new-player deviations above); "
        "also the 10000 of Rank Points.",
        valid=Interval(0.0, 15.0, closed="right"),
        low=1.0,
        high=10.0,
        step=0.005,
        label="highest rating",
    )
    min_deviation: float = param(
        0.175,
        "Smallest deviation, Glicko-2 scale: keeps ratings from stagnating (INVERSUS Deluxe: 0.175, about 30 points).",
        valid=Interval(0.01, 10.0),
        low=0.01,
        high=1.0,
        step=0.005,
        label="lowest deviation",
    )
    min_volatility: float = param(
        0.04,
        "Lowest volatility (INVERSUS Deluxe: 0.04).",
        valid=Interval(1e-4, 1.0),
        low=0.01,
        high=0.06,
        step=0.005,
        label="lowest volatility",
    )
    max_volatility: float = param(
        0.08,
        "Highest volatility (INVERSUS Deluxe: 0.08).",
        valid=Interval(1e-4, 1.0),
        low=0.06,
        high=0.2,
        step=0.005,
        label="highest volatility",
    )
    period_days: float = param(
        14.0,
        "Days in one rating period: before a dated game the deviation grows over the fractional periods since the "
        "player's previous dated game, sqrt(phi^2 + days / period_days x sigma^2), never past a newcomer's (INVERSUS "
        "Deluxe, Glicko2_ApplyInactiveRatingPeriods; Glickman's empty rating period); undated games: none.",
        valid=Interval(1e-3, 1e5),
        low=1.0,
        high=90.0,
        step=1.0,
        label="rating period (days)",
    )
    scale: str = param(
        "glicko",
        "Displayed number: the Glicko rating, or the INVERSUS Deluxe article's player-facing Rank Points (0-10000).",
        choices=("glicko", "rank-points"),
        label="display",
    )
    team_method: str = team_method_param()


# ---------------------------------------------------------------------------- pure maths
def _g(phi: np.ndarray) -> np.ndarray:
    """Glickman step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    return 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def glicko2_period(
    mu: float,
    phi: float,
    sigma: float,
    opp_mu: Sequence[float] | np.ndarray,
    opp_phi: Sequence[float] | np.ndarray,
    scores: Sequence[float] | np.ndarray,
    *,
    tau: float,
    tolerance: float = TOLERANCE,
) -> tuple[float, float, float]:
    """One Glicko-2 rating period for one player, on the Glicko-2 scale (Glickman, steps 3-8).

    ``opp_mu``/``opp_phi`` are the opponents' ratings and deviations before the period and
    ``scores`` the player's results against them (1 win, 0.5 draw, 0 loss).  Returns the new
    ``(mu, phi, sigma)``, unbounded.  With no opponents only the deviation grows (step 6 with
    the old volatility), as Glickman prescribes for a player who did not compete.
    """
    opp_mu = np.asarray(opp_mu, dtype=float)
    opp_phi = np.asarray(opp_phi, dtype=float)
    s = np.asarray(scores, dtype=float)
    if len(s) == 0:
        return mu, math.sqrt(phi * phi + sigma * sigma), sigma
    # Step 3: estimated variance v of the rating from the game outcomes alone.
    g = _g(opp_phi)
    e = 1.0 / (1.0 + np.exp(-g * (mu - opp_mu)))
    v = 1.0 / float(np.sum(g * g * e * (1.0 - e)))
    # Step 4: estimated improvement Delta.
    gain = float(np.sum(g * (s - e)))
    delta = v * gain
    # Step 5: new volatility, root of f(x) = 0 with x = ln(sigma'^2).
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        denom = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * denom * denom) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        # Glickman's bracket search; bounded, since a step below a's precision would never end it.
        for k in range(1, MAX_ITERATIONS):
            if f(a - k * tau) >= 0.0:
                break
        else:
            raise ComputationError("the volatility update finds no bracket (tau is too small for this rating)")
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):  # the Illinois method converges in a handful of steps
        if not abs(big_b - big_a) > tolerance:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    # Step 6: pre-rating-period deviation.
    phi_star2 = phi2 + new_sigma * new_sigma
    # Step 7: new deviation and rating.
    new_phi = 1.0 / math.sqrt(1.0 / phi_star2 + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gain
    return new_mu, new_phi, new_sigma


def inactive_deviation(phi: np.ndarray, sigma: np.ndarray, periods: np.ndarray | float) -> np.ndarray:
    """Deviation after ``periods`` (fractional) empty rating periods: sqrt(phi^2 + t sigma^2) (INVERSUS Deluxe)."""
    return np.sqrt(phi * phi + np.asarray(periods, dtype=float) * sigma * sigma)


def match_scores(ranks: np.ndarray, dnf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise match scores of one game: ``(score, played)`` matrices, row = player.

    ``score[i, j]`` is 1 when ``i`` finished better than ``j``, 0.5 for the same place and 0
    when worse; ``played[i, j]`` is False on the diagonal and between two DNFs (their order
    is unknown, so they play no match).
    """
    r = np.asarray(ranks)
    d = np.asarray(dnf, dtype=bool)
    score = np.where(r[:, None] < r[None, :], 1.0, np.where(r[:, None] == r[None, :], 0.5, 0.0))
    played = ~(d[:, None] & d[None, :])
    np.fill_diagonal(played, False)
    return score, played


def rank_points_step(points: float, target: float, ceiling: float, result: float) -> float:
    """New Rank Points after one game (INVERSUS Deluxe), given the result's sign.

    ``target`` is the remapped lower end of the 99.7% interval after the game, ``ceiling``
    the remapped upper end (both already clamped to 0..10000); ``result`` is positive for a
    win, negative for a loss and 0 for an even result.  See the module docstring.
    """
    step = RANK_POINTS_APPROACH * (target - points)
    step = min(max(step, -RANK_POINTS_MAX_STEP), RANK_POINTS_MAX_STEP)
    if result > 0:
        step = max(step, RANK_POINTS_MIN_STEP)
        limit = max(points, min(ceiling, RANK_POINTS_MAX))
        return min(points + step, limit)
    if result < 0:
        step = min(step, -RANK_POINTS_MIN_STEP)
        return max(points + step, 0.0)
    return min(max(points + step, 0.0), RANK_POINTS_MAX)


def _series(arrays: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The per-player (or per-entry) arrays the kernel reads, in ``Glicko2.extra_series`` order."""
    return arrays["mu"], arrays["sigma"], arrays["volatility"], arrays["points"]


# ---------------------------------------------------------------------------- the system
class Glicko2(RatingSystem):
    """Glicko-2 with each game a rating period, bounded values, inactivity and Rank Points."""

    name = "glicko2"
    title = "Glicko-2 (Rank Points)"
    summary = (
        "Glickman's Glicko-2 with rating, deviation and volatility; each game is a rating period, "
        "deviation grows with inactivity, and player-facing Rank Points track the lower 99.7% bound (INVERSUS Deluxe)."
    )
    scale = "Glicko rating (or Rank Points)"
    Params = Glicko2Params
    extra_series = ("mu", "sigma", "volatility", "points")
    batch_teams = True  # ratings.kernels.glicko2 rates team games
    season_state = ("mu", "sigma", "volatility", "points")  # not last_day: the rating periods go on

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        # The unit depends on a parameter, so the instance label shadows the class one
        # (base.RatingSystem declares ``scale`` a ClassVar, which mypy guards).
        self.scale = "Rank Points (0-10000)" if self.params.scale == "rank-points" else "Glicko rating"  # type: ignore[misc]

    # -------------------------------------------------------------- conversions
    def _to_internal(self, state: State, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = self.params
        mu = (state["mu"][players] - p.initial_rating) / GLICKO_SCALE
        phi = state["sigma"][players] / GLICKO_SCALE
        return mu, phi

    def _points_of(self, internal: np.ndarray) -> np.ndarray:
        """Remap Glicko-2 ratings from [min_rating, max_rating] to [0, 10000], clamped (INVERSUS Deluxe)."""
        p = self.params
        span = p.max_rating - p.min_rating
        return np.clip((internal - p.min_rating) / span * RANK_POINTS_MAX, 0.0, RANK_POINTS_MAX)

    def rank_point_targets(self, state: State, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The remapped lower and upper ends of the 99.7% interval of ``players``."""
        mu, phi = self._to_internal(state, players)
        return (
            self._points_of(mu - CONFIDENCE_SIGMAS * phi),
            self._points_of(mu + CONFIDENCE_SIGMAS * phi),
        )

    # -------------------------------------------------------------- hooks
    def _initial_state(self, n_players: int) -> State:
        p = self.params
        return {
            "mu": np.full(n_players, float(p.initial_rating)),
            "sigma": np.full(n_players, p.initial_deviation * GLICKO_SCALE),
            "volatility": np.full(n_players, float(p.initial_volatility)),
            "points": np.zeros(n_players),
            "last_day": np.full(n_players, np.nan),
        }

    def _prepare(self, state: State, game: GameView) -> None:
        """Grow each participant's deviation over the days since their last dated game (INVERSUS Deluxe)."""
        if game.date is None:
            return
        p = self.params
        players = game.players
        days = idle_days(state["last_day"], players, float(game.date.toordinal()))
        phi = state["sigma"][players] / GLICKO_SCALE
        grown = inactive_deviation(phi, state["volatility"][players], days / p.period_days)
        grown = np.clip(grown, p.min_deviation, p.initial_deviation)
        state["sigma"][players] = grown * GLICKO_SCALE

    def _play(self, state: State, game: GameView) -> None:
        p = self.params
        players = game.players
        mu, phi = self._to_internal(state, players)
        vol = state["volatility"][players]
        n = len(players)
        new_mu, new_phi, new_vol = np.empty(n), np.empty(n), np.empty(n)
        results = np.zeros(n)
        for i, (opp_mu, opp_phi, s) in enumerate(self._matches(game, mu, phi)):
            new_mu[i], new_phi[i], new_vol[i] = glicko2_period(
                float(mu[i]), float(phi[i]), float(vol[i]), opp_mu, opp_phi, s, tau=p.tau
            )
            # Score against the field minus one half; sums of halves are exact in floating point.
            results[i] = float(s.sum()) - 0.5 * len(s) if len(s) else math.nan
        # Bounds (INVERSUS Deluxe, Glicko2_ApplyPlayerBounds).
        new_mu = np.clip(new_mu, p.min_rating, p.max_rating)
        new_phi = np.clip(new_phi, p.min_deviation, p.initial_deviation)
        new_vol = np.clip(new_vol, p.min_volatility, p.max_volatility)
        state["mu"][players] = new_mu * GLICKO_SCALE + p.initial_rating
        state["sigma"][players] = new_phi * GLICKO_SCALE
        state["volatility"][players] = new_vol
        # Rank Points move towards the new lower bound, never against the result.
        lower, upper = self.rank_point_targets(state, players)
        points = state["points"]
        for i, player in enumerate(players):
            if not math.isnan(results[i]):
                points[player] = rank_points_step(
                    float(points[player]), float(lower[i]), float(upper[i]), float(results[i])
                )

    def _matches(
        self, game: GameView, mu: np.ndarray, phi: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each player's matches in one game: the opponents' ratings and deviations (Glicko-2 scale) and scores.

        Free-for-all: every other participant.  Team game: every other team as one virtual opponent, by the
        composite method of design document 002 (``team_method``; :mod:`ratings.systems._teams`), whose deviation
        is that team's mean deviation; teammates play no match.  A partial-play weight enters the teams' means;
        Glickman's rating period has no partial play, so a player's own update does not scale with its weight.
        """
        if game.teams is None:
            score, played = match_scores(game.ranks, game.dnf)
            return [(mu[played[i]], phi[played[i]], score[i, played[i]]) for i in range(len(mu))]
        teams = team_view(game)
        virtual = composite_opponents(mu, teams, self.params.team_method)
        team_phi = strength(phi, teams, "mean")
        score, played = match_scores(teams.ranks, teams.dnf)
        out = []
        for i in range(len(mu)):
            own = teams.of[i]
            against = played[own]
            out.append((virtual[i, against], team_phi[against], score[own, against]))
        return out

    def _replay(self, state: State, replay: Replay) -> None:
        """The whole history in :func:`ratings.kernels.glicko2.replay_glicko2` (every option compiled)."""
        from ratings.kernels.glicko2 import replay_glicko2

        p = self.params
        theta = np.array(
            [
                p.tau,
                p.initial_rating,
                p.initial_deviation,
                p.min_rating,
                p.max_rating,
                p.min_deviation,
                p.min_volatility,
                p.max_volatility,
                p.period_days,
                1.0 if p.scale == "rank-points" else 0.0,
            ]
        )
        replay_glicko2(
            theta,
            replay.games,
            replay.days,
            _series(state),
            state["last_day"],
            replay.before,
            replay.after,
            _series(replay.extras_before),
            _series(replay.extras_after),
            (*replay.teams, p.team_method == "composite opponent"),
        )

    def _display(self, state: State, players: np.ndarray) -> np.ndarray:
        if self.params.scale == "rank-points":
            return state["points"][players].astype(float)
        return state["mu"][players].astype(float)

    def initial_rating(self) -> float:
        return 0.0 if self.params.scale == "rank-points" else float(self.params.initial_rating)

    # -------------------------------------------------------------- predictions
    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Monte Carlo places: skill ~ N(mu, phi^2) plus Gumbel noise (logistic pairwise model)."""
        from ratings.predict import monte_carlo_places  # with scipy's integrators, loaded when first asked for

        idx = np.asarray(players, dtype=int)
        mu, phi = self._to_internal(state, idx)
        n = len(idx)

        def sample(rng: np.random.Generator, count: int) -> np.ndarray:
            skills = mu[None, :] + phi[None, :] * rng.standard_normal((count, n))
            return skills + rng.gumbel(size=(count, n))

        return monte_carlo_places(sample, n)
