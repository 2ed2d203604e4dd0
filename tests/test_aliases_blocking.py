"""The likely-duplicates check (ratings.aliases.likely_duplicates) grows with the names, not with their square,
and finds what it found before (issue 30: 20,000 one-game players took 58 CPU-seconds).

The reference is the check as it was before it was indexed (commit 7d80c39), kept below unchanged: every name
compared with every name of its lengths in one compiled rapidfuzz scan.  Its answers on the bundled samples and on
seeded random names (with typos made on purpose, long names and several words) must be the new check's answers.
"""

from __future__ import annotations

import random
import string

import pytest

from ratings import Entry, Game, GameHistory
from ratings.aliases import (
    DELETIONS_UP_TO,
    MIN_LENGTH,
    REGULAR_GAMES,
    Suspect,
    Suspects,
    _Budget,
    _Near,
    fold,
    likely_duplicates,
)
from ratings.samples import SAMPLES, load_sample


def _typo(rng: random.Random, name: str) -> str:
    """``name`` with one or two typing slips: a letter replaced, dropped, doubled, or two neighbours swapped."""
    for _ in range(rng.choice((1, 1, 2))):
        i = rng.randrange(len(name))
        slip = rng.randrange(4)
        if slip == 0:
            name = name[:i] + rng.choice(string.ascii_lowercase) + name[i + 1 :]
        elif slip == 1 and len(name) > 2:
            name = name[:i] + name[i + 1 :]
        elif slip == 2:
            name = name[:i] + name[i] + name[i:]
        elif i + 1 < len(name):
            name = name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    return name


def _random_history(seed: int, regulars: int = 60, games: int = 150, rare: int = 150) -> GameHistory:
    """Regulars in 4-player games, then one-game names beside a regular: typos of regulars' names (in both cases),
    a regular's first word, and fresh names; lengths 2 to 45 letters (past both DELETIONS_UP_TO lengths)."""
    rng = random.Random(seed)

    def word(low: int, high: int) -> str:
        return "".join(rng.choice("aeioulnrst" + string.ascii_lowercase) for _ in range(rng.randint(low, high)))

    def name() -> str:
        shape = rng.randrange(4)
        if shape == 0:
            return word(2, 5).title()
        if shape == 1:
            return word(4, 12).title()
        if shape == 2:
            return f"{word(3, 9).title()} {word(4, 14).title()}"
        return " ".join(word(5, 11).title() for _ in range(rng.randint(3, 4)))

    regular = list(dict.fromkeys(name() for _ in range(regulars)))
    played = [Game(f"r{g}", tuple(Entry(p, i + 1) for i, p in enumerate(rng.sample(regular, 4)))) for g in range(games)]
    seen = set(regular)
    for i in range(rare):
        base = rng.choice(regular)
        kind = rng.randrange(4)
        if kind == 0:
            other = _typo(rng, base)
        elif kind == 1:
            other = _typo(rng, base).upper()
        elif kind == 2:
            other = base.split(" ")[0]
        else:
            other = name()
        other = other.strip()
        if not other or other in seen:
            continue
        seen.add(other)
        partner = rng.choice([p for p in regular if p != base])
        played.append(Game(f"o{i}", (Entry(other, 1), Entry(partner, 2))))
    # A few near names that are regular themselves, to make one-edit pairs of regulars.
    for i in range(10):
        twin = _typo(rng, rng.choice(regular))
        if twin.strip() and twin not in seen:
            seen.add(twin)
            played += [Game(f"t{i}-{g}", (Entry(twin, 1), Entry(rng.choice(regular), 2))) for g in range(REGULAR_GAMES)]
    return GameHistory(played)


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_the_bundled_samples_give_what_the_reference_gave(sample: str) -> None:
    history = load_sample(sample)
    assert likely_duplicates(history, limit=10_000) == reference_likely_duplicates(history, limit=10_000)


@pytest.mark.parametrize("seed", range(12))
def test_random_names_give_what_the_reference_gave(seed: int) -> None:
    history = _random_history(seed)
    expected = reference_likely_duplicates(history, limit=10_000)
    got = likely_duplicates(history, limit=10_000)
    assert got == expected
    assert got.note is None
    reasons = {s.reason for s in expected}
    assert len(expected) >= 20 and len(reasons) == 3, "the names make every kind of pair"


