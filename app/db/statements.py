"""Statements built once, with their values as bound parameters.

Building a Core statement (`select(t).where(t.c.a == x, t.c.b.in_(xs))`) costs more CPU than
running it on SQLite (bench/RESULTS.md, issue 22): the attempt writer runs a dozen per attempt,
so it builds each once and binds the values. Upserts differ by dialect (SQLite's and
PostgreSQL's `ON CONFLICT`), so they are built once per dialect.
"""

import importlib
from collections import namedtuple
from collections.abc import Callable
from functools import cache

from sqlalchemy import Table, bindparam, select, update

KEY_PREFIX = "k_"  # bound names of key columns, apart from the column names an UPDATE sets


def keyed(table: Table, names: tuple[str, ...]) -> list:
    """`table.c[n] == :k_n` for each name."""
    return [table.c[n] == bindparam(KEY_PREFIX + n) for n in names]


def key_values(names: tuple[str, ...], values: tuple) -> dict:
    """The bound values of `keyed(table, names)`."""
    return {KEY_PREFIX + n: v for n, v in zip(names, values)}


def bound_list(prefix: str, count: int) -> list:
    """`count` bound values named prefix0, prefix1, …: an IN list for a statement built once per
    length (an expanding parameter is compiled again on every execution)."""
    return [bindparam(f"{prefix}{i}") for i in range(count)]


def list_values(prefix: str, values) -> dict:
    """The bound values of `bound_list(prefix, len(values))`."""
    return {f"{prefix}{i}": v for i, v in enumerate(values)}


def select_keyed(table: Table, names: tuple[str, ...]):
    """Rows of `table` by key."""
    return select(table).where(*keyed(table, names))


def update_keyed(table: Table, names: tuple[str, ...]):
    """UPDATE of the row by key; the SET columns are the other keys of the parameters."""
    return update(table).where(*keyed(table, names))


def dialect_insert(dialect: str) -> Callable:
    """The `insert` with ON CONFLICT of PostgreSQL or SQLite, imported on first use: a server on
    SQLite never loads PostgreSQL's dialect (19 modules, 2.3 MiB of its memory)."""
    return importlib.import_module(
        f"sqlalchemy.dialects.{'postgresql' if dialect == 'postgresql' else 'sqlite'}"
    ).insert


@cache
def upsert(dialect: str, table: Table, keys: tuple[str, ...], changes: Callable) -> object:
    """INSERT … ON CONFLICT (keys) DO UPDATE SET changes(table, excluded), for `dialect`."""
    statement = dialect_insert(dialect)(table)
    return statement.on_conflict_do_update(index_elements=list(keys), set_=changes(table, statement.excluded))


def execute_rows(db, statement, rows: list[dict], encoded: tuple[str, ...] = ()) -> None:
    """`db.execute(statement, rows)` as one executemany of the driver: SQLAlchemy's per-row
    parameter processing cost more than the rows' own work for the token memory (issue 22).
    Each value goes through its column type's bind processor, as SQLAlchemy's would, except a
    text value of an `encoded` column: a JSON column's text as SQLite gave it, passed back as it
    is. Every row has the first row's keys; a column none of them gives takes its scalar default."""
    if not rows:
        return
    sql, names, processors, defaults = _for_driver(db.dialect, statement, tuple(rows[0]))
    params = [[row[n] if n not in defaults else defaults[n] for n in names] for row in rows]
    _execute_many(db, sql, names, processors, params, encoded)


def execute_tuples(db, statement, names: tuple[str, ...], rows: list[tuple], encoded: tuple[str, ...] = ()) -> None:
    """`execute_rows` of rows given as tuples of the `names` columns' values: a submission's
    dozens of token rows skip a dict each and its lookups. Every column without a scalar default
    must be named."""
    if not rows:
        return
    sql, order, processors, defaults = _for_driver(db.dialect, statement, names)
    if order != names:  # the driver's order (the table's, for an INSERT) or a default left out
        at = {n: i for i, n in enumerate(names)}
        rows = [tuple(row[at[n]] if n in at else defaults[n] for n in order) for row in rows]
    _execute_many(db, sql, order, processors, [list(row) for row in rows] if processors else rows, encoded)


def _execute_many(db, sql: str, names: tuple[str, ...], processors: list, params: list, encoded: tuple) -> None:
    for i, process in processors:
        if names[i] in encoded:
            for values in params:
                values[i] = values[i] if isinstance(values[i], str) else process(values[i])
            continue
        for values in params:
            values[i] = process(values[i])
    rows = [tuple(p) for p in params] if db.dialect.positional else [dict(zip(names, p)) for p in params]
    _driver_cursor(db, sql, rows, many=True).close()


