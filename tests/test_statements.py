"""The writer's statements through the driver (app/db/statements.py) against SQLAlchemy's own
execution of the same statements, on each database the app supports: the same rows written
(JSON, dates, booleans, a column's scalar default) and the same values read back."""

from datetime import UTC, datetime

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, insert, select, text
from sqlalchemy.exc import DBAPIError

from app.db.statements import execute_rows, execute_tuples, fetch_decoded, fetch_rows, upsert
from app.db.store import Store, is_outage
from app.db.tables import attempts
from app.memory import token_review, update
from app.memory.tables import cards, models, tokens
from tests.helpers import run_python

AT = datetime(2026, 12, 2, 7, 30, 15, 123456, tzinfo=UTC)


def attempt(n: int) -> dict:
    return {
        "id": n,
        "learner": f"{n:032x}",
        "snippet_id": "s",
        "version": "v1",
        "mode": "random",
        "rate": 20,
        "seed": 2**53 - n,
        "correct": n % 3,
        "total": 3,
        "outcome": None if n % 2 else "passed",
        "results": {"b0": True, "b1": n % 2 == 0},
        "created_at": AT,
        "unit": "token",
        "kinds": "names",
        "blanks": [{"span": [n, n + 1], "key": "b0", "given": "ä «x»", "state": "wrong"}],
        "hints": n,
        "seconds": 1.5 * n if n % 2 else None,
        "practice": n % 2 == 1,
        "class_code": None if n % 2 else "k1",
    }


def card(learner: str, item: str) -> dict:
    return {
        "learner": learner,
        "snippet_id": "s",
        "item": item,
        "version": "v1",
        "fsrs": {"card_id": 1, "state": 2, "stability": 3.25},
        "due": AT,
        "attempts": 2,
        "recalls": 1,
        "best": 0.5,
        "latest": None,
        "seconds": 0.0,
        "days": ["2026-12-01", "2026-12-02"],
        "history": [[1764660615, 0.5]],
        "last_at": AT,
    }


@pytest.fixture
def store(database_url):
    made = Store(database_url)
    yield made
    made.close()


def rows_of(db, table) -> list[tuple]:
    return sorted(tuple(r) for r in db.execute(select(table)))


def test_rows_written_through_the_driver_are_those_sqlalchemy_writes(store):
    """The same attempts written both ways (ids 1–4 by SQLAlchemy, 101–104 through the driver)
    read back the same, column for column."""
    rows = [attempt(n) for n in range(1, 5)]
    with store.engine.begin() as db:
        db.execute(insert(attempts), rows)
        execute_rows(db, insert(attempts), [row | {"id": row["id"] + 100} for row in rows])
    with store.engine.connect() as db:
        found = {r.id: r._asdict() for r in db.execute(select(attempts))}
    assert len(found) == 8
    for n in range(1, 5):
        assert {**found[n + 100], "id": n} == found[n]
    assert found[101]["results"] == attempt(1)["results"] and found[101]["practice"] is True


def test_a_column_left_out_takes_its_scalar_default_and_an_upsert_adds(store):
    statement = upsert(
        store.engine.dialect.name, models, ("learner",), lambda t, new: {"reviews": t.c.reviews + new.reviews}
    )
    with store.engine.begin() as db:
        execute_rows(db, statement, [{"learner": "a", "reviews": 3}])  # fitted_reviews: its default 0
        execute_rows(db, statement, [{"learner": "a", "reviews": 4}, {"learner": "b", "reviews": 1}])
    with store.engine.connect() as db:
        found = {
            r.learner: (r.reviews, r.fitted_reviews, r.retention, r.parameters) for r in db.execute(select(models))
        }
    assert found == {"a": (7, 0, None, None), "b": (1, 0, None, None)}


