"""Request-scoped things are FastAPI dependencies: a test (or a deployment's wrapper) replaces one
through `app.dependency_overrides`, and every route that takes it sees the replacement."""

import pytest

from app.memory import identity
from app.memory.identity import Learner
from app.web import deps

pytestmark = pytest.mark.app

TEACHER = {"csrf": "csrf-of-the-override", "sid": "abc123", "name": "替身老师"}
LEARNER = "0123456789abcdef" * 2


def test_an_overridden_teacher_session_opens_the_teacher_area(client):
    assert client.get("/teach").status_code == 401
    client.app.dependency_overrides[deps.optional_session] = lambda: TEACHER
    try:
        page = client.get("/teach")
        assert page.status_code == 200 and 'value="csrf-of-the-override"' in page.text
        # the form dependency checks the overridden session's token
        made = client.post("/teach/classes", data={"csrf": TEACHER["csrf"], "code": "dep-1"}, follow_redirects=False)
        assert made.status_code == 303 and made.headers["location"] == "/teach/classes/dep-1"
        assert client.post("/teach/classes", data={"csrf": "other", "code": "dep-2"}).status_code == 403
    finally:
        client.app.dependency_overrides.clear()
    assert client.get("/teach").status_code == 401


def test_an_overridden_learner_is_the_one_whose_profile_is_saved(client):
    client.app.dependency_overrides[deps.learner_id] = lambda: Learner(LEARNER, b"cc_learner=x; Path=/")
    try:
        saved = client.post("/me/profile", data={"name": " 小  明 "}, follow_redirects=False)
    finally:
        client.app.dependency_overrides.clear()
    assert saved.status_code == 303
    with client.app.state.store.engine.connect() as db:
        assert identity.profile(db, LEARNER)["name"] == "小 明"
