"""Check-strength analyses, one per snippet version (migrations 0006 and 0010 make the table).

A run writes its progress as it goes and its report when done, so every worker and host can
show it and grade by it; a version's analysis is complete once `state` is "complete". A row
made by another `method` of analysis (an older release's) counts as none: it is made again.
"""

from datetime import UTC, datetime, timedelta

from sqlalchemy import JSON, Column, DateTime, Float, Integer, String, Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..snippets.strength import METHOD
from .moments import utc
from .tables import metadata

# A run writes its progress every second or so: one silent this long was cut off (a restart, a
# crash) and is shown and treated as interrupted, so the next need starts it again.
STALE_AFTER = timedelta(minutes=10)

strength = Table(
    "strength_analyses",
    metadata,
    Column("snippet_id", String(64), primary_key=True),
    Column("version", String(12), primary_key=True),
    Column("state", String(10), nullable=False),  # running | complete | failed
    Column("done", Integer, nullable=False, default=0),
    Column("total", Integer, nullable=False, default=0),
    Column("caught", JSON),  # candidate indices of the caught positions, when complete
    Column("report", JSON),  # positions and mutants, as the pages and the API show them
    Column("seconds", Float),
    Column("error", String(200)),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("method", String(8)),  # strength.METHOD of the run that wrote it
    Column("judged", JSON),  # what grading reads: strength_report.judged
)


def save(engine, snippet_id: str, version: str, **values) -> None:
    """Creates or updates the version's row (the last writer wins)."""
    values.update(updated_at=datetime.now(UTC), method=METHOD)
    key = (strength.c.snippet_id == snippet_id, strength.c.version == version)
    with engine.begin() as db:
        if db.execute(update(strength).where(*key).values(**values)).rowcount:
            return
        try:
            with db.begin_nested():
                db.execute(
                    insert(strength).values(snippet_id=snippet_id, version=version, **{"state": "running", **values})
                )
        except IntegrityError:  # another worker inserted it meanwhile
            db.execute(update(strength).where(*key).values(**values))


def progress(engine, snippet_id: str, version: str, done: int, total: int) -> None:
    """Progress of a run under way; never over a finished one (writes may arrive late)."""
    with engine.begin() as db:
        db.execute(
            update(strength)
            .where(strength.c.snippet_id == snippet_id, strength.c.version == version, strength.c.state == "running")
            .values(done=done, total=total, updated_at=datetime.now(UTC))
        )


def load(engine, snippet_id: str, version: str) -> dict | None:
    with engine.connect() as db:
        row = db.execute(
            select(strength).where(strength.c.snippet_id == snippet_id, strength.c.version == version)
        ).first()
    if row is None:
        return None
    found = dict(row._mapping)
    if found["method"] != METHOD:
        return None
    if _interrupted(found["state"], found["updated_at"]):
        found.update(state="failed", error="interrupted")
    return found


def _interrupted(state: str, updated_at: datetime) -> bool:
    return state == "running" and datetime.now(UTC) - utc(updated_at) > STALE_AFTER


def judged(engine, snippet_id: str, version: str) -> tuple[str | None, dict | None]:
    """The state of a version's analysis (None: there is none, it was interrupted or made
    another way) and, once complete, what grading needs of it (strength_report.judged)."""
    query = select(strength.c.state, strength.c.judged, strength.c.method, strength.c.updated_at).where(
        strength.c.snippet_id == snippet_id, strength.c.version == version
    )
    with engine.connect() as db:
        row = db.execute(query).first()
    if row is None or row.method != METHOD or _interrupted(row.state, row.updated_at):
        return None, None  # none, or one that will never end: the next need starts one
    return row.state, (row.judged or {}) if row.state == "complete" else None
