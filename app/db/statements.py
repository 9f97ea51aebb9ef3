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


def execute_rows(db, statement, rows: list[dict]) -> None:
    """`db.execute(statement, rows)` as one executemany of the driver: SQLAlchemy's per-row
    parameter processing cost more than the rows' own work for the token memory (issue 22).
    Each value goes through its column type's bind processor, as SQLAlchemy's would."""
    if not rows:
        return
    sql, names, processors = _for_driver(db.dialect, statement)
    params = [[row[n] for n in names] for row in rows]
    for i, process in processors:
        for values in params:
            values[i] = process(values[i])
    db.exec_driver_sql(
        sql, [tuple(p) for p in params] if db.dialect.positional else [dict(zip(names, p)) for p in params]
    )


def fetch_rows(db, statement, params: dict) -> list:
    """`db.execute(statement, params).all()` through the driver: rows as the driver returns
    them, without SQLAlchemy's result processing (a JSON column may come back as its text)."""
    sql, names, _processors = _for_driver(db.dialect, statement)
    return db.exec_driver_sql(sql, tuple(params[n] for n in names) if db.dialect.positional else params).all()


_DRIVER: dict = {}


def _for_driver(dialect, statement) -> tuple[str, tuple[str, ...], list]:
    """The statement's SQL in the driver's parameter style, its parameter names in order, and
    (position, bind processor) of each column of an INSERT that has one; compiled once per dialect."""
    key = (dialect.name, dialect.paramstyle, statement)
    if key not in _DRIVER:
        compiled = statement.compile(dialect=dialect)
        names = tuple(compiled.positiontup if dialect.positional else compiled.binds)
        columns = statement.table.c if hasattr(statement, "table") else {}
        types = [columns[n].type.dialect_impl(dialect) if n in columns else None for n in names]
        processors = [(i, p) for i, t in enumerate(types) if t is not None and (p := t.bind_processor(dialect))]
        _DRIVER[key] = (compiled.string, names, processors)
    return _DRIVER[key]
