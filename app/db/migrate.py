"""Bring any database to the newest schema at start-up: empty, older, or made before migrations.

Alembic is imported only when a database is behind: a server started on a database that is
already at HEAD never loads it (~10 MiB of the web process: bench/pss_bench.py, first start against restart).
"""

import fcntl
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DBAPIError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
HEAD = "0020"  # the newest revision in migrations/versions (tests/test_migrations.py holds them equal)
BASELINE = "0001"  # the schema the app created before it had migrations
_PG_LOCK = 7_305_291_846  # any constant: all workers take the same advisory lock


def alembic_config(url: str | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Upgrade to head; several workers starting at once take turns, the later ones find it done."""
    if _at_head(engine):
        return  # a schema only moves forward, so one found at HEAD stays there
    from alembic import command

    with _exclusive(engine), engine.begin() as conn:
        config = alembic_config()
        config.attributes["connection"] = conn
        tables = set(inspect(conn).get_table_names())
        if "alembic_version" not in tables and "attempts" in tables:
            command.stamp(config, BASELINE)
        command.upgrade(config, "head")


def _at_head(engine: Engine) -> bool:
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [HEAD]
    except DBAPIError:
        return False  # no alembic_version table yet


@contextmanager
def _exclusive(engine: Engine):
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _PG_LOCK})
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_LOCK})
        return
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        yield
        return
    with open(f"{database}.migrate-lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
