"""Snippet texts move into the database: every version, bundled or uploaded; 64-bit seeds.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snippet_versions",
        sa.Column("snippet_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("snippet_id", "version", name="uq_snippet_versions"),
    )
    with op.batch_alter_table("attempts") as batch:  # seeds go up to 2**53 - 1
        batch.alter_column("seed", type_=sa.BigInteger, existing_type=sa.Integer)


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.alter_column("seed", type_=sa.Integer, existing_type=sa.BigInteger)
    op.drop_table("snippet_versions")
