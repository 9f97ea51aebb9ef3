"""INSERT … ON CONFLICT, in the dialect of the database at hand: SQLite's and PostgreSQL's are
built by their own dialect's `insert`, which is imported on first use, so a server on SQLite
never loads PostgreSQL's dialect."""

import importlib
from collections.abc import Callable
from functools import cache

from sqlalchemy import Table


def dialect_insert(dialect: str) -> Callable:
    """The `insert` of PostgreSQL or SQLite, the one with `on_conflict_do_…`."""
    name = "postgresql" if dialect == "postgresql" else "sqlite"
    return importlib.import_module(f"sqlalchemy.dialects.{name}").insert


def upsert(db, table: Table, keys: tuple[str, ...], changes: Callable):
    """INSERT … ON CONFLICT (keys) DO UPDATE SET changes(table, excluded), for `db`'s database:
    one statement either way, so writers inserting the same row at once never collide."""
    return _upsert(db.dialect.name, table, keys, changes)


@cache
def _upsert(dialect: str, table: Table, keys: tuple[str, ...], changes: Callable):
    """Built once per dialect and table: `excluded` sets up a copy of every column of the table,
    which cost more than the statement's execution (measured then; bench/RESULTS.md's git history)."""
    statement = dialect_insert(dialect)(table)
    return statement.on_conflict_do_update(index_elements=list(keys), set_=changes(table, statement.excluded))
