"""Statements built once, with their values as bound parameters.

Building a Core statement (`select(t).where(t.c.a == x, t.c.b.in_(xs))`) costs more CPU than
running it on SQLite (bench/RESULTS.md, issue 22): the attempt writer runs a dozen per attempt,
so it builds each once and binds the values. Upserts differ by dialect (SQLite's and
PostgreSQL's `ON CONFLICT`), so they are built once per dialect.
"""

from collections.abc import Callable
from functools import cache

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

KEY_PREFIX = "k_"  # bound names of key columns, apart from the column names an UPDATE sets


def keyed(table: Table, names: tuple[str, ...]) -> list:
    """`table.c[n] == :k_n` for each name."""
    return [table.c[n] == bindparam(KEY_PREFIX + n) for n in names]


def key_values(names: tuple[str, ...], values: tuple) -> dict:
    """The bound values of `keyed(table, names)`."""
    return {KEY_PREFIX + n: v for n, v in zip(names, values)}


def select_keyed(table: Table, names: tuple[str, ...]):
    """Rows of `table` by key."""
    return select(table).where(*keyed(table, names))


def update_keyed(table: Table, names: tuple[str, ...]):
    """UPDATE of the row by key; the SET columns are the other keys of the parameters."""
    return update(table).where(*keyed(table, names))


@cache
def upsert(dialect: str, table: Table, keys: tuple[str, ...], changes: Callable) -> object:
    """INSERT … ON CONFLICT (keys) DO UPDATE SET changes(table, excluded), for `dialect`."""
    statement = (pg_insert if dialect == "postgresql" else sqlite_insert)(table)
    return statement.on_conflict_do_update(index_elements=list(keys), set_=changes(table, statement.excluded))
