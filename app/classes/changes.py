"""Correcting a class: rename, archive and restore, delete, remove a learner.

Attempts are never touched: they keep the class of their time (a learner's history is theirs).
Deleting a class removes its assignments and unlinks its learners; the counters of its attempts
stay, so a deleted class's code is not given to a new class (its history would show there).
"""

from datetime import UTC, datetime

from sqlalchemy import delete, select, update

from ..db.tables import attempts
from ..memory import identity
from ..memory.tables import learners
from .assignments import assignments
from .roster import short_id
from .tables import activity, classes
from .tables import teachers as class_teachers


def rename(db, code: str, name: str | None) -> None:
    db.execute(update(classes).where(classes.c.code == code).values(name=name))


def set_archived(db, code: str, archived: bool) -> None:
    db.execute(
        update(classes).where(classes.c.code == code).values(archived_at=datetime.now(UTC) if archived else None)
    )


def delete_class(db, code: str) -> int:
    """Removes the class and its assignments; its learners are unlinked. Returns how many were."""
    db.execute(delete(assignments).where(assignments.c.class_code == code))
    unlinked = db.execute(
        update(learners).where(learners.c.class_code == code).values(class_code=None, class_joined_at=None)
    ).rowcount
    db.execute(delete(class_teachers).where(class_teachers.c.class_code == code))
    db.execute(delete(classes).where(classes.c.code == code))
    return unlinked


def used_before(db, code: str) -> bool:
    """Whether attempts were made in a class of this code (one that was deleted, when none has it now)."""
    for table in (attempts, activity):
        if db.execute(select(table.c.class_code).where(table.c.class_code == code).limit(1)).first():
            return True
    return False


def member(db, code: str, short: str) -> str | None:
    """The id of the learner in the class whose short label is `short` (with or without its #)."""
    wanted = "#" + short.removeprefix("#")
    ids = db.execute(select(learners.c.id).where(learners.c.class_code == code)).scalars()
    return next((i for i in ids if short_id(i) == wanted), None)


def unlink(db, learner: str) -> None:
    identity.set_class(db, learner, None)