def test_a_column_whose_default_is_computed_must_be_given(store):
    """A default SQLAlchemy would compute per row (a function) is not guessed: the row must give it."""
    computed = Table(
        "computed_default", MetaData(), Column("k", Integer, primary_key=True), Column("v", Integer, default=lambda: 5)
    )
    computed.create(store.engine)
    with store.engine.begin() as db:
        execute_rows(db, insert(computed), [{"k": 1, "v": 2}])
        with pytest.raises(ValueError, match="no value for column v"):
            execute_rows(db, insert(computed), [{"k": 2}])
    with store.engine.connect() as db:
        assert db.execute(select(computed)).all() == [(1, 2)]


def test_rows_read_through_the_driver_are_those_sqlalchemy_reads(store):
    query = select(cards).where(cards.c.item == "", cards.c.learner.in_([bindparam("l0"), bindparam("l1")]))
    with store.engine.begin() as db:
        db.execute(insert(cards), [card("a", ""), card("b", ""), card("a", "q1"), card("c", "")])
    with store.engine.connect() as db:
        theirs = sorted(db.execute(query, {"l0": "a", "l1": "b"}).all())
        ours = sorted(fetch_decoded(db, query, {"l0": "a", "l1": "b"}))
    assert [r.learner for r in ours] == ["a", "b"]  # the literal item == "" is bound too
    assert [tuple(r) for r in ours] == [tuple(r) for r in theirs]
    assert ours[0].fsrs == card("a", "")["fsrs"] and ours[0].days == card("a", "")["days"]
    assert isinstance(ours[0].due, datetime)


def test_json_text_as_sqlite_gave_it_goes_back_as_it_is(store):
    """The token writer passes an unchanged `wrong` list back in the form the driver gave it."""
    key = {"learner": "a", "snippet_id": "s", "version": "v1", "span": 3}
    row = {**key, "text": "x", "state": 1, "step": 0, "stability": 1.0, "difficulty": 5.0, "due": 1.0}
    row |= {"last_review": 1.0, "seen": 1, "misses": 1, "heat": 1.0, "heat_at": 1.0, "wrong": ["y", "«z»"]}
    names = ("learner", "snippet_id", "version", "span")
    statement = upsert(store.engine.dialect.name, tokens, names, lambda t, new: {"seen": t.c.seen + new.seen})
    query = select(tokens.c.wrong).where(tokens.c.span == bindparam("span"))
    with store.engine.begin() as db:
        execute_rows(db, statement, [row], encoded=("wrong",))
        stored = fetch_rows(db, query, {"span": 3})[0].wrong  # SQLite: text; PostgreSQL: decoded
        execute_rows(db, statement, [row | {"wrong": stored}], encoded=("wrong",))
    with store.engine.connect() as db:
        found = db.execute(select(tokens.c.wrong, tokens.c.seen)).one()
    assert tuple(found) == (["y", "«z»"], 2)


def test_rows_given_as_tuples_are_written_as_the_same_dicts(store):
    """Tuples in another order than the table's, a column with a default left out."""
    rows = [attempt(n) for n in range(1, 5)]
    names = tuple(reversed([n for n in rows[0] if n != "hints"]))  # hints: its default, 0
    with store.engine.begin() as db:
        execute_rows(db, insert(attempts), [{**row, "hints": 0} for row in rows])
        execute_tuples(
            db, insert(attempts), names, [tuple({**row, "id": row["id"] + 100}[n] for n in names) for row in rows]
        )
    with store.engine.connect() as db:
        found = {r.id: r._asdict() for r in db.execute(select(attempts))}
    assert sorted(found) == [1, 2, 3, 4, 101, 102, 103, 104]
    for n in range(1, 5):
        assert {**found[n + 100], "id": n} == found[n] and found[n]["hints"] == 0


MISSING = Table("no_such_table", MetaData(), Column("k", Integer, primary_key=True))


def error_of(engine, run) -> DBAPIError:
    """What `run(db)` raised inside a transaction (then rolled back)."""
    with pytest.raises(DBAPIError) as caught, engine.begin() as db:
        run(db)
    return caught.value


