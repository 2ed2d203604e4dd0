"""Shared machinery of the single-rating systems (the Elo family and Kerby's models).

Kerby 2025 (Brent Kerby, "Multiplayer generalizations of Elo rating system", expository
note, 2025), sections 5.1-5.2: a fixed-rating dummy player joins every game tied with the
last entrant and is never updated (``dummy_tie``: ``censored``, the default, reads that tie for
the worst rank as an unobserved order, so the players at the bottom and the dummy are ranked
below everyone else but not among themselves; ``draw`` reads it as a shared place); the learning
rate may depend on the rating (piecewise linear through ``eta_knots``/``eta_values``, clamped at
the ends); ratings may be held above a floor.  A system supplies only :meth:`SingleRatingSystem._gradient`, the
direction of the update for one game.

Team games (:mod:`ratings.systems._teams`): the game is rated between its teams, the dummy joining as a team of
its own tied with the last team, and each member moves by its learning rate times its share of its team's
gradient (``team_strength``: the sum or the mean of the members' ratings, Weng and Lin 2011), or, for
multiplayer Elo, against composite opponents (:meth:`SingleRatingSystem._team_gradient`).  A partial-play weight
scales a member's share.

Time and experience (``boost``, ``boost_games``, ``forget_per_day``, ``pull_per_day``; all off by default, and an
undated game has no idle time):

- A learning-rate boost for inexperienced players: a player's step is the learning rate times
  ``1 + boost exp(-n / boost_games)``, ``n`` the player's experience, the number of rated games (two or more
  players) played before.  The smooth form of the rating bodies' provisional rules: FIDE's Rating Regulations give
  a new player K = 40 until 30 games are completed against 20 after (a boost of 1 for 30 games), and the USCF's
  provisional ratings weigh a player's first games more (Glickman and Doan, "The US Chess Rating system", 2020:
  K falls as the effective number of games grows).  The exponential lets the Fit tab's search vary how fast the
  boost fades through one number.
- Experience forgotten while idle: before a dated game ``n`` becomes ``n (1 - forget_per_day)^days``, ``days``
  since the player's previous dated game, so the boost returns after a long absence and fades again over the next
  games: the games-played boost in its days-idle form, the learning-rate counterpart of Glicko's uncertainty that
  grows with time (Glickman, "The Glicko system", 1995; design document 002's inactivity periods).
- A pull toward the initial rating while idle: before a dated game the rating becomes
  ``r0 + (r - r0) (1 - pull_per_day)^days``, an exponential decay toward a newcomer's rating with half-life
  ``ln 2 / -ln(1 - pull_per_day)`` days (about 69 days at 0.01), the shrink toward the mean between seasons of
  FiveThirtyEight's Elo ratings applied in proportion to idle time.  A share per day rather than a half-life, so
  that 0 is "none" and the search can vary it over a finite range.

Both idle rules are applied when the player next plays (before the game's ratings are read: the rating shown
before that game is the pulled one); a season start (:mod:`ratings.seasons`) moves the experience back toward a
newcomer's with the rating.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ratings.base import ComputationError, GameView, RatingRun, RatingSystem, Replay, State, idle_days
from ratings.history import GameHistory
from ratings.params import Declared, Interval, Limit, Rule, computed_limit, param
from ratings.systems._teams import share, strength, team_strength_param, team_view

__all__ = [
    "DUMMY_TIES",
    "DYNAMICS",
    "ETA",
    "KNOT_RULES",
    "RATING",
    "KerbyParams",
    "SingleRatingSystem",
    "anchors_rule",
    "boost_rule",
    "largest_step",
    "step_limits",
    "dummy_tie_param",
    "dynamics_param",
]


#: Valid natural-scale ratings (initial, dummy, floor, knots): performances are compared through
#: ``exp(-r)``, so ratings far past +-100 would only test the floating-point range, not the model.
RATING = Interval(-100.0, 100.0)
#: Valid learning rates of Kerby's models (Thurstonian declares its own, narrower).
ETA = Interval(0.0, 10.0, closed="right")


def _knots_with_values(p: Any) -> bool:
    return (p.eta_knots is None) == (p.eta_values is None)


def _one_value_per_knot(p: Any) -> bool:
    return p.eta_knots is None or p.eta_values is None or len(p.eta_knots) == len(p.eta_values)


def _increasing_knots(p: Any) -> bool:
    knots = p.eta_knots or ()
    return all(b > a for a, b in zip(knots, knots[1:], strict=False))


#: The learning-rate curve's rules, shared by every single-rating system with knots.
KNOT_RULES = (
    Rule(("eta_knots", "eta_values"), _knots_with_values, "eta_knots and eta_values must be given together"),
    Rule(("eta_values", "eta_knots"), _one_value_per_knot, "needs one learning rate per knot"),
    Rule(("eta_knots",), _increasing_knots, "knots must be strictly increasing"),
)


def largest_step(p: Any, rate: str = "eta") -> float:
    """The largest step the parameters ``p`` take: ``(1 + boost)`` times their largest learning rate (each of
    ``eta_values`` where given, else ``rate``), a new player's first game."""
    rates = getattr(p, "eta_values", None) or (getattr(p, rate),)
    return float(max(rates)) * (1.0 + p.boost)


