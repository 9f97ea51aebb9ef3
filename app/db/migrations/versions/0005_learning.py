"""Learning: each learner's desired retention and FSRS parameters fitted to their reviews.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memory_models",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("retention", sa.Float),
        sa.Column("reviews", sa.Integer, nullable=False, server_default="0"),
        sa.Column("parameters", sa.JSON),
        sa.Column("fitted_reviews", sa.Integer, nullable=False, server_default="0"),
        sa.Column("fitted_at", sa.DateTime(timezone=True)),
    )


def downgrade() -> None:
    op.drop_table("memory_models")
