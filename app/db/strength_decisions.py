"""The teacher's decisions about check-strength analyses, per snippet (migration 0010).

Each is attributed and timestamped; withdrawing one keeps its row, marked withdrawn. They are
anchored to the code's text (snippets/decisions.py), not to a version, so a re-analysis or an
edit elsewhere in the file keeps them.
"""

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Integer, String, Table, Text, insert, select, update

from ..snippets.decisions import Anchor, Decision
from .moments import utc
from .tables import metadata

decisions = Table(
    "strength_decisions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("snippet_id", String(64), nullable=False, index=True),
    Column("kind", String(12), nullable=False),  # equivalent | position | line
    Column("line_text", Text, nullable=False),
    Column("occurrence", Integer, nullable=False),
    Column("column", Integer),
    Column("token", String(200)),
    Column("replacement", String(200)),
    Column("version", String(12), nullable=False),  # the version it was made on
    Column("decided_by", String(60), nullable=False),
    Column("decided_at", DateTime(timezone=True), nullable=False),
    Column("withdrawn_by", String(60)),
    Column("withdrawn_at", DateTime(timezone=True)),
)
_ANCHOR = ("kind", "line_text", "occurrence", "column", "token", "replacement")


def in_force(db, snippet_id: str) -> list[Decision]:
    rows = db.execute(
        select(decisions)
        .where(decisions.c.snippet_id == snippet_id, decisions.c.withdrawn_at.is_(None))
        .order_by(decisions.c.id)
    )
    return [_decision(r) for r in rows]


def decide(db, snippet_id: str, version: str, anchor: Anchor, who: str) -> tuple[int, bool]:
    """The id of the decision in force at this anchor, and whether it is new."""
    values = {name: getattr(anchor, name) for name in _ANCHOR}
    found = db.execute(
        select(decisions.c.id).where(
            decisions.c.snippet_id == snippet_id,
            decisions.c.withdrawn_at.is_(None),
            *(
                decisions.c[name] == value if value is not None else decisions.c[name].is_(None)
                for name, value in values.items()
            ),
        )
    ).scalar()
    if found is not None:
        return found, False
    done = db.execute(
        insert(decisions).values(
            snippet_id=snippet_id, version=version, decided_by=who, decided_at=datetime.now(UTC), **values
        )
    )
    return done.inserted_primary_key[0], True


def withdraw(db, snippet_id: str, decision_id: int, who: str) -> bool:
    """False when there is no such decision in force."""
    done = db.execute(
        update(decisions)
        .where(decisions.c.id == decision_id, decisions.c.snippet_id == snippet_id, decisions.c.withdrawn_at.is_(None))
        .values(withdrawn_by=who, withdrawn_at=datetime.now(UTC))
    )
    return done.rowcount == 1


def _decision(row) -> Decision:
    at = utc(row.decided_at)
    return Decision(row.id, Anchor(*(getattr(row, name) for name in _ANCHOR)), row.decided_by, at, row.version)
