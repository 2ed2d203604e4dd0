"""Incremental replay: a history that shares its first games with an earlier run resumes from a checkpoint.

For every system and option family of the kernel agreement test (``tests/test_kernels.py``), a run on a seeded
history is the ``resume`` of a run on an edited copy (a place changed, a did-not-finish, a date moved, a new
player, a game removed, games appended; at the start, the middle and the end), and the resumed run must equal
a whole replay of the edited history bit for bit: every rating before and after every game, every extra series,
the final ratings and the final state.  The expected values are the whole replay's, the reference path of the
library itself (the kernels are checked against the per-game hooks in test_kernels.py, and those against
published references in the per-system tests).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import numpy as np
import pytest

from ratings import Entry, Game, GameHistory, base, create
from ratings.base import (
    CHECKPOINT_BYTES,
    CHECKPOINT_MIN_RESULTS,
    CHECKPOINT_MIN_SPACING,
    RatingRun,
    Replay,
    checkpoint_spacing,
    shared_prefix,
)
from tests.test_kernels import CASES, KERBY_OPTIONS, random_history

#: Every case of the agreement test but four of Thurstonian's six (the slowest replay; the two kept have the
#: plain options and dummy, floor and knots together, and its hand-back of single games to the per-game hooks).
RESUMED_CASES = [
    (name, params) for name, params in CASES if name != "thurstonian" or params in (KERBY_OPTIONS[0], KERBY_OPTIONS[5])
]

N_GAMES = 160
#: Checkpoints every 16 games here (in use: at least 64 games and 2,048 results), so that a short history has several.
SPACING = 16


@pytest.fixture(autouse=True)
def _close_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "CHECKPOINT_MIN_SPACING", SPACING)
    monkeypatch.setattr(base, "CHECKPOINT_MIN_RESULTS", 0)


@pytest.fixture(scope="module")
def history() -> GameHistory:
    return random_history(7, n_games=N_GAMES)


def with_game(history: GameHistory, g: int, game: Game | None) -> GameHistory:
    """``history`` with game ``g`` replaced by ``game`` (removed when None)."""
    games = list(history.games)
    if game is None:
        del games[g]
    else:
        games[g] = game
    return GameHistory(games)


def reversed_places(game: Game) -> Game:
    """The same players finishing in the opposite order (a DNF stays a DNF; a one-player game gains a DNF)."""
    places = [e.place for e in game.entries if e.place is not None]
    top = max(places, default=0)
    entries = tuple(Entry(e.player, None if e.place is None else top + 1 - e.place) for e in game.entries)
    if len(entries) < 2 or entries == game.entries:
        entries = (*entries[:1], Entry("newcomer", None))
    return dataclasses.replace(game, entries=entries)


def edits(history: GameHistory) -> dict[str, GameHistory]:
    """Edited copies of ``history``, each differing from the game named in the key on."""
    games = history.games
    n = history.n_games
    first_day = dt.date(2020, 1, 1)
    out = {
        "places at game 2": with_game(history, 2, reversed_places(games[2])),
        "places at the middle": with_game(history, n // 2, reversed_places(games[n // 2])),
        "places at the last game": with_game(history, n - 1, reversed_places(games[n - 1])),
        "a new player at game 50": with_game(
            history, 50, dataclasses.replace(games[50], entries=(*games[50].entries, Entry("Zoe", 1)))
        ),
        "a date moved at game 90": with_game(history, 90, dataclasses.replace(games[90], date=first_day)),
        "game 101 removed": with_game(history, 101, None),
        "every player a DNF at game 130": with_game(
            history,
            130,
            dataclasses.replace(games[130], entries=tuple(Entry(e.player, None) for e in games[130].entries)),
        ),
        "three games appended": GameHistory([*games, *random_history(8, n_games=3).games]),
        "the last 20 games cut": GameHistory(games[:-20]),
    }
    return out


def assert_identical(resumed: RatingRun, whole: RatingRun) -> None:
    """Bit-for-bit equal runs (NaN where the whole run has NaN)."""
    np.testing.assert_array_equal(resumed.before, whole.before)
    np.testing.assert_array_equal(resumed.after, whole.after)
    np.testing.assert_array_equal(resumed.final, whole.final)
    assert resumed.extras.keys() == whole.extras.keys()
    for name, (before, after) in whole.extras.items():
        np.testing.assert_array_equal(resumed.extras[name][0], before)
        np.testing.assert_array_equal(resumed.extras[name][1], after)
    assert resumed.state.keys() == whole.state.keys()
    for name, value in whole.state.items():
        got = resumed.state[name]
        if got.ndim == 2:  # Elo-MMR's performance table: its width is storage, its unused columns zeros
            width = min(got.shape[1], value.shape[1])
            assert not got[:, width:].any() and not value[:, width:].any()
            got, value = got[:, :width], value[:, :width]
        np.testing.assert_array_equal(got, value, err_msg=name)


def replayed_from(system: Any, history: GameHistory, resume: RatingRun) -> tuple[RatingRun, int]:
    """The resumed run and the first game its batch hook replayed (the whole history's length if none)."""
    starts: list[int] = []
    batch = system._replay

    def spy(state: Any, replay: Replay) -> None:
        starts.append(replay.first)
        batch(state, replay)

    system._replay = spy
    try:
        run = system.rate(history, resume=resume)
    finally:
        del system._replay
    return run, min(starts, default=history.n_games)


@pytest.mark.parametrize(("name", "params"), RESUMED_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(RESUMED_CASES)])
def test_resumed_run_equals_whole_run(name: str, params: dict[str, Any], history: GameHistory) -> None:
    system = create(name, **params)
    parent = system.rate(history)
    assert len(parent.checkpoints) >= N_GAMES // SPACING - 1
    for label, edited in edits(history).items():
        shared = shared_prefix(history, edited)
        resumed, first = replayed_from(system, edited, parent)
        assert_identical(resumed, system.rate(edited))
        # It resumed from the last checkpoint (or the parent's end) at or before the edit, not from the start.
        assert shared - SPACING < first <= shared, label
        # And a run resumed from a resumed run is still the whole run (its checkpoints carry over).
        again = with_game(edited, edited.n_games - 1, reversed_places(edited.games[-1]))
        assert_identical(system.rate(again, resume=resumed), system.rate(again))