def step_limits(rate: str, highest: Callable[[Any], float]) -> dict[str, Callable[[Any], Limit]]:
    """The limits (:attr:`ratings.params.Rule.limits`) of a rule bounding :func:`largest_step` by
    ``highest(params)`` (infinite where the rule does not apply): the learning rate ``rate`` (unless
    ``eta_values`` replace it) at most ``highest / (1 + boost)``, the boost at most ``highest / rate - 1``."""

    def rate_limit(p: Any) -> Limit:
        top = highest(p)
        if getattr(p, "eta_values", None) or not math.isfinite(top):
            return Limit()
        return computed_limit(high=top / (1.0 + p.boost))

    def boost_limit(p: Any) -> Limit:
        top, rates = highest(p), getattr(p, "eta_values", None) or (getattr(p, rate),)
        fastest = float(max(rates))
        if not math.isfinite(top) or fastest <= 0.0:
            return Limit()
        return computed_limit(high=top / fastest - 1.0)

    return {rate: rate_limit, "boost": boost_limit}


def boost_rule(rate: str, valid: Interval, *, curve: bool = True) -> Rule:
    """The new-player boost may not take the learning rate ``rate`` (each of ``eta_values`` too, where the system
    has them) past the largest its declaration ``valid`` accepts: a boosted first game is still a game the system
    computes (``(1 + boost)`` times the rate is the step of a player's first game).  ``curve``: the system has
    the rating-dependent ``eta_values``."""
    highest = valid.high if valid.high is not None else math.inf

    def holds(p: Any) -> bool:
        return largest_step(p, rate) <= highest

    names = ("boost", rate, "eta_values") if curve else ("boost", rate)
    return Rule(
        names,
        holds,
        f"(1 + boost) x the learning rate must be at most {highest:g}",
        limits=step_limits(rate, lambda p: highest),
    )


#: Widest gap allowed between the initial rating, the dummy and the floor of a Gaussian model (Thurstonian, and
#: pairwise Elo's gaussian pairs): its update for an upset grows with the margin, a first game against anchors far
#: apart moves a rating by about eta x the gap, and play spreads ratings further; each model stops a game whose
#: ratings spread past its own bound (60 and 400 units) with an error.
ANCHOR_SPREAD = 40.0


def anchors_rule(applies: Callable[[Any], bool] = lambda p: True, *, where: str = "") -> Rule:
    """The initial rating, the dummy and the floor (those set) must lie within :data:`ANCHOR_SPREAD` of each other,
    where ``applies(params)``; ``where`` says when, after the rule's text."""

    def holds(p: Any) -> bool:
        anchors = [x for x in (p.initial, p.dummy, p.floor) if x is not None]
        return not applies(p) or max(anchors) - min(anchors) <= ANCHOR_SPREAD

    return Rule(
        ("dummy", "initial", "floor"),
        holds,
        f"the initial rating, the dummy and the floor must lie within {ANCHOR_SPREAD:g} of each other{where}",
    )


#: Values of ``dummy_tie``: the tie between the dummy and the last entrant is an unobserved order
#: (``censored``, the default) or a shared place (``draw``).
DUMMY_TIES = ("censored", "draw")


def dummy_tie_param() -> Any:
    """The ``dummy_tie`` declaration every system with a dummy player carries."""
    return param(
        "censored",
        "How the dummy's tie with the last entrant counts: censored (the order among the players at the "
        "bottom and the dummy is unobserved, so no last place gains) or draw (a shared place).",
        choices=DUMMY_TIES,
        label="dummy's tie",
    )


