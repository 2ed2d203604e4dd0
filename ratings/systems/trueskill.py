"""TrueSkill for free-for-all games, as racetime.gg runs it (Kerby 2025, sections 2 and 5).

Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note,
2025 (section numbers are the note's).

Each player has a skill belief N(mu, sigma^2) (Herbrich, Minka and Graepel, "TrueSkill: A Bayesian skill rating
system", NIPS 2006).  A game's performances are skill plus N(0, beta^2) noise; the observed order
says that each player outperformed the next by more than a draw margin, or, for a tie, that
the two performances were within the margin.  The posterior is computed by expectation
propagation on the factor graph in :mod:`ratings.systems._factor_graph`, with the schedule and
stopping rule of the Python ``trueskill`` package, so the ratings agree with that package
(which racetime.gg uses with default settings) to about 1e-9.

In a free-for-all game every player is a one-player team.  In a team game a team's performance is the sum of its
players' performances, each times its weight (partial play), as in the paper's section 2 and the ``trueskill``
package's ``rate(..., weights=...)`` (which raises a weight below its ``min_delta`` to ``min_delta``, as here):
:func:`ratings.systems._factor_graph.team_game`; a tie between teams is a draw, with the package's draw margin
for the two teams' player count.  Did-not-finish entries are tied for last, as on racetime.gg
(so among themselves they count as draws: Kerby 2025, section 4 explains why that makes a DNF
gain points); ties among finishers are draws.  The displayed rating is the lower confidence
bound ``mu - k sigma`` with k = 2 by default (Kerby 2025, section 2).

Time between games (``tau_day``, off by default).  The paper's dynamics factor adds ``tau^2`` to every
participant's variance before each game; with dated games ``tau_day`` adds ``days x tau_day^2`` more, ``days``
being the time since the player's previous dated game (skill as a random walk in time, the drift TrueSkill 2
models: Minka, Cleven and Zaykov, "TrueSkill 2: An improved Bayesian skill rating system", Microsoft Research
technical report MSR-TR-2018-8).  The grown sigma never passes a newcomer's (or the player's own, if above it),
as Glickman's Glicko caps the deviation that grows with time at the new-player deviation ("The Glicko system",
1995: ``RD = min(sqrt(RD^2 + c^2 t), 350)``).  The growth is applied before the game's ratings are read, so the
rating shown before the game already carries it.  An undated game, and a player's first dated game, add none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings.base import GameView, RatingRun, RatingSystem, Replay, State, idle_days
from ratings.history import GameHistory
from ratings.params import Declared, Interval, Rule, computed_limit, param
from ratings.systems._factor_graph import MAX_SWEEPS, MIN_DELTA, draw_margin, free_for_all, ppf, team_game
from ratings.systems._teams import team_view

__all__ = ["TrueSkill", "TrueSkillParams"]


#: How far the skill uncertainty sigma and the dynamics tau may exceed the performance noise beta.
SPREAD_OF_SCALES = 100.0


@dataclass(frozen=True, kw_only=True)
class TrueSkillParams(Declared):
    # With no draw margin (draw_probability 0: a tie, or two DNFs, means equal performances) and sigma or tau
    # far above beta, the factor graph divided by a zero-width message (a negative precision, a math domain
    # error): sigma 2.5e6 x beta on a random history, sigma 745 x beta and tau 3.5e6 x beta on the racing
    # sample.  At 100 x beta no run failed (750 runs with draw probability 0 at that edge, contract sweeps).
    RULES = (
        Rule(
            ("sigma", "beta"),
            lambda p: p.beta / 1e3 <= p.sigma <= SPREAD_OF_SCALES * p.beta,
            f"must lie between beta / 1000 and {SPREAD_OF_SCALES:g} x beta",
            limits={
                "sigma": lambda p: computed_limit(p.beta / 1e3, SPREAD_OF_SCALES * p.beta),
                "beta": lambda p: computed_limit(p.sigma / SPREAD_OF_SCALES, p.sigma * 1e3),
            },
        ),
        Rule(
            ("tau", "beta"),
            lambda p: p.tau <= SPREAD_OF_SCALES * p.beta,
            f"must be at most {SPREAD_OF_SCALES:g} x beta",
            limits={
                "tau": lambda p: computed_limit(high=SPREAD_OF_SCALES * p.beta),
                "beta": lambda p: computed_limit(p.tau / SPREAD_OF_SCALES),
            },
        ),
    )

    mu: float = param(
        25.0,
        "Mean skill mu of a new player.",
        valid=Interval(-1e6, 1e6),
        low=0.0,
        high=50.0,
        step=0.5,
        label="initial mu",
    )
    sigma: float = param(
        25.0 / 3.0,
        "Initial uncertainty sigma of a new player's skill: larger means bigger swings in the first games.",
        valid=Interval(1e-3, 1e4),
        low=0.5,
        high=20.0,
        step=0.1,
        label="initial sigma",
    )
    beta: float = param(
        25.0 / 6.0,
        "Performance noise beta: the skill gap that gives the stronger of two players about a 76% chance to win.",
        valid=Interval(1e-3, 1e4),
        low=0.5,
        high=15.0,
        step=0.1,
        label="beta",
    )
    tau: float = param(
        25.0 / 300.0,
        "Dynamics tau: uncertainty added before every game, so sigma never settles below a floor.",
        valid=Interval(0.0, 1e4),
        low=0.0,
        high=1.0,
        step=0.005,
        label="tau",
    )
    draw_probability: float = param(
        0.1,
        "Prior chance that two equal players draw; sets the draw margin (ties and DNFs are draws).",
        valid=Interval(0.0, 0.99),
        low=0.0,
        high=0.5,
        step=0.01,
        label="draw probability",
    )
    display_k: float = param(
        2.0,
        "Shown rating is mu - k sigma (racetime.gg uses k = 2; 0 shows the mean skill).",
        valid=Interval(0.0, 10.0),
        low=0.0,
        high=3.0,
        step=0.1,
        label="k in mu - k sigma",
    )
    tau_day: float = param(
        0.0,
        "Dynamics per idle day: before a dated game sigma^2 grows by days x tau_day^2 since the player's previous "
        "dated game, on top of the per-game tau, never past a newcomer's sigma (Herbrich, Minka and Graepel 2006's "
        "dynamics factor per elapsed time, as TrueSkill 2, Minka, Cleven and Zaykov 2018, grows skill variance with "
        "time; the cap is Glickman's Glicko rule); 0: none; undated games: none.",
        valid=Interval(0.0, 1e4),
        low=0.0,
        high=1.0,
        step=0.01,
        label="tau per idle day",
        time_rule=True,
    )


class TrueSkill(RatingSystem):
    """TrueSkill (Herbrich, Minka and Graepel 2006), free-for-all, each player a team of one."""

    name = "trueskill"
    title = "TrueSkill"
    summary = (
        "Microsoft's Bayesian rating: a mean and an uncertainty per player, shown as mu - 2 sigma "
        "(as racetime.gg does); DNFs are tied for last."
    )
    scale = "TrueSkill (mu - 2 sigma)"
    Params = TrueSkillParams
    extra_series = ("mu", "sigma")
    batch_teams = True  # ratings.kernels.trueskill rates team games
    season_state = ("mu", "sigma")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        #: The draw margin between two one-player teams (package convention: sqrt(2) beta Phi^-1((P+1)/2)).
        self.margin = draw_margin(p.draw_probability, p.beta)

    def _run(self, history: GameHistory, *, per_game: bool, resume: RatingRun | None = None) -> RatingRun:
        """Replay ``history``; the run's scale label names the k actually used in mu - k sigma."""
        run = super()._run(history, per_game=per_game, resume=resume)
        k = self.params.display_k
        if k == 2.0:
            return run
        return dataclasses.replace(run, scale="TrueSkill (mu)" if k == 0 else f"TrueSkill (mu - {k:g} sigma)")

    def _initial_state(self, n_players: int) -> State:
        state = {"mu": np.full(n_players, float(self.params.mu)), "sigma": np.full(n_players, float(self.params.sigma))}
        if self.params.tau_day > 0.0:  # each player's last dated game (NaN before the first), for tau_day
            state["last_day"] = np.full(n_players, np.nan)
        return state

    def _prepare(self, state: State, game: GameView) -> None:
        """Grow each participant's sigma over the days since their previous dated game (``tau_day``)."""
        tau_day = self.params.tau_day
        if tau_day == 0.0 or game.date is None:
            return
        players = game.players
        days = idle_days(state["last_day"], players, float(game.date.toordinal()))
        sigma = state["sigma"][players]
        grown = np.sqrt(sigma * sigma + days * (tau_day * tau_day))
        state["sigma"][players] = np.minimum(grown, np.maximum(sigma, float(self.params.sigma)))

    def _display(self, state: State, players: np.ndarray) -> np.ndarray:
        return state["mu"][players] - self.params.display_k * state["sigma"][players]

    def initial_rating(self) -> float:
        return float(self.params.mu - self.params.display_k * self.params.sigma)

    def _replay(self, state: State, replay: Replay) -> None:
        """The whole history in :func:`ratings.kernels.trueskill.replay_trueskill` (every option compiled)."""
        from ratings.kernels.trueskill import replay_trueskill

        p = self.params
        unit = abs(ppf((p.draw_probability + 1.0) / 2.0))  # draw_margin's factor: unit sqrt(players) beta
        idle = p.tau_day > 0.0
        theta = [p.beta, p.tau, self.margin, p.display_k, MIN_DELTA, MAX_SWEEPS, 2.0, unit, p.tau_day, p.sigma]
        replay_trueskill(
            np.array(theta, dtype=float),
            replay.games,
            state["mu"],
            state["sigma"],
            replay.before,
            replay.after,
            (replay.extras_before["mu"], replay.extras_before["sigma"]),
            (replay.extras_after["mu"], replay.extras_after["sigma"]),
            replay.teams,
            (
                replay.days if idle else np.empty(0, dtype=np.int64),
                state["last_day"] if idle else np.empty(0),
            ),
        )

    def _play(self, state: State, game: GameView) -> None:
        if game.teams is not None:
            self._play_teams(state, game)
            return
        # Best first; a stable sort keeps tied players in their entry order, as the package does
        # (the order inside a tie slightly changes the result: see the module docstring of _factor_graph).
        order = np.argsort(game.ranks, kind="stable")
        players = game.players[order]
        ranks = game.ranks[order]
        p = self.params
        mu, sigma = free_for_all(
            state["mu"][players].tolist(),
            state["sigma"][players].tolist(),
            (ranks[1:] == ranks[:-1]).tolist(),
            beta=p.beta,
            tau=p.tau,
            margin=self.margin,
            min_delta=MIN_DELTA,
        )
        state["mu"][players] = mu
        state["sigma"][players] = sigma

    def _play_teams(self, state: State, game: GameView) -> None:
        """A game between teams: teams best first (a stable sort: tied teams keep their order in the game, as the
        package keeps the order of its rating groups), players in game order inside a team."""
        teams = team_view(game)
        order = np.argsort(teams.ranks, kind="stable")
        members = [teams.members(int(t)) for t in order]
        entries = np.concatenate(members)
        players = game.players[entries]
        sizes = [len(m) for m in members]
        ranks = teams.ranks[order]
        p = self.params
        margins = [draw_margin(p.draw_probability, p.beta, a + b) for a, b in zip(sizes, sizes[1:], strict=False)]
        mu, sigma = team_game(
            state["mu"][players].tolist(),
            state["sigma"][players].tolist(),
            sizes,
            [max(MIN_DELTA, float(w)) for w in teams.weights[entries]],
            (ranks[1:] == ranks[:-1]).tolist(),
            beta=p.beta,
            tau=p.tau,
            margins=margins,
            min_delta=MIN_DELTA,
        )
        state["mu"][players] = mu
        state["sigma"][players] = sigma

    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Monte Carlo over performances N(mu, sigma^2 + beta^2), fixed seed."""
        from ratings.predict import monte_carlo_places  # with scipy's integrators, loaded when first asked for

        index = np.asarray(players, dtype=int)
        mean = state["mu"][index]
        spread = np.sqrt(state["sigma"][index] ** 2 + self.params.beta**2)

        def sample(rng: np.random.Generator, count: int) -> np.ndarray:
            return mean + spread * rng.standard_normal((count, len(index)))

        return monte_carlo_places(sample, len(index))