@pytest.mark.parametrize(
    "sqlalchemys, ours",
    [
        (lambda db: db.execute(select(MISSING)), lambda db: fetch_rows(db, select(MISSING), {})),
        (lambda db: db.execute(select(MISSING)), lambda db: fetch_decoded(db, select(MISSING), {})),
        (
            lambda db: db.execute(insert(attempts), [attempt(1), attempt(1)]),
            lambda db: execute_rows(db, insert(attempts), [attempt(1), attempt(1)]),
        ),
    ],
    ids=["fetch_rows", "fetch_decoded", "execute_rows"],
)
def test_the_drivers_errors_reach_callers_as_sqlalchemys_would(store, sqlalchemys, ours):
    """A refused statement through the driver raises the class SQLAlchemy's own execution raises
    (a missing table, a duplicate key), so the group commit tells an outage from a bad row as
    before; the connection is left usable."""
    theirs, mine = error_of(store.engine, sqlalchemys), error_of(store.engine, ours)
    assert type(mine) is type(theirs) and not mine.connection_invalidated
    assert is_outage(mine) == is_outage(theirs)
    with store.engine.connect() as db:
        assert fetch_rows(db, select(attempts.c.id), {}) == []


def test_a_lost_connection_is_invalidated_as_sqlalchemy_would(postgres):
    """PostgreSQL ends the session mid-transaction (SQLite has no server to lose): the driver's
    error is an outage with the connection invalidated, and the engine's next connection is a
    fresh one that works."""
    store = Store(postgres.new_database())
    try:
        with store.engine.connect() as other, store.engine.connect() as db:
            pid = db.execute(text("SELECT pg_backend_pid()")).scalar()
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            with pytest.raises(DBAPIError) as caught:
                fetch_rows(db, select(attempts.c.id), {})
            assert db.invalidated and caught.value.connection_invalidated and is_outage(caught.value)
        with store.engine.connect() as db:
            assert fetch_rows(db, select(attempts.c.id), {}) == []
    finally:
        store.close()


def test_token_rows_are_built_in_the_tables_column_order():
    """update._token_row gives the key, the span, the text, a review's fields, then the counts."""
    reviewed = token_review.Reviewed._fields
    assert update.TOKEN_ROW == tuple(c.name for c in tokens.c)
    assert update.TOKEN_ROW == update.TOKEN_COLUMNS + ("text", *reviewed, "seen", "misses", "heat", "heat_at", "wrong")


SERVE_AND_SUBMIT = """
import sys
from pathlib import Path
from sqlalchemy import func, select
from app.db.tables import attempts
from app.learn.drills import random_drill
from app.main import create_app
from app.settings import Settings
from tests.site_client import SiteClient

with SiteClient(create_app(Settings(data_dir=Path(sys.argv[1]), execution=False, use_cdn=False))) as client:
    snippet = client.app.state.library.get("mlm-flash-forward")
    holes = random_drill(snippet, 20, 3).holes
    form = {"version": snippet.version, "rate": "20", "seed": "3", **{h.key: h.answer for h in holes}}
    assert client.get("/s/mlm-flash-forward/drill?rate=20&seed=3").status_code == 200
    assert client.post("/s/mlm-flash-forward/drill", data=form).status_code == 200
    with client.app.state.store.engine.connect() as db:
        stored = db.execute(select(func.count()).select_from(attempts)).scalar()
print(stored, "sqlalchemy.dialects.postgresql" in sys.modules, flush=True)
"""


def test_a_server_on_sqlite_never_loads_the_postgresql_dialect(tmp_path):
    """PostgreSQL's dialect (2.3 MiB of the web process) is imported only by a server on it: a
    restart on SQLite serves a drill page and stores a submission without it."""
    first = run_python("-c", SERVE_AND_SUBMIT, str(tmp_path))  # migrates: alembic loads every dialect
    assert first.returncode == 0, first.stderr
    again = run_python("-c", SERVE_AND_SUBMIT, str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["2", "False"]
