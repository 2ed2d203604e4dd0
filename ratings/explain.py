"""Why did a rating change?  One player's change in one game, broken down where the system allows it.

Exact per-opponent breakdowns (the terms below sum to the change the replay recorded):

- **Multiplayer Elo** (Cunningham 2021): ``R' = R + K (N-1) (S - E)`` with ``E = sum_i p_i / (N(N-1)/2)`` and
  ``p_i`` the two-player expected score against opponent ``i`` (eq. 4).  With the linear score function,
  ``S (N(N-1)/2)`` is the number of opponents beaten plus half the ties, ``sum_i s_i`` with ``s_i`` 1, 1/2 or 0
  (the mean of the linear scores ``(N-p)/(N(N-1)/2)`` over a tie group of ``t`` players from position ``p`` is
  ``(N - p - (t-1)/2) / (N(N-1)/2)``: ``N-p-t+1`` beaten plus ``(t-1)/2``).  So
  ``K (N-1) (S_lin - E) = sum_i (2K/N) (s_i - p_i)``, one term per opponent.  A score base above 1 adds
  ``K (N-1) (S - S_lin)``, which depends on the place alone, not on any opponent: it is its own term
  ("score-function bonus").  ``p_i`` comes from the system's own ``expected_scores`` on the pair (with two
  players it *is* the pairwise expected score), ``s_i`` from ``pair_scores`` and ``S``, ``S_lin`` from
  ``actual_scores``: no formula is written twice.
- **Pairwise Elo** (Kerby 2025 §3.2.1): the gradient is by definition a sum of pair updates; each is the system's
  own ``pairwise_gradient`` on that pair (divided by ``N-1`` for the average variant), times the learning rate.

Cunningham 2021: Danny Cunningham, "Developing a Generalized Elo Rating System for Multiplayer Games", Towards
Data Science, 2021 (equation numbers are the article's).  Kerby 2025: Brent Kerby, "Multiplayer generalizations of
Elo rating system", expository note, 2025 (section numbers are the note's).

A dummy player (Kerby 2025 §5.1) is one more opponent; a rating floor that stopped a fall is its own term.

Team games: the same exact split holds with one term per *opposing team*, because both exact systems rate a team
game as a game between entrants.  Pairwise Elo rates the teams' strengths (the sum or mean of the members' ratings,
``team_strength``) and hands each member the team's gradient times its share, ``w_i`` or ``w_i / W`` (Weng and Lin
2011, "A Bayesian approximation method for online ranking", JMLR 12); so each opposing team's term is the pair
update between the two strengths times the learning rate and the player's share.  Multiplayer Elo rates each player
against every other team as one virtual opponent (the composite team or composite opponent of design document 002,
``team_method``), times the player's weight; the terms are the free-for-all terms of that virtual field.  Every
system's explanation of a team game also lists the player's teammates with their own changes.

The other systems get no per-opponent split, because their update is not a sum over opponents: Plackett-Luce and
Thurstonian follow the gradient of the likelihood of the whole order (each stage involves every player still in it);
TrueSkill, Glicko-2 and Elo-MMR move a mean and an uncertainty, and the shown number follows a display rule.
For them :func:`explain` says what moved.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ratings.base import GameView, RatingRun
from ratings.io.teams import team_label
from ratings.numerics import signed, without_noise
from ratings.systems import create
from ratings.systems._teams import TeamView, composite_opponents, strength, team_view

__all__ = ["EXACT_SYSTEMS", "Explanation", "Moved", "Term", "explain"]

#: Systems whose change splits exactly into per-opponent terms.
EXACT_SYSTEMS = frozenset({"multielo", "pairwise-elo"})


@dataclass(frozen=True)
class Term:
    """One part of a change: an opponent (``kind="opponent"`` or ``"dummy"``), the score-function bonus, the
    censored dummy's share of the last place (``"censored"``, multiplayer Elo) or the floor.

    ``result`` is ``"ahead"``, ``"behind"``, ``"tie"`` or ``"not compared"`` (two DNFs in pairwise Elo) for an
    opponent; ``expected`` the player's two-player expected score (chance of finishing ahead) against them.
    """

    label: str
    kind: str
    value: float
    result: str = ""
    expected: float | None = None


@dataclass(frozen=True)
class Moved:
    """A quantity of the player's state before and after the game (mean, uncertainty, shown rating...)."""

    name: str
    before: float
    after: float

    @property
    def change(self) -> float:
        """``after - before``, with a difference that is only rounding (:func:`ratings.numerics.without_noise`)
        as 0, as every display shows it."""
        return float(without_noise(self.after - self.before, max(abs(self.before), abs(self.after))))


