"""Persistence: attempts and their per-blank results, through SQLAlchemy (SQLite by default)."""
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import (JSON, BigInteger, Boolean, Column, DateTime, Integer, MetaData, String, Table, Text,
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
    Column("results", JSON, nullable=False),  # {blank key: matched}, for per-span statistics
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
    # The drill's side of an attempt (not written by `_write_attempts` yet: the schema decides):
    unit: str | None = None  # token | span | line, for random masks
    kinds: tuple[str, ...] | None = None  # the token kinds the mask drew from
    states: dict[str, str] | None = None  # blank key -> right | accepted | wrong | revealed | empty
    ranges: dict[str, tuple[int, int]] | None = None  # blank key -> first and last span index inside


class Store:
    def __init__(self, url: str):
        self.engine = create_engine(url)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
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
                 "outcome": r.outcome, "results": r.results, "created_at": at} for i, r, at in batch]
        answers = [{"attempt_id": i, "question": q, "text": t} for i, r, _ in batch for q, t in (r.answers or {}).items()]
        with self.engine.begin() as db:
            db.execute(insert(attempts), rows)
            if answers:
                db.execute(insert(responses), answers)

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

    def misses(self, learner: str, snippet_id: str, version: str, limit: int = 200) -> dict[str, int]:
        """How often this learner got each blank key wrong in recent attempts on this version."""
        self.writer.flush()
        query = (select(attempts.c.results).where(attempts.c.learner == learner, attempts.c.snippet_id == snippet_id,
                                                  attempts.c.version == version)
                 .order_by(attempts.c.created_at.desc()).limit(limit))
        counts: dict[str, int] = {}
        with self.engine.connect() as db:
            for (results,) in db.execute(query):
                for key, right in results.items():
                    if not right:
                        counts[key] = counts.get(key, 0) + 1
        return counts

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
