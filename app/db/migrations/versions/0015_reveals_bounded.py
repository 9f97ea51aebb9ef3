"""Reveals bounded: one row a mask (its blanks' keys in one column) and an index on when, so that
rows older than a day go and a learner keeps only their latest masks.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    kept: dict[tuple[str, str], tuple[set[str], object]] = {}
    for learner, mask, blank, created_at in bind.execute(
        sa.text("SELECT learner, mask, blank, created_at FROM reveals")
    ):
        blanks, first = kept.setdefault((learner, mask), (set(), created_at))
        blanks.add(blank)
        kept[learner, mask] = (blanks, max(first, created_at))
    op.drop_table("reveals")
    table = op.create_table(
        "reveals",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("mask", sa.String(32), primary_key=True),
        sa.Column("blanks", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_reveals_created_at", "reveals", ["created_at"])
    rows = [
        {"learner": learner, "mask": mask, "blanks": ",".join(sorted(blanks)), "created_at": _when(at)}
        for (learner, mask), (blanks, at) in kept.items()
    ]
    if rows:
        op.bulk_insert(table, rows)


def _when(at):
    """SQLite hands back the stored text; bulk_insert wants a datetime."""
    if isinstance(at, str):
        return datetime.fromisoformat(at).replace(tzinfo=UTC)
    return at


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT learner, mask, blanks, created_at FROM reveals")).all()
    op.drop_table("reveals")
    table = op.create_table(
        "reveals",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("mask", sa.String(32), primary_key=True),
        sa.Column("blank", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    split = [
        {"learner": learner, "mask": mask, "blank": blank, "created_at": _when(at)}
        for learner, mask, blanks, at in rows
        for blank in blanks.split(",")
        if blank
    ]
    if split:
        op.bulk_insert(table, split)