#: The time and experience rules every single-rating system declares (module docstring), by name: default, help,
#: valid values, slider range and label.
DYNAMICS: dict[str, dict[str, Any]] = {
    "boost": {
        "default": 0.0,
        "help": "Learning-rate boost for inexperienced players: the step is multiplied by 1 + boost x "
        "exp(-games / boost_games), games the rated games played before (FIDE's K = 40 for a new player's first "
        "30 games against 20 later is a boost of 1; the USCF's provisional ratings); 0: none.",
        "valid": Interval(0.0, 10.0),
        "low": 0.0,
        "high": 3.0,
        "step": 0.1,
        "label": "new-player boost",
    },
    "boost_games": {
        "default": 10.0,
        "help": "Games over which the new-player boost fades (by a factor e every boost_games games).",
        "valid": Interval(0.1, 1000.0),
        "low": 1.0,
        "high": 50.0,
        "step": 1.0,
        "label": "boost fades over (games)",
    },
    "forget_per_day": {
        "default": 0.0,
        "help": "Share of a player's game count forgotten per idle day (games x (1 - share)^days before a dated "
        "game), so the new-player boost returns after a long absence (Glicko's uncertainty growth with time, "
        "Glickman 1995, as a learning rate); 0: none.",
        "valid": Interval(0.0, 1.0),
        "low": 0.0,
        "high": 0.05,
        "step": 0.001,
        "label": "experience forgotten per idle day",
    },
    "pull_per_day": {
        "default": 0.0,
        "help": "Share of the way back to the initial rating a rating moves per idle day, applied when the player "
        "next plays: r0 + (r - r0) (1 - share)^days, a half-life of about 0.69 / share days (FiveThirtyEight's "
        "regression to the mean, in proportion to idle time); 0: none.",
        "valid": Interval(0.0, 1.0),
        "low": 0.0,
        "high": 0.05,
        "step": 0.001,
        "label": "pull to initial per idle day",
    },
}


def dynamics_param(name: str) -> Any:
    """The declaration of the time and experience rule ``name`` (:data:`DYNAMICS`), one for every system."""
    spec = DYNAMICS[name]
    return param(
        spec["default"],
        spec["help"],
        valid=spec["valid"],
        low=spec["low"],
        high=spec["high"],
        step=spec["step"],
        label=spec["label"],
        trailing=True,
        time_rule=True,
    )


@dataclass(frozen=True, kw_only=True)
class KerbyParams(Declared):
    """Parameters shared by Kerby's models (Kerby 2025, sections 3.2 and 5)."""

    RULES: ClassVar[tuple[Rule, ...]] = (*KNOT_RULES, boost_rule("eta", ETA))

    eta: float = param(
        0.3,
        "Learning rate: how far one game moves a rating.",
        valid=ETA,
        low=0.01,
        high=2.0,
        step=0.01,
        label="learning rate eta",
    )
    initial: float = param(
        0.0,
        "Rating r0 of a player's first game (natural scale).",
        valid=RATING,
        low=-4.0,
        high=4.0,
        step=0.05,
        label="initial rating r0",
    )
    dummy: float | None = param(
        None,
        "Rating of a never-updated dummy player tied with the last entrant of every game (none: no dummy).",
        valid=RATING,
        low=-4.0,
        high=4.0,
        step=0.05,
        label="dummy rating",
    )
    floor: float | None = param(
        None,
        "Lowest rating a player can fall to (none: no floor).",
        valid=RATING,
        low=-4.0,
        high=4.0,
        step=0.05,
        label="rating floor",
    )
    eta_knots: tuple[float, ...] | None = param(
        None,
        "Ratings at which eta_values apply (piecewise-linear learning rate; replaces eta).",
        valid=RATING,
        label="eta knots",
    )
    eta_values: tuple[float, ...] | None = param(
        None,
        "Learning rates at eta_knots, clamped beyond the ends.",
        valid=Interval(0.0, ETA.high),
        label="eta values",
    )
    dummy_tie: str = dummy_tie_param()
    team_strength: str = team_strength_param()
    boost: float = dynamics_param("boost")
    boost_games: float = dynamics_param("boost_games")
    forget_per_day: float = dynamics_param("forget_per_day")
    pull_per_day: float = dynamics_param("pull_per_day")


