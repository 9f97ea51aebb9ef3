"""Folding written attempts into the class counters before anything reads them.

The attempt writer only lists each attempt's id in `class_pending` (one row, in the attempt's
own transaction): counting its blanks into the per-day counters there cost about a third of
the writer's time, which every submission's response waited for. Whatever reads the counters
calls `fold` first: it takes the pending ids with DELETE ... RETURNING, which takes SQLite's
write lock or PostgreSQL's row locks, so two folds never count one attempt twice, and a fold
that waited on another finds its attempts counted once that one commits. A read after `fold`
therefore sees every attempt committed before it counted, as if it had been counted when
written. A `Folder` thread folds a few seconds after attempts are written, so a page finds
little left to fold. (Summing the attempts' blanks at each read instead would cost seconds for
a class's term: bench/RESULTS.md.)
"""

import logging
import threading

from sqlalchemy import delete, select, text
from sqlalchemy.exc import DBAPIError

from ..db.tables import attempts
from .counts import count_attempts, uncount_learner
from .tables import pending

log = logging.getLogger("codecloze")
CHUNK = 100  # attempts per transaction (~30 ms): the attempt writer never waits long on a fold
FOLD_SECONDS = 5.0  # a background fold waits this long after a write, so one fold counts many
_TAKE = text(
    "DELETE FROM class_pending WHERE attempt_id IN "
    "(SELECT attempt_id FROM class_pending ORDER BY attempt_id LIMIT :n) RETURNING attempt_id"
)
_COUNTED = select(
    attempts.c.snippet_id,
    attempts.c.version,
    attempts.c.class_code,
    attempts.c.created_at,
    attempts.c.learner,
    attempts.c.practice,
    attempts.c.blanks,
)


def fold(engine, stop=lambda: False) -> None:
    """Count every pending attempt, a chunk per transaction, until none is left (or `stop()`).
    With the database refusing writes the counters stay as they are (a page shows what they hold)."""
    try:
        while _fold_chunk(engine) and not stop():
            pass
    except DBAPIError as err:
        log.warning("class counters not brought up to date: %s", str(err).splitlines()[0][:200])


def forget_learner(db, learner: str) -> None:
    """In the caller's transaction, before the learner's attempts are deleted: a history is its
    learner's, so once deleted no class figure keeps it. Pending attempts were never counted and
    leave the list; the others are taken out of the counters."""
    mine = select(attempts.c.id).where(attempts.c.learner == learner)
    # Taken first: a fold counting some of them at this moment is waited for, and they are counted.
    taken = delete(pending).where(pending.c.attempt_id.in_(mine)).returning(pending.c.attempt_id)
    uncounted = set(db.execute(taken).scalars())
    rows = db.execute(_COUNTED.add_columns(attempts.c.id).where(attempts.c.learner == learner))
    uncount_learner(db, learner, [r for r in rows if r.id not in uncounted])


def _fold_chunk(engine) -> int:
    with engine.begin() as db:
        ids = [r[0] for r in db.execute(_TAKE, {"n": CHUNK})]
        _count(db, ids)
        return len(ids)


def _count(db, ids: list[int]) -> None:
    """An id whose attempt is gone (its learner's history deleted before a fold) counts nothing."""
    if ids:
        count_attempts(db, db.execute(_COUNTED.where(attempts.c.id.in_(ids))).all())


class Folder:
    """Folds in the background, `seconds` after attempts were written (the store's `on_written`)."""

    def __init__(self, engine, seconds: float = FOLD_SECONDS):
        self.engine, self.seconds = engine, seconds
        self._written, self._closed = threading.Event(), threading.Event()
        self._written.set()  # what a previous run left pending (a kill, say) is folded soon too
        self._thread = threading.Thread(target=self._run, name="class-counters", daemon=True)
        self._thread.start()

    def wrote(self, _learners=()) -> None:
        self._written.set()

    def _run(self) -> None:
        while self._written.wait() and not self._closed.wait(self.seconds):
            self._written.clear()
            try:
                fold(self.engine, stop=self._closed.is_set)
            except Exception:  # logged; the next write or read folds again
                log.exception("folding the class counters failed")

    def close(self) -> None:
        """Stops; what is pending stays pending, for the next fold (it is in the database)."""
        self._closed.set()
        self._written.set()
        self._thread.join(30)
