"""Teachers' accounts: each teacher a login and password of their own, an admin or a teacher role,
invited by a one-time link, disabled and enabled again by an admin.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "teachers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("login", sa.String(60), nullable=False, unique=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("invite_digest", sa.String(64), unique=True),
        sa.Column("invite_expires", sa.DateTime(timezone=True)),
        sa.Column("disabled_at", sa.DateTime(timezone=True)),
        sa.Column("epoch", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_by", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("teachers")
