"""A group's home: its games kept for good in a database, and who may change them.

- :mod:`sources.groups.schema`: the tables (groups, member links, titles, players, aliases, games, entries, and the
  append-only change log);
- :mod:`sources.groups.database`: the engine from the settings (SQLite under ``RATINGS_DATA_DIR`` by default,
  PostgreSQL with ``DATABASE_URL``) and the migrations (Alembic, in ``migrations/``);
- :mod:`sources.groups.service`: everything that reads or writes a group's games, the one writer of these tables:
  every write records a change, and every change can be undone.

The database is the single writer of a group's history; the shared store stays a cache of what is derived from it.
The web app loads these modules (and SQLAlchemy) when a group's page or command first needs them; this package's
own namespace holds only :class:`GroupError`, which its callers catch.
"""

__all__ = ["GroupError"]


class GroupError(ValueError):
    """A write that cannot be done; the message says why, in plain words."""
