"""Classes: codes teachers hand out, the class an attempt was made in, class counters, alternatives.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

import importlib
from collections import defaultdict
from datetime import UTC

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _key() -> list[sa.Column]:
    return [
        sa.Column("snippet_id", sa.String(64), primary_key=True),
        sa.Column("version", sa.String(12), primary_key=True),
        sa.Column("class_code", sa.String(32), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
    ]


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("class_code", sa.String(32)))
    op.create_index("ix_attempts_class", "attempts", ["class_code", "created_at"])
    op.create_table(
        "classes",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(60)),
        sa.Column("created_by", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "class_activity",
        *_key(),
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("recalls", sa.Integer, nullable=False),
        sa.Column("accuracy", sa.Float, nullable=False),
    )
    op.create_table(
        "class_spans",
        *_key(),
        sa.Column("span", sa.Integer, primary_key=True),
        sa.Column("seen", sa.Integer, nullable=False),
        sa.Column("missed", sa.Integer, nullable=False),
    )
    op.create_table(
        "class_answers",
        *_key(),
        sa.Column("first", sa.Integer, primary_key=True),
        sa.Column("last", sa.Integer, primary_key=True),
        sa.Column("state", sa.String(8), primary_key=True),
        sa.Column("given", sa.String(200), primary_key=True),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_class_answers_blank",
        "class_answers",
        ["snippet_id", "version", "class_code", "state", "first", "last", "given", "day", "count"],
    )
    op.create_table(
        "alternatives",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("snippet_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(12), nullable=False),
        sa.Column("first", sa.Integer, nullable=False),
        sa.Column("last", sa.Integer, nullable=False),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("accepted_by", sa.String(60), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn_by", sa.String(60)),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_alternatives_version", "alternatives", ["snippet_id", "version"])
    _count_existing(op.get_bind())


def _count_existing(conn) -> None:
    """Attempts made before classes existed enter the counters as class "" (no class): the
    counting as the app did it at this revision, kept here so the revision never changes."""
    old = sa.table(
        "attempts",
        sa.column("id", sa.BigInteger),
        sa.column("learner"),
        sa.column("snippet_id"),
        sa.column("version"),
        sa.column("blanks", sa.JSON),
        sa.column("practice", sa.Boolean),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    last = 0
    while rows := conn.execute(sa.select(old).where(old.c.id > last).order_by(old.c.id).limit(1000)).all():
        _count(conn, rows)
        last = rows[-1].id


RECALLED = ("right", "accepted")
GIVEN_KEPT = 200


def _count(conn, rows) -> None:
    days: dict[tuple, list] = defaultdict(lambda: [0, 0, 0.0])
    tokens: dict[tuple, list] = defaultdict(lambda: [0, 0])
    given: dict[tuple, list] = defaultdict(lambda: [0])
    for r in rows:
        at = r.created_at if r.created_at.tzinfo is None else r.created_at.astimezone(UTC)
        key = (r.snippet_id, r.version, "", at.date().isoformat())
        day = days[key + (r.learner,)]
        day[0] += 1
        blanks = r.blanks or ()
        states = [b["state"] for b in blanks]
        if r.practice or not states:
            continue
        day[1] += 1
        day[2] += sum(s in RECALLED for s in states) / len(states)
        for entry in blanks:
            span = entry.get("span")
            if span is None:
                continue
            first, last = (span, span) if isinstance(span, int) else (span[0], span[1])
            for i in range(first, last + 1):
                tokens[key + (i,)][0] += 1
                tokens[key + (i,)][1] += entry["state"] not in RECALLED
            text = entry.get("given", "").strip()
            if entry["state"] in ("wrong", "accepted", "unproven") and text:
                given[key + (first, last, entry["state"], text[:GIVEN_KEPT])][0] += 1
    _add(conn, "class_activity", ("learner",), ("attempts", "recalls", "accuracy"), days)
    _add(conn, "class_spans", ("span",), ("seen", "missed"), tokens)
    _add(conn, "class_answers", ("first", "last", "state", "given"), ("count",), given)


def _add(conn, name: str, extra: tuple, counted: tuple, counts: dict) -> None:
    """Insert or add to the counter rows, in key order."""
    if not counts:
        return
    names = ("snippet_id", "version", "class_code", "day", *extra)
    table = sa.table(name, *(sa.column(n) for n in names + counted))
    dialect = importlib.import_module(
        f"sqlalchemy.dialects.{'postgresql' if conn.dialect.name == 'postgresql' else 'sqlite'}"
    )
    statement = dialect.insert(table)
    statement = statement.on_conflict_do_update(
        index_elements=list(names), set_={c: table.c[c] + statement.excluded[c] for c in counted}
    )
    conn.execute(statement, [{**dict(zip(names, key)), **dict(zip(counted, counts[key]))} for key in sorted(counts)])


def downgrade() -> None:
    op.drop_index("ix_alternatives_version", "alternatives")
    op.drop_index("ix_class_answers_blank", "class_answers")
    for table in ("alternatives", "class_answers", "class_spans", "class_activity", "classes"):
        op.drop_table(table)
    op.drop_index("ix_attempts_class", "attempts")
    with op.batch_alter_table("attempts") as batch:
        batch.drop_column("class_code")
