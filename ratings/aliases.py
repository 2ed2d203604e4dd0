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
``rapidfuzz`` (its Damerau-Levenshtein implementation), only for the pairs an index puts together (:class:`_Near`),
so the check grows with the number of names, not with its square (20,000 one-game names); a budget of
:data:`MAX_COMPARISONS` bounds it whatever the names, and the answer's note says when it stopped.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ratings.history import Game, GameHistory
from ratings.io.names import clean_name, name_key

__all__ = [
    "MIN_LENGTH",
    "REGULAR_GAMES",
    "AliasError",
    "Suspect",
    "Suspects",
    "apply_aliases",
    "check_aliases",
    "fold",
    "likely_duplicates",
]

#: Shortest folded name compared by edit distance ("Ann"/"Bob"/"Bo" are one edit from too many names).
MIN_LENGTH = 4
#: Games that make a player a regular, beside whom a one-game name is suspicious.
REGULAR_GAMES = 5
#: Most comparisons of two names one check makes (a candidate measured, or a name passed to a compiled scan): names
#: of ordinary length take a few per name, so only thousands of long or near-identical names reach it; the check
#: then stops and says so (:attr:`Suspects.note`).  About a second or two of CPU.
MAX_COMPARISONS = 5_000_000
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


class Suspects(list[Suspect]):
    """The likely duplicates found, and ``note``: why the list may be incomplete (None when the check was whole)."""

    note: str | None = None


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def likely_duplicates(history: GameHistory, *, limit: int = 50, comparisons: int = MAX_COMPARISONS) -> Suspects:
    """Pairs of names in ``history`` that may be one player (see the module docstring), most games first.

    Each pair is reported once, with the reason found first (same name, one edit, a one-game name); at most
    ``limit`` pairs.  The check stops after ``comparisons`` comparisons of two names, and its ``note`` then says so.
    """

    played: dict[str, set[int]] = {n: set() for n in history.players}
    for g, game in enumerate(history.games):
        for player in game.players:
            played[player].add(g)
    counts = {n: len(games) for n, games in played.items()}
    names = sorted(counts, key=lambda n: (-counts[n], n))
    folded = {n: fold(n) for n in names}
    found: dict[tuple[str, str], Suspect] = {}

    def add(a: str, b: str, reason: str) -> None:
        pair = (a, b) if a < b else (b, a)
        if pair in found or not played[a].isdisjoint(played[b]):
            return  # two names in one game are two players
        rare, common = (a, b) if (counts[a], a) < (counts[b], b) else (b, a)
        found[pair] = Suspect(rare, common, counts[rare], counts[common], reason)

    by_fold: dict[str, list[str]] = {}
    for name in names:
        by_fold.setdefault(folded[name], []).append(name)
    for same in by_fold.values():
        for other in same[1:]:
            add(same[0], other, "the same name up to case, accents or spacing")

    # One edit apart: lengths L and L + 1 (or equal), the longer at least MIN_LENGTH letters ("Ann"/"Anne" are
    # compared, "Bob"/"Rob" are not); each unordered pair once, from its shorter (or alphabetically first) key.
    keys = sorted(by_fold)
    budget = _Budget(comparisons)
    one_edit = _Near(keys, 1, budget)
    for key in keys:
        if len(key) + 1 < MIN_LENGTH:
            continue
        for other in one_edit.near(key):
            longer = len(other) > len(key)
            if len(other) >= MIN_LENGTH and (longer or (len(other) == len(key) and other > key)):
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
    two_edits = _Near(sorted(regular_of), 2, budget)
    for name in names:
        if counts[name] != 1:
            continue
        key = folded[name]
        close = two_edits.near(key) if len(key) >= MIN_LENGTH else []
        candidates = [regular_of[other] for other in close if other != key]
        candidates += [by_first_words[key]] if key in by_first_words else []
        match = next((c for c in candidates if played[name].isdisjoint(played[c])), None)
        if match is not None:
            add(name, match, "a one-game name next to a regular's")
    ordered = Suspects(sorted(found.values(), key=lambda s: (-s.common_games, -s.rare_games, s.common, s.rare))[:limit])
    if budget.left < 0:
        ordered.note = (
            f"The check for likely duplicates stopped after {comparisons:,} comparisons of names ({len(names):,} "
            "names, many of them long or alike): other pairs may be one player too."
        )
    return ordered


class _Budget:
    """Comparisons of two names a check may still make (below 0: it stopped)."""

    def __init__(self, comparisons: int) -> None:
        self.left = comparisons


#: Longest key :class:`_Near` indexes by its deletion texts, by the edits it looks for (a key of L letters has about
#: L ** edits / edits! of them); a longer key is indexed by its pieces.
DELETIONS_UP_TO = {1: 32, 2: 16}


