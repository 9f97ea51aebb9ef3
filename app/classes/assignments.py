"""Assignments: snippets a teacher sets a class, and each learner's progress towards them.

An assignment names a snippet, a mode (a mask rate and unit, or the fixed exercise), a target
(accuracy of the learner's best attempt, or reviews on that many different UTC days), a start day
and a due day. Progress is read from the attempts themselves, on any version of the snippet, so
editing a snippet keeps its assignments and what was done towards them. An attempt counts only
from the start day on, made in the class (attempts record their class), and, for a learner in
the class now, since they joined it (what they did before, or in an earlier stay, is theirs but
not this class's work). Practice after "reveal all" never counts.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import Column, DateTime, Float, Index, Integer, String, Table, insert, select

from ..db.moments import utc
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
    starts: str

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
            "starts": self.starts,
            "due": self.due,
        }

    @property
    def href(self) -> str:
        """Where a learner does it: the exercise, or the drill at its rate and unit."""
        if self.mode == "fixed":
            return f"/s/{self.snippet_id}"
        return f"/s/{self.snippet_id}/drill?rate={self.rate}" + ("" if self.unit == "token" else f"&unit={self.unit}")

    def counts(self, row, joined: datetime | None) -> bool:
        """Whether an attempt is practice of this assignment's mode, made in its class from its start
        day on and, when the learner's joining is known (`joined`), since then."""
        if row.practice or row.class_code != self.class_code or row.snippet_id != self.snippet_id:
            return False
        at = utc(row.created_at)
        if at.date().isoformat() < self.starts or (joined is not None and at < joined):
            return False
        if self.mode == "fixed":
            return row.mode == "fixed"
        return row.mode in ("random", "review") and row.rate == self.rate and row.unit == self.unit


@dataclass(frozen=True)
class Progress:
    status: str  # done | in_progress | not_started
    value: float | int  # best accuracy so far, or days with a review (at most the goal)
    attempts: int  # the attempts that count
    late_days: int | None = None  # days past the due day, while not done

    def as_json(self) -> dict:
        return {"status": self.status, "progress": self.value, "attempts": self.attempts, "late_days": self.late_days}


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
        "starts": starts or _today(),
    }
    new_id = db.execute(
        insert(assignments).values(**values, created_by=who, created_at=datetime.now(UTC)).returning(assignments.c.id)
    ).scalar_one()
    return Assignment(new_id, **values)


def of_class(db, code: str) -> list[Assignment]:
    rows = db.execute(
        select(*_fields()).where(assignments.c.class_code == code).order_by(assignments.c.due, assignments.c.id)
    )
    return [Assignment(*row) for row in rows]


def _fields():
    c = assignments.c
    return c.id, c.class_code, c.snippet_id, c.mode, c.rate, c.unit, c.target, c.goal, c.due, c.starts


def members(db, code: str) -> list[str]:
    return list(db.execute(select(learners.c.id).where(learners.c.class_code == code)).scalars())


def progress(
    db, sets: list[Assignment], learner_ids: list[str], today: date | None = None
) -> dict[tuple[str, int], Progress]:
    """(learner, assignment id) → progress, for every pair; lateness as of `today` (UTC)."""
    today = today or datetime.now(UTC).date()
    rows = _attempts(db, {a.snippet_id for a in sets}, learner_ids)
    joined = _joined(db, learner_ids)
    out = {}
    for learner in learner_ids:
        mine, (code, since) = rows.get(learner, []), joined.get(learner, (None, None))
        for a in sets:
            counted = [r for r in mine if a.counts(r, since if code == a.class_code else None)]
            out[learner, a.id] = _towards(a, counted, today)
    return out


def _joined(db, learner_ids: list[str]) -> dict[str, tuple[str | None, datetime | None]]:
    """Each learner's class now and when they joined it (None: unknown, joined before it was kept)."""
    if not learner_ids:
        return {}
    rows = db.execute(
        select(learners.c.id, learners.c.class_code, learners.c.class_joined_at).where(learners.c.id.in_(learner_ids))
    )
    return {r.id: (r.class_code, r.class_joined_at and utc(r.class_joined_at)) for r in rows}


def _attempts(db, snippet_ids: set[str], learner_ids: list[str]) -> dict[str, list]:
    if not snippet_ids or not learner_ids:
        return {}
    c = attempts.c
    query = select(
        c.learner, c.snippet_id, c.class_code, c.mode, c.rate, c.unit, c.correct, c.total, c.practice, c.created_at
    ).where(c.learner.in_(learner_ids), c.snippet_id.in_(sorted(snippet_ids)))
    out: dict[str, list] = {}
    for row in db.execute(query):
        out.setdefault(row.learner, []).append(row)
    return out


def _towards(a: Assignment, rows: list, today: date) -> Progress:
    if a.target == "accuracy":
        value = max((r.correct / r.total for r in rows if r.total), default=0.0)
        done = bool(rows) and value >= a.goal - 1e-9
        value = round(value, 4)
    else:
        days = len({utc(r.created_at).date() for r in rows})
        done, value = days >= a.goal, min(days, int(a.goal))
    status = "done" if done else "in_progress" if rows else "not_started"
    late = (today - date.fromisoformat(a.due)).days
    return Progress(status, value, len(rows), late if late > 0 and not done else None)


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def for_learner(db, learner: str, code: str | None, today: date | None = None) -> list[tuple[Assignment, Progress]]:
    """A learner's assignments (their class's) with their progress, soonest due first."""
    if not code:
        return []
    sets = of_class(db, code)
    found = progress(db, sets, [learner], today)
    return [(a, found[learner, a.id]) for a in sets]
