"""The one interface every rating system implements, and the result it produces.

The public :meth:`RatingSystem.rate` owns replaying a whole history, bookkeeping and the
shape of the result; a system supplies only private hooks: the initial state of every
player, the per-game update and the displayed rating.  The shape follows scipy.stats,
where a public method validates and a private ``_pdf`` computes.
"""

from __future__ import annotations

import contextvars
import dataclasses
import datetime as dt
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ratings.history import GameHistory
from ratings.params import ParamSpec, build, specs
from ratings.seasons import season_starts

if TYPE_CHECKING:
    import pandas as pd  # imported where a frame is made: a replay needs no pandas

__all__ = [
    "NO_DATE",
    "Checkpoint",
    "ComputationError",
    "GameView",
    "RatingRun",
    "RatingSystem",
    "Replay",
    "State",
    "checkpoint_spacing",
    "idle_days",
    "shared_prefix",
]


class ComputationError(ArithmeticError):
    """Valid settings under which a history yields no finite ratings (updates that diverge or overflow).

    ``game`` is the index of the game where it happened, when known; the message says what and where.
    """

    def __init__(self, reason: str, game: int | None = None, label: str = "") -> None:
        self.reason = reason
        self.game = game
        named = f" ('{label}')" if label and label != str(game + 1 if game is not None else "") else ""
        where = f" at game {game + 1}{named}" if game is not None else ""
        super().__init__(f"the ratings cannot be computed{where}: {reason}")


#: A system's per-player state: named float arrays of length ``n_players``.
State = dict[str, np.ndarray]

#: The day number of an undated game in :attr:`Replay.days` (real dates are proleptic ordinals, >= 1).
NO_DATE = -1


def idle_days(last_day: np.ndarray, players: np.ndarray, today: float) -> np.ndarray:
    """Days from each of ``players``' previous dated game to ``today`` (a day number), never negative, 0 before
    their first dated game; records ``today`` as their last (``last_day``: per player, NaN before the first).

    The one rule of "time between games" that every time-aware rule reads (Glicko-2's rating periods, TrueSkill's
    ``tau_day``, Elo-MMR's ``drift_per_day``, the single-rating systems' idle rules); each compiled kernel repeats it
    in its loop (``ratings.kernels.numerics.idle_days`` for the newer ones).
    """
    last = last_day[players]
    days = np.where(np.isnan(last), 0.0, np.maximum(today - last, 0.0))
    last_day[players] = today
    return days


@dataclass(frozen=True)
class GameView:
    """One game as a system's update hook sees it (arrays are read-only views).

    ``players`` index the state arrays; ``ranks`` are dense, 0 = best, and every DNF
    shares the rank after the last finisher; ``dnf`` marks did-not-finish.  In a team game
    (:attr:`GameHistory.team_game`) ``teams`` numbers each entry's team (0, 1, ...; teammates share
    their rank) and ``weights`` gives each entry's share of the game; both are None in a free-for-all
    game, which every system rates exactly as before teams existed.
    """

    index: int
    players: np.ndarray
    ranks: np.ndarray
    dnf: np.ndarray
    date: dt.date | None
    teams: np.ndarray | None = None
    weights: np.ndarray | None = None

    @classmethod
    def of(cls, history: GameHistory, g: int, players: np.ndarray | None = None) -> GameView:
        """Game ``g`` of ``history`` (with its teams when it is a team game); ``players`` replaces its players."""
        s = history.game_slice(g)
        team = bool(history.team_game[g])
        return cls(
            g,
            history.flat_player[s] if players is None else players,
            history.flat_rank[s],
            history.flat_dnf[s],
            history.games[g].date,
            history.flat_team[s] if team else None,
            history.flat_weight[s] if team else None,
        )

    @property
    def size(self) -> int:
        return len(self.players)


