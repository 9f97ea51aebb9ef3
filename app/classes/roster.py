"""Class codes and their learners: create, look up, join, and the per-learner table."""

import hashlib
import re
import secrets
from datetime import UTC, datetime

from sqlalchemy import delete, func, insert, or_, select, update

from ..memory.tables import cards, learners
from .figures import Scope, per_learner
from .tables import activity, classes
from .tables import teachers as class_teachers

CODE = re.compile(r"^[A-Za-z0-9-]{1,32}$")
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I/L to misread on a board
NAME_MAX = 60


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(6))


def short_id(learner: str) -> str:
    """An anonymous label for a learner without a display name (not their id, which signs in)."""
    return "#" + hashlib.sha256(learner.encode()).hexdigest()[:6]


def exists(db, code: str) -> bool:
    """Whether a class has this code in any letter case (a code is read aloud or off a board)."""
    return stored_code(db, code) is not None


def stored_code(db, typed: str) -> str | None:
    """The class code as created for a code typed in any case: the exact spelling first, else the
    one that differs only in case (teachers' own codes may mix cases; generated ones are upper)."""
    if db.execute(select(classes.c.code).where(classes.c.code == typed)).first() is not None:
        return typed
    return db.execute(
        select(classes.c.code)
        .where(func.upper(classes.c.code) == typed.upper())
        .order_by(classes.c.created_at)
        .limit(1)
    ).scalar()


def create(db, code: str, name: str | None, who: str, owner: int | None = None) -> None:
    """A new class; `owner`: the teacher account making it (None: made with the teachers' token)."""
    db.execute(
        insert(classes).values(code=code, name=name, created_by=who, created_at=datetime.now(UTC), owner_id=owner)
    )


def taught_by(teacher: int):
    """The condition on `classes` of the classes a teacher account owns or co-teaches."""
    return or_(
        classes.c.owner_id == teacher,
        classes.c.code.in_(select(class_teachers.c.class_code).where(class_teachers.c.teacher_id == teacher)),
    )


def teaches(db, code: str, teacher: int) -> bool:
    """Whether the account owns or co-teaches the class of a code typed in any case."""
    query = select(classes.c.code).where(classes.c.code == stored_code(db, code), taught_by(teacher))
    return db.execute(query).first() is not None


def adopt(db, code: str, teacher: int) -> None:
    """Give a class nobody owns (made by the token or by a student's LMS launch) an owner."""
    db.execute(update(classes).where(classes.c.code == code, classes.c.owner_id.is_(None)).values(owner_id=teacher))


def co_teachers(db, code: str) -> list[int]:
    query = select(class_teachers.c.teacher_id).where(class_teachers.c.class_code == code)
    return sorted(db.execute(query).scalars())


def add_co_teacher(db, code: str, teacher: int) -> None:
    if teacher not in co_teachers(db, code):
        db.execute(insert(class_teachers).values(class_code=code, teacher_id=teacher))


def remove_co_teacher(db, code: str, teacher: int) -> None:
    db.execute(
        delete(class_teachers).where(class_teachers.c.class_code == code, class_teachers.c.teacher_id == teacher)
    )


def archived(db, code: str) -> bool:
    return db.execute(select(classes.c.archived_at).where(classes.c.code == code)).scalar() is not None


def all_classes(db, teacher: int | None = None) -> list[dict]:
    """Every class (or those `teacher`'s account teaches), newest first, with how many learners
    are in it now."""
    members = select(learners.c.class_code, func.count().label("n")).group_by(learners.c.class_code).subquery()
    query = (
        select(classes, func.coalesce(members.c.n, 0).label("members"))
        .outerjoin(members, members.c.class_code == classes.c.code)
        .order_by(classes.c.created_at.desc())
    )
    if teacher is not None:
        query = query.where(taught_by(teacher))
    return [dict(r._mapping) for r in db.execute(query)]


def one(db, code: str) -> dict | None:
    """The class of a code typed in any case."""
    row = db.execute(select(classes).where(classes.c.code == stored_code(db, code))).first()
    return dict(row._mapping) if row else None


def roster(db, scope: Scope, at: datetime) -> list[dict]:
    """Each learner in the class now or with attempts in it: name (or short id), attempts, accuracy, due."""
    figures = per_learner(db, scope)
    ids = set(figures) | set(
        db.execute(select(learners.c.id).where(learners.c.class_code == scope.class_code)).scalars()
    )
    if not ids:
        return []
    names = dict(db.execute(select(learners.c.id, learners.c.name).where(learners.c.id.in_(ids))).all())
    due = _due_counts(db, ids, at, scope.snippet_id)
    out = [
        {
            "learner": short_id(i),
            "name": names.get(i),
            "attempts": figures.get(i, {}).get("attempts", 0),
            "accuracy": figures.get(i, {}).get("accuracy"),
            "due": due.get(i, 0),
        }
        for i in ids
    ]
    out.sort(key=lambda r: (-r["attempts"], r["name"] or "~", r["learner"]))
    return out


def _due_counts(db, ids: set[str], at: datetime, snippet_id: str) -> dict[str, int]:
    terms = [cards.c.learner.in_(sorted(ids)), cards.c.due <= at]
    if snippet_id:
        terms.append(cards.c.snippet_id == snippet_id)
    rows = db.execute(select(cards.c.learner, func.count()).where(*terms).group_by(cards.c.learner))
    return {learner: int(n) for learner, n in rows}


def names(db, ids: list[str]) -> dict[str, str | None]:
    """Display names of learners, by id."""
    if not ids:
        return {}
    return dict(db.execute(select(learners.c.id, learners.c.name).where(learners.c.id.in_(ids))).all())


def snippets_practised(db, code: str) -> list[str]:
    rows = db.execute(
        select(activity.c.snippet_id)
        .where(activity.c.class_code == code)
        .group_by(activity.c.snippet_id)
        .order_by(activity.c.snippet_id)
    )
    return list(rows.scalars())
