"""LTI 1.3: registered platforms, the tool's key, one-time values, bound users, courses and links,
the grades owed to platforms, and teacher accounts made by a launch.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("deployment_ids", sa.JSON, nullable=False),
        sa.Column("key_set_url", sa.String(500), nullable=False),
        sa.Column("auth_login_url", sa.String(500), nullable=False),
        sa.Column("auth_token_url", sa.String(500), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
    )
    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("private_pem", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "lti_once",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("value", sa.JSON),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "lti_users",
        sa.Column("platform_id", sa.Integer, primary_key=True),
        sa.Column("sub", sa.String(255), primary_key=True),
        sa.Column("teacher_id", sa.Integer),
        sa.Column("learner", sa.String(64)),
    )
    op.create_table(
        "lti_courses",
        sa.Column("platform_id", sa.Integer, primary_key=True),
        sa.Column("context_id", sa.String(255), primary_key=True),
        sa.Column("class_code", sa.String(32), nullable=False),
    )
    op.create_table(
        "lti_links",
        sa.Column("platform_id", sa.Integer, primary_key=True),
        sa.Column("link_id", sa.String(255), primary_key=True),
        sa.Column("class_code", sa.String(32), nullable=False),
        sa.Column("assignment_id", sa.Integer),
        sa.Column("lineitem", sa.String(500)),
    )
    op.create_table(
        "lti_grades",
        sa.Column("platform_id", sa.Integer, primary_key=True),
        sa.Column("link_id", sa.String(255), primary_key=True),
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("sent_score", sa.Float),
        sa.Column("sent_attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_try", sa.DateTime(timezone=True)),
        sa.Column("last_error", sa.String(200)),
    )
    op.create_index("ix_lti_grades_next_try", "lti_grades", ["next_try"])
    with op.batch_alter_table("teachers") as batch:
        batch.add_column(sa.Column("lms_platform", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("teachers") as batch:
        batch.drop_column("lms_platform")
    for table in ("lti_grades", "lti_links", "lti_courses", "lti_users", "lti_once", "lti_keys", "lti_platforms"):
        op.drop_table(table)
