"""Class counters folded from the attempts they count, after the attempt's transaction.

The attempt writer records each attempt's id here instead of adding it to the class counters;
whatever reads the counters first folds the pending attempts into them (app/classes/fold.py).
Attempts written before this revision are counted already: the table starts empty.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("class_pending", sa.Column("attempt_id", sa.BigInteger, primary_key=True, autoincrement=False))


def downgrade() -> None:
    op.drop_table("class_pending")
