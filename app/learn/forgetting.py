"""Deleting a learner's history: attempts, answers, every memory row and what the attempts added
to their classes' figures (the id itself stays)."""

from sqlalchemy import delete, select

from app.classes.fold import forget_learner
from app.db.tables import attempts, responses
from app.memory import reveals
from app.memory.tables import cards, tokens, unproven


def history(db, learner: str) -> None:
    forget_learner(db, learner)  # out of the class counters first: they are counted from the attempts
    mine = select(attempts.c.id).where(attempts.c.learner == learner)
    db.execute(delete(responses).where(responses.c.attempt_id.in_(mine)))
    db.execute(delete(attempts).where(attempts.c.learner == learner))
    db.execute(delete(cards).where(cards.c.learner == learner))
    db.execute(delete(tokens).where(tokens.c.learner == learner))
    db.execute(delete(unproven).where(unproven.c.learner == learner))
    reveals.forget(db, learner)
