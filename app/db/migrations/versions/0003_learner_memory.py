"""Learner memory: what each attempt records per blank, learners, FSRS cards per snippet and per token.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("unit", sa.String(8), nullable=False, server_default="token"))
        batch.add_column(sa.Column("kinds", sa.String(64), nullable=False, server_default="names,literals,operators"))
        batch.add_column(sa.Column("blanks", sa.JSON))
        batch.add_column(sa.Column("hints", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("seconds", sa.Float))
        batch.add_column(sa.Column("practice", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "learners",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(40)),
        sa.Column("class_code", sa.String(32)),
        sa.Column("link_gen", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "memory_cards",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("snippet_id", sa.String(64), primary_key=True),
        sa.Column("item", sa.String(8), primary_key=True),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("fsrs", sa.JSON, nullable=False),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("recalls", sa.Integer, nullable=False),
        sa.Column("best", sa.Float),
        sa.Column("latest", sa.Float),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("days", sa.JSON, nullable=False),
        sa.Column("history", sa.JSON, nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_memory_cards_due", "memory_cards", ["learner", "due"])
    op.create_table(
        "memory_tokens",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("snippet_id", sa.String(64), primary_key=True),
        sa.Column("version", sa.String(12), primary_key=True),
        sa.Column("span", sa.Integer, primary_key=True),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("state", sa.Integer, nullable=False),
        sa.Column("step", sa.Integer),
        sa.Column("stability", sa.Float),
        sa.Column("difficulty", sa.Float),
        sa.Column("due", sa.Float),
        sa.Column("last_review", sa.Float),
        sa.Column("seen", sa.Integer, nullable=False),
        sa.Column("misses", sa.Integer, nullable=False),
        sa.Column("heat", sa.Float, nullable=False),
        sa.Column("heat_at", sa.Float),
        sa.Column("wrong", sa.JSON),
    )


def downgrade() -> None:
    for table in ("memory_tokens", "memory_cards", "learners"):
        op.drop_table(table)
    with op.batch_alter_table("attempts") as batch:
        for column in ("practice", "seconds", "hints", "blanks", "kinds", "unit"):
            batch.drop_column(column)
