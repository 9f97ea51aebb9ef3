"""Baseline: attempts, short-answer responses, and the index of uploaded snippets.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "attempts",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("learner", sa.String(64), nullable=False, index=True),
        sa.Column("snippet_id", sa.String(64), nullable=False, index=True),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("rate", sa.Integer),
        sa.Column("seed", sa.Integer),
        sa.Column("correct", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(16)),
        sa.Column("results", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "responses",
        sa.Column("attempt_id", sa.BigInteger, nullable=False, index=True),
        sa.Column("question", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("rating", sa.String(8)),
    )
    op.create_table(
        "snippets",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("published", sa.Boolean, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    for table in ("snippets", "responses", "attempts"):
        op.drop_table(table)
