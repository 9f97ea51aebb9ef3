"""One fit of a learner at a time across workers and hosts.

`memory_models.fitting_since` is the unix time a fitter claimed the learner's fit (NULL: nobody is
fitting them); a claim older than a fit may run is taken over (app/memory/fitting.py).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory_models") as table:
        table.add_column(sa.Column("fitting_since", sa.Float))


def downgrade() -> None:
    with op.batch_alter_table("memory_models") as table:
        table.drop_column("fitting_since")
