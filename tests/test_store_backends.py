"""The store on every database the app supports: SQLite (embedded default) and a real PostgreSQL."""

import asyncio
import json
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, text

from app.db import migrate
from app.db.commit import NotStored
from app.db.records import AttemptRecord
from app.db.snippet_rows import SnippetRows
from app.db.store import Store
from app.db.tables import attempts
from app.learn.recording import attempt_store, rate_response, record_attempt
from tests.helpers import attempts_of, responses_of

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]


def record(learner: str = "a" * 32, seed: int = 1, **extra) -> AttemptRecord:
    return AttemptRecord(
        learner, "mlm-online-softmax", "0123456789ab", "random", 20, seed, {"s1": True, "s4": False}, "passed", **extra
    )


@pytest.fixture
def store(database_url):
    store = attempt_store(database_url)
    yield store
    store.close()


def count(store: Store) -> int:
    with store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(attempts)).scalar()


def test_migrations_reach_head_and_a_second_start_changes_nothing(store):
    assert migrate.current(store.engine) == migrate.head()
    migrate.upgrade(store.engine)
    assert migrate.current(store.engine) == migrate.head()


def test_concurrent_attempts_are_each_stored_once_their_call_returns(store):
    async def many():
        return await asyncio.gather(*(record_attempt(store, record(seed=i)) for i in range(200)))

    ids = asyncio.run(many())
    assert len(set(ids)) == 200 and count(store) == 200
    assert attempts_of(store, "a" * 32, limit=500)[0]["seed"] in range(200)


def test_one_row_the_database_refuses_does_not_take_the_others_with_it(store):
    async def mixed():
        return await asyncio.gather(
            *(record_attempt(store, record(seed=2**70 if i == 3 else i)) for i in range(8)), return_exceptions=True
        )

    results = asyncio.run(mixed())
    assert isinstance(results[3], NotStored)
    assert all(isinstance(r, int) for i, r in enumerate(results) if i != 3)
    assert count(store) == 7 and store.healthy  # a bad row is not an outage


def test_seeds_up_to_the_largest_mask_seed_are_kept(store):
    asyncio.run(record_attempt(store, record(seed=2**53 - 1)))
    assert attempts_of(store, "a" * 32)[0]["seed"] == 2**53 - 1


def test_short_answer_ratings_belong_to_their_learner(store):
    attempt = asyncio.run(record_attempt(store, record(answers={0: "因为溢出"})))
    assert not rate_response(store.engine, attempt, "b" * 32, 0, "good")
    assert not rate_response(store.engine, 2**63 + 1, "a" * 32, 0, "good")
    assert rate_response(store.engine, attempt, "a" * 32, 0, "good")
    assert responses_of(store, attempt)[0]["rating"] == "good"


def test_snippet_versions_and_publish_state(store):
    rows = SnippetRows(store.engine)
    rows.save("square", "aaaaaaaaaaaa", "text one", published=False)
    rows.save("square", "bbbbbbbbbbbb", "text two", published=True)
    rows.keep_version("square", "aaaaaaaaaaaa", "text one")  # already there: fine
    assert [(u.id, u.version, u.published, u.source) for u in rows.uploaded()] == [
        ("square", "bbbbbbbbbbbb", True, "text two")
    ]
    assert rows.source("square", "aaaaaaaaaaaa") == "text one"
    rows.set_published("square", False)
    rows.remove("square")
    assert rows.uploaded() == [] and rows.source("square", "bbbbbbbbbbbb") == "text two"


def test_learner_models_are_upserted_and_read_back(store):
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from app.memory.learner_model import count_reviews, learner_model, learner_models, save_parameters, set_retention

    learner = "m" * 32
    for reviews in (30, 12):
        with store.engine.begin() as db:
            count_reviews(db, {learner: reviews})
    with store.engine.begin() as db:
        set_retention(db, learner, 0.85)
        set_retention(db, "n" * 32, 0.95)  # a learner with no reviews yet
        parameters = [p * 1.01 for p in DEFAULT_PARAMETERS]
        save_parameters(db, learner, parameters, 42, None)
    with store.engine.connect() as db:
        model, other = learner_model(db, learner), learner_model(db, "n" * 32)
    assert (model.reviews, model.retention, model.fitted) == (42, 0.85, True)
    assert model.scheduler.parameters == tuple(parameters) and model.scheduler.desired_retention == 0.85
    assert (other.reviews, other.retention, other.fitted) == (0, 0.95, False)
    with store.engine.connect() as db:  # several at once, one with no row at all
        many = learner_models(db, [learner, "n" * 32, "o" * 32])
    assert many[learner] == model and many["n" * 32] == other and many["o" * 32].reviews == 0


RESULTS = {"s1": True, "s4": False}
BLANKS = [
    {"span": 3, "key": "s1", "expected": "m", "given": "m", "state": "right"},
    {"span": [5, 6], "key": "s4", "expected": "a.b", "given": "答 «x»", "state": "wrong"},
    {"span": None, "key": "s9", "expected": "q", "given": "\ud800", "state": "wrong"},
]
# JSON columns' text as earlier versions wrote it: the standard library's default; orjson's compact
# text (never with a null or a lone surrogate: those went the standard library's way); and the
# standard library's compact ASCII text marked by a leading space.
EARLIER = [
    (json.dumps, BLANKS),
    (lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False), BLANKS[:2]),
    (lambda v: " " + json.dumps(v, separators=(",", ":")), BLANKS),
]


def test_json_as_earlier_versions_wrote_it_reads_back_beside_new_rows(store):
    """No migration: every earlier form of the text is JSON that the standard library reads, and
    a value holding any str (a lone surrogate too) is stored and read back as it was."""
    cast = "CAST({} AS json)" if store.engine.dialect.name == "postgresql" else "{}"
    insert_old = text(
        "INSERT INTO attempts (id, learner, snippet_id, version, mode, correct, total, results, unit, kinds,"
        f" blanks, hints, practice, created_at) VALUES (:id, :learner, 's', 'v1', 'random', 1, 3,"
        f" {cast.format(':results')}, 'token', 'names', {cast.format(':blanks')}, 0, :practice, :at)"
    )
    with store.engine.begin() as db:
        for n, (dumps, blanks) in enumerate(EARLIER, start=1):
            row = {"id": n, "learner": "o" * 32, "results": dumps(RESULTS), "blanks": dumps(blanks)}
            db.execute(insert_old, row | {"practice": False, "at": datetime(2026, 11, 30, tzinfo=UTC)})
    asyncio.run(record_attempt(store, record(blanks=tuple(BLANKS))))
    found = [(a["results"], a["blanks"]) for a in attempts_of(store, "o" * 32)[::-1] + attempts_of(store, "a" * 32)]
    assert found == [(RESULTS, blanks) for _, blanks in EARLIER] + [(RESULTS, BLANKS)]
