"""Check-strength analyses per snippet version: progress, caught positions and the report.

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "strength_analyses",
        sa.Column("snippet_id", sa.String(64), primary_key=True),
        sa.Column("version", sa.String(12), primary_key=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("caught", sa.JSON),
        sa.Column("report", sa.JSON),
        sa.Column("seconds", sa.Float),
        sa.Column("error", sa.String(200)),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("strength_analyses")
