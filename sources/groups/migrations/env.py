"""Alembic's environment: the URL comes from :func:`sources.groups.database.upgrade` (or the settings)."""

from __future__ import annotations

from alembic import context

from sources.groups.database import database_url, engine_for
from sources.groups.schema import Base

url = context.config.attributes.get("url") or database_url()
engine = engine_for(url)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
