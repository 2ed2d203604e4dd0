"""What a group's database costs (issue 24): importing a history, reading a title's whole history back (what opening
a group needs before rating), and recording one game then reading again, on SQLite and on a throwaway PostgreSQL
(tests/postgres_server.py), beside reading the same history from its CSV file (what an upload costs today).

    .venv/bin/python benchmarks/groups.py --games 20000 --repeat 3

Prints CPU seconds of this process (the database server's own CPU, for PostgreSQL, is not counted) and wall
seconds, the median over ``--repeat`` runs.  Timings are on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import functools
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generated import community_history
from ratings.io import read_file, write_csv
from sources.groups import service
from sources.groups.database import database_url, engine_for, sessions, upgrade
from sources.record import new_game
from tests.postgres_server import PostgresServer


def _timed(action: Callable[[], Any]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return time.process_time() - cpu, time.perf_counter() - wall


def _import(session: Any, title: Any, history: Any) -> None:
    service.import_history(session, title, history, who="bench")
    session.commit()


def _record_and_open(session: Any, title: Any, game: Any) -> None:
    service.record_game(session, title, game, who="bench")
    session.commit()
    service.history(session, title)


def measure(url: str, history: Any, repeat: int) -> dict[str, list[tuple[float, float]]]:
    upgrade(url)
    engine = engine_for(url)
    make = sessions(engine)
    out: dict[str, list[tuple[float, float]]] = {"import": [], "open": [], "record+open": []}
    for i in range(repeat):
        with make() as session:
            group, _ = service.create_group(session, f"bench-{i}-{time.time_ns() % 10**8}", "Bench", titles=["T"])
            title = group.titles[0]
            session.commit()

            game = new_game("2030-01-01", [("Newcomer", 1), (history.players[0], 2)])
            out["import"].append(_timed(functools.partial(_import, session, title, history)))
            out["open"].append(_timed(functools.partial(service.history, session, title)))
            out["record+open"].append(_timed(functools.partial(_record_and_open, session, title, game)))
    engine.dispose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    history = community_history(args.games, args.players)
    text = write_csv(history).encode()
    print(f"{history.n_games} games, {history.n_players} players, {sum(len(g.entries) for g in history.games)} results")
    upload = [_timed(lambda: read_file(io.BytesIO(text), filename="games.csv")) for _ in range(args.repeat)]
    rows: dict[str, dict[str, list[tuple[float, float]]]] = {"CSV file (as an upload)": {"open": upload}}
    with tempfile.TemporaryDirectory() as directory, PostgresServer() as postgres:
        rows["SQLite"] = measure(database_url({"RATINGS_DATA_DIR": directory}), history, args.repeat)
        rows["PostgreSQL"] = measure(
            postgres.new_database().replace("postgresql://", "postgresql+psycopg://"), history, args.repeat
        )
    for name, kinds in rows.items():
        for kind, runs in kinds.items():
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            print(f"{name:24s} {kind:12s} CPU {cpu:7.3f} s   wall {wall:7.3f} s")


if __name__ == "__main__":
    main()
