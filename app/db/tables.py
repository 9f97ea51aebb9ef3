"""The tables, as the code reads and writes them (the migrations create them)."""

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

attempts = Table(
    "attempts",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),  # random, chosen before writing
    Column("learner", String(64), nullable=False, index=True),
    Column("snippet_id", String(64), nullable=False, index=True),
    Column("version", String(12), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("rate", Integer),
    Column("seed", BigInteger),
    Column("correct", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("outcome", String(16)),  # sandbox verdict status, or NULL when not run
    Column("results", JSON, nullable=False),  # {blank key: recalled}, for per-span statistics
    Column("unit", String(8), nullable=False, default="token"),
    Column("kinds", String(64), nullable=False, default="names,literals,operators"),
    Column("blanks", JSON),  # [{span: i | [first, last], key, expected, given, state}]
    Column("hints", Integer, nullable=False, default=0),  # hint panels opened
    Column("seconds", Float),  # time on task as the page measured it, when plausible
    Column("practice", Boolean, nullable=False, default=False),  # made after "reveal all": no recall
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("class_code", String(32)),  # the learner's class when the attempt was written
    Index("ix_attempts_class", "class_code", "created_at"),
)

responses = Table(
    "responses",
    metadata,
    Column("attempt_id", BigInteger, nullable=False, index=True),
    Column("question", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("rating", String(8)),  # again | hard | good | easy, the learner's own
)

snippets = Table(
    "snippets",
    metadata,  # uploaded snippets: the current version and whether learners see it
    Column("id", String(64), primary_key=True),
    Column("version", String(12), nullable=False),
    Column("published", Boolean, nullable=False, default=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("owner_id", Integer),  # the teacher account that uploaded it; NULL: an admin's (migration 0018)
)

snippet_versions = Table(
    "snippet_versions",
    metadata,  # every version ever served, bundled or uploaded, byte for byte
    Column("snippet_id", String(64), nullable=False),
    Column("version", String(12), nullable=False),
    Column("source", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("snippet_id", "version", name="uq_snippet_versions"),
)

course_index = Table(
    "course_index",
    metadata,  # the imported course's `_index.md`: title, prose, order and sections
    Column("key", String(16), primary_key=True),  # "home"
    Column("version", String(12), nullable=False),
    Column("source", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
