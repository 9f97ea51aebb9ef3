"""Persistence: attempts and their per-blank results, through SQLAlchemy (SQLite by default)."""
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import (JSON, BigInteger, Boolean, Column, DateTime, Float, Integer, MetaData, String, Table, Text,
                        create_engine, delete, event, insert, select, update)

from .writer import BatchWriter


metadata = MetaData()

attempts = Table(
    "attempts", metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),  # random, chosen before writing
    Column("learner", String(64), nullable=False, index=True),
    Column("snippet_id", String(64), nullable=False, index=True),
    Column("version", String(12), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("rate", Integer),
    Column("seed", Integer),
    Column("correct", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("outcome", String(16)),  # sandbox verdict status, or NULL when not run
    Column("results", JSON, nullable=False),  # {blank key: recalled}, for per-span statistics
    Column("unit", String(8), nullable=False, default="token"),
    Column("kinds", String(64), nullable=False, default="default"),
    Column("blanks", JSON),  # [{span: i | [first, last], key, expected, given, state}]
    Column("hints", Integer, nullable=False, default=0),  # hint panels opened
    Column("seconds", Float),  # time on task as the page measured it, when plausible
    Column("practice", Boolean, nullable=False, default=False),  # made after "reveal all": no recall
    Column("created_at", DateTime(timezone=True), nullable=False),
)


responses = Table(
    "responses", metadata,
    Column("attempt_id", BigInteger, nullable=False, index=True),
    Column("question", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("rating", String(8)),  # again | hard | good | easy, the learner's own
)

snippets = Table(
    "snippets", metadata,  # uploaded snippets; their text lives in files under the data dir
    Column("id", String(64), primary_key=True),
    Column("version", String(12), nullable=False),
    Column("published", Boolean, nullable=False, default=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

RATINGS = ("again", "hard", "good", "easy")


@dataclass(frozen=True)
class AttemptRecord:
    learner: str
    snippet_id: str
    version: str
    mode: str
    rate: int | None
    seed: int | None
    results: dict[str, bool]
    outcome: str | None = None
    answers: dict[int, str] | None = None  # short-answer responses by question index
    unit: str = "token"
    kinds: str = "default"
    blanks: tuple[dict, ...] = ()  # per blank: span (index or [first, last]), key, expected, given, state
    hints: int = 0
    seconds: float | None = None
    practice: bool = False
    code: str = field(default="", repr=False, compare=False)  # the version's code, for learner memory


class Store:
    def __init__(self, url: str):
        self.engine = create_engine(url)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        # Imported here, not at the top: learner memory's tables import `metadata` from this module.
        from .memory.update import apply_attempts
        self._apply_memory = apply_attempts
        metadata.create_all(self.engine)
        self.writer = BatchWriter(self._write_attempts)

    def record_attempt(self, record: AttemptRecord) -> int:
        """The attempt's id at once; the row follows within a fraction of a second."""
        attempt_id = secrets.randbelow(2**63 - 1) + 1
        self.writer.add((attempt_id, record, datetime.now(timezone.utc)))
        return attempt_id

    def _write_attempts(self, batch: list) -> None:
        rows = [{"id": i, "learner": r.learner, "snippet_id": r.snippet_id, "version": r.version, "mode": r.mode,
                 "rate": r.rate, "seed": r.seed, "correct": sum(r.results.values()), "total": len(r.results),
                 "outcome": r.outcome, "results": r.results, "created_at": at, "unit": r.unit, "kinds": r.kinds,
                 "blanks": list(r.blanks), "hints": r.hints, "seconds": r.seconds, "practice": r.practice}
                for i, r, at in batch]
        answers = [{"attempt_id": i, "question": q, "text": t} for i, r, _ in batch for q, t in (r.answers or {}).items()]
        with self.engine.begin() as db:
            db.execute(insert(attempts), rows)
            if answers:
                db.execute(insert(responses), answers)
            self._apply_memory(db, batch)  # learner memory, in the same transaction

    def close(self) -> None:
        self.writer.close()
        self.engine.dispose()

    def rate_response(self, attempt_id: int, learner: str, question: int, rating: str) -> bool:
        """Store the learner's own rating of a short answer; False if that answer is not theirs."""
        self.writer.flush()
        with self.engine.begin() as db:
            owner = db.execute(select(attempts.c.learner).where(attempts.c.id == attempt_id)).scalar()
            if owner != learner:
                return False
            done = db.execute(update(responses).where(
                responses.c.attempt_id == attempt_id, responses.c.question == question).values(rating=rating))
            return done.rowcount == 1

    def attempts_of(self, learner: str, snippet_id: str | None = None, limit: int = 50) -> list[dict]:
        self.writer.flush()
        query = select(attempts).where(attempts.c.learner == learner)
        if snippet_id:
            query = query.where(attempts.c.snippet_id == snippet_id)
        with self.engine.connect() as db:
            rows = db.execute(query.order_by(attempts.c.id.desc()).limit(limit))
            return [dict(r._mapping) for r in rows]

    def responses_of(self, attempt_id: int) -> list[dict]:
        self.writer.flush()
        with self.engine.connect() as db:
            rows = db.execute(select(responses).where(responses.c.attempt_id == attempt_id)
                              .order_by(responses.c.question))
            return [dict(r._mapping) for r in rows]


class SnippetIndex:
    """Which uploaded snippets exist, at which version, and whether learners see them."""

    def __init__(self, store: Store):
        self.engine = store.engine

    def published(self) -> dict[str, bool]:
        with self.engine.connect() as db:
            return {r.id: r.published for r in db.execute(select(snippets.c.id, snippets.c.published))}

    def upsert(self, snippet_id: str, version: str, published: bool) -> None:
        now = datetime.now(timezone.utc)
        with self.engine.begin() as db:
            if db.execute(select(snippets.c.id).where(snippets.c.id == snippet_id)).first():
                db.execute(update(snippets).where(snippets.c.id == snippet_id).values(
                    version=version, published=published, updated_at=now))
            else:
                db.execute(insert(snippets).values(id=snippet_id, version=version, published=published,
                                                   updated_at=now))

    def remove(self, snippet_id: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(snippets).where(snippets.c.id == snippet_id))


def _sqlite_pragmas(conn, _record) -> None:
    cursor = conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # WAL keeps it consistent; fsync per checkpoint
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
