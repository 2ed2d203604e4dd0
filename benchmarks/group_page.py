"""What a group's page costs on the server (issue 24): opening a 20,000-game group (its title's history read from
the database and rated) beside opening the same history as an upload (the file read and rated), and recording one
game through the page until its leaderboard rows are ready (the write, the history, the rating run, the rows); then
an organiser's correction (of the results; of the date), deletion and undo of a game in the middle of the history, each
until the leaderboard rows, beside the same writes with the title read again from the database.

    .venv/bin/python benchmarks/group_page.py --games 20000 --repeat 3

SQLite under a temporary RATINGS_DATA_DIR and a temporary store; every figure is from a cold cache of this process
and store (each step clears the in-process caches of histories and runs), except "record -> leaderboard", which is
what the page does after the group was opened: the history and the run before the game are cached.  Median CPU and
wall seconds of this process over ``--repeat`` runs, on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SYSTEM = "multielo"


def _timed(action: Callable[[], Any]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as store:
        os.environ["RATINGS_DATA_DIR"] = data
        os.environ["RATINGS_STORE_DIR"] = store
        run(args)


def run(args: argparse.Namespace) -> None:
    from benchmarks.generated import community_history
    from figures.leaderboard import leaderboard_rows
    from ratings.io import write_csv
    from ratings.kernels import warm_up
    from sources import model, runs
    from sources.access import group_mark
    from sources.groups import pages, service
    from sources.groups.database import database_url, process_sessions, upgrade
    from sources.record import new_game
    from sources.store import DiskStore, use_store

    warm_up()
    history = community_history(args.games, args.players)
    text = write_csv(history)
    upgrade(database_url())
    with process_sessions()() as session:
        group, _ = service.create_group(session, "bench", "Bench", titles=["Races"])
        service.import_history(session, group.titles[0], history, who="bench")
        session.commit()
        entry = {"role": "organiser", "mark": group_mark("key", "bench", "organiser", group.admin_hash)}
    source = model.GroupTitle("bench", "Races").to_json()
    print(f"{history.n_games} games, {history.n_players} players, {sum(len(g.entries) for g in history.games)} results")

    def cold() -> None:
        model._HISTORIES.clear()
        pages._LOADED.clear()
        runs._RUNS.clear()
        runs._RECENT.clear()
        use_store(DiskStore(tempfile.mkdtemp(dir=os.environ["RATINGS_STORE_DIR"])))

    def board(src: Any) -> None:
        leaderboard_rows(runs.run_for(src, SYSTEM, {}))

    def open_upload() -> None:
        upload, _ = runs.read_upload("data:text/csv;base64," + _b64(text), "races.csv")
        board(upload.to_json())

    figures: dict[str, list[tuple[float, float]]] = {"upload: read + rate + rows": [], "group: read + rate + rows": []}
    figures |= {"group: reopen (cached) + rows": [], "record -> leaderboard rows": [], "record, dated mid-history": []}
    after_last = (history.games[-1].date + dt.timedelta(days=1)).isoformat()  # a game of today
    middle = history.games[history.n_games // 2].date.isoformat()  # a late entry for a past day
    for i in range(args.repeat):
        cold()
        figures["upload: read + rate + rows"].append(_timed(open_upload))
        cold()
        figures["group: read + rate + rows"].append(_timed(lambda: board(source)))
        figures["group: reopen (cached) + rows"].append(_timed(lambda: board(source)))
        for row, day, token in [
            ("record -> leaderboard rows", after_last, f"bench-{i}"),
            ("record, dated mid-history", middle, f"bench-mid-{i}"),
        ]:
            game = new_game(day, [(history.players[i], 1), (history.players[i + 1], 2), ("Newcomer", 3)])

            def record(game: Any = game, token: str = token) -> None:
                pages.record("bench", "Races", game, token=token, entry=entry, secret_key="key")
                board({**source, "changed": token})

            figures[row].append(_timed(record))
        # an organiser's corrections of a game in the middle of the history, each until the leaderboard rows: the
        # cached history changed in place (pages._carry_edit), then the same writes with the title read again from
        # the database (the carry switched off: what the page did before), in the same run
        who = {"entry": entry, "secret_key": "key"}
        for way in ("", " (title read again)"):
            target = history.games[history.n_games // 2 + 2 * i + (1 if way else 0)]
            fixed = new_game(target.date, [(e.player, n) for n, e in enumerate(reversed(target.entries), start=1)])
            other = history.games[history.n_games // 3 + 2 * i + (1 if way else 0)]
            moved = new_game(other.date + dt.timedelta(days=3), [(e.player, n) for n, e in enumerate(other.entries, 1)])
            writes: list[tuple[str, Callable[[], Any]]] = [
                (
                    "correct a game mid-history",
                    partial(pages.record, "bench", "Races", fixed, token=f"fix-{i}", correcting=target.id, **who),
                ),
                (
                    "correct a game's date mid-history",
                    partial(pages.record, "bench", "Races", moved, token=f"move-{i}", correcting=other.id, **who),
                ),
                ("delete a game mid-history", partial(pages.delete_game, "bench", "Races", target.id, **who)),
                ("undo (the deletion)", partial(pages.undo_last, "bench", **who)),
            ]
            carry = pages._carry_edit
            if way:
                pages._carry_edit = lambda edit: None
            try:
                for row, write in writes:

                    def change(write: Callable[[], Any] = write, changed: str = f"{row}{way}-{i}") -> None:
                        write()
                        board({**source, "changed": changed})

                    figures.setdefault(row + way, []).append(_timed(change))
            finally:
                pages._carry_edit = carry
    for name, values in figures.items():
        cpu = statistics.median(v[0] for v in values)
        wall = statistics.median(v[1] for v in values)
        print(f"{name:52s} CPU {cpu:7.3f} s   wall {wall:7.3f} s")


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


if __name__ == "__main__":
    main()
