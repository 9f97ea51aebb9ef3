"""Snippets owned: the teacher account that uploaded a snippet (NULL: uploaded with the token, an admin's).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("snippets") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("snippets") as batch:
        batch.drop_column("owner_id")