def test_the_index_finds_every_key_within_reach_whatever_its_length() -> None:
    # Against every key measured directly (rapidfuzz's Damerau-Levenshtein, a published implementation), for
    # lengths on both sides of DELETIONS_UP_TO: short keys by deletions, long ones by pieces, and across.
    from rapidfuzz.distance import DamerauLevenshtein

    rng = random.Random(7)
    bases = ["".join(rng.choice("abcde") for _ in range(n)) for n in (3, 8, 15, 16, 17, 18, 31, 32, 33, 34, 40)]
    keys = sorted({variant for base in bases for variant in [base] + [_typo(rng, base) for _ in range(40)]})
    for edits in (1, 2):
        assert any(len(k) <= DELETIONS_UP_TO[edits] for k in keys) and any(
            len(k) > DELETIONS_UP_TO[edits] for k in keys
        )
        near = _Near(keys, edits, _Budget(10**9))
        for key in keys:
            direct = sorted((DamerauLevenshtein.distance(key, other), other) for other in keys)
            assert near.near(key) == [other for d, other in direct if d <= edits], (edits, key)


def _one_game_players(count: int, seed: int = 30) -> GameHistory:
    rng = random.Random(seed)
    names = list(
        dict.fromkeys(
            "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 12))).title() for _ in range(count)
        )
    )
    return GameHistory(
        [
            Game(f"g{i}", (Entry(a, 1), Entry(b, 2)))
            for i, (a, b) in enumerate(zip(names[::2], names[1::2], strict=False))
        ]
    )


def test_the_check_makes_a_few_comparisons_per_name_not_one_per_pair() -> None:
    # Issue 30: 20,000 one-game players, each compared with every name of its lengths (about 20,000 * 20,000 / 5
    # comparisons).  Indexed, the whole check fits in 100 comparisons per name (index entries and candidates).
    history = _one_game_players(20_000)
    names = history.n_players
    assert names > 19_000
    assert likely_duplicates(history, comparisons=100 * names).note is None


def test_a_check_past_its_budget_says_it_stopped() -> None:
    history = _one_game_players(2_000)
    whole = likely_duplicates(history)
    assert whole.note is None and isinstance(whole, Suspects)
    cut = likely_duplicates(history, comparisons=5_000)
    assert cut.note is not None and "stopped after 5,000 comparisons of names" in cut.note
    assert set(cut) <= set(whole)


# --------------------------------------------------------------------------------------------- the reference
def reference_likely_duplicates(history: GameHistory, *, limit: int = 50) -> list[Suspect]:
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
            for other in _reference_within(key, band, 1):
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
        close = _reference_within(key, regular_keys, 2) if len(key) >= MIN_LENGTH else []
        candidates = [regular_of[other] for other in close if other != key]
        candidates += [by_first_words[key]] if key in by_first_words else []
        match = next((c for c in candidates if played[name].isdisjoint(played[c])), None)
        if match is not None:
            add(name, match, "a one-game name next to a regular's")
    ordered = sorted(found.values(), key=lambda s: (-s.common_games, -s.rare_games, s.common, s.rare))
    return ordered[:limit]


def _reference_within(key: str, choices: list[str], edits: int) -> list[str]:
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


# --------------------------------------------------------------------------------------------- the page says so
@pytest.mark.parametrize("suspects", [False, True], ids=["nothing-found", "pairs-found"])
def test_the_page_says_when_the_check_stopped(monkeypatch: pytest.MonkeyPatch, suspects: bool) -> None:
    # The Aliases callback shows the check's note beside its pairs, or alone when it found none (issue 30); a cut of
    # 5,000 comparisons stands in for MAX_COMPARISONS on a history of a few thousand names.
    import functools
    import json

    from callbacks import aliases as page
    from sources import aliasing
    from sources.model import Upload, keep_history

    history = _one_game_players(2_000)
    if suspects:  # a pair the same up to accents, found before the comparisons that run out
        history = GameHistory(
            [Game("a", (Entry("Zoë", 1), Entry("Bertrand", 2))), Game("b", (Entry("Zoe", 1), Entry("Zed", 2)))]
            + list(history.games)
        )
    monkeypatch.setattr(aliasing, "likely_duplicates", functools.partial(likely_duplicates, comparisons=5_000))
    source = Upload(keep_history(history), "many.csv").to_json()
    warning, pairs, _, _ = page.on_source(source)
    shown = json.dumps([w.to_plotly_json() for w in warning], default=lambda c: c.to_plotly_json(), ensure_ascii=False)
    assert "stopped after 5,000 comparisons of names" in shown
    assert bool(pairs) is suspects and ("Zoë" in shown) is suspects


def test_a_whole_check_adds_no_note() -> None:
    from layouts.aliases import suspects_warning

    assert suspects_warning([], None) == []
