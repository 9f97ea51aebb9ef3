"""The database: its engine (SQLite by default), migrated, and the one writer that group-commits.

What a batch writes is the caller's (`write_batch`: app/learn/recording.py records attempts); the
store runs it in one transaction and says when it is committed. A write that a response confirms
is committed first.
"""

from collections.abc import Callable

from sqlalchemy import Connection, Engine, create_engine, event, update
from sqlalchemy.exc import DBAPIError, OperationalError

from app.db import migrate
from app.db.commit import GroupCommit, NotStored
from app.db.tables import snippets


def _refuse(db: Connection, batch: list) -> None:
    raise NotStored("this store has no writer")


class Store:
    def __init__(self, url: str, busy_ms: int = 5000, write_batch: Callable[[Connection, list], None] = _refuse):
        self.engine = make_engine(url, busy_ms)
        migrate.upgrade(self.engine)
        self.write_batch = write_batch
        self.writer = GroupCommit(self.commit, is_outage=is_outage)
        self.on_attempt: Callable[[bool], None] = lambda stored: None  # metrics: stored or refused
        self.on_written: Callable[[list], None] = lambda batch: None  # e.g. the FSRS fitter

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

    def commit(self, batch: list) -> None:
        """Write a batch in one transaction, now, in the calling thread (the writer thread calls
        this for requests; tests and benchmarks may call it directly)."""
        with self.engine.begin() as db:
            self.write_batch(db, batch)
        self.on_written(batch)

    def close(self) -> None:
        self.writer.close()
        self.engine.dispose()


def make_engine(url: str, busy_ms: int = 5000) -> Engine:
    # JSON columns by SQLAlchemy's own serializer: the standard library's, ASCII escapes and all,
    # so any str a value holds (a lone surrogate too) is text every database can store.
    engine = create_engine(url, pool_pre_ping=not url.startswith("sqlite"))
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