class SingleRatingSystem(RatingSystem):
    """A system with one number per player, updated by ``rating += step(rating) * gradient``."""

    scale = "natural scale"
    batch_teams = True  # the compiled loop rates team games (ratings.kernels.single)
    season_state = ("rating", "experience")  # a season start makes players newer again, as it moves the rating

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params.boost > 0.0:
            # each entry's experience before and after its game is reported, so that an explanation of a change
            # (ratings.explain) reads the boosted step the game used; the class's own series are none
            self.extra_series = ("experience",)  # type: ignore[misc]

    def _guarded(self, history: GameHistory, *, per_game: bool, resume: RatingRun | None = None) -> RatingRun:
        try:
            return super()._guarded(history, per_game=per_game, resume=resume)
        except ComputationError as exc:
            summed = getattr(self.params, "team_strength", None) == "sum"
            if exc.game is None or not summed or not history.team_game[exc.game]:
                raise
            # each member moves by the team's gradient (ratings.systems._teams.share): a team of k, k times as far
            reason = (
                f"{exc.reason}; in a team game a summed team strength moves a team of k players k times as far as "
                "one player: team strength mean moves it once"
            )
            raise ComputationError(reason, exc.game, history.games[exc.game].id) from None

    def _initial_state(self, n_players: int) -> State:
        p = self.params
        state = {"rating": np.full(n_players, float(p.initial))}
        if p.boost > 0.0:  # rated games played (fractional once forgotten while idle)
            state["experience"] = np.zeros(n_players)
        if self._idle_rules():  # each player's last dated game (NaN before the first)
            state["last_day"] = np.full(n_players, np.nan)
        return state

    def _idle_rules(self) -> bool:
        """Whether a rule reads the days since a player's previous dated game."""
        p = self.params
        return p.pull_per_day > 0.0 or (p.boost > 0.0 and p.forget_per_day > 0.0)

    def _prepare(self, state: State, game: GameView) -> None:
        """Before a dated game: pull each rating toward the initial one and fade the experience over the idle days.

        Only players idle for a day or more change, so that applying it twice on one day changes nothing (the
        compiled loop applies it before handing a game it declines to the per-game hooks).
        """
        if game.date is None or not self._idle_rules():
            return
        p = self.params
        players = game.players
        days = idle_days(state["last_day"], players, float(game.date.toordinal()))
        idle = players[days > 0.0]
        elapsed = days[days > 0.0]
        if p.pull_per_day > 0.0:
            r0 = float(p.initial)
            state["rating"][idle] = r0 + (state["rating"][idle] - r0) * np.power(1.0 - p.pull_per_day, elapsed)
        if p.boost > 0.0 and p.forget_per_day > 0.0:
            state["experience"][idle] = state["experience"][idle] * np.power(1.0 - p.forget_per_day, elapsed)

    def initial_rating(self) -> float:
        return float(self.params.initial)

    def _with_dummy(self, ratings: np.ndarray, game: GameView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Append the dummy player, tied with the last entrant (same rank; the dummy itself always finishes).

        With ``dummy_tie="censored"`` every player of the worst rank and the dummy are marked as
        censored (the ``dnf`` mask): they rank below every other player, in an unobserved order.
        """
        dummy = getattr(self.params, "dummy", None)
        if dummy is None:
            return ratings, game.ranks, game.dnf
        last = int(np.argmax(game.ranks))
        ranks = np.append(game.ranks, game.ranks[last])
        # The dummy finishes: with a draw, a did-not-finish at the bottom then draws with it (pairwise) or ranks
        # below it (orderings), never better than finishing last would have done (monotone in the result).
        dnf = np.append(game.dnf, False)
        if self._censored_dummy():
            dnf |= ranks == ranks[last]
        return np.append(ratings, float(dummy)), ranks, dnf

    def _censored_dummy(self) -> bool:
        """Whether a dummy plays and its tie for the worst rank is an unobserved order."""
        return getattr(self.params, "dummy", None) is not None and self.params.dummy_tie == "censored"

    def _learning_rate(self) -> float:
        """The constant learning rate (used when no ``eta_knots`` are given)."""
        return float(self.params.eta)

    def _step(self, ratings: np.ndarray, experience: np.ndarray | None = None) -> np.ndarray | float:
        """The learning rate for each participant (rating-dependent when knots are given), times the new-player
        boost ``1 + boost exp(-experience / boost_games)`` when ``experience`` (games played before) is given."""
        knots = getattr(self.params, "eta_knots", None)
        step = np.interp(ratings, knots, self.params.eta_values) if knots is not None else self._learning_rate()
        if experience is not None and self.params.boost > 0.0:
            step = step * (1.0 + self.params.boost * np.exp(-experience / self.params.boost_games))
        return step

    def _play(self, state: State, game: GameView) -> None:
        ratings = state["rating"][game.players]
        if game.teams is None:
            all_ratings, ranks, dnf = self._with_dummy(ratings, game)
            gradient = self._gradient(all_ratings, ranks, dnf)[: len(ratings)]
        else:
            gradient = self._team_gradient(ratings, game)
        boost = self.params.boost
        step = self._step(ratings, state["experience"][game.players] if boost > 0.0 else None)
        updated = ratings + step * gradient
        floor = getattr(self.params, "floor", None)
        if floor is not None:
            updated = np.maximum(updated, floor)
        state["rating"][game.players] = updated
        if boost > 0.0:
            state["experience"][game.players] += 1.0

    def _team_gradient(self, ratings: np.ndarray, game: GameView) -> np.ndarray:
        """Each member's update direction in a team game: the game rated between the teams' strengths (the dummy
        a team of its own), each member taking its share of its team's gradient (Weng and Lin 2011)."""
        how = self.params.team_strength
        teams = team_view(game)
        strengths = strength(ratings, teams, how)
        between = GameView(game.index, np.arange(teams.count), teams.ranks, teams.dnf, game.date)
        all_strengths, ranks, dnf = self._with_dummy(strengths, between)
        team_gradient = self._gradient(all_strengths, ranks, dnf)[: teams.count]
        return share(team_gradient, teams, how)

    def _team_mode(self) -> int:
        """How the compiled loop rates team games (:data:`ratings.kernels.single.SUM` and the like)."""
        from ratings.kernels.single import MEAN, SUM

        return MEAN if self.params.team_strength == "mean" else SUM

    def _kernel(self) -> tuple[int, np.ndarray] | None:
        """This system's gradient kernel in :func:`ratings.kernels.single.replay_single` (its ``kind``)
        and the float parameters ``theta`` it reads, or None (then :meth:`_replay` goes game by game).
        """
        return None

    def _loop_arguments(self) -> tuple[int, np.ndarray, tuple[Any, ...], np.ndarray, int] | None:
        """What :func:`ratings.kernels.single.replay_single` reads of the parameters, or None without a kernel:
        ``(kind, theta, rules, rates, team mode)``.

        Built on the first replay and kept (the parameters never change): a replay calls the loop once per stretch
        between checkpoints (33 times on a history of 2,000 games), and building these took about a third of the
        Python around each call.
        """
        built = self.__dict__.get("_built_loop_arguments", False)
        if built is not False:
            return built
        kernel = self._kernel()
        arguments = None
        if kernel is not None:
            kind, theta = kernel
            p = self.params
            knots = getattr(p, "eta_knots", None)
            values = getattr(p, "eta_values", None)
            dummy = getattr(p, "dummy", None)
            floor = getattr(p, "floor", None)
            rules = (
                self._learning_rate(),
                np.asarray(knots if knots is not None else (), dtype=float),
                np.asarray(values if values is not None else (), dtype=float),
                0.0 if dummy is None else float(dummy),
                dummy is not None,
                0.0 if floor is None else float(floor),
                floor is not None,
                self._censored_dummy(),
            )
            rates = np.array([p.boost, p.boost_games, p.forget_per_day, p.pull_per_day, p.initial], dtype=float)
            arguments = (kind, np.asarray(theta, dtype=float), rules, rates, self._team_mode())
        self.__dict__["_built_loop_arguments"] = arguments
        return arguments

    def _replay(self, state: State, replay: Replay) -> None:
        """The compiled loop, handing each game its gradient kernel declines to the per-game hooks."""
        arguments = self._loop_arguments()
        if arguments is None:
            super()._replay(state, replay)
            return
        from ratings.kernels.single import replay_single

        kind, theta, rules, rates, team_mode = arguments
        idle = self._idle_rules()
        boost = self.params.boost > 0.0
        none = np.empty(0)
        dynamics = (
            replay.days if idle else np.empty(0, dtype=np.int64),
            state["last_day"] if idle else none,
            state["experience"] if boost else none,
            rates,
            replay.extras_before["experience"] if boost else none,
            replay.extras_after["experience"] if boost else none,
        )
        n_games = replay.n_games
        teams = (*replay.teams, team_mode)
        start = 0
        while start < n_games:
            declined = replay_single(
                kind, theta, replay.games, state["rating"], replay.before, replay.after, rules, start, teams, dynamics
            )
            if declined < n_games:
                self._replay_per_game(state, replay, declined, declined + 1)
            start = declined + 1

    @abstractmethod
    def _gradient(self, ratings: np.ndarray, ranks: np.ndarray, dnf: np.ndarray) -> np.ndarray:
        """Update direction for each participant (dummy included) of one game."""
