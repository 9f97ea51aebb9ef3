"""Each learner's calibration: how their blanks went against the memory model's predictions.

`memory_models.calibration` holds, per kind of token (last recalled or read, last missed), the blanks
seen, how many were recalled, and the summed log loss of the predictions each candidate time scale
would have made (app/memory/calibration.py). NULL until the learner's first tested token comes back.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory_models") as table:
        table.add_column(sa.Column("calibration", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("memory_models") as table:
        table.drop_column("calibration")
