"""Assignments: snippets a teacher sets a class, and each learner's progress towards them.

An assignment names a snippet, a mode (a mask rate and unit, or the fixed exercise), a target
(accuracy of the learner's best attempt, or reviews on that many different UTC days) and a due
day. Progress is read from the attempts themselves, on any version of the snippet, so editing
a snippet keeps its assignments and what was done towards them. Practice after "reveal all"
never counts.
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Float, Index, Integer, String, Table, insert, select

from ..db.tables import attempts, metadata
from ..memory.tables import learners

assignments = Table(
    "assignments",
    metadata,  # migration 0007 creates it
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_code", String(32), nullable=False),
    Column("snippet_id", String(64), nullable=False),
    Column("mode", String(8), nullable=False),  # random | fixed
    Column("rate", Integer),  # random only
    Column("unit", String(8)),  # random only
    Column("target", String(8), nullable=False),  # accuracy | reviews
    Column("goal", Float, nullable=False),  # the accuracy (0–1) or the number of days
    Column("starts", String(10), nullable=False),  # YYYY-MM-DD, UTC: attempts count from this day
    Column("due", String(10), nullable=False),  # YYYY-MM-DD, UTC
    Column("created_by", String(60), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_assignments_class", "class_code"),
)

STATES = ("done", "in_progress", "not_started")


@dataclass(frozen=True)
class Assignment:
    id: int
    class_code: str
    snippet_id: str
    mode: str
    rate: int | None
    unit: str | None
    target: str
    goal: float
    due: str

    def as_json(self) -> dict:
        goal = {"accuracy": self.goal} if self.target == "accuracy" else {"reviews": int(self.goal)}
        return {
            "id": self.id,
            "class": self.class_code,
            "snippet": self.snippet_id,
            "mode": self.mode,
            "rate": self.rate,
            "unit": self.unit,
            "target": goal,
            "due": self.due,
        }

    def counts(self, row) -> bool:
        """Whether an attempt is practice of this assignment's mode."""
        if row.practice:
            return False
        if self.mode == "fixed":
            return row.mode == "fixed"
        return row.mode in ("random", "review") and row.rate == self.rate and row.unit == self.unit


@dataclass(frozen=True)
class Progress:
    status: str  # done | in_progress | not_started
    value: float | int  # best accuracy so far, or days with a review
    attempts: int

    def as_json(self) -> dict:
        return {"status": self.status, "progress": self.value, "attempts": self.attempts}


def create(
    db,
    *,
    class_code: str,
    snippet_id: str,
    mode: str,
    rate: int | None,
    unit: str | None,
    target: str,
    goal: float,
    due: str,
    who: str,
    starts: str | None = None,
) -> Assignment:
    values = {
        "class_code": class_code,
        "snippet_id": snippet_id,
        "mode": mode,
        "rate": rate,
        "unit": unit,
        "target": target,
        "goal": goal,
        "due": due,
    }
    new_id = db.execute(
        insert(assignments)
        .values(**values, starts=starts or _today(), created_by=who, created_at=datetime.now(UTC))
        .returning(assignments.c.id)
    ).scalar_one()
    return Assignment(new_id, **values)


def of_class(db, code: str) -> list[Assignment]:
    rows = db.execute(
        select(*_fields()).where(assignments.c.class_code == code).order_by(assignments.c.due, assignments.c.id)
    )
    return [Assignment(*row) for row in rows]


def _fields():
    c = assignments.c
    return c.id, c.class_code, c.snippet_id, c.mode, c.rate, c.unit, c.target, c.goal, c.due


def members(db, code: str) -> list[str]:
    return list(db.execute(select(learners.c.id).where(learners.c.class_code == code)).scalars())


def progress(db, sets: list[Assignment], learner_ids: list[str]) -> dict[tuple[str, int], Progress]:
    """(learner, assignment id) → progress, for every pair."""
    rows = _attempts(db, {a.snippet_id for a in sets}, learner_ids)
    out = {}
    for learner in learner_ids:
        mine = rows.get(learner, [])
        for a in sets:
            out[learner, a.id] = _towards(a, [r for r in mine if r.snippet_id == a.snippet_id and a.counts(r)])
    return out


def _attempts(db, snippet_ids: set[str], learner_ids: list[str]) -> dict[str, list]:
    if not snippet_ids or not learner_ids:
        return {}
    c = attempts.c
    query = select(c.learner, c.snippet_id, c.mode, c.rate, c.unit, c.correct, c.total, c.practice, c.created_at).where(
        c.learner.in_(learner_ids), c.snippet_id.in_(sorted(snippet_ids))
    )
    out: dict[str, list] = {}
    for row in db.execute(query):
        out.setdefault(row.learner, []).append(row)
    return out


def _towards(a: Assignment, rows: list) -> Progress:
    if a.target == "accuracy":
        value = max((r.correct / r.total for r in rows if r.total), default=0.0)
        done = bool(rows) and value >= a.goal - 1e-9
        value = round(value, 4)
    else:
        value = len({_utc_day(r.created_at) for r in rows})
        done = value >= a.goal
    status = "done" if done else "in_progress" if rows else "not_started"
    return Progress(status, value, len(rows))


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _utc_day(at: datetime) -> str:
    at = at if at.tzinfo else at.replace(tzinfo=UTC)  # SQLite gives naive UTC times back
    return at.astimezone(UTC).date().isoformat()


def for_learner(db, learner: str, code: str | None) -> list[tuple[Assignment, Progress]]:
    """A learner's assignments (their class's) with their progress, soonest due first."""
    if not code:
        return []
    sets = of_class(db, code)
    found = progress(db, sets, [learner])
    return [(a, found[learner, a.id]) for a in sets]
