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
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

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
    args = parser.parse_args()
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
