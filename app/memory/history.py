"""Since when a learner has attempts: ids cost nothing, so the sandbox queues the jobs of ids
without history together per address until their first verdict, and counts ids whose history
began this minute against their address's bound of new ids (app/sandbox/fairness.py)."""

import collections
import time

from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError

from ..db.moments import utc
from ..db.tables import attempts

UNKNOWN = -1.0  # the database is down: the learner counts as long established


class KnownLearners:
    """Learners seen with an attempt and when their first was; once seen, kept (up to
    `remembered`, newest first) so a submission costs no query."""

    def __init__(self, engine, remembered: int = 65536):
        self.engine, self.remembered = engine, remembered
        self.known: collections.OrderedDict[str, float] = collections.OrderedDict()

    def has_attempts(self, learner: str) -> bool:
        return self.since(learner) is not None

    def since(self, learner: str) -> float | None:
        """The time (epoch seconds) of the learner's first attempt; None: they have none."""
        if learner in self.known:
            self.known.move_to_end(learner)
            return self.known[learner]
        try:
            with self.engine.connect() as db:
                first = db.execute(
                    select(func.min(attempts.c.created_at)).where(attempts.c.learner == learner)
                ).scalar()
        except DBAPIError:
            return UNKNOWN  # no learner is put in the line of new ids for it
        if first is None:
            return None
        self.known[learner] = utc(first).timestamp()
        if len(self.known) > self.remembered:
            self.known.popitem(last=False)
        return self.known[learner]

    def settled(self, learner: str, seconds: float = 60.0) -> bool:
        """Whether the learner's first attempt is older than `seconds`."""
        since = self.since(learner)
        return since is not None and since < time.time() - seconds
