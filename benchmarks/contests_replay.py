"""Every system's whole ``rate()`` on a contests history (benchmarks/contests.py), beside the peers in one process.

The history is :func:`contests.contests_history` at ``--scale`` (a share of the 1,000 contests) with fields cut at
``--max-size`` entrants.  Each of our systems is timed over the whole history (CPU seconds of this process, best of
``--repeat``, after one untimed call that loads the kernels); then each peer of :mod:`peers` (the ``trueskill``
package, openskill Plackett-Luce and Thurstone-Mosteller full) on the same games, once, and the ratio of our closest
model to it: TrueSkill to the trueskill package, Plackett-Luce to openskill Plackett-Luce, Thurstonian to openskill
Thurstone-Mosteller.  A peer that raises is reported with its error.  Run from the repository root::

    python benchmarks/contests_replay.py --scale 0.02 --max-size 2000
    python benchmarks/contests_replay.py --scale 0.05 --no-peers        # fields up to 20,000, ours only
    python benchmarks/contests_replay.py --scale 0.01 --max-size 4096 --min-size 4096 --untie \
        --systems thurstonian --peers openskill-tm                           # crowds of 4,096, ties broken

``--min-size`` keeps only the contests of at least that many entrants (with ``--max-size`` equal to it: fields of
exactly that size); ``--untie`` breaks every tie group in the drawn order (each entrant its own place), to measure
a field's size apart from its ties (the Thurstonian kernel computes an order per walked ordering of the tie groups:
two for tied pairs and a group tied last, six with a triple).

Peers are per-game pure Python: on fields of thousands they take minutes (openskill's models are quadratic in
the field); keep ``--max-size`` small when they run.

``--fields 1000 4096 20000`` instead times one game's gradient of multiplayer Elo and logistic pairwise Elo (the
kernels of :mod:`ratings.kernels.elo`, called from Python: CPU of one call, best of ``--repeat``) at each field
size, against the same kernels as they were at ``--before`` (a commit: its ``ratings/kernels/elo.py`` loaded beside
today's, its pair loops over every pair), with their ratio::

    python benchmarks/contests_replay.py --fields 1000 4096 20000 --before 4e91a8e

``--glicko-fields 32 64 128 1000 4096 20000 --before f349179`` times one game's whole Glicko-2 replay
(:func:`ratings.kernels.glicko2.replay_glicko2`) the same way, against its kernel at ``--before`` (every pair summed
in every game), with ratings and deviations as after a long contests history.

``--pairwise-fields 128 256 512 1000 4096 20000 --before main`` times one game's gradient of Gaussian pairwise Elo
(summed variant) the same way: ``--before``'s kernel (every pair) against this checkout's rank-restricted field sums
(:func:`ratings.kernels.gaussian_pairs.gaussian_pair_sums`, called at every size, also below the kernel's threshold
``GAUSSIAN_FIELD_MIN``, to measure where they pay), with their largest difference relative to the largest sum.

The games: ratings spread as after the scale-1 history (multiplayer Elo: standard deviation 97, 3% anywhere in a
range eight times as wide; pairwise, natural scale: 320, the sum variant's spread, and 1.5), places with ties (tie
groups of two and more) and 3% sharing the last place as DNFs.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from contests import contests_history  # noqa: E402
from peers import PEERS  # noqa: E402

from ratings import Entry, Game, GameHistory, create  # noqa: E402
from ratings.systems import SYSTEM_NAMES  # noqa: E402

#: Our system measured against each peer.
COUNTERPART = {"trueskill": "trueskill", "openskill-pl": "plackett-luce", "openskill-tm": "thurstonian"}


def cpu(work: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work()  # type: ignore[operator]
        best = min(best, time.process_time() - started)
    return best


def selected(history: GameHistory, min_size: int, untie: bool) -> GameHistory:
    """The contests of at least ``min_size`` entrants, each entrant its own place if ``untie`` (in the drawn order)."""
    games = [game for game in history.games if len(game.entries) >= min_size]
    if untie:
        games = [
            Game(game.id, tuple(Entry(e.player, place) for place, e in enumerate(game.entries, 1)), game.date)
            for game in games
        ]
    return GameHistory(games)


def kernels_at(commit: str, name: str = "elo") -> ModuleType:
    """``ratings/kernels/<name>.py`` as it was at ``commit``, loaded as a module of its own (its imports are
    today's)."""
    source = subprocess.run(
        ["git", "show", f"{commit}:ratings/kernels/{name}.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / f"{name}_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"{name}_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def field_game(rng: np.random.Generator, n: int, spread: float, centre: float) -> tuple[np.ndarray, ...]:
    """Ratings, dense ranks (ties, 3% DNFs sharing the last rank) and the DNF flags of one game of ``n``."""
    r = rng.normal(centre, spread, n)
    outliers = rng.random(n) < 0.03
    r[outliers] = rng.uniform(centre - 4 * spread, centre + 4 * spread, outliers.sum())
    finishers = n - int(0.03 * n)
    places = np.sort(rng.integers(0, int(0.8 * finishers) + 1, finishers))
    ranks = np.concatenate([np.unique(places, return_inverse=True)[1], np.full(n - finishers, finishers)])
    ranks = np.unique(ranks, return_inverse=True)[1].astype(np.int64)
    return r, ranks, np.arange(n) >= finishers


def fields(sizes: list[int], before: str, repeat: int) -> None:
    from ratings.kernels import elo

    old = kernels_at(before)
    rng = np.random.default_rng(2026)
    cases = [
        ("multielo", "sd 97", elo.multielo_gradient, old.multielo_gradient, 97.0, 1000.0, [400.0, 1.0, 1.0]),
        ("pairwise-elo", "sd 320", elo.pairwise_gradient, old.pairwise_gradient, 320.0, 0.0, [0.0, 0.0]),
        ("pairwise-elo", "sd 1.5", elo.pairwise_gradient, old.pairwise_gradient, 1.5, 0.0, [0.0, 0.0]),
    ]
    print(f"one game's gradient, CPU of one call (best of {repeat}): {before} against this checkout")
    for name, label, new, previous, spread, centre, theta in cases:
        for n in sizes:
            r, ranks, dnf = field_game(rng, n, spread, centre)
            out = np.empty(n)
            args = (r, ranks, dnf, np.array(theta), out)
            previous(*args)  # compiles, and the previous gradient
            kept = out.copy()
            new(*args)
            gap = np.abs(out - kept).max() / max(np.abs(kept).max(), 1e-300)
            after = cpu(lambda f=new, args=args: f(*args), repeat)
            was = cpu(lambda f=previous, args=args: f(*args), repeat)
            print(
                f"  {name:<13} {label:<7} n {n:>6,}: before {1e3 * was:9.2f} ms  after {1e3 * after:7.3f} ms  "
                f"ratio {was / after:7.1f}x   largest difference {gap:.1e} of the largest",
                flush=True,
            )


def pairwise_fields(sizes: list[int], before: str, repeat: int) -> None:
    """One game's Gaussian pairwise gradient (summed) at each size: ``before``'s every-pair kernel against the field
    sums of this checkout, at both spreads of :func:`fields`."""
    from numba import njit

    from ratings.kernels import elo
    from ratings.kernels.gaussian_pairs import gaussian_pair_sums

    @njit
    def field_sums(r: np.ndarray, ranks: np.ndarray, dnf: np.ndarray, out: np.ndarray) -> None:
        gaussian_pair_sums(r, ranks, dnf, out)

    old = kernels_at(before)
    rng = np.random.default_rng(2026)
    theta = np.array([elo.GAUSSIAN, 0.0])
    print(
        f"Gaussian pairwise Elo (sum), one game's gradient, CPU of one call (best of {repeat}): {before}'s every pair "
        f"against this checkout's field sums (threshold {elo.GAUSSIAN_FIELD_MIN})"
    )
    for spread in (320.0, 1.5):
        for n in sizes:
            r, ranks, dnf = field_game(rng, n, spread, 0.0)
            out = np.empty(n)
            old.pairwise_gradient(r, ranks, dnf, theta, out)  # compiles, and the every-pair sums
            kept = out.copy()
            field_sums(r, ranks, dnf, out)
            gap = np.abs(out - kept).max() / max(np.abs(kept).max(), 1e-300)
            args = (r, ranks, dnf)
            after = cpu(lambda args=args, out=out: field_sums(*args, out), repeat)
            was = cpu(lambda args=args, out=out: old.pairwise_gradient(*args, theta, out), repeat)
            print(
                f"  sd {spread:<5} n {n:>6,}: before {1e3 * was:9.2f} ms  after {1e3 * after:7.3f} ms  "
                f"ratio {was / after:7.1f}x   largest difference {gap:.1e} of the largest",
                flush=True,
            )


def glicko_game(rng: np.random.Generator, n: int) -> tuple[object, ...]:
    """The arguments of :func:`ratings.kernels.glicko2.replay_glicko2` for one undated game of ``n`` players, ratings
    and deviations as after a long contests history (Glicko-2 scale: ratings of standard deviation 1.2 within the
    default bounds, deviations 0.175-1.2), places with ties and 3% DNFs sharing the last rank."""
    from ratings.base import NO_DATE
    from ratings.systems.glicko2 import GLICKO_SCALE, Glicko2

    p = Glicko2().params
    mu, ranks, dnf = field_game(rng, n, 1.2, 0.0)
    theta = np.array(
        [p.tau, p.initial_rating, p.initial_deviation, p.min_rating, p.max_rating, p.min_deviation]
        + [p.min_volatility, p.max_volatility, p.period_days, 0.0]
    )
    state = (
        np.clip(mu, p.min_rating, p.max_rating) * GLICKO_SCALE + p.initial_rating,
        rng.uniform(0.175, 1.2, n) * GLICKO_SCALE,
        np.full(n, p.initial_volatility),
        np.zeros(n),
    )
    games = (np.array([0, n]), np.arange(n), ranks, dnf)
    series = tuple(tuple(np.empty(n) for _ in range(4)) for _ in range(2))
    teams = (np.zeros(1, dtype=np.bool_), np.zeros(n, dtype=np.int64), np.ones(n), True)
    days = np.array([NO_DATE], dtype=np.int64)
    return theta, games, days, state, np.full(n, np.nan), np.empty(n), np.empty(n), *series, teams


def glicko_fields(sizes: list[int], before: str, repeat: int) -> None:
    """One game's replay of Glicko-2 at each size: this checkout's kernel against ``before``'s."""
    from ratings.kernels import glicko2

    old = kernels_at(before, "glicko2")
    rng = np.random.default_rng(2026)
    print(f"Glicko-2, one game's replay, CPU of one call (best of {repeat}): {before} against this checkout")
    for n in sizes:
        args = glicko_game(rng, n)
        state = args[3]
        start = tuple(a.copy() for a in state)  # type: ignore[attr-defined]

        def run(replay: object, args: tuple[object, ...] = args, start: tuple[np.ndarray, ...] = start) -> None:
            for kept, live in zip(start, args[3], strict=True):  # type: ignore[call-overload]
                live[:] = kept
            replay(*args)  # type: ignore[operator]

        run(old.replay_glicko2)
        kept = state[0].copy()  # type: ignore[index]
        run(glicko2.replay_glicko2)
        gap = np.abs(state[0] - kept).max()  # type: ignore[index]
        after = cpu(lambda: run(glicko2.replay_glicko2), repeat)
        was = cpu(lambda: run(old.replay_glicko2), repeat)
        print(
            f"  n {n:>6,}: before {1e3 * was:9.2f} ms  after {1e3 * after:7.3f} ms  ratio {was / after:7.1f}x   "
            f"largest rating difference {gap:.1e} Glicko points",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.02)
    parser.add_argument("--max-size", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--systems", nargs="*", default=list(SYSTEM_NAMES))
    parser.add_argument("--peers", nargs="*", default=list(COUNTERPART), choices=list(COUNTERPART))
    parser.add_argument("--min-size", type=int, default=0)
    parser.add_argument("--untie", action="store_true")
    parser.add_argument("--fields", nargs="*", type=int, default=[])
    parser.add_argument("--before", default="4e91a8e")
    parser.add_argument("--glicko-fields", nargs="*", type=int, default=[])
    parser.add_argument("--pairwise-fields", nargs="*", type=int, default=[])
    args = parser.parse_args()
    if args.fields:
        fields(args.fields, args.before, args.repeat)
        return
    if args.glicko_fields:
        glicko_fields(args.glicko_fields, args.before, args.repeat)
        return
    if args.pairwise_fields:
        pairwise_fields(args.pairwise_fields, args.before, args.repeat)
        return
    history = selected(contests_history(args.scale, max_size=args.max_size), args.min_size, args.untie)
    results = int(history.offsets[-1])
    sizes = np.diff(history.offsets)
    print(
        f"contests history: scale {args.scale}, {history.n_games} contests of {sizes.min()}-{sizes.max()} "
        f"(median {int(np.median(sizes))}), {results:,} results, {history.n_players:,} players"
        + (", ties broken" if args.untie else "")
    )
    ours: dict[str, float] = {}
    for name in args.systems:
        system = create(name)
        try:
            system.rate(history)
            seconds = cpu(lambda system=system: system.rate(history), args.repeat)
        except Exception as exc:  # report and go on: one system's failure is a figure too
            print(f"  {name:<16} failed: {type(exc).__name__}: {exc}", flush=True)
            continue
        ours[name] = seconds
        print(f"  {name:<16} {seconds:8.3f} s CPU   {1e6 * seconds / results:8.2f} us/result", flush=True)
    if args.no_peers:
        return
    for key in args.peers:
        peer = PEERS[key]()
        prepared = peer.prepare(history)
        try:
            seconds = cpu(lambda peer=peer, prepared=prepared: peer.run(prepared), 1)
        except Exception as exc:
            print(f"  {peer.name:<36} failed: {type(exc).__name__}: {str(exc)[:80]}", flush=True)
            continue
        mine = ours.get(COUNTERPART[key])
        ratio = f"ours {COUNTERPART[key]} {mine / seconds:.4f}x" if mine is not None else ""
        print(
            f"  {peer.name:<36} {seconds:8.3f} s CPU   {1e6 * seconds / results:8.2f} us/result   {ratio}", flush=True
        )


if __name__ == "__main__":
    main()
