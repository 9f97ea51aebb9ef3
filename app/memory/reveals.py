"""Answers stay on the server: a blank's answer leaves only when the learner asks for it, and
the server keeps that it did, per learner and mask, so that the next submission of that mask
counts the blank as revealed whatever the page says. That submission takes them away (a new
try of the same mask starts afresh, as a new mask does)."""

import hashlib
from datetime import UTC, datetime

from sqlalchemy import and_, delete, select

from .tables import reveals


def mask_key(snippet_id: str, version: str, holes) -> str:
    """The mask a page shows: its snippet version and where each blank is (any mode or unit)."""
    text = "\n".join([snippet_id, version, *(f"{h.key}:{h.start}:{h.end}" for h in holes)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _mine(learner: str, mask: str):
    return and_(reveals.c.learner == learner, reveals.c.mask == mask)


def recorded(db, learner: str, mask: str) -> frozenset[str]:
    return frozenset(db.execute(select(reveals.c.blank).where(_mine(learner, mask))).scalars())


def record(db, learner: str, mask: str, blanks) -> None:
    new = set(blanks) - recorded(db, learner, mask)
    if new:
        now = datetime.now(UTC)
        db.execute(
            reveals.insert(), [{"learner": learner, "mask": mask, "blank": b, "created_at": now} for b in sorted(new)]
        )


def taken(db, learner: str, mask: str, blanks) -> None:
    """Once a submission counted them."""
    if blanks:
        db.execute(delete(reveals).where(_mine(learner, mask), reveals.c.blank.in_(sorted(blanks))))


def forget(db, learner: str) -> None:
    db.execute(delete(reveals).where(reveals.c.learner == learner))
