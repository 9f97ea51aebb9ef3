"""A term of teaching: what a teacher corrects and what progress counts from.

- `classes.archived_at`: a class the teacher archived (NULL: active); its history stays.
- `learners.class_joined_at`: when the learner joined their current class (NULL: before this
  revision, unknown), so an assignment counts only attempts made while they are in it.
- `assignments.starts`: the first UTC day an assignment counts attempts from, YYYY-MM-DD;
  existing assignments start on the day they were set.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05
"""

from datetime import UTC

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("classes") as table:
        table.add_column(sa.Column("archived_at", sa.DateTime(timezone=True)))
    with op.batch_alter_table("learners") as table:
        table.add_column(sa.Column("class_joined_at", sa.DateTime(timezone=True)))
    with op.batch_alter_table("assignments") as table:
        table.add_column(sa.Column("starts", sa.String(10)))
    _start_on_the_day_set()
    with op.batch_alter_table("assignments") as table:
        table.alter_column("starts", existing_type=sa.String(10), nullable=False)


def _start_on_the_day_set() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, created_at FROM assignments")).all()
    for assignment_id, created_at in rows:
        bind.execute(
            sa.text("UPDATE assignments SET starts = :day WHERE id = :id"),
            {"day": _utc_day(created_at), "id": assignment_id},
        )


def _utc_day(at) -> str:
    if isinstance(at, str):  # SQLite hands back the stored text
        return at[:10]
    at = at if at.tzinfo else at.replace(tzinfo=UTC)
    return at.astimezone(UTC).date().isoformat()


def downgrade() -> None:
    with op.batch_alter_table("assignments") as table:
        table.drop_column("starts")
    with op.batch_alter_table("learners") as table:
        table.drop_column("class_joined_at")
    with op.batch_alter_table("classes") as table:
        table.drop_column("archived_at")
