"""Players known under two names: likely duplicates, and aliases that merge one name into another.

A hand-typed sheet turns "Anne" for "Ann" into a new player without a word.  :func:`likely_duplicates` finds the
pairs of names a group should look at; :func:`apply_aliases` merges the names a group declared the same player, so
the merged player's games are one player's.

Names are compared by :func:`fold`: the readers' own key (case folded, white space collapsed, see
:func:`ratings.io.names.name_key`) with accents dropped.  Two names are a likely duplicate when

- they fold to the same text ("Zoë" and "zoe");
- they are one edit apart (Damerau-Levenshtein distance 1: one letter inserted, deleted, replaced, or two
  neighbouring letters swapped; F. J. Damerau, "A technique for computer detection and correction of spelling
  errors", Communications of the ACM 7(3), 1964), the longer at least :data:`MIN_LENGTH` letters long;
- one of them played a single game and the other is a regular (at least :data:`REGULAR_GAMES` games) whose name
  is at most two edits away or starts with the one-game name as a whole word ("Ann" beside "Ann B.").

Two names that played in one game are two players and never reported.  Distances are computed with
``rapidfuzz`` (its Damerau-Levenshtein implementation).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from ratings.history import Game, GameHistory
from ratings.io.names import clean_name, name_key

__all__ = [
    "MIN_LENGTH",
    "REGULAR_GAMES",
    "AliasError",
    "Suspect",
    "apply_aliases",
    "check_aliases",
    "fold",
    "likely_duplicates",
]

#: Shortest folded name compared by edit distance ("Ann"/"Bob"/"Bo" are one edit from too many names).
MIN_LENGTH = 4
#: Games that make a player a regular, beside whom a one-game name is suspicious.
REGULAR_GAMES = 5
#: Most aliases a view may declare (a group's list, not a dictionary).
MAX_ALIASES = 200
#: Longest name accepted in an alias.
MAX_NAME = 200


class AliasError(ValueError):
    """Aliases that cannot be applied (a cycle, both names in one game); ``str()`` says what and where."""


def fold(name: str) -> str:
    """``name`` as compared for likely duplicates: the readers' name key without accents ("Zoë " -> "zoe")."""
    decomposed = unicodedata.normalize("NFKD", name_key(name))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class Suspect:
    """Two names that may be one player: ``rare`` (fewer games) and ``common``, with their game counts and why."""

    rare: str
    common: str
    rare_games: int
    common_games: int
    reason: str

    def __str__(self) -> str:
        return (
            f"'{self.rare}' ({_games(self.rare_games)}) and '{self.common}' ({_games(self.common_games)}): "
            f"{self.reason}"
        )


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def likely_duplicates(history: GameHistory, *, limit: int = 50) -> list[Suspect]:
    """Pairs of names in ``history`` that may be one player (see the module docstring), most games first.

    Each pair is reported once, with the reason found first (same name, one edit, a one-game name); at most
    ``limit`` pairs.
    """

    played: dict[str, set[int]] = {n: set() for n in history.players}
    for g, game in enumerate(history.games):
        for player in game.players:
            played[player].add(g)
    counts = {n: len(games) for n, games in played.items()}
    names = sorted(counts, key=lambda n: (-counts[n], n))
    folded = {n: fold(n) for n in names}
    found: dict[frozenset[str], Suspect] = {}

    def add(a: str, b: str, reason: str) -> None:
        pair = frozenset((a, b))
        if pair in found or not played[a].isdisjoint(played[b]):
            return  # two names in one game are two players
        rare, common = sorted((a, b), key=lambda n: (counts[n], n))
        found[pair] = Suspect(rare, common, counts[rare], counts[common], reason)

    by_fold: dict[str, list[str]] = {}
    for name in names:
        by_fold.setdefault(folded[name], []).append(name)
    for same in by_fold.values():
        for other in same[1:]:
            add(same[0], other, "the same name up to case, accents or spacing")

    # Names of lengths more than one apart are never one edit apart: compare within lengths L and L + 1, where
    # the longer name has at least MIN_LENGTH letters ("Ann"/"Anne" are compared, "Bob"/"Rob" are not).  Each name
    # is compared with its band in one rapidfuzz call (a loop in compiled code, not in Python).
    by_length: dict[int, list[str]] = {}
    for key in sorted(by_fold):
        by_length.setdefault(len(key), []).append(key)
    for length, group in by_length.items():
        band = (group if length >= MIN_LENGTH else []) + (
            by_length.get(length + 1, []) if length + 1 >= MIN_LENGTH else []
        )
        for key in group if band else ():
            for other in _within(key, band, 1):
                if other != key and (len(other) > length or other > key):
                    add(by_fold[key][0], by_fold[other][0], "one letter apart")

    regulars = [n for n in names if counts[n] >= REGULAR_GAMES]
    regular_keys = [folded[n] for n in regulars]
    regular_of = {k: n for n, k in reversed(list(zip(regulars, regular_keys, strict=True)))}  # most games wins
    # A regular's name by each of its leading words ("ann berg" under "ann"), for the one-game name "Ann".
    by_first_words: dict[str, str] = {}
    for regular, other in zip(regulars, regular_keys, strict=True):
        words = other.split(" ")
        for cut in range(1, len(words)):
            by_first_words.setdefault(" ".join(words[:cut]), regular)
    for name in names:
        if counts[name] != 1:
            continue
        key = folded[name]
        close = _within(key, regular_keys, 2) if len(key) >= MIN_LENGTH else []
        candidates = [regular_of[other] for other in close if other != key]
        candidates += [by_first_words[key]] if key in by_first_words else []
        match = next((c for c in candidates if played[name].isdisjoint(played[c])), None)
        if match is not None:
            add(name, match, "a one-game name next to a regular's")
    ordered = sorted(found.values(), key=lambda s: (-s.common_games, -s.rare_games, s.common, s.rare))
    return ordered[:limit]