def ten_times(place: int | None) -> int | None:
    return None if place is None else 10 * place


def test_shared_prefix_finds_the_first_difference(history: GameHistory) -> None:
    # Hand-made edits whose first differing game is known by construction.
    found = {label: shared_prefix(history, edited) for label, edited in edits(history).items()}
    n = history.n_games
    assert found == {
        "places at game 2": 2,
        "places at the middle": n // 2,
        "places at the last game": n - 1,
        "a new player at game 50": 50,
        "a date moved at game 90": 90,
        "game 101 removed": 101,
        "every player a DNF at game 130": 130,
        "three games appended": n,
        "the last 20 games cut": n - 20,
    }
    assert shared_prefix(history, history) == n
    # Ids and places written differently but ranking alike change nothing a replay sees.
    renamed = GameHistory(
        [
            dataclasses.replace(
                g,
                id=f"x{i}",
                entries=tuple(Entry(e.player, None if e.place is None else 10 * e.place) for e in g.entries),
            )
            for i, g in enumerate(history.games)
        ]
    )
    assert shared_prefix(history, renamed) == n


def test_two_new_players_at_the_same_entry_differ() -> None:
    # Both histories number the newcomer 2, but they are different people: the game differs.
    a = GameHistory([Game("1", (Entry("A", 1), Entry("B", 2))), Game("2", (Entry("A", 1), Entry("C", 2)))])
    b = GameHistory([Game("1", (Entry("A", 1), Entry("B", 2))), Game("2", (Entry("A", 1), Entry("D", 2)))])
    assert shared_prefix(a, b) == 1


