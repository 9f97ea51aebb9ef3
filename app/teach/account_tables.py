"""Teachers' accounts, on the store's `metadata` (migration 0016 creates the table)."""

from sqlalchemy import Column, DateTime, Integer, String, Table

from ..db.tables import metadata

teachers = Table(
    "teachers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("login", String(60), nullable=False, unique=True),  # lower case: a user name or an email
    Column("name", String(40), nullable=False),
    Column("role", String(8), nullable=False),  # admin | teacher
    Column("password_hash", String(200)),  # NULL until the invitation is taken up
    Column("invite_digest", String(64), unique=True),  # SHA-256 of the one-time link's code; NULL once used
    Column("invite_expires", DateTime(timezone=True)),
    Column("disabled_at", DateTime(timezone=True)),  # NULL: may sign in
    Column("epoch", Integer, nullable=False, default=0),  # sessions signed at an older epoch are void
    Column("lms_platform", Integer),  # made by a launch from this LTI platform: signs in through it (0020)
    Column("created_by", String(60), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
