"""The audit trail: who changed which snippet, class, assignment or account, and when.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("who", sa.String(60), nullable=False),
        sa.Column("account", sa.Integer),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("subject", sa.String(100), nullable=False),
        sa.Column("detail", sa.String(200), nullable=False, server_default=""),
    )
    op.create_index("ix_audit_at", "audit", ["at"])
    op.create_index("ix_audit_subject", "audit", ["subject"])


def downgrade() -> None:
    op.drop_table("audit")