@dataclass(frozen=True, eq=False)
class Replay:
    """What a batch replay reads and fills: a history's flat arrays and the per-entry outputs.

    Read: ``offsets`` (game ``g`` is entries ``offsets[g]:offsets[g+1]``), ``players``,
    ``ranks`` (dense, 0 = best, every DNF one rank below the last finisher), ``dnf`` and
    ``days`` (one per game: ``date.toordinal()``, or :data:`NO_DATE`).  Filled: ``before``
    and ``after`` (the displayed rating of every entry around its game) and, for every name
    in the system's ``extra_series``, ``extras_before[name]`` and ``extras_after[name]``.
    """

    history: GameHistory
    offsets: np.ndarray
    players: np.ndarray
    ranks: np.ndarray
    dnf: np.ndarray
    before: np.ndarray
    after: np.ndarray
    extras_before: dict[str, np.ndarray]
    extras_after: dict[str, np.ndarray]
    #: The history's index of this replay's first game (a :meth:`window` of a whole replay starts later).
    first: int = 0
    #: The whole replay a :meth:`window` is part of.
    whole: Replay | None = None

    @property
    def n_games(self) -> int:
        return len(self.offsets) - 1

    @property
    def games(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The flat arrays a kernel reads the games from: ``(offsets, players, ranks, dnf)``."""
        return self.offsets, self.players, self.ranks, self.dnf

    @property
    def teams(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The history's team arrays as a kernel reads them: each of this replay's games' ``team_game`` flag, and
        every entry's ``flat_team`` and ``flat_weight`` (indexed, as ``players`` is, through ``offsets``)."""
        history = self.history
        return history.team_game[self.first : self.first + self.n_games], history.flat_team, history.flat_weight

    @functools.cached_property
    def days(self) -> np.ndarray:
        """Day number of every game (computed on first use: only dated systems read it)."""
        if self.whole is not None:
            return self.whole.days[self.first : self.first + self.n_games]
        dates = self.history.dates
        return np.array([NO_DATE if d is None else d.toordinal() for d in dates], dtype=np.int64)

    def window(self, start: int, stop: int) -> Replay:
        """Games ``start`` to ``stop`` of this (whole) replay: the same flat arrays, offsets cut to those games.

        A batch hook replays a window exactly as it replays a whole history (offsets index the flat arrays).
        """
        whole = self if self.whole is None else self.whole
        return Replay(
            self.history,
            self.offsets[start : stop + 1],
            self.players,
            self.ranks,
            self.dnf,
            self.before,
            self.after,
            self.extras_before,
            self.extras_after,
            self.first + start,
            whole,
        )

    @classmethod
    def of(cls, history: GameHistory, extra_series: Sequence[str]) -> Replay:
        """Input arrays of ``history`` and empty outputs for it."""
        n_entries = int(history.offsets[-1]) if len(history.offsets) else 0
        return cls(
            history=history,
            offsets=np.asarray(history.offsets, dtype=np.int64),
            players=history.flat_player,
            ranks=history.flat_rank,
            dnf=history.flat_dnf,
            before=np.empty(n_entries),
            after=np.empty(n_entries),
            extras_before={k: np.empty(n_entries) for k in extra_series},
            extras_after={k: np.empty(n_entries) for k in extra_series},
        )


@dataclass(frozen=True, eq=False)
class Checkpoint:
    """The full per-player state before game ``game`` of a replay (a copy: never changed afterwards)."""

    game: int
    state: State

    @functools.cached_property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.state.values())


#: Games between two checkpoints: at least this many ...
CHECKPOINT_MIN_SPACING = 64
#: The ``progress`` of the :meth:`RatingSystem.rate` call running in this thread (a context variable, so that the
#: systems' own ``_run`` overrides pass it on without naming it).
_PROGRESS: contextvars.ContextVar[Callable[[int, int], None] | None] = contextvars.ContextVar(
    "ratings_progress", default=None
)
#: ... and at most about this many checkpoints per run, ...
CHECKPOINT_COUNT = 32
#: ... and as many games as hold this many results on average: on a small history a stretch between checkpoints
#: costs more in Python and dispatch around its kernel call (about 9 us: the kernel's time for some 130 results of
#: multiplayer Elo) than a resume from its checkpoint saves (at most one stretch's replay), ...
CHECKPOINT_MIN_RESULTS = 2048
#: ... holding at most this many bytes of state per run (the earliest are dropped first): runs are memoised
#: (``sources.runs`` keeps 64 per process), so a run's checkpoints must stay small beside its own arrays.
CHECKPOINT_BYTES = 8_000_000


