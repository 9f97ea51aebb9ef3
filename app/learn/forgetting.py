"""Deleting a learner's history: attempts, answers and every memory row (the id itself stays)."""

from sqlalchemy import delete, select

from app.classes.fold import fold_learner
from app.db.tables import attempts, responses
from app.memory import reveals
from app.memory.tables import cards, tokens, unproven


def history(db, learner: str) -> None:
    fold_learner(db, learner)  # the class counters keep what they held, as for a counted attempt
    mine = select(attempts.c.id).where(attempts.c.learner == learner)
    db.execute(delete(responses).where(responses.c.attempt_id.in_(mine)))
    db.execute(delete(attempts).where(attempts.c.learner == learner))
    db.execute(delete(cards).where(cards.c.learner == learner))
    db.execute(delete(tokens).where(tokens.c.learner == learner))
    db.execute(delete(unproven).where(unproven.c.learner == learner))
    reveals.forget(db, learner)
