"""Assignments on SQLite and PostgreSQL: the JSON API, statuses from the learners' attempts, the
class page's form (CSRF), the learners' pages, the CSV column, and edits keeping assignments."""

import csv
import io
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from app.classes.assignments import assignments
from tests.class_helpers import SNIPPET, learner, make_class, submit, teacher
from tests.helpers import drill_form
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
JSON = {"accept": "application/json"}
BEARER = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def app(teaching_app):
    return teaching_app


def assign(client, code: str, **body):
    return client.post(f"/api/classes/{code}/assignments", json=body, headers=BEARER)


def statuses(client, code: str) -> dict:
    listed = client.get(f"/api/classes/{code}/assignments", headers=BEARER).json()["assignments"]
    return {(a["id"], row["name"]): (row["status"], row["progress"]) for a in listed for row in a["learners"]}


def rows(app) -> int:
    with app.state.store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(assignments)).scalar()


def test_the_api_assigns_and_lists_each_learners_status(app):
    client, csrf = teacher(app)
    make_class(client, csrf, "A1")
    ana, bo = learner(app, "A1", "ana"), learner(app, "A1", "bo")
    learner(app, "A1", "cy")  # a third learner who never practises
    api = SiteClient(app)
    made = assign(api, "A1", snippet=SNIPPET, rate=30, unit="token", target={"accuracy": 0.9}, due="2027-01-15")
    assert made.status_code == 201, made.text
    body = made.json()
    assert body == {
        "id": body["id"],
        "class": "A1",
        "snippet": SNIPPET,
        "mode": "random",
        "rate": 30,
        "unit": "token",
        "target": {"accuracy": 0.9},
        "starts": body["starts"],
        "due": "2027-01-15",
    }
    assert body["starts"] == datetime.now(UTC).date().isoformat() or body["starts"] < "2027"  # today, unless given
    reviews = assign(api, "A1", snippet=SNIPPET, rate=30, unit="token", target={"reviews": 3}, due="2027-01-20").json()
    submit(ana, seed=1)  # every blank right: 100 %
    keys = [k for k in drill_form(app, SNIPPET, 30, 2) if k.startswith("s") and k[1:].isdigit()]
    wrong = {k: "zzz" for k in keys[: len(keys) // 2]}
    submit(bo, seed=2, wrong=wrong)  # half wrong: under 90 %
    submit(bo, seed=3, rate=20)  # another rate: not this assignment
    found = statuses(api, "A1")
    assert found[body["id"], "ana"] == ("done", 1.0)
    assert found[body["id"], "bo"][0] == "in_progress" and found[body["id"], "bo"][1] < 0.9
    assert found[body["id"], "cy"] == ("not_started", 0.0)
    assert found[reviews["id"], "ana"] == ("in_progress", 1)  # one day of three


def test_learners_see_their_assignments_with_progress_on_home_and_me(app):
    client, csrf = teacher(app)
    make_class(client, csrf, "B2")
    ana = learner(app, "B2", "ana")
    other = learner(app, None, "dan")
    assign(SiteClient(app), "B2", snippet=SNIPPET, rate=30, unit="token", target={"accuracy": 0.9}, due="2027-02-01")
    submit(ana, seed=5)
    mine = ana.get("/me", headers=JSON).json()["assignments"]
    assert [(a["snippet"], a["status"], a["progress"]) for a in mine] == [(SNIPPET, "done", 1.0)]
    assert mine[0]["href"] == f"/s/{SNIPPET}/drill?rate=30"
    home = ana.get("/").text
    assert "班级作业" in home and f'href="/s/{SNIPPET}/drill?rate=30"' in home and "完成" in home
    assert other.get("/me", headers=JSON).json()["assignments"] == [] and "班级作业" not in other.get("/").text


def test_the_class_page_form_needs_its_csrf_token_and_shows_statuses(app):
    client, csrf = teacher(app)
    make_class(client, csrf, "C3")
    learner(app, "C3", "ana")
    form = {
        "snippet": SNIPPET,
        "mode": "random",
        "rate": "20",
        "unit": "span",
        "target_kind": "reviews",
        "target_value": "3",
        "due": "2027-03-01",
    }
    assert client.post("/teach/classes/C3/assignments", data={**form, "csrf": "forged"}).status_code == 403
    assert rows(app) == 0
    done = client.post("/teach/classes/C3/assignments", data={**form, "csrf": csrf}, follow_redirects=False)
    assert done.status_code == 303 and rows(app) == 1
    page = client.get("/teach/classes/C3").text
    assert "3 个不同的日子复习" in page and "未开始" in page and "ana" in page
    listed = client.get("/teach/classes/C3", headers=JSON).json()["assignments"]
    assert listed[0]["unit"] == "span" and listed[0]["target"] == {"reviews": 3}


@pytest.mark.parametrize(
    "body, words",
    [
        ({"snippet": "nope"}, "没有找到片段"),
        ({"rate": 0}, "挖空率"),
        ({"unit": "word"}, "挖空单位"),
        ({"target": {"accuracy": 1.5}}, "正确率目标"),
        ({"target": {"reviews": 2.5}}, "复习次数"),
        ({"target": {"speed": 3}}, "accuracy"),
        ({"target": 0.9}, "accuracy"),
        ({"due": "2027-13-01"}, "YYYY-MM-DD"),
        ({"due": "tomorrow"}, "YYYY-MM-DD"),
        ({"mode": "fixed"}, "没有固定填空"),
    ],
)
def test_bad_input_is_a_clear_4xx_that_saves_nothing(app, body, words):
    client, csrf = teacher(app)
    make_class(client, csrf, "D4")
    good = {"snippet": SNIPPET, "rate": 30, "unit": "token", "target": {"accuracy": 0.9}, "due": "2027-01-15"}
    response = assign(SiteClient(app), "D4", **{**good, **body})
    assert response.status_code == 422 and words in response.text, response.text
    assert rows(app) == 0
    english = SiteClient(app).post("/api/classes/D4/assignments?lang=en", json={**good, **body}, headers=BEARER)
    assert english.status_code == 422 and not any("\u4e00" <= ch <= "\u9fff" for ch in english.json()["error"])


def test_unknown_class_no_token_and_a_non_json_body_are_refused(app):
    api = SiteClient(app)
    good = {"snippet": SNIPPET, "rate": 30, "unit": "token", "target": {"accuracy": 0.9}, "due": "2027-01-15"}
    assert assign(api, "NOPE", **good).status_code == 404
    assert api.post("/api/classes/NOPE/assignments", json=good).status_code == 401
    client, csrf = teacher(app)
    make_class(client, csrf, "E5")
    assert api.post("/api/classes/E5/assignments", content=b"snippet=x", headers=BEARER).status_code == 415
    assert (
        api.post(
            "/api/classes/E5/assignments", content=b"[" * 3000, headers={**BEARER, "content-type": "application/json"}
        ).status_code
        == 400
    )
    assert rows(app) == 0


def test_the_csv_has_each_rows_learners_status(app):
    client, csrf = teacher(app)
    make_class(client, csrf, "F6")
    ana = learner(app, "F6", "ana")
    made = assign(
        SiteClient(app), "F6", snippet=SNIPPET, rate=30, unit="token", target={"accuracy": 0.9}, due="2027-01-15"
    ).json()
    submit(ana, seed=7)
    table = list(csv.DictReader(io.StringIO(client.get("/teach/classes/F6/attempts.csv").text)))
    column = f"assignment {made['id']}: {SNIPPET}"
    assert table and {r[column] for r in table} == {"done"}


def test_editing_a_snippet_keeps_its_assignments_and_the_attempts_made_before(app):
    client, csrf = teacher(app)
    make_class(client, csrf, "G7")
    ana = learner(app, "G7", "ana")
    source = app.state.library.get(SNIPPET).source
    put = SiteClient(app).put("/api/snippets/square-sum", content=source.encode(), headers=BEARER)
    assert put.status_code == 201, put.text
    assert SiteClient(app).post("/api/snippets/square-sum/publish", headers=BEARER).status_code == 200
    made = assign(
        SiteClient(app), "G7", snippet="square-sum", rate=30, unit="token", target={"reviews": 1}, due="2027-01-15"
    ).json()
    form = drill_form(app, "square-sum", 30, 1)
    assert ana.post("/s/square-sum/drill", data=form, headers=JSON).status_code == 200
    edited = source.replace("summary:", "summary: (edited)", 1)
    assert SiteClient(app).put("/api/snippets/square-sum", content=edited.encode(), headers=BEARER).status_code == 200
    assert app.state.library.get("square-sum").version != form["version"]
    assert statuses(SiteClient(app), "G7")[made["id"], "ana"] == ("done", 1)
