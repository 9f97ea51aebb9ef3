"""Reveals: the blanks a learner asked to see, per mask, kept on the server.

Revision ID: 0008
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reveals",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("mask", sa.String(32), primary_key=True),
        sa.Column("blank", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reveals")
