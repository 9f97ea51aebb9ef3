"""Recording attempts: the rows one batch of attempts writes, in one transaction.

Each attempt's row and its short answers, the learner's memory (app/memory/update.py) and the
class counters' pending list are written together, so no reader ever sees an attempt without
its memory. The store's group commit (app/db/commit.py) decides when a batch is written; this
module decides what it writes. A result is confirmed only once its batch is committed.
"""

import secrets
from datetime import UTC, datetime

from sqlalchemy import Engine, insert, select, update

from app.classes.counts import class_codes
from app.classes.tables import pending
from app.db.commit import NotStored
from app.db.records import AttemptRecord
from app.db.store import Store
from app.db.tables import attempts, responses
from app.memory.update import apply_attempts, rate_question

RATINGS = ("again", "hard", "good", "easy")  # a learner's own rating of a short answer
ID_MAX = 2**63 - 1  # ids are random positive BIGINTs
NEW_ATTEMPT, NEW_RESPONSE, NEW_PENDING = insert(attempts), insert(responses), insert(pending)


def attempt_store(url: str, busy_ms: int = 5000) -> Store:
    """The database, migrated, with a writer that records batches of attempts."""
    return Store(url, busy_ms, write_batch=write_attempts)


async def record_attempt(store: Store, record: AttemptRecord) -> int:
    """The attempt's id, once its row is committed; NotStored if the database refused it."""
    attempt_id = secrets.randbelow(ID_MAX) + 1
    try:
        await store.writer.write((attempt_id, record, datetime.now(UTC)))
    except NotStored:
        store.on_attempt(False)
        raise
    store.on_attempt(True)
    return attempt_id


def learners_in(batch: list) -> set[str]:
    """Whose attempts a written batch holds."""
    return {record.learner for _, record, _ in batch}


def write_attempts(db, batch: list) -> None:
    """Write a batch of (id, AttemptRecord, time) in the transaction `db`."""
    codes = class_codes(db, (r.learner for _, r, _ in batch))  # the class at the time of writing
    insert_attempts(db, batch, codes)
    apply_attempts(db, batch)  # learner memory, in the same transaction
    # class counters: each attempt is counted once, by the first read after it (classes/fold.py)
    db.execute(NEW_PENDING, [{"attempt_id": i} for i in sorted(i for i, _, _ in batch)])


def insert_attempts(db, batch: list, codes: dict[str, str]) -> None:
    rows = [
        {
            "id": i,
            "learner": r.learner,
            "snippet_id": r.snippet_id,
            "version": r.version,
            "mode": r.mode,
            "rate": r.rate,
            "seed": r.seed,
            "correct": sum(r.results.values()),
            "total": len(r.results),
            "outcome": r.outcome,
            "results": r.results,
            "created_at": at,
            "unit": r.unit,
            "kinds": r.kinds,
            "blanks": list(r.blanks),
            "hints": r.hints,
            "seconds": r.seconds,
            "practice": r.practice,
            "class_code": codes.get(r.learner) or None,
        }
        for i, r, at in batch
    ]
    answers = [{"attempt_id": i, "question": q, "text": t} for i, r, _ in batch for q, t in (r.answers or {}).items()]
    db.execute(NEW_ATTEMPT, rows)
    if answers:
        db.execute(NEW_RESPONSE, answers)


def rate_response(engine: Engine, attempt_id: int, learner: str, question: int, rating: str) -> bool:
    """Store the learner's own rating of a short answer; False if that answer is not theirs.
    The first rating also reviews the question's card; a changed mind is recorded, not
    reviewed again (a card is reviewed once per answer)."""
    if not 0 < attempt_id <= ID_MAX:
        return False
    with engine.begin() as db:
        owner = db.execute(select(attempts.c.learner).where(attempts.c.id == attempt_id)).scalar()
        if owner != learner:
            return False
        key = (responses.c.attempt_id == attempt_id, responses.c.question == question)
        found = db.execute(select(responses.c.rating).where(*key)).first()
        if found is None:
            return False
        db.execute(update(responses).where(*key).values(rating=rating))
        if found.rating is None:
            rate_question(db, attempt_id, learner, question, rating)
        return True