def fetch_rows(db, statement, params: dict) -> list:
    """`db.execute(statement, params).all()` through the driver: the values as the driver
    returns them, without SQLAlchemy's result processing (a JSON column may come back as its
    text), as named tuples of the selected columns (a `Row`'s attribute costs ~0.5 µs to read,
    and the token writer reads ten of each of its dozens of rows)."""
    _description, rows = _run_query(db, statement, params)
    return list(map(_row_type(statement)._make, rows))


def fetch_decoded(db, statement, params: dict) -> list:
    """`db.execute(statement, params).all()` through the driver, each value through its column
    type's result processor as SQLAlchemy's would (JSON decoded, SQLite's dates parsed): rows
    with the selected columns' names as attributes."""
    description, rows = _run_query(db, statement, params)
    codes = tuple(d[1] for d in description)  # the driver's type of each column
    make, processors = _decoder(db.dialect, statement, codes)
    if not processors:
        return [make(*row) for row in rows]
    out = []
    for row in rows:
        values = list(row)
        for i, process in processors:
            values[i] = process(values[i])
        out.append(make(*values))
    return out


def _run_query(db, statement, params: dict) -> tuple[tuple, list]:
    """The driver's description of the query's columns and all its rows, its cursor closed."""
    sql, names, _processors, constants = _for_driver(db.dialect, statement)
    values = {**constants, **params} if constants else params  # a literal of the statement is a bound value too
    cursor = _driver_cursor(db, sql, tuple(values[n] for n in names) if db.dialect.positional else values)
    try:
        return cursor.description, cursor.fetchall()
    finally:
        cursor.close()


def _driver_cursor(db, sql: str, params, many: bool = False):
    """The driver's cursor having run `sql` in `db`'s transaction. SQLAlchemy's execution context
    and result are skipped (18 µs of a 26 µs query on SQLite, bench/RESULTS.md); an error goes
    through the handler `exec_driver_sql` uses, so callers see the same `DBAPIError`s and a lost
    connection is invalidated as before (tests/test_statements.py holds both)."""
    cursor = db.connection.dbapi_connection.cursor()
    try:
        if many:
            cursor.executemany(sql, params)
        else:
            cursor.execute(sql, params)
    except Exception as err:
        db._handle_dbapi_exception(err, sql, params, cursor, None)  # closes the cursor; raises
    return cursor


@cache
def _row_type(statement) -> type:
    return namedtuple("Row", [c.key for c in statement.selected_columns])


@cache
def _decoder(dialect, statement, codes: tuple) -> tuple[type, list]:
    columns = list(statement.selected_columns)
    make = _row_type(statement)
    types = [c.type.dialect_impl(dialect) for c in columns]
    processors = [(i, p) for i, (t, code) in enumerate(zip(types, codes)) if (p := t.result_processor(dialect, code))]
    return make, processors


_DRIVER: dict = {}


def _for_driver(dialect, statement, given: tuple[str, ...] | None = None) -> tuple[str, tuple[str, ...], list, dict]:
    """The statement's SQL in the driver's parameter style for rows with the `given` keys (an
    INSERT of just those columns), its parameter names in order, (position, bind processor) of
    each column of an INSERT that has one, and the values fixed by the statement (a query's
    literals; an INSERT's scalar defaults of the columns not given); compiled once per dialect."""
    key = (dialect.name, dialect.paramstyle, statement, given)
    if key not in _DRIVER:
        compiled = statement.compile(dialect=dialect, column_keys=list(given) if given else None)
        names = tuple(compiled.positiontup if dialect.positional else compiled.binds)
        columns = statement.table.c if hasattr(statement, "table") else {}
        types = [columns[n].type.dialect_impl(dialect) if n in columns else None for n in names]
        processors = [(i, p) for i, t in enumerate(types) if t is not None and (p := t.bind_processor(dialect))]
        if given is None:  # a query: its literals' values
            fixed = {n: b.effective_value for n, b in compiled.binds.items() if not b.required}
        else:  # an INSERT: the defaults of the columns not given
            fixed = {n: _scalar_default(columns[n]) for n in names if n not in given}
        _DRIVER[key] = (compiled.string, names, processors, fixed)
    return _DRIVER[key]


def _scalar_default(column):
    default = column.default
    if default is None or not default.is_scalar:
        raise ValueError(f"no value for column {column.name}, and no scalar default")
    return default.arg
