"""A course's order and sections (its imported `_index.md`), and assignments to classes.

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "course_index",
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("class_code", sa.String(32), nullable=False),
        sa.Column("snippet_id", sa.String(64), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("rate", sa.Integer),
        sa.Column("unit", sa.String(8)),
        sa.Column("target", sa.String(8), nullable=False),
        sa.Column("goal", sa.Float, nullable=False),
        sa.Column("due", sa.String(10), nullable=False),
        sa.Column("created_by", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_assignments_class", "assignments", ["class_code"])


def downgrade() -> None:
    op.drop_index("ix_assignments_class", "assignments")
    op.drop_table("assignments")
    op.drop_table("course_index")