def test_other_parameters_or_system_reuse_nothing(history: GameHistory) -> None:
    edited = edits(history)["places at the last game"]
    parent = create("elo-mmr").rate(history)
    for system in (create("elo-mmr", beta=300.0), create("trueskill")):
        run, first = replayed_from(system, edited, parent)
        assert first == 0
        assert_identical(run, system.rate(edited))


def test_checkpoints_stay_within_their_byte_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "CHECKPOINT_MIN_SPACING", CHECKPOINT_MIN_SPACING)  # the spacing in use
    monkeypatch.setattr(base, "CHECKPOINT_MIN_RESULTS", CHECKPOINT_MIN_RESULTS)
    # 3,000 players with Elo-MMR's 2-D performance table: a state of about 0.6 MB or more, so the cap binds.
    big = random_history(3, n_games=2_000, n_players=3_000, max_size=40)
    run = create("elo-mmr", max_history=20).rate(big)
    assert run.checkpoints
    assert sum(c.nbytes for c in run.checkpoints) <= CHECKPOINT_BYTES
    # The latest are kept: an edit near the end resumes near the end.
    spacing = checkpoint_spacing(big)
    assert run.checkpoints[-1].game > big.n_games - 2 * spacing
    assert len(run.checkpoints) < big.n_games // spacing - 1  # the cap did drop some


def test_apply_of_an_edit_resumes_the_run_the_page_already_has(monkeypatch: pytest.MonkeyPatch) -> None:
    # The dashboard's path: the racing sample's run, then Apply of an edit to one of its last games.
    from callbacks.runs import history_for, run_for
    from ratings.systems.trueskill import TrueSkill
    from sources import edits

    source = {"kind": "sample", "name": "racing"}
    params = {"beta": 4.0625}  # settings no other test uses, so that neither run is memoised already
    parent = run_for(source, "trueskill", params)
    rows = edits.grid_rows(history_for(source))
    last_game = rows[-1]["game"]
    index = next(i for i, r in enumerate(rows) if r["game"] == last_game)
    rows[index]["place"] = "DNF"
    outcome = edits.apply_rows(rows, edits.fresh_state(source))
    assert outcome.ok and outcome.source is not None

    starts: list[int] = []
    batch = TrueSkill._replay

    def spy(self: TrueSkill, state: Any, replay: Replay) -> None:
        starts.append(replay.first)
        batch(self, state, replay)

    monkeypatch.setattr(TrueSkill, "_replay", spy)
    run = run_for(outcome.source, "trueskill", params)
    edited = history_for(outcome.source)
    shared = shared_prefix(parent.history, edited)
    assert shared == edited.n_games - 1
    spacing = checkpoint_spacing(edited)
    assert shared - spacing < min(starts) <= shared
    monkeypatch.undo()
    assert_identical(run, create("trueskill", **params).rate(edited))


def test_a_small_history_takes_a_checkpoint_every_2048_results(monkeypatch: pytest.MonkeyPatch) -> None:
    # The spacing in use (the fixture sets denser checkpoints for the tests above).
    monkeypatch.setattr(base, "CHECKPOINT_MIN_SPACING", CHECKPOINT_MIN_SPACING)
    monkeypatch.setattr(base, "CHECKPOINT_MIN_RESULTS", CHECKPOINT_MIN_RESULTS)
    from ratings.samples import load_sample

    racing = load_sample("racing")
    assert (racing.n_games, int(racing.offsets[-1])) == (2_000, 16_172)
    # By hand: 2,048 results at 16,172 / 2,000 a game is 253.3 games, so 254 (more than the 64 games and the
    # 2,000 / 32 = 63 games of the other two rules).
    assert checkpoint_spacing(racing) == 254
    system = create("multielo")
    parent = system.rate(racing)
    assert [c.game for c in parent.checkpoints] == [254 * k for k in range(1, 8)]
    # An edit of the last game resumes from the last of them and equals the whole replay.
    edited = with_game(racing, 1_999, reversed_places(racing.games[1_999]))
    resumed, first = replayed_from(system, edited, parent)
    assert first == 254 * 7
    assert_identical(resumed, system.rate(edited))
