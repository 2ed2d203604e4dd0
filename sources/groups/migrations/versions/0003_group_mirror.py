"""a group's opt-in mirror of recorded games to the server's Sheet

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27 22:35:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("groups", sa.Column("mirror", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("groups") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("mirror")
