"""The game-history data model.

A :class:`GameHistory` is an ordered list of :class:`Game` objects plus a flat array
layout (one entry per participant, games delimited by offsets) that the rating systems
replay quickly.  Places follow the usual convention: 1 is best, equal places are a
tie, only their order matters, and ``None`` means did-not-finish (DNF).  Every DNF
ranks below every finisher; the order among DNFs is unknown.

Teams: an entry may name a team (players of one game with the same team are teammates and share
its place) and a weight (the share of the game a player took part in, for partial play; 1 by
default).  An entry without a team is a team of its own.  A game whose teams all have one player
and whose weights are all 1 is a free-for-all game, rated exactly as before teams existed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd  # imported where a frame is made: a replay needs no pandas

__all__ = [
    "Entry",
    "Game",
    "GameHistory",
    "HistoryError",
    "Problem",
]

#: Column names of the long table shape (``team`` and ``weight`` are optional).
LONG_COLUMNS = ("game", "date", "player", "place", "team", "weight")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input table, located as a spreadsheet shows it.

    ``row`` counts the header as row 1, so the first data row is row 2.  ``row`` or
    ``column`` is ``None`` when the problem is not tied to one cell.
    """

    message: str
    row: int | None = None
    column: str | None = None
    source: str | None = None

    def __str__(self) -> str:
        where = []
        if self.source:
            where.append(self.source)
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class HistoryError(ValueError):
    """Raised when a game history cannot be built; lists every problem found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the game history"
        super().__init__(head + ":\n" + "\n".join(f"- {p}" for p in self.problems))


@dataclass(frozen=True)
class Entry:
    """One participant of a game: a player name, a place (``None`` = DNF), an optional team and a weight.

    ``team`` names the player's team in this game (``None``: a team of one); ``weight`` in (0, 1] is the share
    of the game the player took part in (partial play), 1 for the whole game.
    """

    player: str
    place: int | None
    team: str | None = None
    weight: float = 1.0

    @property
    def dnf(self) -> bool:
        return self.place is None


@dataclass(frozen=True)
class Game:
    """One game: an id, an optional date (with its time of day, where the file gave one) and its participants."""

    id: str
    entries: tuple[Entry, ...]
    date: dt.date | None = None
    time: dt.time | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(e.player for e in self.entries)

    @property
    def places(self) -> tuple[int | None, ...]:
        return tuple(e.place for e in self.entries)

    @property
    def has_teams(self) -> bool:
        """Whether a team has two or more players or a weight is not 1 (else a free-for-all game)."""
        if all(e.team is None and e.weight == 1.0 for e in self.entries):
            return False
        return any(e.weight != 1.0 for e in self.entries) or len(team_numbers(self.entries)[1]) < len(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


class GameHistory:
    """Games in play order, with a flat array layout for fast replay.

    Array layout (all aligned, one element per participant in game order):

    - ``offsets``: int64, length ``n_games + 1``; game ``g`` occupies ``offsets[g]:offsets[g+1]``.
    - ``flat_player``: int32 index into ``players``.
    - ``flat_rank``: int32 dense rank inside the game, 0 = best; all DNFs of a game share
      the rank after the last finisher.
    - ``flat_dnf``: bool, did not finish.
    - ``flat_place``: int32 place as given (0 for DNF).
    - ``flat_position``: int32 competition-style position, 1 + the number of players strictly ahead
      (a tie for first is followed by 3rd; all DNFs share the position after the last finisher).
    - ``flat_game``: int32 index of each entry's game.
    - ``flat_team``: int32 team of each entry inside its game, numbered 0, 1, ... by first appearance (an entry
      without a team is a team of its own).
    - ``flat_weight``: float64 weight of each entry (partial play; 1 for a whole game).
    - ``team_game``: bool, one per game: a team has two or more players or a weight is not 1 (a free-for-all
      game otherwise, which the compiled kernels replay; see :attr:`has_teams`).
    """

    def __init__(self, games: Iterable[Game], warnings: Iterable[str] = ()) -> None:
        self._games: tuple[Game, ...] | None = tuple(games)
        self._ids: tuple[str, ...] | None = None
        self._dates: tuple[dt.date | None, ...] | None = None
        problems: list[Problem] = []
        warns = list(warnings)
        names: dict[str, int] = {}
        for game in self._games:
            seen: set[str] = set()
            for entry in game.entries:
                if not entry.player:
                    problems.append(Problem(f"game '{game.id}' has a participant with no name"))
                elif entry.player in seen:
                    problems.append(Problem(f"player '{entry.player}' appears twice in game '{game.id}'"))
                seen.add(entry.player)
                if entry.place is not None and entry.place < 1:
                    problems.append(Problem(f"game '{game.id}': place {entry.place} is not positive"))
                if not (0.0 < entry.weight <= 1.0):  # also NaN
                    problems.append(
                        Problem(f"game '{game.id}': player '{entry.player}' has weight {entry.weight} (not in (0, 1])")
                    )
                names.setdefault(entry.player, len(names))
            problems.extend(Problem(m) for m in team_problems(game))
            if len(game.entries) < 2:
                warns.append(_few_players(game.id))
        if problems:
            raise HistoryError(problems)
        self.warnings: tuple[str, ...] = tuple(dict.fromkeys(warns))
        self.players: tuple[str, ...] = tuple(names)
        self.player_index: Mapping[str, int] = names

        sizes = np.fromiter((len(g.entries) for g in self.games), dtype=np.int64, count=len(self.games))
        self.offsets = np.zeros(len(self.games) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        total = int(self.offsets[-1])
        self.flat_player = np.empty(total, dtype=np.int32)
        self.flat_rank = np.empty(total, dtype=np.int32)
        self.flat_dnf = np.empty(total, dtype=bool)
        self.flat_place = np.empty(total, dtype=np.int32)
        self.flat_position = np.empty(total, dtype=np.int32)
        self.flat_game = np.repeat(np.arange(len(self.games), dtype=np.int32), sizes)
        # Every entry a team of its own (its index in the game), then the team games' own numbers.
        self.flat_team = (np.arange(total, dtype=np.int64) - self.offsets[self.flat_game]).astype(np.int32)
        self.flat_weight = np.ones(total)
        self.team_game = np.zeros(len(self.games), dtype=bool)
        pos = 0
        for g, game in enumerate(self.games):
            teams: list[int] | None = None
            if game.has_teams:
                teams = team_numbers(game.entries)[0]
                self.team_game[g] = True
                self.flat_team[pos : pos + len(game.entries)] = teams
                self.flat_weight[pos : pos + len(game.entries)] = [e.weight for e in game.entries]
            finished = sorted({e.place for e in game.entries if e.place is not None})
            dense = {place: i for i, place in enumerate(finished)}
            ranks = [len(finished) if e.place is None else dense[e.place] for e in game.entries]
            # Position of each dense rank: 1 + the players (in a team game, the teams) in better ranks.
            if teams is not None:
                team_rank = dict(zip(teams, ranks, strict=True))
                per_rank = np.bincount(list(team_rank.values()), minlength=len(finished) + 1)
            else:
                per_rank = np.bincount(ranks, minlength=len(finished) + 1) if ranks else np.zeros(1, dtype=np.int64)
            position_of_rank = 1 + np.concatenate(([0], np.cumsum(per_rank)[:-1]))
            for entry, rank in zip(game.entries, ranks, strict=True):
                self.flat_player[pos] = names[entry.player]
                self.flat_dnf[pos] = entry.place is None
                self.flat_rank[pos] = rank
                self.flat_place[pos] = 0 if entry.place is None else entry.place
                self.flat_position[pos] = position_of_rank[rank]
                pos += 1
        self._freeze()

    def _freeze(self) -> None:
        for array in (
            self.offsets,
            self.flat_player,
            self.flat_rank,
            self.flat_dnf,
            self.flat_place,
            self.flat_position,
            self.flat_game,
            self.flat_team,
            self.flat_weight,
            self.team_game,
        ):
            array.setflags(write=False)

    @classmethod
    def from_columns(
        cls,
        ids: Sequence[str],
        dates: Sequence[dt.date | None],
        offsets: np.ndarray,
        flat_player: np.ndarray,
        flat_place: np.ndarray,
        players: Sequence[str],
        warnings: Iterable[str] = (),
        *,
        block: int = 1 << 17,
    ) -> GameHistory:
        """A free-for-all history straight from its flat arrays, with no per-entry Python object (a reader of
        large files builds these; :attr:`games` is made only when something asks for it).

        ``offsets`` delimits the games (as :attr:`offsets`), ``flat_player`` indexes ``players`` (distinct;
        renumbered here by first appearance in play order, as every history numbers them), ``flat_place`` holds
        each entry's place with 0 for did-not-finish; ``ids`` and ``dates`` give one value per game.  The caller
        has checked what :meth:`__init__` checks (names present and distinct in a game, places positive).  Ranks and
        positions are computed ``block`` entries at a time, so the memory beyond the arrays stays bounded whatever
        the history's size.
        """
        flat_player, players = _by_first_appearance(np.asarray(flat_player, dtype=np.int32), list(players), block)
        self = cls.__new__(cls)
        n_games = len(offsets) - 1
        self._games = None
        self._ids = tuple(ids)
        self._dates = tuple(dates)
        self.players = tuple(players)
        self.player_index = {name: i for i, name in enumerate(self.players)}
        self.offsets = np.asarray(offsets, dtype=np.int64)
        total = int(self.offsets[-1]) if n_games >= 0 else 0
        self.flat_player = np.asarray(flat_player, dtype=np.int32)
        self.flat_place = np.asarray(flat_place, dtype=np.int32)
        self.flat_dnf = self.flat_place == 0
        self.flat_rank = np.empty(total, dtype=np.int32)
        self.flat_position = np.empty(total, dtype=np.int32)
        self.flat_game = np.empty(total, dtype=np.int32)
        self.flat_team = np.empty(total, dtype=np.int32)
        self.flat_weight = np.ones(total)
        self.team_game = np.zeros(n_games, dtype=bool)
        sizes = np.diff(self.offsets)
        warns = list(warnings)
        warns.extend(_few_players(self._ids[g]) for g in np.flatnonzero(sizes < 2))
        self.warnings = tuple(dict.fromkeys(warns))
        g = 0
        while g < n_games:
            # games g..h hold at most `block` entries (at least one game)
            h = max(g + 1, int(np.searchsorted(self.offsets, self.offsets[g] + block, side="right")) - 1)
            h = min(h, n_games)
            a, b = int(self.offsets[g]), int(self.offsets[h])
            game = np.repeat(np.arange(g, h, dtype=np.int32), sizes[g:h])
            self.flat_game[a:b] = game
            start = self.offsets[game] - a  # each entry's game start, inside the block
            self.flat_team[a:b] = np.arange(b - a) - start
            # sort by (game, place) with did-not-finish after every place; stable, so ties keep the file's order
            place = self.flat_place[a:b].astype(np.int64)
            place[place == 0] = np.iinfo(np.int32).max
            key = (game.astype(np.int64) - g) * (1 << 32) + place
            order = np.argsort(key, kind="stable")
            key = key[order]
            new = np.ones(b - a, dtype=bool)
            new[1:] = key[1:] != key[:-1]
            level = np.cumsum(new)  # distinct (game, place) groups so far
            start_sorted = start[order]
            rank = level - level[start_sorted]  # dense rank inside the game
            first = np.flatnonzero(new)  # where each group begins in sorted order
            position = 1 + first[level - 1] - start_sorted
            self.flat_rank[a + order] = rank
            self.flat_position[a + order] = position
            g = h
        self._freeze()
        return self

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle, also a history pickled before the games were kept lazily (a ``games`` attribute)."""
        if "games" in state:
            state["_games"] = state.pop("games")
        state.setdefault("_ids", None)
        state.setdefault("_dates", None)
        self.__dict__.update(state)

    # ------------------------------------------------------------------ basics
    @property
    def games(self) -> tuple[Game, ...]:
        """The games as objects (made from the flat arrays on first use for a history read from columns)."""
        if self._games is None:
            assert self._ids is not None and self._dates is not None
            players, place = self.players, self.flat_place.tolist()
            who = self.flat_player.tolist()
            offsets = self.offsets.tolist()
            self._games = tuple(
                Game(
                    self._ids[g],
                    tuple(Entry(players[who[i]], place[i] or None) for i in range(offsets[g], offsets[g + 1])),
                    self._dates[g],
                )
                for g in range(len(self._ids))
            )
        return self._games

    @property
    def game_ids(self) -> tuple[str, ...]:
        """Every game's id, in play order."""
        if self._ids is None:
            self._ids = tuple(g.id for g in self.games)
        return self._ids

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __iter__(self) -> Iterator[Game]:
        return iter(self.games)

    def __repr__(self) -> str:
        return f"GameHistory({len(self)} games, {len(self.players)} players)"

    @property
    def n_games(self) -> int:
        return len(self)

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def dates(self) -> tuple[dt.date | None, ...]:
        if self._dates is None:
            self._dates = tuple(g.date for g in self.games)
        return self._dates

    @property
    def has_teams(self) -> bool:
        """Whether any game has a team of two or more players or a partial-play weight."""
        return bool(self.team_game.any())

    @property
    def labels_teams(self) -> bool:
        """Whether any entry names a team or has a weight other than 1 (what the writers keep)."""
        if self._games is None:  # read from columns: a free-for-all history
            return False
        return any(e.team is not None or e.weight != 1.0 for g in self.games for e in g.entries)

    @property
    def has_dates(self) -> bool:
        return bool(self.dates) and all(d is not None for d in self.dates)

    def game_slice(self, g: int) -> slice:
        """The slice of the flat arrays that holds game ``g``."""
        return slice(int(self.offsets[g]), int(self.offsets[g + 1]))

    def game_of_entry(self) -> np.ndarray:
        """For every flat entry, the index of its game (``flat_game``)."""
        return self.flat_game

    def summary(self) -> dict[str, Any]:
        """Counts and date range, for a human-readable description."""
        dates = [d for d in self.dates if d is not None]
        return {
            "games": self.n_games,
            "players": self.n_players,
            "entries": int(self.offsets[-1]) if len(self.offsets) else 0,
            "first_date": min(dates) if dates else None,
            "last_date": max(dates) if dates else None,
            "dnfs": int(self.flat_dnf.sum()),
        }

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_records(
        cls,
        records: Iterable[Mapping[str, Any]],
        *,
        rows: Sequence[int] | None = None,
        source: str | None = None,
    ) -> GameHistory:
        """Build from long-shape records with keys ``game``, ``player``, ``place`` and optional ``date``, ``team``
        and ``weight``.

        The records are read by the rules a long-shape file is read by (:func:`ratings.io.table.read_records`):
        places, names, blanks and dates mean the same here as in an upload.  ``rows`` gives each record's
        spreadsheet row number for messages (default: the header is row 1, so record ``i`` is row ``i + 2``).
        Games keep the order of their first appearance, re-ordered stably by date when every game has one.
        """
        from ratings.io.table import read_records  # the readers build on this model, so they come in late

        return read_records(records, rows=rows, source=source)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, source: str | None = None) -> GameHistory:
        """Build from a long-shape DataFrame (columns ``game``, ``player``, ``place``, optional ``date``)."""
        columns = {str(c).strip().lower(): c for c in frame.columns}
        missing = [c for c in ("game", "player", "place") if c not in columns]
        if missing:
            raise HistoryError(
                [
                    Problem(
                        f"the table has no '{c}' column (columns are: {', '.join(map(str, frame.columns))})",
                        1,
                        None,
                        source,
                    )
                    for c in missing
                ]
            )
        wanted = [c for c in LONG_COLUMNS if c in columns]  # team and weight when the frame has them
        renamed = frame[[columns[c] for c in wanted]]
        renamed.columns = wanted
        records: list[dict[str, Any]] = renamed.astype(object).to_dict("records")  # type: ignore[assignment]
        return cls.from_records(records, source=source)

    # ------------------------------------------------------------------ export
    def to_records(self) -> list[dict[str, Any]]:
        """Long-shape records (``place`` is ``'DNF'`` for did-not-finish); with ``team`` and ``weight`` keys
        when some entry names a team or has a weight (:attr:`labels_teams`)."""
        out: list[dict[str, Any]] = []
        teams = self.labels_teams
        for game in self.games:
            for entry in game.entries:
                record: dict[str, Any] = {
                    "game": game.id,
                    "date": game.date if game.time is None else dt.datetime.combine(game.date, game.time),  # type: ignore[arg-type]
                    "player": entry.player,
                    "place": "DNF" if entry.place is None else entry.place,
                }
                if teams:
                    record["team"] = entry.team
                    record["weight"] = entry.weight
                out.append(record)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Long-shape DataFrame with columns ``game, date, player, place`` (and ``team, weight`` when used)."""
        import pandas as pd

        columns = list(LONG_COLUMNS if self.labels_teams else LONG_COLUMNS[:4])
        return pd.DataFrame(self.to_records(), columns=columns)

    def with_games(self, games: Iterable[Game]) -> GameHistory:
        """A new history with other games (for what-if edits); this one is unchanged."""
        return GameHistory(games)

    def appended(self, game: Game) -> GameHistory:
        """A new history with ``game`` played after every game: :meth:`inserted` at the end."""
        return self.inserted(len(self), game)

    def inserted(self, at: int, game: Game) -> GameHistory:
        """A new history with ``game`` played ``at``-th (0: first; ``len(self)``: after every game), equal to
        ``GameHistory([*games[:at], game, *games[at:]])`` but checking and laying out only the new game: the arrays
        are spliced, so a game put into a long history costs what one game costs plus a copy of the arrays.  A
        history read from columns stays without game objects when the new game is one the columns can hold (no team,
        weight or time of day).  This one is unchanged; :class:`HistoryError` for the new game's problems, as the
        constructor raises them."""
        if not 0 <= at <= len(self):
            raise IndexError(f"cannot put a game at {at} in a history of {len(self)} games")
        return self._spliced(at, at, game)

    def without(self, g: int) -> GameHistory:
        """A new history without game ``g`` (the reverse of :meth:`inserted`), equal to the history built from the
        other games: players who played only that game are gone and the others are numbered by first appearance
        again.  This one is unchanged."""
        if not 0 <= g < len(self):
            raise IndexError(f"there is no game {g} in a history of {len(self)} games")
        return self._spliced(g, g + 1, None)

    def _spliced(self, start: int, stop: int, game: Game | None) -> GameHistory:
        """Games ``start:stop`` replaced by ``game`` (or by nothing), from the arrays."""
        one = GameHistory([game] if game is not None else [])  # the new game checked by the constructor's rules
        plain = game is None or (game.time is None and all(e.team is None and e.weight == 1.0 for e in game.entries))
        out = object.__new__(GameHistory)
        if self._games is None and plain:  # read from columns, and still what columns hold: no game objects
            out._games = None
        else:
            out._games = (*self.games[:start], *one.games, *self.games[stop:])
        new_ids = tuple(g.id for g in one.games)
        ids = self.game_ids
        out._ids = (*ids[:start], *new_ids, *ids[stop:])
        dates = self.dates
        out._dates = (*dates[:start], *(g.date for g in one.games), *dates[stop:])
        a, b = int(self.offsets[start]), int(self.offsets[stop])
        names = dict(self.player_index)
        codes = np.fromiter((names.setdefault(p, len(names)) for p in one.players), dtype=np.int32)
        player = np.concatenate((self.flat_player[:a], codes[one.flat_player], self.flat_player[b:]))
        sizes = np.diff(self.offsets)
        sizes = np.concatenate((sizes[:start], np.diff(one.offsets), sizes[stop:]))
        out.offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=out.offsets[1:])
        out.flat_game = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
        for name in ("flat_rank", "flat_dnf", "flat_place", "flat_position", "flat_team", "flat_weight"):
            ours = getattr(self, name)
            setattr(out, name, np.concatenate((ours[:a], getattr(one, name), ours[b:])))
        out.team_game = np.concatenate((self.team_game[:start], one.team_game, self.team_game[stop:]))
        if start == stop == len(self):  # appended: the new players come last, as they first appear
            out.flat_player, players = player, list(names)
        else:
            out.flat_player, players = _renumbered(player, list(names))
        out.players = tuple(players)
        out.player_index = {name: i for i, name in enumerate(players)}
        # the caller's warnings kept in their order, then the short games' in game order (as the constructors do)
        short_before = {_few_players(ids[g]) for g in np.flatnonzero(np.diff(self.offsets) < 2).tolist()}
        kept = [w for w in self.warnings if w not in short_before]
        kept.extend(_few_players(out._ids[g]) for g in np.flatnonzero(sizes < 2).tolist())
        out.warnings = tuple(dict.fromkeys(kept))
        out._freeze()
        return out


def _few_players(game_id: str) -> str:
    """The warning about a game that changes no rating, as every constructor writes it (a splice recognises the
    warnings of the games it takes out by these words)."""
    return f"game '{game_id}' has fewer than two players and changes no rating"


def _renumbered(player: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Player codes and names renumbered by first appearance, the names no entry uses left out."""
    used, first = np.unique(player, return_index=True)
    order = used[np.argsort(first)]
    renumber = np.full(len(names), -1, dtype=np.int32)
    renumber[order] = np.arange(len(order), dtype=np.int32)
    return renumber[player], [names[i] for i in order.tolist()]