def checkpoint_spacing(history: GameHistory) -> int:
    """Games between two checkpoints of a replay of ``history`` (and so the most games a resume replays before
    the edit, or a failing kernel hands the per-game hooks after an exception)."""
    n = history.n_games
    entries = int(history.offsets[-1]) if n else 0
    by_results = -(-CHECKPOINT_MIN_RESULTS * n // entries) if entries else 0
    return max(CHECKPOINT_MIN_SPACING, -(-n // CHECKPOINT_COUNT), by_results)


def shared_prefix(a: GameHistory, b: GameHistory) -> int:
    """The number of games ``a`` and ``b`` share from the start, as a replay sees them.

    Two games are the same when they have the same players in the same order with the same dense ranks,
    did-not-finish flags, teams, weights and date (ids and places written differently but ranking alike do not matter).
    Players are numbered by first appearance, so over a shared prefix both histories number them alike.
    """
    m = min(a.n_games, b.n_games)
    if m == 0:
        return 0
    differs = np.flatnonzero(a.offsets[1 : m + 1] != b.offsets[1 : m + 1])
    m = int(differs[0]) if len(differs) else m  # games before the first of another size
    e = int(a.offsets[m])
    bad = (a.flat_player[:e] != b.flat_player[:e]) | (a.flat_rank[:e] != b.flat_rank[:e])
    bad |= a.flat_dnf[:e] != b.flat_dnf[:e]
    # Teams and partial play (a free-for-all game numbers each entry its own team, weight 1).
    bad |= (a.flat_team[:e] != b.flat_team[:e]) | (a.flat_weight[:e] != b.flat_weight[:e])
    # Two new players at the same entry get the same number: compare the names the numbers stand for.
    k = min(a.n_players, b.n_players)
    renamed = [i for i in range(k) if a.players[i] != b.players[i]][:1]
    if renamed:
        bad |= a.flat_player[:e] == renamed[0]
    first = np.flatnonzero(bad)
    if len(first):
        m = int(a.flat_game[first[0]])
    dates_a, dates_b = a.dates, b.dates
    for g in range(m):
        if dates_a[g] != dates_b[g]:
            return g
    return m


@dataclass(frozen=True, eq=False)
class RatingRun:
    """The result of replaying a history: every rating before and after every game.

    ``before`` and ``after`` are aligned with the history's flat arrays (one value per
    participant of each game).  ``extras`` holds further per-entry series a system
    reports (for example ``mu`` and ``sigma``) as ``(before, after)`` pairs, and
    ``final_extras`` their final per-player values.
    """

    system: str
    params: Any
    history: GameHistory
    before: np.ndarray
    after: np.ndarray
    final: np.ndarray
    initial: float
    scale: str
    extras: Mapping[str, tuple[np.ndarray, np.ndarray]] = dataclasses.field(default_factory=dict)
    final_extras: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)
    #: The system's full per-player state after the last game (for predictions).
    state: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)
    #: States kept during the replay, so that a history sharing its first games with this one resumes
    #: (``RatingSystem.rate(..., resume=run)``); empty for a run read back from elsewhere.
    checkpoints: tuple[Checkpoint, ...] = ()

    # -------------------------------------------------------------- per entry
    @property
    def change(self) -> np.ndarray:
        """Rating change of every participant of every game (flat layout)."""
        return self.after - self.before

    # -------------------------------------------------------------- per player
    @property
    def players(self) -> tuple[str, ...]:
        return self.history.players

    @property
    def games_played(self) -> np.ndarray:
        return np.bincount(self.history.flat_player, minlength=self.history.n_players)

    @property
    def wins(self) -> np.ndarray:
        """Games in which the player had the best place (shared firsts count)."""
        h = self.history
        first = (h.flat_rank == 0) & ~h.flat_dnf
        return np.bincount(h.flat_player[first], minlength=h.n_players)

    @property
    def average_place(self) -> np.ndarray:
        """Mean finishing position; a DNF counts as the position after the last finisher.

        Positions are competition style (a tie for first followed by 3rd), computed
        from the dense ranks so that 1, 1, 2 and 1, 1, 3 give the same result.
        """
        h = self.history
        positions = self.positions()
        total = np.bincount(h.flat_player, weights=positions, minlength=h.n_players)
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / self.games_played

    def positions(self) -> np.ndarray:
        """Competition-style position of every entry (1 + number of players strictly ahead)."""
        return self.history.flat_position.astype(float)

    def last_change(self) -> np.ndarray:
        """Each player's rating change in their most recent game."""
        h = self.history
        out = np.zeros(h.n_players)
        change = self.change
        out[h.flat_player] = change  # later entries overwrite earlier ones
        return out

    def leaderboard(self) -> pd.DataFrame:
        """One row per player, highest rating first."""
        import pandas as pd

        table = pd.DataFrame(
            {
                "player": list(self.players),
                "rating": self.final,
                "games": self.games_played,
                "wins": self.wins,
                "average_place": self.average_place,
                "last_change": self.last_change(),
            }
        )
        for name, values in self.final_extras.items():
            table[name] = values
        table = table.sort_values(["rating", "player"], ascending=[False, True], kind="stable")
        table.insert(0, "rank", np.arange(1, len(table) + 1))
        return table.reset_index(drop=True)

    def trajectory(self) -> pd.DataFrame:
        """Long table: one row per participant of every game, with ratings before and after (and ``team`` and
        ``weight`` when the history names teams)."""
        import pandas as pd

        h = self.history
        game_index = h.game_of_entry()
        frame = pd.DataFrame(
            {
                "game_index": game_index,
                "game": [h.games[g].id for g in game_index],
                "date": [h.games[g].date for g in game_index],
                "player": [h.players[p] for p in h.flat_player],
                "place": np.where(h.flat_dnf, np.nan, h.flat_place.astype(float)),
                "position": self.positions(),
                "dnf": h.flat_dnf,
                "before": self.before,
                "after": self.after,
                "change": self.change,
            }
        )
        if h.labels_teams:  # each entry's team as written (blank: a team of one) and weight
            frame.insert(5, "team", [e.team or "" for g in h.games for e in g.entries])
            frame.insert(6, "weight", h.flat_weight)
        for name, (before, after) in self.extras.items():
            frame[f"{name}_before"] = before
            frame[f"{name}_after"] = after
        return frame

    def ratings_before(self, g: int) -> dict[str, float]:
        """Ratings of game ``g``'s participants as they stood before it."""
        s = self.history.game_slice(g)
        return {self.players[p]: float(r) for p, r in zip(self.history.flat_player[s], self.before[s], strict=True)}


def _cap(checkpoints: list[Checkpoint]) -> None:
    """Drop the earliest checkpoints until the rest hold at most :data:`CHECKPOINT_BYTES`."""
    total = sum(c.nbytes for c in checkpoints)
    while checkpoints and total > CHECKPOINT_BYTES:
        total -= checkpoints.pop(0).nbytes


def _first_not_finite(out: Replay, start: int, stop: int) -> int | None:
    """The first of games ``start`` to ``stop`` of the whole replay ``out`` with a rating before or after it that is
    not finite (None if there is none)."""
    if stop <= start:
        return None
    s, e = int(out.offsets[start]), int(out.offsets[stop])
    before, after = out.before[s:e], out.after[s:e]
    if np.isfinite(before).all() and np.isfinite(after).all():
        return None
    bad = ~(np.isfinite(before) & np.isfinite(after))
    return int(out.history.flat_game[s + int(np.argmax(bad))])


def _not_finite(history: GameHistory, g: int) -> ComputationError:
    """The error of a replay whose ratings stop being finite at game ``g``."""
    return ComputationError("a rating became infinite or undefined; try less extreme settings", g, history.games[g].id)


def _grafted(saved: State, fresh: State, known: int) -> State | None:
    """The state of a longer player list: the first ``known`` players as ``saved`` has them, the rest fresh.

    Every state array is per player (first axis).  A two-dimensional one keeps the wider of the two widths,
    padded with zeros (Elo-MMR's performance table, whose unused columns are zero weights).  None when
    ``saved`` does not have that shape (the replay then starts from the beginning).
    """
    out: State = {}
    for key, new in fresh.items():
        old = saved.get(key)
        if old is None or old.ndim != new.ndim or len(old) < known or (old.ndim > 2):
            return None
        if old.ndim == 2 and old.shape[1] != new.shape[1]:
            width = max(old.shape[1], new.shape[1])
            wider = np.zeros((len(new), width), dtype=new.dtype)
            wider[:, : new.shape[1]] = new
            new = wider
            padded = np.zeros((len(old), width), dtype=old.dtype)
            padded[:, : old.shape[1]] = old
            old = padded
        else:
            new = new.copy()
        new[:known] = old[:known]
        out[key] = new
    return out


class RatingSystem(ABC):
    """Base class of all rating systems.

    Subclasses set ``name`` (the registry key), ``title``, ``summary``, ``scale`` (the
    unit of the displayed rating) and ``Params`` (a frozen dataclass built with
    :func:`ratings.params.param`), and implement :meth:`_initial_state`, :meth:`_play`
    and :meth:`_display`.  Parameters are keyword-only, validated by the dataclass and
    never mutated.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    scale: ClassVar[str] = "rating"
    Params: ClassVar[type]
    #: Names of further per-player state arrays reported in the run (e.g. ``("mu", "sigma")``).
    extra_series: ClassVar[tuple[str, ...]] = ()
    #: Whether the batch hook :meth:`_replay` rates team games itself (else they go through the per-game hooks).
    batch_teams: ClassVar[bool] = False
    #: The per-player state a season start moves back toward a newcomer's (:mod:`ratings.seasons`; a name the
    #: state lacks is skipped): ratings, uncertainties and evidence weights, never a date.
    season_state: ClassVar[tuple[str, ...]] = ("rating",)

    def __init__(self, **params: Any) -> None:
        self.params = build(self.Params, params)

    def __repr__(self) -> str:
        values = ", ".join(f"{k}={v!r}" for k, v in dataclasses.asdict(self.params).items())
        return f"{type(self).__name__}({values})"

    @classmethod
    def parameters(cls) -> list[ParamSpec]:
        """The parameter schema (name, kind, default, suggested range, help)."""
        return specs(cls.Params)

    def get_params(self) -> dict[str, Any]:
        return dataclasses.asdict(self.params)

    # -------------------------------------------------------------- the replay
    def rate(
        self,
        history: GameHistory,
        *,
        resume: RatingRun | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> RatingRun:
        """Replay every game of ``history`` in order and record each rating before and after.

        ``resume``: an earlier run of this system with these parameters on a history that shares its first
        ``g`` games with ``history`` (an edit at game ``g``, or games appended): the replay starts from that
        run's last checkpoint at or before ``g`` and copies the ratings of the games before it, with the same
        numbers as a whole replay.  A run of another system or other parameters is not used.

        ``progress(games_done, games)`` is called as the replay goes (once per stretch between checkpoints).

        Raises :class:`ComputationError` (saying at which game) when the settings drive the ratings
        beyond floating point: a result is either finite everywhere or not returned.
        """
        if progress is None:
            return self._guarded(history, per_game=False, resume=resume)
        token = _PROGRESS.set(progress)
        try:
            return self._guarded(history, per_game=False, resume=resume)
        finally:
            _PROGRESS.reset(token)

    def rate_per_game(self, history: GameHistory) -> RatingRun:
        """The same replay through the per-game hooks only: the reference a batch replay is tested against."""
        return self._guarded(history, per_game=True)

    def _guarded(self, history: GameHistory, *, per_game: bool, resume: RatingRun | None = None) -> RatingRun:
        try:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                return self._run(history, per_game=per_game, resume=resume)
        except ComputationError:
            raise
        except (ArithmeticError, ValueError) as exc:
            # Numerical failure (overflow, division by zero, NaN where a size was expected) outside a game.
            reason = f"the settings overflow floating point ({type(exc).__name__}); try less extreme settings"
            raise ComputationError(reason) from None

    def _run(self, history: GameHistory, *, per_game: bool, resume: RatingRun | None = None) -> RatingRun:
        out = Replay.of(history, self.extra_series)
        progress = _PROGRESS.get()
        checkpoints: list[Checkpoint] = []
        seasons = self._season_starts(out)
        if per_game:
            state = self.initial_state(history.n_players)
            a = 0
            for b in [*seasons.tolist(), history.n_games]:
                if a in seasons:
                    self._season_start(state)
                self._replay_per_game(state, out, a, b)
                a = b
        else:
            start, state, checkpoints = self._resume_point(history, resume)
            if start:
                assert resume is not None
                self._copy_prefix(resume, out, int(history.offsets[start]))
            spacing = checkpoint_spacing(history)
            # Season starts from the first at or after ``start``, as Python ints: read once per stretch.
            pending = seasons[seasons >= start].tolist()
            a = start
            while a < history.n_games:
                saved: State | None = None  # a copy of the state before the stretch, if one is made anyway
                if a % spacing == 0 and a > start:
                    saved = {k: v.copy() for k, v in state.items()}
                    checkpoints.append(Checkpoint(a, saved))
                    _cap(checkpoints)
                if pending and pending[0] == a:
                    pending.pop(0)
                    self._season_start(state)  # after the checkpoint: a resumed replay applies it again
                    saved = None
                b = min((a // spacing + 1) * spacing, history.n_games)
                if pending:
                    b = min(b, pending[0])
                self._replay_stretch(state, out, a, b, saved)
                a = b
                if progress is not None:
                    progress(a, history.n_games)
        g = _first_not_finite(out, 0, history.n_games)
        if g is not None:
            raise _not_finite(history, g)
        everyone = np.arange(history.n_players)
        return RatingRun(
            system=self.name,
            params=self.params,
            history=history,
            before=out.before,
            after=out.after,
            final=self._display(state, everyone) if history.n_players else np.empty(0),
            initial=self.initial_rating(),
            scale=self.scale,
            extras={k: (out.extras_before[k], out.extras_after[k]) for k in self.extra_series},
            final_extras={k: state[k].copy() for k in self.extra_series},
            state=state,
            checkpoints=tuple(checkpoints),
        )

    def _season_starts(self, replay: Replay) -> np.ndarray:
        """The games that open a season under the season rule (:func:`ratings.seasons.season_starts`)."""
        length = getattr(self.params, "season_days", None)
        if length is None or not self.params.season_shrink > 0.0:
            return np.empty(0, dtype=np.int64)
        return season_starts(replay.days, length)

    def _season_start(self, state: State) -> None:
        """Move every player's :attr:`season_state` the share ``season_shrink`` of the way back to a newcomer's."""
        keep = 1.0 - float(self.params.season_shrink)
        n_players = len(next(iter(state.values())))
        fresh = self.initial_state(n_players)
        for key in self.season_state:
            if key in state:
                target = fresh[key]
                if target.shape != state[key].shape:  # a per-player row grown since (Elo-MMR's history): a
                    target = np.broadcast_to(target[..., :1], state[key].shape)  # newcomer's row is one value
                state[key][...] = target + keep * (state[key] - target)

    def _resume_point(self, history: GameHistory, resume: RatingRun | None) -> tuple[int, State, list[Checkpoint]]:
        """``(first game to replay, state before it, checkpoints kept)``: from ``resume`` where it applies."""
        fresh = self.initial_state(history.n_players)
        if resume is None or resume.system != self.name or resume.params != self.params:
            return 0, fresh, []
        shared = shared_prefix(resume.history, history)
        candidates = [c for c in resume.checkpoints if c.game <= shared]
        if shared == resume.history.n_games and resume.state:
            candidates.append(Checkpoint(shared, dict(resume.state)))  # games appended: resume after the last
        if not candidates:
            return 0, fresh, []
        point = max(candidates, key=lambda c: c.game)
        known = int(history.flat_player[: history.offsets[point.game]].max(initial=-1)) + 1
        state = _grafted(point.state, fresh, known)
        if state is None:
            return 0, fresh, []
        kept = [c for c in resume.checkpoints if c.game <= point.game]
        return point.game, state, kept

    def _copy_prefix(self, resume: RatingRun, out: Replay, entries: int) -> None:
        """The ratings of the first ``entries`` results, as ``resume`` computed them for the same games."""
        out.before[:entries] = resume.before[:entries]
        out.after[:entries] = resume.after[:entries]
        for k in self.extra_series:
            before, after = resume.extras[k]
            out.extras_before[k][:entries] = before[:entries]
            out.extras_after[k][:entries] = after[:entries]

    def _replay_stretch(self, state: State, out: Replay, a: int, b: int, saved: State | None = None) -> None:
        """Games ``a`` to ``b`` of the whole replay ``out`` through the batch hooks; a game the kernel fails goes
        alone through the per-game hooks, and the kernel goes on after it.

        A kernel reports a failure by non-finite ratings or an exception, without naming the game.  The state
        before the stretch is copied and put back on a failure; then the games before the first non-finite rating
        go through the kernel again, that game through the per-game hooks (the reference path, which rates it or
        says what failed there), and the kernel takes the rest of the stretch.  After an exception, which names no
        game, the stretch goes through the per-game hooks.  Either way the slow path replays at most this stretch
        (the games between two checkpoints), never the history from its start.  ``saved``: a copy of the state at
        ``a`` that is never changed (the checkpoint just taken there), so that none need be made.
        """

        def kernel(lo: int, hi: int) -> None:
            if self.batch_teams:
                self._replay(state, out.window(lo, hi))
            else:
                self._replay_teams_aside(state, out, lo, hi)

        while a < b:
            kept = saved if saved is not None else {k: v.copy() for k, v in state.items()}
            saved = None
            try:
                kernel(a, b)
                failing = _first_not_finite(out, a, b)
                if failing is None:
                    return
            except (ArithmeticError, ValueError):
                failing = None
            state.clear()  # the state before the stretch (a kernel may replace an array, not only fill it)
            state.update({k: v.copy() for k, v in kept.items()})  # copies: ``kept`` may be a checkpoint's
            if failing is None:  # no game named
                stop = b
                self._replay_per_game(state, out, a, stop)
            else:
                stop = failing + 1
                if failing > a:
                    kernel(a, failing)
                self._replay_per_game(state, out, failing, stop)
            g = _first_not_finite(out, a, stop)
            if g is not None:  # not finite in the reference path either
                raise _not_finite(out.history, g)
            a = stop

    def _replay_teams_aside(self, state: State, out: Replay, start: int, stop: int) -> None:
        """Games ``start`` to ``stop`` of the whole replay ``out``: runs of free-for-all games through the batch
        hook :meth:`_replay` (the compiled kernels), each team game through the per-game hooks.

        The kernels read only the free-for-all arrays, so a team game is handed to the reference path, as a
        kernel hands back a game it declines; a history without team games takes one batch call, as before.
        """
        teams = np.flatnonzero(out.history.team_game[start:stop]) + start
        a = start
        for g in teams.tolist():
            if g > a:
                self._replay(state, out.window(a, g))
            self._replay_per_game(state, out, g, g + 1)
            a = g + 1
        if a < stop:
            self._replay(state, out.window(a, stop))

    def _replay(self, state: State, replay: Replay) -> None:
        """Batch hook: replay the whole history over flat arrays, updating ``state`` and filling ``replay``.

        The default walks the games through the per-game hooks (:meth:`_prepare`, :meth:`_play`,
        :meth:`_display`); a system overrides it with a compiled kernel (see :mod:`ratings.kernels`)
        that must give the same numbers.  A kernel does not raise on a numerical failure: it leaves
        non-finite ratings (or raises), and the replay is then repeated game by game, which says what and where.
        """
        self._replay_per_game(state, replay)

    def _replay_per_game(self, state: State, replay: Replay, start: int = 0, stop: int | None = None) -> None:
        """Games ``start`` to ``stop`` (default: all) of ``replay`` (indices within it) through the per-game hooks."""
        history = replay.history
        offsets = replay.offsets
        before, after = replay.before, replay.after
        g = replay.first + start
        try:
            for local in range(start, replay.n_games if stop is None else stop):
                g = replay.first + local
                game = history.games[g]
                s, e = int(offsets[local]), int(offsets[local + 1])
                if history.team_game[g]:
                    view = GameView.of(history, g, replay.players[s:e])
                else:
                    view = GameView(g, replay.players[s:e], replay.ranks[s:e], replay.dnf[s:e], game.date)
                self._prepare(state, view)
                before[s:e] = self._display(state, view.players)
                for k in self.extra_series:
                    replay.extras_before[k][s:e] = state[k][view.players]
                if e - s >= 2:
                    self._play(state, view)
                after[s:e] = self._display(state, view.players)
                for k in self.extra_series:
                    replay.extras_after[k][s:e] = state[k][view.players]
        except ComputationError as exc:
            raise ComputationError(exc.reason, g, history.games[g].id) from None
        except (ArithmeticError, ValueError) as exc:
            # Numerical failure (overflow, division by zero, NaN where a size was expected): the
            # settings drive the updates beyond floating point; say where instead of failing obscurely.
            reason = f"the updates overflow floating point ({type(exc).__name__}); try less extreme settings"
            raise ComputationError(reason, g, history.games[g].id) from None

    def initial_state(self, n_players: int) -> State:
        """The state of ``n_players`` players who have played no game."""
        return self._initial_state(n_players)

    # -------------------------------------------------------------- hooks
    @abstractmethod
    def _initial_state(self, n_players: int) -> State:
        """Fresh per-player state arrays."""

    @abstractmethod
    def _play(self, state: State, game: GameView) -> None:
        """Update ``state`` in place for the participants of one game (at least two)."""

    def _display(self, state: State, players: np.ndarray) -> np.ndarray:
        """The displayed rating of ``players`` (default: the ``rating`` array)."""
        return state["rating"][players].astype(float)

    def _prepare(self, state: State, game: GameView) -> None:  # noqa: B027 - optional hook
        """Called before a game's ratings are read (e.g. uncertainty growth from inactivity)."""

    @abstractmethod
    def initial_rating(self) -> float:
        """The displayed rating of a new player (the dashed reference line in charts)."""

    # -------------------------------------------------------------- predictions
    def place_probabilities(self, state: State, players: Sequence[int] | np.ndarray) -> np.ndarray:
        """Probability of each finishing place: row ``i`` is player ``players[i]``, column ``j`` place ``j+1``.

        The default is a fixed-seed Monte Carlo of the system's performance model; systems
        whose order distribution has a closed form override it.
        """
        raise NotImplementedError(f"{self.name} does not predict places")
