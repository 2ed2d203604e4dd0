"""a game's time of day

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-27 22:05:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("played_time", sa.Time(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("played_time")
