"""What LTI keeps in the database, on every database the app supports (SQLite and a real
PostgreSQL): a nonce or state is taken once; a score is sent by one worker of several; an attempt that
lands while its score is being sent is sent too; an unchanged score is not sent again; the tool's key
is made with the first registration; a course whose class was deleted gets a new one. The LMS itself
is tests/lms.py's in test_lti.py; here the send is a stand-in that records what it was given, so the
bookkeeping around it can be raced."""

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, select

from app.classes import assignment_rows, assignments, roster
from app.classes.tables import classes
from app.learn.recording import attempt_store
from app.lti import grades, keys, launches, platforms
from app.lti.adapters import DbStorage
from app.lti.tables import grades as owed
from app.lti.tables import links

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
LEARNER = "b" * 32


@pytest.fixture
def engine(database_url):
    store = attempt_store(database_url)
    yield store.engine
    store.close()


@pytest.fixture
def sends(engine, monkeypatch) -> list[dict]:
    """A score owed to a registered platform for LEARNER; every send recorded instead of posted."""
    now = datetime.now(UTC)
    with engine.begin() as db:
        values = {
            "name": "LMS",
            "issuer": "https://lms.example",
            "client_id": "c1",
            "deployment_ids": ["d1"],
            "key_set_url": "https://lms.example/jwks",
            "auth_login_url": "https://lms.example/auth",
            "auth_token_url": "https://lms.example/token",
        }
        platform = platforms.register(db, values, now)
        roster.create(db, "GRADES", "Course", who="LMS")
        made = assignments.create(
            db,
            class_code="GRADES",
            snippet_id="mlm-online-softmax",
            mode="random",
            rate=20,
            unit="token",
            target="reviews",
            goal=2,
            due="2099-01-01",
            who="LMS",
        )
        db.execute(
            insert(links).values(
                platform_id=platform.id,
                link_id="l1",
                class_code="GRADES",
                assignment_id=made.id,
                lineitem="https://x/1",
            )
        )
        db.execute(insert(owed).values(platform_id=platform.id, link_id="l1", learner=LEARNER, sub="s1", next_try=now))
    sent: list[dict] = []
    monkeypatch.setattr(grades, "_post", lambda conf, p, lineitem, sub, score, done, at: sent.append(locals()))
    return sent


def owed_now(engine) -> datetime | None:
    with engine.connect() as db:
        return db.execute(select(owed.c.next_try)).scalar()


def test_a_nonce_or_a_state_is_taken_once_and_not_after_it_expires(engine):
    storage = DbStorage(engine)
    storage.set_value("lti1p3-nonce-abc", True, exp=60)
    assert storage.check_value("lti1p3-nonce-abc") is True
    assert storage.check_value("lti1p3-nonce-abc") is False  # gone with the first launch
    later = DbStorage(engine, now=lambda: datetime.now(UTC) + timedelta(seconds=120))
    storage.set_value("lti1p3-state-x-issued", True, exp=60)
    assert later.take("lti1p3-state-x-issued") is False  # expired: refused, and gone too
    assert storage.take("lti1p3-state-x-issued") is False


def test_an_owed_score_is_sent_once_and_not_again_while_nothing_changed(engine, sends):
    assert grades.GradeSender(engine).round() == {"sent": 1}
    assert [(s["sub"], s["score"], s["done"]) for s in sends] == [("s1", 0.0, False)]
    assert owed_now(engine) is None
    with engine.begin() as db:
        grades.owe(db, {LEARNER}, datetime.now(UTC))  # a batch without a counted attempt of it
    assert grades.GradeSender(engine).round() == {"unchanged": 1} and len(sends) == 1


def test_of_two_workers_at_once_one_sends(engine, sends):
    started = threading.Barrier(2)
    row = grades.due(engine, datetime.now(UTC))[0]
    outcomes = []

    def send() -> None:
        started.wait()
        outcomes.append(grades.send_one(engine, row, datetime.now(UTC)))

    workers = [threading.Thread(target=send) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(outcomes) == ["sent", "taken"] and len(sends) == 1


def test_an_attempt_marked_while_its_score_is_sent_is_sent_next(engine, sends, monkeypatch):
    def slow_post(conf, p, lineitem, sub, score, done, at):
        sends.append({"score": score})
        time.sleep(0.01)
        with engine.begin() as db:
            grades.owe(db, {LEARNER}, datetime.now(UTC))  # a batch committed meanwhile

    monkeypatch.setattr(grades, "_post", slow_post)
    assert grades.GradeSender(engine).round() == {"sent": 1}
    assert owed_now(engine) is not None  # still owed: the mark made during the send stands
    monkeypatch.setattr(grades, "_post", lambda *args: sends.append({"again": True}))
    assert grades.GradeSender(engine).round() == {"unchanged": 1}  # nothing new was counted


def test_a_failed_send_backs_off_and_a_deleted_assignment_owes_nothing(engine, sends, monkeypatch):
    def down(*args):
        raise ConnectionError("LMS down")

    monkeypatch.setattr(grades, "_post", down)
    before = datetime.now(UTC)
    assert grades.GradeSender(engine).round() == {"failed": 1}
    with engine.connect() as db:
        row = db.execute(select(owed)).one()
    assert row.tries == 1 and "LMS down" in row.last_error
    retry = row.next_try if row.next_try.tzinfo else row.next_try.replace(tzinfo=UTC)
    assert retry >= before + timedelta(seconds=grades.FIRST_RETRY_SECONDS)
    assert grades.GradeSender(engine).round() == {}  # not due yet
    with engine.begin() as db:
        assignment_rows.remove(db, assignments.of_class(db, "GRADES")[0].id)
    later = retry + timedelta(seconds=1)
    assert grades.send_one(engine, grades.due(engine, later)[0], later) == "gone"
    assert owed_now(engine) is None


def test_removing_a_platform_removes_what_was_bound_through_it(engine, sends):
    with engine.begin() as db:
        platforms.remove(db, platforms.listed(db)[0].id)
    with engine.connect() as db:
        assert db.execute(select(owed)).all() == [] and db.execute(select(links)).all() == []
    assert grades.GradeSender(engine).round() == {}


def test_the_tools_key_is_made_with_the_first_registration_and_kept(engine):
    with engine.connect() as db:
        assert keys.stored(db) is None  # no launch or page before a registration writes one
    made = []
    for n in (1, 2):
        with engine.begin() as db:
            values = {
                "name": f"LMS {n}",
                "issuer": f"https://lms{n}.example",
                "client_id": "c",
                "deployment_ids": ["d"],
                "key_set_url": "https://lms.example/jwks",
                "auth_login_url": "https://lms.example/auth",
                "auth_token_url": "https://lms.example/token",
            }
            platforms.register(db, values, datetime.now(UTC))
            made.append(keys.stored(db))
    assert made[0] and made[0] == made[1]
    assert keys.jwks(made[0])["keys"][0]["kid"]


def test_a_course_whose_class_was_deleted_gets_a_new_class_at_its_next_launch(engine, sends):
    with engine.connect() as db:
        platform = platforms.listed(db)[0]
    claims = launches.Claims.of(
        {"sub": "s9", launches.CLAIM + "context": {"id": "course-9", "title": "Nine"}}, instructor=False
    )
    with engine.begin() as db:
        first = launches.course_class(db, platform, claims, None)
        assert launches.course_class(db, platform, claims, None) == first  # bound
        db.execute(classes.delete().where(classes.c.code == first))  # a teacher deleted the class
        second = launches.course_class(db, platform, claims, None)
    with engine.connect() as db:
        assert second != first and launches.class_of(db, platform, "course-9") == second