@dataclass(frozen=True)
class Explanation:
    """A player's change in a game: the exact terms (empty when the system has none) and what moved, in words."""

    player: str
    game: int
    before: float
    after: float
    terms: tuple[Term, ...]
    moved: tuple[Moved, ...]
    notes: tuple[str, ...]
    #: In a team game, the player's teammates' shown ratings before and after (the player's own team, without the
    #: player); empty for a player alone.
    teammates: tuple[Moved, ...] = ()

    @property
    def change(self) -> float:
        return self.after - self.before

    @property
    def exact(self) -> bool:
        return bool(self.terms)


def _result(mine: int, theirs: int) -> str:
    return "ahead" if mine < theirs else "behind" if mine > theirs else "tie"


def explain(run: RatingRun, game: int, player: str) -> Explanation:
    """Why ``player``'s rating changed in game ``game`` of ``run`` (under the run's own system and parameters).

    Raises ``ValueError`` when the player did not take part in that game.
    """
    h = run.history
    if not 0 <= game < h.n_games:
        raise ValueError(f"there is no game {game + 1}")
    s = h.game_slice(game)
    index = h.player_index.get(player)
    where = np.flatnonzero(h.flat_player[s] == index) if index is not None else np.empty(0, dtype=np.int64)
    if len(where) == 0:
        raise ValueError(f"{player} did not play game {game + 1}")
    a = int(where[0])
    before, after = float(run.before[s][a]), float(run.after[s][a])
    system = create(run.system, **dataclasses.asdict(run.params))
    teammates: tuple[Moved, ...] = ()
    team_notes: tuple[str, ...] = ()
    if h.team_game[game]:
        teams = team_view(GameView.of(h, game))
        mates = [j for j in teams.members(int(teams.of[a])) if j != a]
        teammates = tuple(
            Moved(h.players[int(h.flat_player[s][j])], float(run.before[s][j]), float(run.after[s][j])) for j in mates
        )
        team_notes = _team_notes(run, teams, a)
    if run.system in EXACT_SYSTEMS and s.stop - s.start >= 2:
        terms = _pair_terms(run, system, game, a)
        notes = (*team_notes, *_exact_notes(run, system))
        return Explanation(player, game, before, after, terms, (), notes, teammates)
    moved, notes = _what_moved(run, system, game, a)
    return Explanation(player, game, before, after, (), moved, (*team_notes, *notes), teammates)


def _team_names(run: RatingRun, game: int, teams: TeamView) -> list[str]:
    """Each team of ``game`` named by its members (``Ann & Bob``), in team-number order."""
    h = run.history
    s = h.game_slice(game)
    return [team_label([h.players[int(h.flat_player[s][j])] for j in teams.members(u)]) for u in range(teams.count)]


def _share(run: RatingRun, teams: TeamView, a: int) -> float:
    """Entry ``a``'s share of its team's update: ``d strength / d r_a`` for the single-rating models
    (``w_a``, or ``w_a / W`` for the mean), the weight ``w_a`` for the composite methods."""
    if getattr(run.params, "team_strength", None) == "mean":
        return float(teams.weights[a] / teams.totals[teams.of[a]])
    return float(teams.weights[a])


def _team_notes(run: RatingRun, teams: TeamView, a: int) -> tuple[str, ...]:
    """How the system rated this team game, in words (each system's module documents its method and source)."""
    p = run.params
    name = run.system
    own = int(teams.of[a])
    size = len(teams.members(own))
    weight = float(teams.weights[a])
    partial = f" (this player took part in {weight:.0%} of the game)" if weight != 1.0 else ""
    if name in ("plackett-luce", "thurstonian", "pairwise-elo"):
        how = p.team_strength
        part = (
            f"its weighted mean, so each of the {size} players takes {_share(run, teams, a):.3g} of the team's update"
            if how == "mean"
            else "their sum, so each player takes the team's whole update times its weight"
        )
        return (
            f"Team game: each team is one entrant whose strength is its players' ratings combined by {part}"
            f"{partial} (Weng and Lin 2011).",
        )
    if name in ("multielo", "glicko2"):
        if p.team_method == "composite opponent":
            virtual = "that team's mean rating"
        else:
            virtual = "the player's rating plus (that team's mean − the player's own team's mean)"
        return (
            f"Team game ({p.team_method}): the player met each other team as one virtual opponent rated at "
            f"{virtual}; teammates play no match{partial}.",
        )
    if name == "trueskill":
        return (
            "Team game: a team's performance is the sum of its players' performances (Herbrich, Minka and Graepel "
            "2006); each player's mean moves by the team's update in proportion to the player's own variance"
            f"{partial}.",
        )
    if name == "elo-mmr":
        return (
            "Team game: each team is one entrant with its players' pooled (mean) skill and variance; each player is "
            f"then updated as if the team's performance were the player's own{partial}.",
        )
    return ()


