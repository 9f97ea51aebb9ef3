"""The writer's statements on each database the app supports: upserts by dialect, an outage told
apart from a bad row, token rows in the table's order, and no PostgreSQL dialect on SQLite."""

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from app.db.store import Store, is_outage
from app.db.tables import attempts
from app.db.upserts import upsert
from app.memory import update
from app.memory.schedule import Reviewed
from app.memory.tables import models, tokens
from tests.helpers import run_python

pytestmark = pytest.mark.server


@pytest.fixture
def store(database_url):
    made = Store(database_url)
    yield made
    made.close()


def test_a_column_left_out_takes_its_scalar_default_and_an_upsert_adds(store):
    with store.engine.begin() as db:
        statement = upsert(db, models, ("learner",), lambda t, new: {"reviews": t.c.reviews + new.reviews})
        db.execute(statement, [{"learner": "a", "reviews": 3}])  # fitted_reviews: its default 0
        db.execute(statement, [{"learner": "a", "reviews": 4}, {"learner": "b", "reviews": 1}])
    with store.engine.connect() as db:
        found = {
            r.learner: (r.reviews, r.fitted_reviews, r.retention, r.parameters) for r in db.execute(select(models))
        }
    assert found == {"a": (7, 0, None, None), "b": (1, 0, None, None)}


def test_a_lost_connection_is_an_outage_and_the_next_one_works(postgres):
    """PostgreSQL ends the session mid-transaction (SQLite has no server to lose): the error is an
    outage (the group commit fails the batch rather than retrying it row by row) with the connection
    invalidated, and the engine's next connection is a fresh one that works."""
    store = Store(postgres.new_database())
    try:
        with store.engine.connect() as other, store.engine.connect() as db:
            pid = db.execute(text("SELECT pg_backend_pid()")).scalar()
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            with pytest.raises(DBAPIError) as caught:
                db.execute(select(attempts.c.id)).all()
            assert db.invalidated and caught.value.connection_invalidated and is_outage(caught.value)
        with store.engine.connect() as db:
            assert db.execute(select(attempts.c.id)).all() == []
    finally:
        store.close()


def test_token_rows_are_built_in_the_tables_column_order():
    """update._token_row gives the key, the span, the text, a review's fields, then the counts and the evidence."""
    reviewed = Reviewed._fields
    assert update.TOKEN_ROW == tuple(c.name for c in tokens.c)
    assert update.TOKEN_ROW == update.TOKEN_COLUMNS + (
        "text",
        *reviewed,
        "seen",
        "misses",
        "heat",
        "heat_at",
        "wrong",
        "spaced",
        "missed",
    )


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
