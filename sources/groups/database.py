"""The groups' database: where it is, how to connect, and its migrations.

``DATABASE_URL`` (PostgreSQL; ``postgres://`` as platforms spell it is accepted) or, by default, SQLite in a file
``ratings.sqlite3`` under ``RATINGS_DATA_DIR``: nothing to install.  The schema is created and changed only by the
Alembic migrations in ``sources/groups/migrations`` (:func:`upgrade`; ``flask --app web.commands db upgrade``; the
release phase runs it), never by ``create_all``, so a database made today upgrades tomorrow.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from sources import settings

__all__ = ["MIGRATIONS", "database_url", "engine_for", "process_sessions", "sessions", "upgrade"]

#: The Alembic scripts (``env.py`` and ``versions/``).
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The SQLite file's name under ``RATINGS_DATA_DIR``.
SQLITE_FILE = "ratings.sqlite3"


def database_url(environ: Mapping[str, str] | None = None) -> str:
    """The SQLAlchemy URL the settings name: PostgreSQL through psycopg 3, else the SQLite file."""
    env = os.environ if environ is None else environ
    url: str | None = settings.value(env, "DATABASE_URL")
    if url:
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url
    directory = Path(settings.value(env, "RATINGS_DATA_DIR"))
    return f"sqlite:///{(directory / SQLITE_FILE).resolve()}"


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")  # SQLite checks references only when asked
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer (several gunicorn workers)
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def engine_for(url: str) -> Engine:
    """An engine for ``url``; a SQLite file's directory is made if missing."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def sessions(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine`` whose objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` with the migrations (creating it from empty)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = url
    engine_for(url).dispose()  # makes a SQLite file's directory
    command.upgrade(config, revision)


_PROCESS: dict[tuple[int, str], sessionmaker[Session]] = {}
_PROCESS_LOCK = threading.Lock()


def process_sessions(url: str | None = None) -> sessionmaker[Session]:
    """Sessions on this process's engine for ``url`` (default: the settings' database), made on first use.

    One engine per (process, URL): a gunicorn worker forked from the master never reuses the master's pooled
    connections, which SQLAlchemy's pool must not share across ``fork``.
    """
    url = url or database_url()
    key = (os.getpid(), url)
    with _PROCESS_LOCK:
        made = _PROCESS.get(key)
        if made is None:
            made = _PROCESS[key] = sessions(engine_for(url))
        return made
