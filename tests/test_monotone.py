"""Every system is monotone in a game's result (issue 27 item 0; the incentive property of Ebtekar and Liu 2021,
section 4: a better result never leaves a player lower).

For random histories and every categorical option of every system (with and without a dummy player, rated above,
at and below newcomers), the last game is replayed with one player's result improved: moved up one place (swapping
with the player just above), or from did-not-finish to last finisher.  That player's rating after the game must not
be lower than with the worse result.  The histories before the game are identical, so only that game's update is
compared.  The games are dated with idle gaps, and every system is also tried with its time-aware dynamics on
(issue 27 item 1: they act before a game or scale its step, never on its result).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import SYSTEM_NAMES, GameHistory, create, get_system

#: Thurstonian's likelihood is integrated on a grid: its updates carry a relative error of about 1e-7.
TOLERANCE = {"thurstonian": 1e-6}
TEAM_OPTIONS = ("team_method", "team_strength")
#: Each system's dynamics on (TrueSkill's tau per idle day, Elo-MMR's drift per idle day, the single-rating
#: systems' new-player boost, forgetting and pull; Glicko-2 always grows its deviation with dated idle time).  The boost
#: keeps (1 + boost) x the default learning rate within the Gaussian pair model's summed step (0.2).
DYNAMICS: dict[str, dict[str, Any]] = {
    "trueskill": {"tau_day": 0.5},
    "elo-mmr": {"drift_per_day": 0.3},
    "glicko2": {"period_days": 3.0},
    **{
        name: {"boost": 1.5, "boost_games": 3.0, "forget_per_day": 0.05, "pull_per_day": 0.03}
        for name in ("multielo", "pairwise-elo", "plackett-luce", "thurstonian")
    },
}


def _variants(system: str) -> Iterator[dict[str, Any]]:
    specs = {s.name: s for s in get_system(system).parameters()}
    choices = {k: s.choices for k, s in specs.items() if s.kind == "choice" and k not in TEAM_OPTIONS}
    for combo in itertools.product(*choices.values()):
        options = dict(zip(choices, combo, strict=True))
        yield options
        yield {**options, **DYNAMICS[system]}
        if "dummy" in specs:
            initial = float(specs["initial"].default)
            spread = 200.0 if abs(initial) > 100 else 1.0
            for dummy in (initial - spread, initial, initial + spread):
                yield {**options, "dummy": dummy}


def _records(seed: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    gaps = np.random.default_rng([seed, 1]).choice([0, 1, 3, 30, 200], size=25)  # days between games
    records = []
    for g in range(25):
        who = rng.choice(10, size=int(rng.integers(2, 8)), replace=False)
        date = dt.date(2024, 1, 1) + dt.timedelta(days=int(gaps[: g + 1].sum()))
        for place, p in enumerate(who, start=1):
            dnf = rng.random() < 0.2
            records.append({"game": f"g{g:03d}", "player": f"P{p}", "place": None if dnf else place, "date": date})
    return records


def _better_results(records: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]], str]]:
    """Each (player, the records with that player's last result improved, how)."""
    last = records[-1]["game"]
    rows = [r for r in records if r["game"] == last]
    finishers = sorted((r for r in rows if r["place"] is not None), key=lambda r: r["place"])
    worst = finishers[-1]["place"] if finishers else 0
    for r in rows:
        if r["place"] is None:
            changed = [dict(x, place=worst + 1) if x is r else dict(x) for x in records]
            yield r["player"], changed, "from did-not-finish to last"
    for above, below in itertools.pairwise(finishers):
        if above["place"] == below["place"]:
            continue
        swap = {id(above): below["place"], id(below): above["place"]}
        changed = [dict(x, place=swap[id(x)]) if id(x) in swap else dict(x) for x in records]
        yield below["player"], changed, "up one place"


@pytest.mark.parametrize("system", SYSTEM_NAMES)
@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_a_better_result_never_leaves_a_player_lower(system: str, seed: int) -> None:
    records = _records(seed)
    history = GameHistory.from_records(records)
    tolerance = TOLERANCE.get(system, 1e-9)
    for options in _variants(system):
        rule = create(system, **options)
        run = rule.rate(history)
        after = dict(zip(run.players, run.final, strict=True))
        for player, changed, how in _better_results(records):
            better = rule.rate(GameHistory.from_records(changed))
            now = dict(zip(better.players, better.final, strict=True))[player]
            assert now >= after[player] - tolerance, (
                f"{system} {options}: {player} {how} ends at {now:.6f}, below {after[player]:.6f}"
            )
