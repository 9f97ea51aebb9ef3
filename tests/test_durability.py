"""Honest writes: nothing is confirmed before it is committed, a database that cannot be written
says so (and changes nothing), and one bad row never takes other learners' attempts with it."""

import sqlite3
import threading
from contextlib import contextmanager

import pytest
from sqlalchemy import func, select

from app.db.tables import attempts
from app.main import create_app
from app.settings import Settings
from tests.helpers import drill_form
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, snippet_text, stored_text

pytestmark = pytest.mark.app

JSON = {"accept": "application/json"}
URL = "/s/mlm-online-softmax/drill"
BEARER = {"authorization": f"Bearer {TOKEN}", "content-type": "text/markdown"}


@pytest.fixture
def settings(data_dir):
    return Settings(data_dir=data_dir, execution=False, use_cdn=False, teacher_token=TOKEN, db_busy_ms=200)


def stored_attempts(app) -> int:
    with app.state.store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(attempts)).scalar()


@contextmanager
def locked(settings):
    """Another process holds the database's write lock (as a long transaction or a backup would)."""
    other = sqlite3.connect(settings.data_dir / "codecloze.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_submission_answers_after_its_attempt_is_stored(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 7)
    data = client.post(URL, data=form, headers=JSON).json()
    assert data["result"]["saved"] is True
    assert stored_attempts(client.app) == 1  # at the moment the response arrived, no flush needed


def test_a_database_that_cannot_be_written_gives_a_clear_503_with_the_score(client, settings):
    form = drill_form(client.app, "mlm-online-softmax", 20, 7)
    with locked(settings):
        page = client.post(URL, data=form, headers={"HX-Request": "true"})
        assert page.status_code == 503
        assert "没能保存" in page.text and "个空完全匹配" in page.text  # scored, and says it was not kept
        data = client.post(URL, data=form, headers=JSON)
        assert data.status_code == 503 and data.json()["result"]["saved"] is False
        assert data.json()["result"]["correct"] == data.json()["result"]["total"]
        assert "没能保存" in data.json()["error"]
        health = client.get("/healthz").json()
        assert health["status"] == "degraded" and "cannot write" in health["database"]
        assert client.get(f"{URL}?rate=20&seed=3").status_code == 200  # drills keep rendering
    assert stored_attempts(client.app) == 0
    assert client.get("/healthz").json()["status"] == "ok"  # back once it can write again
    assert client.post(URL, data=form, headers=JSON).json()["result"]["saved"] is True
    assert stored_attempts(client.app) == 1


def test_a_refused_edit_never_goes_live(client, settings):
    assert (
        client.put("/api/snippets/square", content=snippet_text("Version 1").encode(), headers=BEARER).status_code
        == 201
    )
    client.post("/api/snippets/square/publish", headers=BEARER)
    with locked(settings):
        refused = client.put(
            "/api/snippets/square", content=snippet_text("Version 2").encode(), headers={**BEARER, **JSON}
        )
        assert refused.status_code == 503 and "没有做任何更改" in refused.json()["error"]
        assert "Version 1" in client.get("/s/square").text
    assert stored_text(client.app) == snippet_text("Version 1")
    with SiteClient(create_app(settings)) as restarted:
        assert "Version 1" in restarted.get("/s/square").text
        assert restarted.get("/api/snippets/square", headers=BEARER).json()["status"] == "published"


def test_a_refused_publish_changes_nothing(client, settings):
    client.put("/api/snippets/square", content=snippet_text().encode(), headers=BEARER)
    with locked(settings):
        assert client.post("/api/snippets/square/publish", headers=BEARER).status_code == 503
    learner = SiteClient(client.app)
    assert learner.get("/s/square").status_code == 404
    with locked(settings):
        assert client.delete("/api/snippets/square", headers=BEARER).status_code == 503
    assert client.get("/api/snippets/square", headers=BEARER).status_code == 200


def test_a_lone_surrogate_is_refused_and_other_learners_are_stored(client):
    good = [drill_form(client.app, "mlm-online-softmax", 20, seed) for seed in range(10)]
    bad = drill_form(client.app, "mlm-online-softmax", 20, 99)
    key = next(k for k in bad if k[0] == "s" and k[1:].isdigit())
    body = f'{{"version": "{bad["version"]}", "rate": 20, "seed": 99, "answers": {{"{key}": "\\ud800"}}}}'
    statuses: list[int] = []

    def post_good(form):
        statuses.append(client.post(URL, data=form, headers=JSON).status_code)

    threads = [threading.Thread(target=post_good, args=(f,)) for f in good]
    for t in threads:
        t.start()
    refused = client.post(URL, content=body.encode(), headers={"content-type": "application/json", **JSON})
    for t in threads:
        t.join()
    assert refused.status_code == 400 and "Unicode" in refused.json()["error"]
    assert statuses == [200] * 10
    assert stored_attempts(client.app) == 10
