"""a game title may read its games from a Google Sheet (its live source of truth) instead of the database

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28 01:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("titles") as batch:
        batch.add_column(sa.Column("sheet", sa.String(500), nullable=True))
        batch.add_column(sa.Column("worksheet", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("titles") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("worksheet")
        batch.drop_column("sheet")
