"""Classes owned: the teacher account that made a class, and co-teachers beside it.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("classes") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer))
    op.create_table(
        "class_teachers",
        sa.Column("class_code", sa.String(32), primary_key=True),
        sa.Column("teacher_id", sa.Integer, primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("class_teachers")
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("owner_id")