def _pair_terms(run: RatingRun, system: object, game: int, a: int) -> tuple[Term, ...]:
    """One term per opponent (per opposing team in a team game), plus the bonus, the censored dummy and the floor."""
    h = run.history
    s = h.game_slice(game)
    players = h.flat_player[s]
    ratings = run.before[s]
    # The system's own dummy and learning rate (private hooks of SingleRatingSystem, called, not copied).
    # (with the new-player boost, the step of each entry's experience before the game, which the run reports)
    experience = run.extras["experience"][0][s] if "experience" in run.extras else None
    step = system._step(ratings, experience)  # type: ignore[attr-defined]
    eta = float(np.broadcast_to(step, ratings.shape)[a])
    if h.team_game[game]:
        # The field the system rated (module docstring): the teams' strengths, or this player's virtual opponents.
        teams = team_view(GameView.of(h, game))
        if run.system == "multielo":
            field = composite_opponents(ratings, teams, run.params.team_method)[a]
        else:
            field = strength(ratings, teams, run.params.team_strength)
        between = GameView(game, np.arange(teams.count), teams.ranks, teams.dnf, h.games[game].date)
        full, ranks, dnf = system._with_dummy(field, between)  # type: ignore[attr-defined]
        names = _team_names(run, game, teams)
        me, factor = int(teams.of[a]), eta * _share(run, teams, a)
    else:
        view = GameView(game, players, h.flat_rank[s], h.flat_dnf[s], h.games[game].date)
        full, ranks, dnf = system._with_dummy(ratings, view)  # type: ignore[attr-defined]
        names = [h.players[p] for p in players]
        me, factor = a, eta
    terms = _field_terms(run, system, full, ranks, dnf, me, factor, names)
    unfloored = ratings[a] + sum(t.value for t in terms)
    floor = getattr(run.params, "floor", None)
    if floor is not None and unfloored < floor:
        terms.append(Term("rating floor", "floor", float(floor - unfloored)))
    return tuple(terms)


def _field_terms(
    run: RatingRun,
    system: object,
    full: np.ndarray,
    ranks: np.ndarray,
    dnf: np.ndarray,
    a: int,
    eta: float,
    names: list[str],
) -> list[Term]:
    """The terms of entrant ``a``'s update in a field of entrants (the dummy, if any, last), times ``eta``."""
    from ratings.numerics import logistic
    from ratings.systems.multielo import actual_scores, censor_last, expected_scores
    from ratings.systems.pairwise import pair_scores, pairwise_gradient

    n = len(full)
    names = names + ["dummy player"] * (n - len(names))
    real = n - (1 if getattr(run.params, "dummy", None) is not None else 0)
    terms: list[Term] = []
    params = run.params
    if run.system == "multielo":
        scores, _ = pair_scores(ranks, dnf)
        for i in range(n):
            if i == a:
                continue
            p = float(expected_scores(np.array([full[a], full[i]]), params.d)[0])
            value = eta * 2.0 / n * (scores[a, i] - p)
            kind = "dummy" if i >= real else "opponent"
            terms.append(Term(names[i], kind, value, _result(int(ranks[a]), int(ranks[i])), p))
        actual = actual_scores(ranks, params.base)
        bonus = eta * (n - 1) * (actual[a] - actual_scores(ranks, 1.0)[a])
        if bonus != 0.0:
            terms.append(Term("score-function bonus", "bonus", float(bonus)))
        if system._censored_dummy():  # type: ignore[attr-defined]
            # The last place's score shared by expected score instead of equally (multielo.censor_last).
            shared = censor_last(actual, expected_scores(full, params.d), ranks)
            if shared[a] != actual[a]:
                terms.append(
                    Term("unobserved order at the bottom", "censored", float(eta * (n - 1) * (shared - actual)[a]))
                )
    else:
        divide = n - 1 if params.variant == "average" else 1
        if params.variant == "average" and params.average_over == "compared":
            divide = int(np.sum(ranks != ranks[a])) or n - 1  # as pairwise_gradient divides
        for i in range(n):
            if i == a:
                continue
            pair = np.array([a, i])
            g = float(pairwise_gradient(full[pair], ranks[pair], dnf[pair], model=params.model, variant="sum")[0])
            compared = not (dnf[a] and dnf[i])
            result = _result(int(ranks[a]), int(ranks[i])) if compared else "not compared"
            # The chance of finishing ahead under the logistic pair model, P(a beats i) = logistic(r_a - r_i) as
            # in pairwise_gradient (the Gaussian model's is not shown).
            chance = float(logistic(full[a] - full[i])) if params.model == "logistic" else None
            kind = "dummy" if i >= real else "opponent"
            terms.append(Term(names[i], kind, eta * g / divide, result, chance))
    return terms


