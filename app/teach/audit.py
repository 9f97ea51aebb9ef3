"""Who changed what, and when: a row per teacher action on a snippet, a class, an assignment or an
account, written in the action's own transaction where it has one, shown to admins at
/teach/audit and beside each class and snippet."""

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, Connection, DateTime, Integer, String, Table, insert, select

from ..db.tables import metadata

audit = Table(
    "audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False, index=True),
    Column("who", String(60), nullable=False),  # the teacher's label (an account's name, or the token's)
    Column("account", Integer),  # the teacher account; NULL: the token (a browser's or the API's)
    Column("action", String(24), nullable=False),  # created, edited, published, deleted, renamed, ...
    Column("kind", String(12), nullable=False),  # snippet | class | assignment | account
    Column("subject", String(100), nullable=False, index=True),  # its id, code or login
    Column("detail", String(200), nullable=False, default=""),
)


@dataclass(frozen=True)
class Actor:
    """Who does it: the label stored beside the action, and the account (None: the token)."""

    label: str
    account: int | None = None


API = Actor("API")  # a script with the teachers' token


def record(db: Connection, actor: Actor, action: str, kind: str, subject: str, detail: str = "") -> None:
    db.execute(
        insert(audit).values(
            at=datetime.now(UTC),
            who=actor.label[:60],
            account=actor.account,
            action=action,
            kind=kind,
            subject=subject[:100],
            detail=detail[:200],
        )
    )


def snippet_changed(engine, actor: Actor, action: str, snippet) -> None:
    """The audit row of a snippet change, written once the change is committed (the catalog commits
    it on its own); `snippet` None: nothing was saved, nothing recorded."""
    if snippet is not None:
        with engine.begin() as db:
            record(db, actor, action, "snippet", snippet.id, f"version {snippet.version}")


def course_imported(engine, actor: Actor, changes: dict[str, str]) -> None:
    """A row per snippet of a saved import (new, changed or unchanged), after its commit."""
    with engine.begin() as db:
        for snippet_id, kind in changes.items():
            record(db, actor, "imported", "snippet", snippet_id, kind)


def recent(db: Connection, kind: str | None = None, subject: str | None = None, limit: int = 100) -> list[dict]:
    """The newest actions first, of one subject or all."""
    query = select(audit).order_by(audit.c.at.desc(), audit.c.id.desc()).limit(limit)
    if kind is not None:
        query = query.where(audit.c.kind == kind)
    if subject is not None:
        query = query.where(audit.c.subject == subject)
    return [dict(r._mapping) for r in db.execute(query)]
