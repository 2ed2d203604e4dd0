"""Large fields: every system's compiled replay is finite and equal to its per-game reference path on games of
4,096 players (issue 28: fields of programming contests, up to tens of thousands of entrants).

Two games of the same 4,096 players (so the second starts from the first's posteriors), places from skill plus
noise rounded so that small ties occur, a 600-way tie for last among finishers (everyone who solved nothing in a
contest: 15% of the field, far beyond Plackett-Luce's subset enumeration) and 1% DNFs.  Each system's
reference path is its per-game Python hook (``rate_per_game``), the same comparison as tests/test_kernels.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from ratings import ComputationError, Entry, Game, GameHistory, create

from .test_kernels import assert_agree

PLAYERS = 4096
TIE = 600


def large_history(players: int = PLAYERS, tie: int = TIE) -> GameHistory:
    rng = np.random.default_rng(players)
    skill = rng.normal(0.0, 1.0, players)
    games = []
    for g in range(2):
        performance = np.round(skill + rng.normal(0.0, 1.0, players), 2)
        performance[np.argsort(performance)[:tie]] = -99.0
        place = {i: int(np.sum(performance > performance[i])) + 1 for i in range(players)}
        dnf = set(rng.choice(players, players // 100, replace=False).tolist())
        order = rng.permutation(players)
        entries = tuple(Entry(f"p{i:04d}", None if i in dnf else place[int(i)]) for i in order)
        games.append(Game(f"g{g}", entries, None))
    return GameHistory(games)


@pytest.fixture(scope="module")
def history() -> GameHistory:
    return large_history()


def test_the_history_has_the_shape_described(history: GameHistory) -> None:
    first = slice(0, PLAYERS)
    ranks = history.flat_rank[first][~history.flat_dnf[first]]
    assert np.bincount(ranks).max() >= TIE - PLAYERS // 100  # the tie for last among finishers
    assert history.flat_dnf[first].sum() == PLAYERS // 100


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("multielo", {}),
        ("pairwise-elo", {}),
        ("glicko2", {}),
        ("trueskill", {}),
        ("elo-mmr", {}),
        ("elo-mmr", {"variant": "chi"}),
        ("plackett-luce", {}),
        ("plackett-luce", {"dnf_order": "independent"}),
    ],
)
def test_large_field_is_finite_and_equals_the_reference(history: GameHistory, name: str, params: dict) -> None:
    system = create(name, **params)
    run = system.rate(history)
    assert np.isfinite(run.after).all()
    assert np.isfinite(run.before).all()
    assert_agree(system, history, run)


def crowd_history(players: int) -> GameHistory:
    """Two games of the same ``players``, places from skill plus noise (no ties, which the kernel would hand to the
    per-game hooks beyond its enumeration), 1% DNFs."""
    rng = np.random.default_rng(players)
    skill = rng.normal(0.0, 1.0, players)
    games = []
    for g in range(2):
        place = np.empty(players, dtype=int)
        place[np.argsort(-(skill + rng.normal(0.0, 1.0, players)))] = np.arange(1, players + 1)
        dnf = set(rng.choice(players, players // 100, replace=False).tolist())
        order = rng.permutation(players)
        games.append(Game(f"g{g}", tuple(Entry(f"p{i:04d}", None if i in dnf else int(place[i])) for i in order)))
    return GameHistory(games)


def test_thurstonian_kernel_rates_a_crowd_of_600_and_equals_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """600 players: the kernel computes both games (none handed to the per-game hooks), finite and equal to the
    reference.  Before the grid's cost bound stopped widening the step past the crowd's stability limit, the step
    here gave n h = 5 (the messages diverge from n h of about 2-3; accuracy against independent order statistics
    up to 1,000 players: tests/test_thurstonian.py)."""
    history = crowd_history(600)
    system = create("thurstonian")
    calls: list[int] = []
    play = system._play
    monkeypatch.setattr(system, "_play", lambda state, game: (calls.append(game.index), play(state, game)))
    run = system.rate(history)
    assert calls == []
    assert np.isfinite(run.after).all()
    assert np.ptp(run.after[:600]) > 0.1  # the game moved its players
    monkeypatch.undo()
    assert_agree(system, history, run)


def test_thurstonian_reference_refuses_a_field_beyond_its_grid_and_says_so(history: GameHistory) -> None:
    """4,096 players need a grid of about 170 million points at the stable step: the per-game reference refuses the
    first game with an error saying why, not computed on a step that lets the messages diverge.  The compiled kernel
    computes such a contest (its banded crowd, each tie group through its segments; 140 s of CPU for this history's
    600 tied last in two games): tests/test_thurstonian.py's contest of 4,096 with its ties checks it, finite and
    zero-sum, in 14 s."""
    with pytest.raises(ComputationError, match="a game of 4096 players needs a grid of") as error:
        create("thurstonian").rate_per_game(history)
    assert error.value.game == 0