def _exact_notes(run: RatingRun, system: object) -> tuple[str, ...]:
    p = run.params
    if run.system == "multielo":
        notes = [
            f"Each opponent: 2K/N × (result − expected), with K = {p.k:g}, result 1 if finished ahead, ½ for a tie, "
            "0 if behind, and expected the chance of finishing ahead of them by the rating gap.",
        ]
        if p.base != 1.0:
            notes.append(
                f"The score base {p.base:g} rewards top places more: the bonus is what the place earns beyond "
                "the linear score, whoever the opponents were."
            )
    else:
        update = (
            "result − chance ahead (1, ½ or 0 minus the logistic chance)"
            if p.model == "logistic"
            else "the Gaussian pair update (the slope of the normal likelihood of the pair's result)"
        )
        combine = "summed"
        if p.variant == "average":
            combine = (
                "averaged over the opponents with another place"
                if p.average_over == "compared"
                else ("averaged over the N−1 opponents")
            )
        notes = [f"Each opponent: η × {update}; pair updates {combine}; two DNFs are not compared."]
    if getattr(p, "dummy", None) is not None:
        notes.append("The dummy player is a never-updated opponent tied with the last place.")
        if p.dummy_tie == "censored":
            notes.append(
                "Its tie with the last place is an unobserved order: nobody at the bottom is credited with it."
            )
    notes.append("The rows sum exactly to the change.")
    return tuple(notes)


def _what_moved(run: RatingRun, system: object, game: int, a: int) -> tuple[tuple[Moved, ...], tuple[str, ...]]:
    s = run.history.game_slice(game)
    k = s.start + a
    moved = [Moved(name, float(b[k]), float(e[k])) for name, (b, e) in run.extras.items()]
    shown = Moved("shown rating", float(run.before[k]), float(run.after[k]))
    changes = {m.name: m.change for m in moved}
    p = run.params
    name = run.system
    if name in ("plackett-luce", "thurstonian"):
        model = "Plackett-Luce" if name == "plackett-luce" else "Thurstonian (Gaussian)"
        notes: tuple[str, ...] = (
            f"The rating moved by the learning rate times the gradient of the {model} likelihood of the whole "
            "finishing order. That gradient is not a sum of one term per opponent (each step of the order weighs "
            "every player still in it), so no per-opponent split is shown.",
        )
        return (shown,), notes
    if name == "trueskill":
        d_mu, d_sigma = changes["mu"], changes["sigma"]
        notes = (
            f"Shown rating = mean − {p.display_k:g} × uncertainty (mu − {p.display_k:g} sigma). The mean moved by "
            f"{signed(d_mu)} and the uncertainty by {signed(d_sigma)}, so the shown rating moved by {signed(d_mu)} − "
            f"{p.display_k:g} × ({signed(d_sigma)}) = {signed(d_mu - p.display_k * d_sigma)}.",
            "TrueSkill updates the whole field at once (a factor graph over the finishing order): "
            "no per-opponent split.",
        )
        return (*moved, shown), notes
    if name == "elo-mmr":
        d_mu, d_sigma = changes["mu"], changes["sigma"]
        notes = (
            f"Shown rating = mean − {p.display_k:g} × (uncertainty − {p.sigma_limit:g}). The mean moved by "
            f"{signed(d_mu)} and the uncertainty by {signed(d_sigma)}"
            + (f", so the shown rating moved by {signed(d_mu - p.display_k * d_sigma)}." if p.display_k else "."),
            "Elo-MMR finds the performance that best explains the whole order, then updates the mean: "
            "no per-opponent split.",
        )
        return (*moved, shown), notes
    if name == "glicko2":
        if p.scale == "rank-points":
            rule = (
                "Shown: Rank Points, which step halfway towards the lower end of the 99.7% interval (mean − 3 "
                "deviations, remapped to 0-10000), by at most 500, and never against the game's result."
            )
        else:
            rule = "Shown: the Glicko rating (the mean)."
        notes = (
            rule,
            "Glicko-2 moves the mean by the deviation-weighted results against the field, and the deviation "
            "(uncertainty) and volatility with it; the bounds and the display rule are applied after.",
        )
        return (*moved, shown), notes
    return (shown,), ("No breakdown is available for this system.",)
