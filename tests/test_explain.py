"""ratings.explain: per-opponent terms that sum to the replay's change; plain words for the other systems."""

from __future__ import annotations

import numpy as np
import pytest

from ratings import GameHistory, create
from ratings.explain import explain
from tests.conftest import history_from_rows


def test_multielo_even_four_player_game_by_hand(small_history):
    # g1: Ann 1, Bob 2, Cid 3, Dee DNF, all at 1000, K 32, N 4.  Every pair expects 1/2, so each opponent
    # term is 2K/N (s - 1/2) = 16 (s - 1/2): Ann beat all three: 3 x 8 = +24; Bob: -8 (Ann) +8 +8 = +8;
    # Dee (alone in DNF) lost to all three: -24.  Cunningham 2021 eq. 7: K(N-1)(S-E) = 96 (1/2 - 1/4) = 24 for Ann.
    run = create("multielo").rate(small_history)
    ann = explain(run, 0, "Ann")
    assert [(t.label, t.result) for t in ann.terms] == [("Bob", "ahead"), ("Cid", "ahead"), ("Dee", "ahead")]
    assert [t.value for t in ann.terms] == pytest.approx([8.0, 8.0, 8.0], abs=1e-12)
    assert [t.expected for t in ann.terms] == pytest.approx([0.5, 0.5, 0.5], abs=1e-12)
    assert ann.change == pytest.approx(24.0, abs=1e-12)
    bob = explain(run, 0, "Bob")
    assert [t.value for t in bob.terms] == pytest.approx([-8.0, 8.0, 8.0], abs=1e-12)
    assert sum(t.value for t in explain(run, 0, "Dee").terms) == pytest.approx(-24.0, abs=1e-12)


def test_multielo_score_base_bonus_by_hand():
    # Three even players, base 2: scores (2^2-1, 2^1-1, 0)/4 = (3/4, 1/4, 0) against linear (2/3, 1/3, 0).
    # Winner: per opponent 2K/3 (1 - 1/2) = 32/3; bonus K (N-1) (3/4 - 2/3) = 64/12 = 16/3; total 80/3
    # = K (N-1) (S - E) = 64 (3/4 - 1/3).
    h = history_from_rows([("g", "Ann", 1), ("g", "Bob", 2), ("g", "Cid", 3)])
    run = create("multielo", base=2.0).rate(h)
    ann = explain(run, 0, "Ann")
    assert [t.kind for t in ann.terms] == ["opponent", "opponent", "bonus"]
    assert [t.value for t in ann.terms] == pytest.approx([32 / 3, 32 / 3, 16 / 3], rel=1e-12)
    assert ann.change == pytest.approx(80 / 3, rel=1e-12)


def test_pairwise_two_players_by_hand():
    # Logistic pair model at r = 0 each: the winner gains eta (1 - 1/(1+e^0)) = 0.07 x 1/2 = 0.035.
    h = history_from_rows([("g", "Ann", 1), ("g", "Bob", 2)])
    run = create("pairwise-elo").rate(h)
    e = explain(run, 0, "Ann")
    (term,) = e.terms
    assert (term.label, term.result, term.value, term.expected) == ("Bob", "ahead", pytest.approx(0.035), 0.5)
    assert "pair updates summed" in e.notes[0]
    average = explain(create("pairwise-elo", variant="average").rate(h), 0, "Ann")
    assert "pair updates averaged over the N−1 opponents" in average.notes[0]


def random_history(rng: np.random.Generator, games: int = 40) -> GameHistory:
    """Random games of 2-7 from 9 players, with ties and DNFs."""
    records = []
    for g in range(games):
        size = int(rng.integers(2, 8))
        for p in rng.choice(9, size=size, replace=False):
            place = "DNF" if rng.random() < 0.15 else int(rng.integers(1, size + 1))
            records.append({"game": str(g), "player": f"P{p}", "place": place})
    return GameHistory.from_records(records)


SETTINGS = [
    ("multielo", {}),
    ("multielo", {"base": 1.6, "k": 24.0, "d": 300.0}),
    ("multielo", {"dummy": 900.0}),
    ("multielo", {"floor": 990.0}),
    ("pairwise-elo", {}),
    ("pairwise-elo", {"variant": "average", "eta": 0.5}),
    ("pairwise-elo", {"model": "gaussian", "dummy": -0.5}),
    ("pairwise-elo", {"eta_knots": (-1.0, 1.0), "eta_values": (0.2, 0.05), "floor": -0.2}),
]


@pytest.mark.parametrize(("system", "params"), SETTINGS)
def test_terms_sum_to_the_replayed_change(system, params):
    rng = np.random.default_rng(11)
    h = random_history(rng)
    run = create(system, **params).rate(h)
    checked = 0
    for g in range(h.n_games):
        s = h.game_slice(g)
        for k in range(s.start, s.stop):
            player = h.players[h.flat_player[k]]
            terms = explain(run, g, player).terms
            assert sum(t.value for t in terms) == pytest.approx(run.after[k] - run.before[k], abs=1e-9)
            opponents = [t for t in terms if t.kind in ("opponent", "dummy")]
            assert len(opponents) == s.stop - s.start - 1 + (params.get("dummy") is not None)
            checked += 1
    assert checked == int(h.offsets[-1])


def test_floor_term_is_what_the_floor_gave_back():
    # Two at 1000, floor 990: the loser would fall 16 to 984; the floor holds 990, a +6 term.
    h = history_from_rows([("g", "Ann", 1), ("g", "Bob", 2)])
    run = create("multielo", floor=990.0).rate(h)
    terms = explain(run, 0, "Bob").terms
    assert [(t.kind, t.value) for t in terms] == [("opponent", pytest.approx(-16.0)), ("floor", pytest.approx(6.0))]


@pytest.mark.parametrize("system", ["plackett-luce", "thurstonian", "trueskill", "glicko2", "elo-mmr"])
def test_other_systems_say_what_moved_without_terms(small_history, system):
    run = create(system).rate(small_history)
    e = explain(run, 0, "Ann")
    assert e.terms == () and not e.exact
    assert e.notes
    shown = [m for m in e.moved if m.name == "shown rating"]
    assert shown[0].change == pytest.approx(run.after[0] - run.before[0], abs=1e-12)
    if system in ("trueskill", "elo-mmr", "glicko2"):
        assert {"mu", "sigma"} <= {m.name for m in e.moved}


def test_trueskill_note_adds_up():
    # shown = mu - 2 sigma, so its change is d_mu - 2 d_sigma: the note's arithmetic must match the run
    h = history_from_rows([("g", "Ann", 1), ("g", "Bob", 2)])
    run = create("trueskill").rate(h)
    e = explain(run, 0, "Ann")
    mu = next(m for m in e.moved if m.name == "mu")
    sigma = next(m for m in e.moved if m.name == "sigma")
    assert mu.change - 2 * sigma.change == pytest.approx(e.change, abs=1e-12)
    assert f"{e.change:+.4g}" in e.notes[0]


def test_a_player_outside_the_game_is_refused(small_history):
    run = create("multielo").rate(small_history)
    with pytest.raises(ValueError, match="did not play game 4"):
        explain(run, 3, "Bob")
    with pytest.raises(ValueError, match="no game"):
        explain(run, 9, "Bob")
