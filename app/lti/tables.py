"""The LTI tables, on the store's `metadata` (migration 0020 creates them)."""

from sqlalchemy import JSON, Column, DateTime, Float, Integer, String, Table, Text, UniqueConstraint

from ..db.tables import metadata

# Platforms (LMSs) an admin registered: what a launch from each is checked against.
platforms = Table(
    "lti_platforms",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("issuer", String(255), nullable=False),
    Column("client_id", String(255), nullable=False),
    Column("deployment_ids", JSON, nullable=False),  # a list of strings
    Column("key_set_url", String(500), nullable=False),
    Column("auth_login_url", String(500), nullable=False),
    Column("auth_token_url", String(500), nullable=False),
    Column("name", String(60), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
)

# The tool's signing key (one row): its public half is /lti/jwks.
keys = Table(
    "lti_keys",
    metadata,
    Column("kid", String(64), primary_key=True),
    Column("private_pem", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# One-time values of the OIDC flow: nonces and states, each consumed by the launch that uses it.
once = Table(
    "lti_once",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("value", JSON),
    Column("expires", DateTime(timezone=True), nullable=False),
)

# An LMS user, bound once: an instructor to a teacher account, a student to a learner id.
users = Table(
    "lti_users",
    metadata,
    Column("platform_id", Integer, primary_key=True),
    Column("sub", String(255), primary_key=True),
    Column("teacher_id", Integer),
    Column("learner", String(64)),
)

# An LMS course, bound to the class its launches open.
courses = Table(
    "lti_courses",
    metadata,
    Column("platform_id", Integer, primary_key=True),
    Column("context_id", String(255), primary_key=True),
    Column("class_code", String(32), nullable=False),
)

# A resource link (an activity in the LMS): the assignment it opens and its AGS line item.
links = Table(
    "lti_links",
    metadata,
    Column("platform_id", Integer, primary_key=True),
    Column("link_id", String(255), primary_key=True),
    Column("class_code", String(32), nullable=False),
    Column("assignment_id", Integer),
    Column("lineitem", String(500)),
)

# Grades owed to a platform, per (link, learner): what was sent last, and when to try again.
# The score is read from the attempts each time, so a send that fails or a crash loses nothing.
grades = Table(
    "lti_grades",
    metadata,
    Column("platform_id", Integer, primary_key=True),
    Column("link_id", String(255), primary_key=True),
    Column("learner", String(64), primary_key=True),
    Column("sub", String(255), nullable=False),
    Column("sent_score", Float),
    Column("sent_attempts", Integer, nullable=False, default=0),  # the counted attempts the sent score covers
    Column("tries", Integer, nullable=False, default=0),  # failed sends in a row
    Column("next_try", DateTime(timezone=True)),  # NULL: nothing owed
    Column("last_error", String(200)),
)
