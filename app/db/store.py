"""Persistence: attempts and their per-blank results, through SQLAlchemy (SQLite by default).

A write that a response confirms is committed first: `record_attempt` returns once the
group commit that holds the attempt is done, and raises NotStored when it is not.
"""

import secrets
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Engine, create_engine, event, insert, select, update
from sqlalchemy.exc import DBAPIError, OperationalError

from app.classes.counts import class_codes
from app.classes.tables import pending
from app.db import json_text, migrate
from app.db.commit import GroupCommit, NotStored
from app.db.records import AttemptRecord  # noqa: F401 (re-exported)
from app.db.statements import execute_rows
from app.db.tables import attempts, metadata, responses, snippet_versions, snippets  # noqa: F401 (re-exported)
from app.memory.update import apply_attempts, rate_question

RATINGS = ("again", "hard", "good", "easy")
ID_MAX = 2**63 - 1  # ids are random positive BIGINTs
NEW_ATTEMPT, NEW_RESPONSE, NEW_PENDING = insert(attempts), insert(responses), insert(pending)


class Store:
    def __init__(self, url: str, busy_ms: int = 5000):
        self.engine = make_engine(url, busy_ms)
        migrate.upgrade(self.engine)
        self.writer = GroupCommit(self._write_attempts, is_outage=is_outage)
        self.on_attempt: Callable[[bool], None] = lambda stored: None  # metrics: stored or refused
        self.on_written: Callable[[set[str]], None] = lambda learners: None  # e.g. the FSRS fitter

    @property
    def healthy(self) -> bool:
        return self.writer.healthy

    def recheck(self) -> bool:
        """After a failed write: can the database be written again? (A write statement that
        changes no row still takes the write lock.)"""
        try:
            with self.engine.begin() as db:
                db.execute(update(snippets).where(snippets.c.id == "").values(id=""))
        except DBAPIError:
            return False
        self.writer.healthy = True
        return True

    async def record_attempt(self, record: AttemptRecord) -> int:
        """The attempt's id, once its row is committed; NotStored if the database refused it."""
        attempt_id = secrets.randbelow(ID_MAX) + 1
        try:
            await self.writer.write((attempt_id, record, datetime.now(UTC)))
        except NotStored:
            self.on_attempt(False)
            raise
        self.on_attempt(True)
        return attempt_id

    def _write_attempts(self, batch: list) -> None:
        with self.engine.begin() as db:
            codes = class_codes(db, (r.learner for _, r, _ in batch))  # the class at the time of writing
            self._insert_attempts(db, batch, codes)
            apply_attempts(db, batch)  # learner memory, in the same transaction
            # class counters: each attempt is counted once, by the first read after it (classes/fold.py)
            execute_rows(db, NEW_PENDING, [{"attempt_id": i} for i in sorted(i for i, _, _ in batch)])
        self.on_written({r.learner for _, r, _ in batch})

    def _insert_attempts(self, db, batch: list, codes: dict[str, str]) -> None:
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
        answers = [
            {"attempt_id": i, "question": q, "text": t} for i, r, _ in batch for q, t in (r.answers or {}).items()
        ]
        execute_rows(db, NEW_ATTEMPT, rows)
        execute_rows(db, NEW_RESPONSE, answers)

    def close(self) -> None:
        self.writer.close()
        self.engine.dispose()

    def rate_response(self, attempt_id: int, learner: str, question: int, rating: str) -> bool:
        """Store the learner's own rating of a short answer; False if that answer is not theirs.
        The first rating also reviews the question's card; a changed mind is recorded, not
        reviewed again (a card is reviewed once per answer)."""
        if not 0 < attempt_id <= ID_MAX:
            return False
        with self.engine.begin() as db:
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

    def attempts_of(self, learner: str, snippet_id: str | None = None, limit: int = 50) -> list[dict]:
        query = select(attempts).where(attempts.c.learner == learner)
        if snippet_id:
            query = query.where(attempts.c.snippet_id == snippet_id)
        with self.engine.connect() as db:
            rows = db.execute(query.order_by(attempts.c.id.desc()).limit(limit))
            return [dict(r._mapping) for r in rows]

    def responses_of(self, attempt_id: int) -> list[dict]:
        with self.engine.connect() as db:
            rows = db.execute(
                select(responses).where(responses.c.attempt_id == attempt_id).order_by(responses.c.question)
            )
            return [dict(r._mapping) for r in rows]


def make_engine(url: str, busy_ms: int = 5000) -> Engine:
    engine = create_engine(
        url,
        pool_pre_ping=not url.startswith("sqlite"),
        json_serializer=json_text.dumps,
        json_deserializer=json_text.loads,
    )
    if url.startswith("sqlite"):
        event.listen(engine, "connect", lambda conn, _record: _sqlite_pragmas(conn, busy_ms))
    return engine


def is_outage(err: Exception) -> bool:
    """The database as a whole failed (locked, read-only, gone), not one row's content."""
    return isinstance(err, OperationalError) or (isinstance(err, DBAPIError) and err.connection_invalidated)


def _sqlite_pragmas(conn, busy_ms: int) -> None:
    cursor = conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a commit is on disk before the response that confirms it (group commit keeps it cheap).
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
    cursor.close()
