"""The class tables, on the store's `metadata` (migration 0004 creates them).

Counters are kept per (snippet, version, class, UTC day): a class page sums a few thousand rows,
never the attempts themselves. The transaction that writes a batch of attempts lists their ids in
`class_pending`; whatever reads the counters first folds those attempts into them (fold.py), so a
read sees every committed attempt counted, exactly as if it had been counted when written.
Class "" holds attempts of learners in no class.
"""

from sqlalchemy import BigInteger, Column, DateTime, Float, Index, Integer, String, Table

from ..db.tables import metadata


def _key() -> list[Column]:
    return [
        Column("snippet_id", String(64), primary_key=True),
        Column("version", String(12), primary_key=True),
        Column("class_code", String(32), primary_key=True),
        Column("day", String(10), primary_key=True),
    ]


classes = Table(
    "classes",
    metadata,
    Column("code", String(32), primary_key=True),
    Column("name", String(60)),
    Column("created_by", String(60), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("archived_at", DateTime(timezone=True)),  # NULL: active (migration 0014)
    Column("owner_id", Integer),  # the teacher account that made it; NULL: made with the token (migration 0017)
)

# Co-teachers: accounts that teach a class beside its owner (migration 0017).
teachers = Table(
    "class_teachers",
    metadata,
    Column("class_code", String(32), primary_key=True),
    Column("teacher_id", Integer, primary_key=True),
)

# Per learner and day: attempts, and the recall attempts' summed accuracy (mean = accuracy / recalls).
activity = Table(
    "class_activity",
    metadata,
    *_key(),
    Column("learner", String(64), primary_key=True),
    Column("attempts", Integer, nullable=False),
    Column("recalls", Integer, nullable=False),  # attempts that test recall (not after "reveal all")
    Column("accuracy", Float, nullable=False),
)

# Per candidate token: how often it was a blank, and how often it was not recalled (the heatmap).
spans = Table(
    "class_spans",
    metadata,
    *_key(),
    Column("span", Integer, primary_key=True),
    Column("seen", Integer, nullable=False),
    Column("missed", Integer, nullable=False),
)

# Wrong answers, and answers the check accepted but token match did not, per blank (first, last).
answers = Table(
    "class_answers",
    metadata,
    *_key(),
    Column("first", Integer, primary_key=True),
    Column("last", Integer, primary_key=True),
    Column("state", String(8), primary_key=True),  # wrong | accepted | unproven
    Column("given", String(200), primary_key=True),
    Column("count", Integer, nullable=False),
    # Covering, in the order the page groups by: the answers are summed without a sort.
    Index(
        "ix_class_answers_blank",
        "snippet_id",
        "version",
        "class_code",
        "state",
        "first",
        "last",
        "given",
        "day",
        "count",
    ),
)

# Attempts written but not yet added to the counters above (migration 0009).
pending = Table("class_pending", metadata, Column("attempt_id", BigInteger, primary_key=True, autoincrement=False))

# Answers a teacher accepted for token match on one blank of one snippet version.
alternatives = Table(
    "alternatives",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("snippet_id", String(64), nullable=False),
    Column("version", String(12), nullable=False),
    Column("first", Integer, nullable=False),
    Column("last", Integer, nullable=False),
    Column("text", String(200), nullable=False),
    Column("accepted_by", String(60), nullable=False),
    Column("accepted_at", DateTime(timezone=True), nullable=False),
    Column("withdrawn_by", String(60)),
    Column("withdrawn_at", DateTime(timezone=True)),
    Index("ix_alternatives_version", "snippet_id", "version"),
)
