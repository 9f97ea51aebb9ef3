"""Whether a learner has any attempt yet: ids cost nothing, so the sandbox queues the jobs of ids
without history together per address until their first verdict (app/sandbox/fairness.py)."""

import collections

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from ..db.tables import attempts


class KnownLearners:
    """Learners seen with an attempt; once seen, kept (up to `remembered`, newest first) so a
    submission costs no query."""

    def __init__(self, engine, remembered: int = 65536):
        self.engine, self.remembered = engine, remembered
        self.known: collections.OrderedDict[str, None] = collections.OrderedDict()

    def has_attempts(self, learner: str) -> bool:
        if learner in self.known:
            self.known.move_to_end(learner)
            return True
        try:
            with self.engine.connect() as db:
                found = db.execute(select(attempts.c.id).where(attempts.c.learner == learner).limit(1)).first()
        except DBAPIError:
            return True  # the database is down: no learner is put in the line of new ids for it
        if found is not None:
            self.known[learner] = None
            if len(self.known) > self.remembered:
                self.known.popitem(last=False)
        return found is not None
