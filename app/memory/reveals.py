"""Answers stay on the server: a blank's answer leaves only when the learner asks for it, and
the server keeps that it did, per learner and mask, so that the next submission of that mask
counts the blank as revealed whatever the page says. That submission takes them away (a new
try of the same mask starts afresh, as a new mask does).

What is kept is bounded, since anyone can ask without a cookie: one row a mask, a learner's
latest `MASKS_KEPT` masks, none whose last reveal is older than `KEPT_FOR` (a page left open
longer is a new try)."""

import hashlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, delete, select, update

from .tables import reveals

KEPT_FOR = timedelta(days=1)
MASKS_KEPT = 16


def mask_key(snippet_id: str, version: str, holes) -> str:
    """The mask a page shows: its snippet version and where each blank is (any mode or unit)."""
    text = "\n".join([snippet_id, version, *(f"{h.key}:{h.start}:{h.end}" for h in holes)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _mine(learner: str, mask: str):
    return and_(reveals.c.learner == learner, reveals.c.mask == mask)


def _joined(blanks) -> str:
    return ",".join(sorted(blanks))


def recorded(db, learner: str, mask: str) -> frozenset[str]:
    fresh = reveals.c.created_at >= datetime.now(UTC) - KEPT_FOR
    text = db.execute(select(reveals.c.blanks).where(_mine(learner, mask), fresh)).scalar()
    return frozenset(text.split(",")) if text else frozenset()


def record(db, learner: str, mask: str, blanks) -> None:
    before = recorded(db, learner, mask)
    after = before | set(blanks)
    if after == before:
        return
    now = datetime.now(UTC)
    db.execute(delete(reveals).where(_mine(learner, mask)))  # an expired row of this mask too
    db.execute(reveals.insert().values(learner=learner, mask=mask, blanks=_joined(after), created_at=now))
    _prune(db, learner, now)


def _prune(db, learner: str, now: datetime) -> None:
    """Rows past their day (anyone's: the index finds them), and this learner's masks beyond the latest few."""
    db.execute(delete(reveals).where(reveals.c.created_at < now - KEPT_FOR))
    older = (
        select(reveals.c.mask)
        .where(reveals.c.learner == learner)
        .order_by(reveals.c.created_at.desc(), reveals.c.mask)
        .offset(MASKS_KEPT)
    )
    masks = list(db.execute(older).scalars())
    if masks:
        db.execute(delete(reveals).where(reveals.c.learner == learner, reveals.c.mask.in_(masks)))


def taken(db, learner: str, mask: str, blanks) -> None:
    """Once a submission counted them."""
    if not blanks:
        return
    left = recorded(db, learner, mask) - set(blanks)
    if left:
        db.execute(update(reveals).where(_mine(learner, mask)).values(blanks=_joined(left)))
    else:
        db.execute(delete(reveals).where(_mine(learner, mask)))


def forget(db, learner: str) -> None:
    db.execute(delete(reveals).where(reveals.c.learner == learner))
