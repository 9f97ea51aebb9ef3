"""Class counters are folded from the attempts after the attempt's transaction: what a read sees
after `fold` must be exactly what counting each attempt as it was written gave, on SQLite and
PostgreSQL, with folds running at once in two workers; a learner whose history is deleted
leaves them."""

import threading
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import func, insert, select

from app.classes.counts import count_attempts
from app.classes.fold import CHUNK, Folder, fold
from app.classes.tables import activity, answers, pending, spans
from app.db.store import Store, make_engine
from app.learn import forgetting
from app.learn.recording import attempt_store, learners_in
from app.memory.tables import learners
from tests.test_memory_batches import LEARNERS, made_records

pytestmark = pytest.mark.server

COUNTERS = (activity, spans, answers)
CLASSES = dict(zip(LEARNERS, ("k1", "k1", None)))


def _items(count: int) -> list:
    start = datetime(2026, 11, 2, 23, 40, tzinfo=UTC)  # attempts on either side of midnight UTC
    return [(n + 1, r, start + timedelta(minutes=n * 3)) for n, r in enumerate(made_records(count))]


def _store(url: str) -> Store:
    store = attempt_store(url)
    with store.engine.begin() as db:
        now = datetime.now(UTC)
        db.execute(insert(learners), [{"id": i, "class_code": c, "created_at": now} for i, c in CLASSES.items()])
    return store


def _counters(engine) -> dict:
    with engine.connect() as db:
        found = {t.name: sorted(tuple(r) for r in db.execute(select(t))) for t in COUNTERS}
    accuracy = activity.c.keys().index("accuracy")  # float sums in another order: to the last bits
    found["class_activity"] = [
        (*r[:accuracy], round(r[accuracy], 9), *r[accuracy + 1 :]) for r in found["class_activity"]
    ]
    return found


def _counted_as_written(url: str, items: list) -> dict:
    """The counters as the writer counted each batch before folding existed: the records
    themselves, each with its learner's class at the time of writing."""
    store = _store(url)
    try:
        with store.engine.begin() as db:
            count_attempts(
                db,
                [
                    SimpleNamespace(
                        snippet_id=r.snippet_id,
                        version=r.version,
                        class_code=CLASSES[r.learner],
                        created_at=at,
                        learner=r.learner,
                        practice=r.practice,
                        blanks=r.blanks,
                    )
                    for _, r, at in items
                ],
            )
        return _counters(store.engine)
    finally:
        store.close()


def test_a_fold_counts_every_written_attempt_as_the_writer_counted_it(database_url, second_database_url):
    items = _items(60)
    store = _store(database_url)
    try:
        for k in range(0, len(items), 7):
            store.commit(items[k : k + 7])
        assert _counters(store.engine)["class_spans"] == []  # nothing counted before a read
        fold(store.engine)
        folded = _counters(store.engine)
        fold(store.engine)  # a second fold finds nothing pending
        assert _counters(store.engine) == folded
        assert _pending(store.engine) == 0
    finally:
        store.close()
    expected = _counted_as_written(second_database_url, items)
    assert folded == expected and expected["class_spans"] and expected["class_answers"]
    assert {r[3] for r in expected["class_spans"]} == {"2026-11-02", "2026-11-03"}  # UTC days
    assert {r[2] for r in expected["class_activity"]} == {"k1", ""}


def test_two_workers_folding_at_once_count_each_attempt_once(database_url, second_database_url):
    items = _items(2 * CHUNK + 40)  # several chunks: the two folds interleave
    store = _store(database_url)
    engines = [make_engine(database_url) for _ in range(2)]  # two workers' own connections
    try:
        for k in range(0, len(items), 50):
            store.commit(items[k : k + 50])
        start = threading.Barrier(2)

        def worker(engine):
            start.wait()
            fold(engine)

        threads = [threading.Thread(target=worker, args=(e,)) for e in engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        folded = _counters(store.engine)
    finally:
        for engine in engines:
            engine.dispose()
        store.close()
    assert folded == _counted_as_written(second_database_url, items)


def test_a_deleted_history_leaves_the_class_figures(database_url, second_database_url):
    """A history is its learner's: the counters keep nothing of it once deleted, whether its
    attempts were counted already or still pending, and the other learners' counts stay."""
    items = _items(40)
    store = _store(database_url)
    try:
        store.commit(items[:20])
        fold(store.engine)  # these counted
        store.commit(items[20:])  # these pending
        with store.engine.begin() as db:
            forgetting.history(db, LEARNERS[0])
        fold(store.engine)
        folded = _counters(store.engine)
    finally:
        store.close()
    mine = [item for item in items if item[1].learner == LEARNERS[0]]
    assert any(at < items[20][2] for _, _, at in mine) and any(at >= items[20][2] for _, _, at in mine)
    assert all(r[4] != LEARNERS[0] for r in folded["class_activity"])
    assert folded == _counted_as_written(second_database_url, [item for item in items if item not in mine])


def test_the_background_folder_counts_what_was_written_a_few_seconds_later(tmp_path):
    url = f"sqlite:///{tmp_path / 'codecloze.db'}"
    items = _items(20)
    store = _store(url)
    folder = Folder(store.engine, seconds=1.0)
    store.on_written = lambda batch: folder.wrote(learners_in(batch))
    try:
        store.commit(items)
        pending_now = _pending(store.engine)
        deadline = time.monotonic() + 60
        while _pending(store.engine) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pending_now == len(items) and _pending(store.engine) == 0
        folded = _counters(store.engine)
    finally:
        folder.close()
        store.close()
    assert folded == _counted_as_written(f"sqlite:///{tmp_path / 'second.db'}", items)


def _pending(engine) -> int:
    with engine.connect() as db:
        return db.execute(select(func.count()).select_from(pending)).scalar()