def _deletions(key: str, depth: int) -> set[str]:
    """Every text made by deleting at most ``depth`` letters of ``key`` (``key`` itself included)."""
    found = {key}
    layer = {key}
    for _ in range(depth):
        layer = {word[:i] + word[i + 1 :] for word in layer for i in range(len(word))}
        found |= layer
    return found


def _pieces(length: int, count: int) -> list[tuple[int, int]]:
    """``count`` consecutive pieces of a text of ``length`` letters, as (start, end), as even as can be."""
    bounds = [i * length // count for i in range(count + 1)]
    return list(zip(bounds, bounds[1:], strict=False))


class _Near:
    """Keys, for finding those at most ``edits`` Damerau-Levenshtein edits from a key without comparing it with
    every one.  Two indexes, each giving every key within reach among its candidates; candidates are then measured.

    - A short key (up to :data:`DELETIONS_UP_TO` letters) under its deletion texts: FastSS (T. Bocek, E. Hunt,
      B. Stiller, "Fast Similarity Search in Large Dictionaries", University of Zurich technical report
      ifi-2007.02, 2007).  ``edits`` edits are undone by at most ``edits`` deletions on each side (a replacement by
      deleting that letter from both, an insertion by deleting it from the longer, a swap of neighbours by deleting
      one of the two from each), so two keys within reach share a text made by deleting at most ``edits`` letters.
    - A longer key (and one within ``edits`` letters of that length, for longer queries) under its ``2 * edits + 1``
      pieces, with its length and the piece's number: the pigeonhole principle of partition-based joins (G. Li,
      D. Deng, J. Wang, J. Feng, "Pass-Join: A Partition-based Method for Similarity Joins", PVLDB 5(3), 2011), here
      with one piece more than twice the edits because a swap of neighbours may straddle two pieces.  Each edit
      spoils at most one piece (a swap two), so one piece of the key is intact in the query, moved by at most
      ``edits`` places (the insertions less the deletions before it).

    The work grows with the keys and their variants, plus the candidates found; it is counted against the check's
    :class:`_Budget` (index entries and candidates alike), and stops when it is spent.
    """

    def __init__(self, keys: list[str], edits: int, budget: _Budget) -> None:
        self.edits = edits
        self.budget = budget
        self.up_to = DELETIONS_UP_TO[edits]
        self.by_deletion: dict[str, list[str]] = {}
        self.by_piece: dict[tuple[int, int, str], list[str]] = {}
        for key in keys:
            if budget.left < 0:
                break
            if len(key) <= self.up_to:
                texts = _deletions(key, edits)
                for text in texts:
                    self.by_deletion.setdefault(text, []).append(key)
                budget.left -= len(texts)
            if len(key) > self.up_to - edits:  # within reach of a long query: by pieces too
                for number, (start, end) in enumerate(_pieces(len(key), 2 * edits + 1)):
                    self.by_piece.setdefault((len(key), number, key[start:end]), []).append(key)
                budget.left -= 2 * edits + 1

    def near(self, key: str) -> list[str]:
        """The keys at most ``edits`` edits from ``key`` (``key`` itself if it is one), closest first, then in
        alphabetical order; none once the budget is spent."""
        from rapidfuzz.distance import DamerauLevenshtein

        if self.budget.left < 0:
            return []
        edits = self.edits
        found: set[str] = set()
        if len(key) <= self.up_to:  # the keys within reach up to up_to letters, by deletions; the others by pieces
            found.update(other for text in _deletions(key, edits) for other in self.by_deletion.get(text, ()))
            lengths = range(self.up_to + 1, len(key) + edits + 1)
        else:
            lengths = range(len(key) - edits, len(key) + edits + 1)
        for length in lengths:
            for number, (start, end) in enumerate(_pieces(length, 2 * edits + 1)):
                for at in range(max(start - edits, 0), min(start + edits, len(key) - (end - start)) + 1):
                    found.update(self.by_piece.get((length, number, key[at : at + end - start]), ()))
        self.budget.left -= len(found)
        if self.budget.left < 0:
            return []
        measured = [(DamerauLevenshtein.distance(key, other, score_cutoff=edits), other) for other in found]
        return [other for distance, other in sorted(measured) if distance <= edits]


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
            entries.append(entry if name == entry.player else replace(entry, player=name))  # its team and weight kept
        games.append(Game(game.id, tuple(entries), game.date, game.time))
    return GameHistory(games, history.warnings)


def _on(game: Game) -> str:
    return f" (played {game.date.isoformat()})" if game.date is not None else ""
