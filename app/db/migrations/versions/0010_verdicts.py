"""Verdicts: how a strength analysis was made and what grading needs of it, the teacher's
decisions about analyses, and unproven answers kept with the memory they changed so that a
later verdict can correct it.

Analyses made before this revision counted a "likely equivalent" survivor as caught; they have
no `method`, so each is made again when it is next needed.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("strength_analyses") as table:
        table.add_column(sa.Column("method", sa.String(8)))
        table.add_column(sa.Column("judged", sa.JSON))
    op.create_table(
        "strength_decisions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("snippet_id", sa.String(64), nullable=False, index=True),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("line_text", sa.Text, nullable=False),
        sa.Column("occurrence", sa.Integer, nullable=False),
        sa.Column("column", sa.Integer),
        sa.Column("token", sa.String(200)),
        sa.Column("replacement", sa.String(200)),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("decided_by", sa.String(60), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn_by", sa.String(60)),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True)),
    )
    op.create_table(
        "unproven_blanks",
        sa.Column("attempt_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("learner", sa.String(64), nullable=False, index=True),
        sa.Column("snippet_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("first", sa.Integer, nullable=False),
        sa.Column("last", sa.Integer, nullable=False),
        sa.Column("given", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("provisional", sa.Boolean, nullable=False),
        sa.Column("tokens", sa.JSON),
        sa.Column("card", sa.JSON),
        sa.Column("credited_at", sa.DateTime(timezone=True)),
        sa.Column("credited_by", sa.String(60)),
        sa.Index("ix_unproven_blanks_version", "snippet_id", "version"),
    )


def downgrade() -> None:
    op.drop_table("unproven_blanks")
    op.drop_table("strength_decisions")
    with op.batch_alter_table("strength_analyses") as table:
        table.drop_column("judged")
        table.drop_column("method")