def _by_first_appearance(player: np.ndarray, names: list[str], block: int) -> tuple[np.ndarray, list[str]]:
    """Player codes and names renumbered so that players are numbered in order of first appearance (unchanged when
    they already are: every code at most one above all codes before it)."""
    top = -1
    in_order = True
    for a in range(0, len(player), block):
        running = np.maximum(np.maximum.accumulate(player[a : a + block]), top)  # the running top since row 0
        if np.any(np.diff(running, prepend=top) > 1):
            in_order = False
            break
        top = int(running[-1])
    if in_order:
        return player, names
    first = np.full(len(names), len(player), dtype=np.int64)
    for a in range(0, len(player), block):
        np.minimum.at(first, player[a : a + block], np.arange(a, min(a + block, len(player)), dtype=np.int64))
    by_first = np.argsort(first, kind="stable")
    renumber = np.empty(len(names), dtype=np.int32)
    renumber[by_first] = np.arange(len(names), dtype=np.int32)
    return renumber[player], [names[i] for i in by_first.tolist()]


def team_numbers(entries: Sequence[Entry]) -> tuple[list[int], dict[str, int]]:
    """Each entry's team number in its game (0, 1, ... by first appearance) and the numbers of named teams.

    Team names are compared as player names are (:func:`ratings.io.names.name_key`: case and spacing do not
    matter); an entry without a team is a team of its own.
    """
    from ratings.io.names import name_key  # the readers build on this model, so they come in late

    numbers: list[int] = []
    named: dict[str, int] = {}
    count = 0
    for entry in entries:
        if entry.team is None:
            numbers.append(count)
            count += 1
            continue
        key = name_key(entry.team)
        if key not in named:
            named[key] = count
            count += 1
        numbers.append(named[key])
    return numbers, named


def team_problems(game: Game) -> list[str]:
    """What is wrong with a game's teams: an empty team name, teammates with different places."""
    problems: list[str] = []
    if all(e.team is None for e in game.entries):
        return problems
    place_of: dict[int, Entry] = {}
    numbers = team_numbers(game.entries)[0]
    for entry, number in zip(game.entries, numbers, strict=True):
        if entry.team is not None and not entry.team.strip():
            problems.append(f"game '{game.id}': player '{entry.player}' has an empty team name")
        first = place_of.setdefault(number, entry)
        if first.place != entry.place:
            shown = "DNF" if entry.place is None else entry.place
            other = "DNF" if first.place is None else first.place
            problems.append(
                f"game '{game.id}': team '{first.team}' has player '{entry.player}' in place {shown} but "
                f"'{first.player}' in place {other} (teammates share their team's place)"
            )
    return problems
