"""Memory a learner can trust: each token's evidence of being known, and the rate a learner drills at.

`memory_tokens.spaced` is when a token was last recalled the next day or later after its previous test
(cleared by a miss), `memory_tokens.missed` whether its last test was a miss; rows from before
this revision have neither, so no token counts as known until a spaced recall is seen again.
`memory_models.rate` is the mask rate the learner last drilled at (review masks use it).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory_tokens") as table:
        table.add_column(sa.Column("spaced", sa.Float))
        table.add_column(sa.Column("missed", sa.Boolean))
    with op.batch_alter_table("memory_models") as table:
        table.add_column(sa.Column("rate", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("memory_models") as table:
        table.drop_column("rate")
    with op.batch_alter_table("memory_tokens") as table:
        table.drop_column("missed")
        table.drop_column("spaced")