def _within(key: str, choices: list[str], edits: int) -> list[str]:
    """The ``choices`` at most ``edits`` Damerau-Levenshtein edits from ``key``, closest first.

    A swap of neighbours is two Levenshtein edits, so a Levenshtein distance of at most ``2 * edits`` is necessary:
    that bit-parallel filter runs over all the choices in compiled code, and only its few survivors are measured
    with Damerau-Levenshtein.
    """
    from rapidfuzz import process
    from rapidfuzz.distance import DamerauLevenshtein, Levenshtein

    near = process.extract(key, choices, scorer=Levenshtein.distance, score_cutoff=2 * edits, limit=None)
    measured = [(DamerauLevenshtein.distance(key, other), other) for other, _, _ in near]
    return [other for d, other in sorted(measured) if d <= edits]


def check_aliases(aliases: Mapping[str, str]) -> dict[str, str]:
    """Aliases resolved to their final names (``Anne -> Ann``, ``Ann. -> Anne`` gives ``Ann. -> Ann``).

    Names are cleaned as the readers clean them.  :class:`AliasError` for an empty name, an alias of a name to
    itself, a cycle, too many aliases or names too long.
    """
    if len(aliases) > MAX_ALIASES:
        raise AliasError(f"at most {MAX_ALIASES} aliases can be declared (got {len(aliases)})")
    cleaned: dict[str, str] = {}
    for raw_alias, raw_name in aliases.items():
        alias, name = clean_name(raw_alias), clean_name(raw_name)
        if not alias or not name:
            raise AliasError("an alias needs two names: the spelling to replace and the player's name")
        if len(alias) > MAX_NAME or len(name) > MAX_NAME:
            raise AliasError(f"a name in an alias is longer than {MAX_NAME} characters")
        if alias == name:
            raise AliasError(f"'{alias}' cannot be an alias of itself")
        cleaned[alias] = name
    resolved: dict[str, str] = {}
    for alias in cleaned:
        seen = [alias]
        target = cleaned[alias]
        while target in cleaned:
            if target in seen:
                chain = " -> ".join(f"'{n}'" for n in [*seen, target])
                raise AliasError(f"the aliases go round in a circle: {chain}")
            seen.append(target)
            target = cleaned[target]
        resolved[alias] = target
    return resolved


def apply_aliases(history: GameHistory, aliases: Mapping[str, str]) -> GameHistory:
    """``history`` with every alias replaced by its player's name (``aliases`` as :func:`check_aliases` gives).

    The history is returned unchanged when no alias occurs in it.  :class:`AliasError` names the first game in
    which a player appears under both names (the merged player cannot finish twice).
    """
    if not aliases or not any(alias in history.player_index for alias in aliases):
        return history
    games = []
    for game in history.games:
        if not any(p in aliases for p in game.players):
            games.append(game)
            continue
        entries = []
        seen: dict[str, str] = {}
        for entry in game.entries:
            name = aliases.get(entry.player, entry.player)
            if name in seen:
                raise AliasError(
                    f"game '{game.id}'{_on(game)} has both '{seen[name]}' and '{entry.player}', which the aliases "
                    f"make one player '{name}'; remove that alias, or correct the game"
                )
            seen[name] = entry.player
            entries.append(entry if name == entry.player else type(entry)(name, entry.place))
        games.append(Game(game.id, tuple(entries), game.date))
    return GameHistory(games, history.warnings)


def _on(game: Game) -> str:
    return f" (played {game.date.isoformat()})" if game.date is not None else ""
