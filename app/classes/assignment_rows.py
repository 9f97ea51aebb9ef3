"""One assignment's row as a teacher corrects it: read, change, delete (attempts stay)."""

from sqlalchemy import delete, select, update

from .assignments import assignments

EDITABLE = ("snippet_id", "mode", "rate", "unit", "target", "goal", "starts", "due")


def one(db, code: str, assignment_id: int) -> dict | None:
    """The assignment's editable values, when it belongs to the class."""
    row = db.execute(
        select(assignments.c.id, *(assignments.c[k] for k in EDITABLE)).where(
            assignments.c.id == assignment_id, assignments.c.class_code == code
        )
    ).first()
    return dict(row._mapping) if row else None


def change(db, assignment_id: int, values: dict) -> None:
    db.execute(update(assignments).where(assignments.c.id == assignment_id).values(**values))


def remove(db, assignment_id: int) -> None:
    db.execute(delete(assignments).where(assignments.c.id == assignment_id))
