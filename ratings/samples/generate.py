"""Write the bundled sample histories (deterministic: a fixed seed per sample).

Run ``.venv/bin/python -m ratings.samples.generate`` to rewrite ``ratings/samples/*.csv``.

Each sample is a simulation: every player has a latent skill that drifts as a small random walk, and a
few players follow a scripted arc so that the charts tell a story (a dominant veteran, a rising
newcomer, a slump and a recovery, a fading star).  A game's finishing order is drawn from the
Plackett-Luce model: each player's performance is skill plus Gumbel noise, and sorting performances
from best to worst gives an order with exactly the Plackett-Luce probabilities (the Gumbel-max trick).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ratings.history import Entry, Game, GameHistory
from ratings.io import write_csv
from ratings.io.places import ordinal_name

HERE = Path(__file__).resolve().parent

#: A skill arc: time in [0, 1] -> skill offset.
Arc = Callable[[float], float]


@dataclass
class _Player:
    name: str
    base: float
    joins: float = 0.0  # time in [0, 1] when the player first shows up
    leaves: float = 1.0
    activity: float = 1.0  # relative chance of taking part when present
    arc: Arc | None = None
    walk: float = 0.0  # current random-walk offset
    drifts: bool = True  # scripted story players follow their arc without a random walk

    def skill(self, t: float) -> float:
        return self.base + self.walk + (self.arc(t) if self.arc else 0.0)

    def present(self, t: float) -> bool:
        return self.joins <= t <= self.leaves


def _ramp(start: float, end: float, low: float, high: float) -> Arc:
    """An arc that moves linearly from ``low`` to ``high`` between ``start`` and ``end``."""

    def arc(t: float) -> float:
        if t <= start:
            return low
        if t >= end:
            return high
        return low + (high - low) * (t - start) / (end - start)

    return arc


def _dip(start: float, bottom: float, end: float, depth: float) -> Arc:
    """A slump: skill falls by ``depth`` from ``start`` to ``bottom`` and recovers by ``end``."""

    def arc(t: float) -> float:
        if t <= start or t >= end:
            return 0.0
        if t <= bottom:
            return -depth * (t - start) / (bottom - start)
        return -depth * (end - t) / (end - bottom)

    return arc


def _order(rng: np.random.Generator, skills: np.ndarray, noise: float) -> np.ndarray:
    """Indices from best to worst under Plackett-Luce with strengths exp(skill / noise) (Gumbel-max trick)."""
    performance = skills + noise * rng.gumbel(size=len(skills))
    return np.argsort(-performance, kind="stable")


def _pick(rng: np.random.Generator, players: list[_Player], t: float, count: int) -> list[_Player]:
    present = [p for p in players if p.present(t)]
    count = min(count, len(present))
    weights = np.array([p.activity for p in present], dtype=float)
    chosen = rng.choice(len(present), size=count, replace=False, p=weights / weights.sum())
    return [present[i] for i in chosen]


def _drift(rng: np.random.Generator, players: list[_Player], step: float) -> None:
    for p in players:
        if not p.drifts:
            continue
        p.walk += step * rng.standard_normal()
        p.walk *= 0.995  # a weak pull back towards the base skill keeps the walk bounded


def _dates(rng: np.random.Generator, start: dt.date, days: int, count: int, weekdays: set[int]) -> list[dt.date]:
    candidates = [start + dt.timedelta(days=d) for d in range(days)]
    candidates = [d for d in candidates if d.weekday() in weekdays]
    picked = rng.choice(len(candidates), size=count, replace=False)
    return sorted(candidates[i] for i in picked)


# ---------------------------------------------------------------------------------------------- poker
POKER_NAMES = ["Marta", "Jonas", "Priya", "Dmitri", "Chloe", "Sam", "Ines", "Kofi", "Hannah", "Luis"]


def poker_rows(seed: int = 20240101) -> list[list[str]]:
    """A poker night kept as a sheet in the wide shape: date, 1st ... 8th, DNF (no game column)."""
    rng = np.random.default_rng(seed)
    players = [
        _Player("Marta", 1.4, activity=1.6, drifts=False),  # the dominant veteran
        _Player("Jonas", 0.0, joins=0.3, activity=1.4, arc=_ramp(0.3, 0.85, -1.0, 1.6), drifts=False),  # newcomer
        _Player("Priya", 0.9, activity=1.2, arc=_dip(0.35, 0.55, 0.8, 2.2), drifts=False),  # a slump, a recovery
        _Player("Dmitri", 0.5, activity=1.0, arc=_ramp(0.2, 0.9, 0.4, -0.6), drifts=False),  # slowly fading
        _Player("Chloe", 0.2, activity=1.0),
        _Player("Sam", -0.2, activity=1.3),
        _Player("Ines", 0.1, activity=0.8),
        _Player("Kofi", -0.4, activity=0.9),
        _Player("Hannah", 0.0, activity=0.7, leaves=0.7),  # moves away
        _Player("Luis", -0.1, joins=0.5, activity=0.8),
    ]
    dates = _dates(rng, dt.date(2023, 1, 6), 730, 150, {1, 4})  # Tuesday and Friday evenings
    top = 8
    rows = [["date", *[ordinal_name(k) for k in range(1, 9)]]]
    rows[0].append("DNF")
    for i, date in enumerate(dates):
        t = i / (len(dates) - 1)
        _drift(rng, players, 0.06)
        table = _pick(rng, players, t, int(rng.integers(4, top + 1)))
        order = [table[j] for j in _order(rng, np.array([p.skill(t) for p in table]), 1.0)]
        dnf = []
        if rng.random() < 0.04:  # someone had to leave early
            dnf.append(order.pop(int(rng.integers(len(order)))))
        cells: list[list[str]] = [[p.name] for p in order]
        if len(cells) >= 3 and rng.random() < 0.08:  # the last two busted on the same hand: a tie
            cells[-2].extend(cells.pop())
        row = [date.isoformat()] + [" / ".join(c) for c in cells] + [""] * (top - len(cells))
        row.append(" / ".join(p.name for p in dnf))
        while row and row[-1] == "":
            row.pop()
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------- racing
def _handles(rng: np.random.Generator, count: int) -> list[str]:
    first = [
        "ka",
        "lo",
        "mi",
        "ra",
        "ze",
        "tu",
        "vo",
        "ni",
        "sha",
        "bri",
        "dex",
        "fal",
        "gor",
        "hex",
        "ix",
        "jun",
        "kel",
        "mar",
        "nox",
        "pim",
        "quo",
        "rin",
        "sol",
        "tav",
    ]
    last = ["ron", "vex", "dra", "lix", "mus", "tor", "zen", "kai", "fox", "bolt", "wing", "ace", "run", "dash"]
    names: list[str] = []
    while len(names) < count:
        name = str(rng.choice(first)).capitalize() + str(rng.choice(last))
        if rng.random() < 0.35:
            name += str(int(rng.integers(1, 100)))
        if name not in names:
            names.append(name)
    return names


#: The scripted racers: a dominant veteran, a prodigy, a long slump, a fading star.
RACING_STORY = ("Vexa", "Nova", "Brick", "Orion")


def racing_history(seed: int = 20240202) -> GameHistory:
    """A racing community: about 150 racers, 2,000 races of 2-30 entrants, many DNFs."""
    rng = np.random.default_rng(seed)
    names = _handles(rng, 150)
    players = []
    for i, name in enumerate(names):
        joins = 0.0 if i < 60 else float(rng.uniform(0.0, 0.85))
        leaves = 1.0 if rng.random() < 0.75 else float(rng.uniform(joins + 0.1, 1.0))
        activity = float(rng.pareto(1.5) + 0.2)  # a few racers enter almost everything
        players.append(_Player(name, float(rng.normal(0.0, 1.0)), joins, min(leaves, 1.0), activity))
    players[0].base, players[0].activity = 2.2, 6.0  # the dominant veteran
    players[1].arc, players[1].joins, players[1].activity = _ramp(0.25, 0.8, -1.2, 2.4), 0.25, 5.0  # the prodigy
    players[2].arc, players[2].activity = _dip(0.3, 0.5, 0.75, 2.0), 4.0  # a long slump
    players[3].arc, players[3].activity = _ramp(0.1, 0.9, 1.5, -1.0), 4.0  # a fading star
    players[1].base, players[2].base, players[3].base = 0.0, 1.2, 0.0
    for p, name in zip(players[:4], RACING_STORY, strict=True):
        p.name, p.leaves = name, 1.0
    for p in players[:4]:
        p.drifts = False
    start = dt.date(2023, 3, 1)
    n_races = 2000
    games = []
    for i in range(n_races):
        t = i / (n_races - 1)
        if i % 10 == 0:
            _drift(rng, players, 0.05)
        size = 2 + int(28 * rng.beta(1.1, 3.5))
        field = _pick(rng, players, t, size)
        order = [field[j] for j in _order(rng, np.array([p.skill(t) for p in field]), 1.0)]
        entries = []
        for place, p in enumerate(order, start=1):
            # Weaker racers crash out more often: DNF chance from about 5% to about 30%.
            dnf_chance = 0.05 + 0.25 / (1.0 + np.exp(2.0 * p.skill(t)))
            entries.append(Entry(p.name, None if rng.random() < dnf_chance else place))
        finishers = [e for e in entries if e.place is not None]
        renumbered = {e.player: k for k, e in enumerate(finishers, start=1)}
        entries = [Entry(e.player, renumbered.get(e.player)) for e in entries]
        date = start + dt.timedelta(days=int(t * 700))
        games.append(Game(f"race {i + 1:04d}", tuple(entries), date))
    return GameHistory(games)


# ----------------------------------------------------------------------------------------------- chess
CHESS_NAMES = [
    "Abena",
    "Anders",
    "Beatriz",
    "Bogdan",
    "Carmen",
    "Chen",
    "Dagny",
    "Emeka",
    "Farah",
    "Gustavo",
    "Hiro",
    "Ilse",
    "Jamal",
    "Katya",
    "Lars",
    "Leila",
    "Mateo",
    "Nadia",
    "Oskar",
    "Paloma",
    "Quentin",
    "Rania",
    "Soren",
    "Tamsin",
    "Umar",
    "Vera",
    "Wendell",
    "Ximena",
    "Yusuf",
    "Zofia",
]


def chess_history(seed: int = 20240303) -> GameHistory:
    """A two-player chess club: 30 members, about 1,500 games over three years, with draws."""
    rng = np.random.default_rng(seed)
    players = [_Player(n, float(rng.normal(0.0, 0.8)), activity=float(rng.uniform(0.4, 1.6))) for n in CHESS_NAMES]
    players[0].base, players[0].activity = 2.0, 1.8  # the club champion
    players[1].arc, players[1].joins = _ramp(0.2, 0.8, -1.0, 2.2), 0.2  # a junior who keeps improving
    players[2].arc = _dip(0.4, 0.6, 0.85, 1.8)  # a slump
    players[1].base, players[2].base = 0.0, 1.0
    for p in players[:3]:
        p.drifts = False
    for p in players[3:6]:
        p.joins = float(rng.uniform(0.1, 0.6))
    nights = _dates(rng, dt.date(2022, 9, 7), 3 * 365, 150, {2})  # Wednesday club nights
    games = []
    number = 0
    for k, date in enumerate(nights):
        t = k / (len(nights) - 1)
        _drift(rng, players, 0.05)
        for _ in range(int(rng.integers(7, 14))):
            a, b = _pick(rng, players, t, 2)
            diff = a.skill(t) - b.skill(t)
            expected = 1.0 / (1.0 + np.exp(-diff))
            draw = 0.45 * np.exp(-0.5 * diff * diff)  # close games are drawn more often
            u = rng.random()
            if u < draw:
                places = (1, 1)
            elif u < draw + (1.0 - draw) * expected:
                places = (1, 2)
            else:
                places = (2, 1)
            number += 1
            games.append(Game(f"G{number:04d}", (Entry(a.name, places[0]), Entry(b.name, places[1])), date))
    return GameHistory(games)


# --------------------------------------------------------------------------------------------- doubles
DOUBLES_NAMES = [
    "Ana",
    "Ben",
    "Carla",
    "Dev",
    "Elif",
    "Finn",
    "Greta",
    "Hugo",
    "Isla",
    "Jae",
    "Kemal",
    "Lena",
    "Milo",
    "Noor",
    "Otto",
    "Yuki",
]


def doubles_history(seed: int = 20240404) -> GameHistory:
    """A table-tennis doubles club: 16 members, about 600 matches of two pairs over two years.

    Partners are drawn at random each match (so the ratings must tell a player from a partner).  A match's
    winner follows the logistic model of the pairs' summed skills.  Now and then a pair is three players: a
    substitute came in halfway, and the player replaced and the substitute each played half the match (weight
    0.5).  Ana is the strongest, Yuki joins late and rises, Hugo slumps and recovers.
    """
    rng = np.random.default_rng(seed)
    players = [_Player(n, float(rng.normal(0.0, 0.6)), activity=float(rng.uniform(0.6, 1.4))) for n in DOUBLES_NAMES]
    players[0].base, players[0].activity, players[0].drifts = 1.3, 1.5, False  # Ana, the club's best
    yuki = players[-1]
    yuki.joins, yuki.arc, yuki.base, yuki.activity, yuki.drifts = 0.3, _ramp(0.3, 0.8, -1.2, 1.8), 0.0, 1.6, False
    hugo = players[7]
    hugo.base, hugo.arc, hugo.activity, hugo.drifts = 0.8, _dip(0.3, 0.5, 0.75, 2.6), 1.4, False
    nights = _dates(rng, dt.date(2023, 1, 3), 2 * 365, 100, {1, 3})  # Tuesday and Thursday evenings
    games = []
    number = 0
    for k, date in enumerate(nights):
        t = k / (len(nights) - 1)
        _drift(rng, players, 0.05)
        for _ in range(int(rng.integers(4, 9))):
            four = _pick(rng, players, t, 4)
            pairs = [four[:2], four[2:]]
            weights = [[1.0, 1.0], [1.0, 1.0]]
            if rng.random() < 0.06:  # a substitute came in halfway for the second player of one pair
                bench = [p for p in _pick(rng, players, t, 6) if p not in four]
                if bench:
                    side = int(rng.integers(2))
                    pairs[side] = [*pairs[side], bench[0]]
                    weights[side] = [1.0, 0.5, 0.5]
            strength = [
                sum(w * p.skill(t) for p, w in zip(pair, ws, strict=True))
                for pair, ws in zip(pairs, weights, strict=True)
            ]
            first_wins = rng.random() < 1.0 / (1.0 + np.exp(-(strength[0] - strength[1])))
            number += 1
            entries = []
            for side, (pair, ws) in enumerate(zip(pairs, weights, strict=True)):
                place = 1 if (side == 0) == first_wins else 2
                label = " & ".join(p.name for p in pair)
                entries += [Entry(p.name, place, label, w) for p, w in zip(pair, ws, strict=True)]
            games.append(Game(f"M{number:04d}", tuple(entries), date))
    return GameHistory(games)


# ----------------------------------------------------------------------------------------------- write
def _csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def main() -> None:
    """Rewrite every sample file next to this module."""
    outputs = {
        "poker.csv": _csv(poker_rows()),
        "racing.csv": write_csv(racing_history(), "long"),
        "chess.csv": write_csv(chess_history(), "long"),
        "doubles.csv": write_csv(doubles_history(), "long"),
    }
    for name, text in outputs.items():
        (HERE / name).write_text(text, encoding="utf-8", newline="")
        print(f"wrote {HERE / name} ({len(text):,} characters)")


if __name__ == "__main__":
    main()
