"""A class's attempts as CSV, one row per blank, streamed (an export may hold every attempt).

Everything that can fail (the bounds, the query) happens before the first byte: once the
header is sent, a 200 cannot be taken back."""

import csv
import io
import itertools
import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select

from ..db.tables import attempts
from ..memory.export import csv_cell, iso_time
from ..memory.tables import learners
from . import assignments
from .roster import short_id

COLUMNS = (
    "attempt",
    "created_at",
    "learner",
    "name",
    "class_code",
    "snippet_id",
    "version",
    "mode",
    "unit",
    "outcome",
    "practice",
    "blank",
    "span",
    "expected",
    "given",
    "state",
)
BATCH = 1000


def class_csv(
    engine, code: str, start: str | None = None, end: str | None = None, snippet_id: str | None = None
) -> Iterator[str]:
    """The CSV text in pieces: the header with the first batch of attempts, then a piece per batch.
    The query has run when this returns. Two columns per assignment of the class hold the row's
    learner's status (`assignment <id>: <snippet>`) and, while it is past due and not done, how
    many days late it is (`assignment <id>: days late`). Times are ISO 8601 with their offset."""
    with engine.connect() as db:
        sets, status = _assignment_status(db, code)
    pieces = _pieces(engine, _query(code, start, end, snippet_id), sets, status)
    return itertools.chain([next(pieces)], pieces)


def _query(code: str, start: str | None, end: str | None, snippet_id: str | None):
    query = (
        select(
            attempts.c.id,
            attempts.c.created_at,
            attempts.c.learner,
            learners.c.name,
            attempts.c.class_code,
            attempts.c.snippet_id,
            attempts.c.version,
            attempts.c.mode,
            attempts.c.unit,
            attempts.c.outcome,
            attempts.c.practice,
            attempts.c.blanks,
        )
        .outerjoin(learners, learners.c.id == attempts.c.learner)
        .where(attempts.c.class_code == code)
        .order_by(attempts.c.created_at, attempts.c.id)
    )
    if start:
        query = query.where(attempts.c.created_at >= _day_start(start))
    if end and end < date.max.isoformat():  # 9999-12-31 has no day after it: no upper bound
        query = query.where(attempts.c.created_at < _day_after(end))
    if snippet_id:
        query = query.where(attempts.c.snippet_id == snippet_id)
    return query


def _pieces(engine, query, sets, status) -> Iterator[str]:
    with engine.connect() as db:
        result = db.execution_options(yield_per=BATCH).execute(query)
        head = _line(COLUMNS + tuple(name for a in sets for name in _assignment_columns(a)))
        for rows in result.partitions():
            yield head + "".join(
                _line(cells + tuple(cell for a in sets for cell in status(row.learner, a)))
                for row in rows
                for cells in _blank_rows(row)
            )
            head = ""
        if head:
            yield head


def _assignment_status(db, code: str):
    """The class's assignments, and each learner's status towards one (members and past members)."""
    sets = assignments.of_class(db, code)
    ids = set(assignments.members(db, code))
    if sets:
        ids |= set(db.execute(select(attempts.c.learner).where(attempts.c.class_code == code).distinct()).scalars())
    found = assignments.progress(db, sets, sorted(ids))

    def status(learner: str, a) -> tuple:
        p = found.get((learner, a.id))
        return (p.status, p.late_days) if p else ("", None)

    return sets, status


def _assignment_columns(a) -> tuple[str, str]:
    return f"assignment {a.id}: {a.snippet_id}", f"assignment {a.id}: days late"


def _blank_rows(row) -> Iterator[tuple]:
    head = (
        row.id,
        iso_time(row.created_at),
        short_id(row.learner),
        row.name,
        row.class_code,
        row.snippet_id,
        row.version,
        row.mode,
        row.unit,
        row.outcome,
        row.practice,
    )
    for blank in row.blanks or ():
        span = blank.get("span")
        yield head + (
            blank.get("key"),
            json.dumps(span) if isinstance(span, list) else span,
            blank.get("expected"),
            blank.get("given"),
            blank.get("state"),
        )


def _line(cells) -> str:
    out = io.StringIO()
    csv.writer(out).writerow(csv_cell(c) for c in cells)
    return out.getvalue()


def _day_start(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def _day_after(day: str) -> datetime:
    return _day_start(day) + timedelta(days=1)
