"""Likely duplicates among many one-game names (issue 30): the check before it was indexed and now.

"Before" is the check as it was at commit 7d80c39 (kept in tests/test_aliases_blocking.py as the reference of the
equality tests): every name compared with every name of its lengths, in compiled rapidfuzz scans.  "After" is
``ratings.aliases.likely_duplicates``.  Histories: pairs of fresh one-game names, of random letters (4-12) or
numbered alike ("Player 00001", whose close pairs are many: the answer itself grows), with a few regulars
optionally.  Prints CPU seconds of this process for each (one run each; the machine is shared).  Run from the
repository root::

    python benchmarks/duplicates_many_names.py [--names 5000 20000] [--regulars 0 2000] [--skip-before]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratings import Entry, Game, GameHistory
from ratings.aliases import likely_duplicates
from tests.test_aliases_blocking import reference_likely_duplicates


def history(names: int, regulars: int, numbered: bool, seed: int = 1) -> GameHistory:
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 12))).title()

    regular = list(dict.fromkeys(word() for _ in range(regulars)))
    games = [
        Game(f"r{g}", tuple(Entry(p, i + 1) for i, p in enumerate(rng.sample(regular, 6)))) for g in range(2 * regulars)
    ]
    fresh = [f"Player {i:05d}" for i in range(names)] if numbered else list(dict.fromkeys(word() for _ in range(names)))
    fresh = [n for n in fresh if n not in set(regular)]
    pairs = zip(fresh[::2], fresh[1::2], strict=False)
    games += [Game(f"o{i}", (Entry(a, 1), Entry(b, 2))) for i, (a, b) in enumerate(pairs)]
    return GameHistory(games)


def cpu(fn: Callable[[], object]) -> tuple[float, object]:
    """CPU seconds of this process spent in ``fn()``, and its answer."""
    start = time.process_time()
    answer = fn()
    return time.process_time() - start, answer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, nargs="+", default=[5_000, 20_000])
    parser.add_argument("--regulars", type=int, nargs="+", default=[0, 2_000])
    parser.add_argument("--skip-before", action="store_true", help="time only the indexed check")
    args = parser.parse_args(argv)
    print(f"{'names':>7} {'regulars':>8} {'kind':>9} {'before CPU-s':>13} {'after CPU-s':>12} {'same answer':>12}")
    for names in args.names:
        for regulars in args.regulars:
            for numbered in (False, True):
                h = history(names, regulars, numbered)
                after, after_answer = cpu(partial(likely_duplicates, h, limit=10**6))
                if args.skip_before:
                    before, same = float("nan"), "-"
                else:
                    before, before_answer = cpu(partial(reference_likely_duplicates, h, limit=10**6))
                    same = "yes" if before_answer == after_answer else "NO"
                kind = "numbered" if numbered else "random"
                print(f"{h.n_players:>7} {regulars:>8} {kind:>9} {before:>13.2f} {after:>12.2f} {same:>12}", flush=True)


if __name__ == "__main__":
    main()
