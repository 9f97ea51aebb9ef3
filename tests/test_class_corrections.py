"""Correcting a class over HTTP, on SQLite and PostgreSQL: editing and deleting an assignment,
renaming, archiving, restoring and deleting a class, removing a learner (the class pages' forms and
the JSON API), each refusal a 4xx that changes nothing, and every attempt left as it was."""

import re

import pytest
from sqlalchemy import func, select

from app.classes.assignments import assignments
from app.classes.tables import classes
from app.db.tables import attempts
from app.memory.tables import learners
from tests.class_helpers import SNIPPET, learner, make_class, submit, teacher
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
JSON = {"accept": "application/json"}
BEARER = {"authorization": f"Bearer {TOKEN}"}
GOOD = {"snippet": SNIPPET, "rate": 30, "unit": "token", "target": {"accuracy": 0.9}, "due": "2027-01-15"}


@pytest.fixture
def app(teaching_app):
    return teaching_app


def assign(app, code: str, **body) -> dict:
    made = SiteClient(app).post(f"/api/classes/{code}/assignments", json={**GOOD, **body}, headers=BEARER)
    assert made.status_code == 201, made.text
    return made.json()


def table(app, name) -> list[dict]:
    with app.state.store.engine.connect() as db:
        return [dict(r._mapping) for r in db.execute(select(name))]


def attempt_rows(app) -> list[tuple]:
    with app.state.store.engine.connect() as db:
        rows = db.execute(select(attempts.c.id, attempts.c.learner, attempts.c.class_code).order_by(attempts.c.id))
        return [tuple(r) for r in rows]


def count(app, name) -> int:
    with app.state.store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(name)).scalar()


def short_ids(client, code: str) -> dict:
    """Learner name → short label, from the class page's JSON."""
    return {r["name"]: r["learner"] for r in client.get(f"/teach/classes/{code}", headers=JSON).json()["learners"]}


def test_an_assignment_is_edited_on_its_page_and_a_refused_edit_keeps_what_was_typed(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "K1")
    ana = learner(app, "K1", "ana")
    made = assign(app, "K1")
    submit(ana, seed=1)
    before = attempt_rows(app)
    page = tutor.get("/teach/classes/K1")
    edit_url = f"/teach/classes/K1/assignments/{made['id']}/edit"
    assert f'href="{edit_url}"' in page.text
    form_page = tutor.get(edit_url)
    assert form_page.status_code == 200
    assert 'name="rate" type="number" min="10" max="50"' in form_page.text  # the server's own limits
    assert 'value="2027-01-15"' in form_page.text and f'value="{SNIPPET}" lang' in form_page.text
    assert ">单个词元</option>" in form_page.text and ">token</option>" not in form_page.text
    changed = {
        "csrf": csrf,
        "snippet": SNIPPET,
        "mode": "random",
        "rate": "20",
        "unit": "line",
        "target_kind": "reviews",
        "target_accuracy": "90",
        "target_reviews": "2",
        "starts": "2026-12-01",
        "due": "2027-02-01",
    }
    assert tutor.post(edit_url, data={**changed, "csrf": "forged"}).status_code == 403
    saved = tutor.post(edit_url, data=changed, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == "/teach/classes/K1?done=saved#assignments"
    assert "作业已修改" in tutor.get(saved.headers["location"]).text  # said after it was committed
    (row,) = table(app, assignments)
    assert (row["rate"], row["unit"], row["target"], row["goal"], row["starts"], row["due"]) == (
        20,
        "line",
        "reviews",
        2.0,
        "2026-12-01",
        "2027-02-01",
    )
    for typed, field, words in (
        ({"due": "2026-11-30"}, "due", "不能早于开始日期"),
        ({"rate": "80"}, "rate", "挖空率必须在 10% 到 50% 之间"),
        ({"snippet": "no-such-snippet"}, "snippet", "没有找到片段"),
        ({"target_reviews": "31"}, "target_reviews", "复习次数目标"),
        ({"target_kind": "accuracy", "target_accuracy": "0"}, "target_accuracy", "正确率目标"),
        ({"starts": "2026-02-30"}, "starts", "YYYY-MM-DD"),
        ({"mode": "fixed"}, "mode", "没有固定填空"),
    ):
        refused = tutor.post(edit_url, data={**changed, **typed})
        assert refused.status_code == 422 and words in refused.text, (typed, refused.text[:300])
        assert re.search(rf'name="{field}"[^>]*aria-invalid="true" aria-describedby="{field}-error"', refused.text)
        assert f'<span class="field-error" id="{field}-error" role="alert">' in refused.text  # beside its field
        value = next(iter(v for k, v in typed.items() if k not in ("target_kind", "mode", "snippet")), None)
        assert value is None or f'value="{value}"' in refused.text  # what was typed is kept
        assert table(app, assignments) == [row]
    english = tutor.post(edit_url + "?lang=en", data={**changed, "due": "2026-11-30"})
    assert english.status_code == 422 and "cannot come before the start" in english.text
    tutor.cookies.delete("lang")
    json_refusal = tutor.post(edit_url, data={**changed, "rate": "80"}, headers=JSON)
    assert json_refusal.status_code == 422 and "挖空率" in json_refusal.json()["error"]
    assert attempt_rows(app) == before


def test_an_assignment_is_deleted_after_a_confirmation_and_attempts_stay(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "K2")
    ana = learner(app, "K2", "ana")
    made = assign(app, "K2")
    submit(ana, seed=1)
    before = attempt_rows(app)
    url = f"/teach/classes/K2/assignments/{made['id']}/delete"
    unconfirmed = tutor.post(url, data={"csrf": csrf})
    assert unconfirmed.status_code == 422 and "请勾选确认" in unconfirmed.text and count(app, assignments) == 1
    assert tutor.post(url, data={"csrf": "forged", "confirm": "yes"}).status_code == 403
    done = tutor.post(url, data={"csrf": csrf, "confirm": "yes"}, follow_redirects=False)
    assert done.status_code == 303 and count(app, assignments) == 0
    assert "作业已删除" in tutor.get(done.headers["location"]).text
    assert tutor.post(url, data={"csrf": csrf, "confirm": "yes"}).status_code == 404
    assert attempt_rows(app) == before and ana.get("/me", headers=JSON).json()["assignments"] == []


def test_the_api_changes_only_the_fields_given_and_refuses_bad_values(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "K3")
    make_class(tutor, csrf, "K4")
    made = assign(app, "K3")
    other = assign(app, "K4")
    client = SiteClient(app)
    url = f"/api/classes/K3/assignments/{made['id']}"
    changed = client.patch(url, json={"due": "2027-03-01", "starts": "2027-01-01"}, headers=BEARER)
    assert changed.status_code == 200, changed.text
    assert changed.json() == {**made, "starts": "2027-01-01", "due": "2027-03-01"}
    kept = table(app, assignments)
    for body, status, words in (
        ({"due": "2026-12-31"}, 422, "不能早于开始日期"),
        ({"rate": 60}, 422, "挖空率"),
        ({"rate": 5}, 422, "挖空率"),
        ({"snippet": "nope"}, 422, "没有找到片段"),
        ({"unit": "word"}, 422, "挖空单位"),
        ({"target": {"reviews": 0}}, 422, "复习次数"),
        ({"starts": "tomorrow"}, 422, "YYYY-MM-DD"),
    ):
        refused = client.patch(url, json=body, headers=BEARER)
        assert refused.status_code == status and words in refused.json()["error"], (body, refused.text)
        english = SiteClient(app).patch(url + "?lang=en", json=body, headers=BEARER)
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in english.json()["error"]), english.text
    assert client.patch(f"/api/classes/K3/assignments/{other['id']}", json={}, headers=BEARER).status_code == 404
    assert client.patch("/api/classes/K3/assignments/x1", json={}, headers=BEARER).status_code == 404
    assert client.patch(url, json={"due": "2027-04-01"}).status_code == 401
    assert client.patch(url, content=b"due=2027-04-01", headers=BEARER).status_code == 415
    assert table(app, assignments) == kept
    assert client.delete(url, headers=BEARER).json() == {"deleted": made["id"]}
    assert client.delete(url, headers=BEARER).status_code == 404
    assert [r["id"] for r in table(app, assignments)] == [other["id"]]


def test_a_class_is_renamed_and_a_refused_name_is_kept_beside_its_field(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "K5", "一班")
    renamed = tutor.post("/teach/classes/K5/rename", data={"csrf": csrf, "name": "  二班  "}, follow_redirects=False)
    assert renamed.status_code == 303 and "班级已改名" in tutor.get(renamed.headers["location"]).text
    assert [r["name"] for r in table(app, classes)] == ["二班"]
    long = "名" * 61
    refused = tutor.post("/teach/classes/K5/rename", data={"csrf": csrf, "name": long})
    assert refused.status_code == 422 and "班级名称最多 60 个字符" in refused.text
    assert re.search(rf'value="{long}" aria-invalid="true"[^>]*>\s*<span class="field-error"', refused.text)
    assert 'name="name" maxlength="60"' in refused.text
    assert tutor.post("/teach/classes/K5/rename", data={"csrf": "forged", "name": "x"}).status_code == 403
    client = SiteClient(app)
    done = client.patch("/api/classes/k5", json={"name": "三班"}, headers=BEARER)
    assert done.status_code == 200 and done.json() == {"code": "K5", "name": "三班", "archived_at": None}
    assert client.patch("/api/classes/K5", json={"name": long}, headers=BEARER).status_code == 422
    assert client.patch("/api/classes/K5", json={"title": "x"}, headers=BEARER).status_code == 422
    assert client.patch("/api/classes/NOPE", json={"name": "x"}, headers=BEARER).status_code == 404
    assert client.patch("/api/classes/K5", json={"name": None}, headers=BEARER).json()["name"] is None
    assert [r["name"] for r in table(app, classes)] == [None]


def test_an_archived_class_is_read_only_cannot_be_joined_and_is_restored(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "K6", "旧班")
    make_class(tutor, csrf, "K7", "新班")
    ana = learner(app, "K6", "ana")
    made = assign(app, "K6")
    submit(ana, seed=1)
    before = attempt_rows(app)
    assert tutor.post("/teach/classes/K6/archive", data={"csrf": csrf}).status_code == 422  # unconfirmed
    assert all(c["archived_at"] is None for c in table(app, classes))
    done = tutor.post("/teach/classes/K6/archive", data={"csrf": csrf, "confirm": "yes"}, follow_redirects=False)
    assert done.status_code == 303
    page = tutor.get(done.headers["location"]).text
    assert "班级已归档" in page and "恢复班级" in page and 'action="/teach/classes/K6/assignments"' not in page
    assert "/edit" not in page and "/rename" not in page
    listing = tutor.get("/teach/classes").text
    active, archived = listing.split('id="archived"')
    row = '<a href="/teach/classes/{}">'.format  # a class's row (a bare code may also be inside a CSRF token)
    assert row("K7") in active and row("K6") not in active and row("K6") in archived
    stranger = SiteClient(app)
    assert stranger.get("/join/K6").status_code == 409
    refused = stranger.post("/join/K6")
    assert refused.status_code == 409 and "已归档" in refused.text
    assert stranger.post("/me/profile", data={"class_code": "K6"}).status_code == 409
    assert stranger.get("/me", headers=JSON).json()["learner"]["class_code"] is None
    assert ana.post("/me/profile", data={"name": "ana2", "class_code": "K6"}, follow_redirects=False).status_code == 303
    client = SiteClient(app)
    for response in (
        client.post("/api/classes/K6/assignments", json=GOOD, headers=BEARER),
        client.patch(f"/api/classes/K6/assignments/{made['id']}", json={"rate": 20}, headers=BEARER),
        client.delete(f"/api/classes/K6/assignments/{made['id']}", headers=BEARER),
        client.patch("/api/classes/K6", json={"name": "x"}, headers=BEARER),
        tutor.post("/teach/classes/K6/rename", data={"csrf": csrf, "name": "x"}),
    ):
        assert response.status_code == 409 and "已归档" in response.text, response.text
    assert count(app, assignments) == 1 and {c["code"]: c["name"] for c in table(app, classes)}["K6"] == "旧班"
    assert tutor.post("/teach/classes/K6/restore", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    assert stranger.post("/join/K6", follow_redirects=False).status_code == 303
    archived = client.post("/api/classes/K7/archive", headers=BEARER)
    assert archived.status_code == 200 and archived.json()["archived_at"]
    assert [c["code"] for c in tutor.get("/teach/classes", headers=JSON).json()["classes"] if c["archived_at"]] == [
        "K7"
    ]
    assert client.post("/api/classes/K7/restore", headers=BEARER).json()["archived_at"] is None
    assert client.post("/api/classes/K7/archive").status_code == 401
    assert attempt_rows(app) == before


def test_deleting_a_class_unlinks_its_learners_removes_its_assignments_and_keeps_attempts(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "K8")
    make_class(tutor, csrf, "K9")
    ana, bo = learner(app, "K8", "ana"), learner(app, "K9", "bo")
    assign(app, "K8")
    kept = assign(app, "K9")
    submit(ana, seed=1)
    submit(bo, seed=2)
    before = attempt_rows(app)
    confirm = tutor.get("/teach/classes/K8/delete")
    assert confirm.status_code == 200 and "1 个学习者" in confirm.text
    wrong = tutor.post("/teach/classes/K8/delete", data={"csrf": csrf, "confirm": "K9"})
    assert wrong.status_code == 422 and "以确认删除" in wrong.text and count(app, classes) == 2
    done = tutor.post("/teach/classes/K8/delete", data={"csrf": csrf, "confirm": "k8"}, follow_redirects=False)
    assert done.status_code == 303 and "班级已删除" in tutor.get(done.headers["location"]).text
    assert [c["code"] for c in table(app, classes)] == ["K9"]
    assert [a["id"] for a in table(app, assignments)] == [kept["id"]]
    assert {r["name"]: (r["class_code"], r["class_joined_at"]) for r in table(app, learners)}["ana"] == (None, None)
    assert ana.get("/me", headers=JSON).json()["learner"]["class_code"] is None
    assert attempt_rows(app) == before  # the attempts keep the class of their time
    reused = tutor.post("/teach/classes", data={"csrf": csrf, "code": "K8"})
    assert reused.status_code == 409 and count(app, classes) == 1  # its history would show in a new class
    assert tutor.get("/teach/classes/K8").status_code == 404
    client = SiteClient(app)
    assert client.delete("/api/classes/K9").status_code == 401
    assert client.delete("/api/classes/K9", headers=BEARER).json() == {"deleted": "K9", "learners_unlinked": 1}
    assert client.delete("/api/classes/K9", headers=BEARER).status_code == 404
    assert count(app, classes) == 0 and count(app, assignments) == 0 and attempt_rows(app) == before


def test_a_learner_is_removed_from_a_class_after_a_confirmation_and_keeps_their_attempts(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "L1")
    ana, bo = learner(app, "L1", "ana"), learner(app, "L1", "bo")
    assign(app, "L1")
    submit(ana, seed=1)
    before = attempt_rows(app)
    labels = short_ids(tutor, "L1")
    short = labels["ana"].removeprefix("#")
    page = tutor.get("/teach/classes/L1").text
    url = f"/teach/classes/L1/learners/{short}/remove"
    assert f'href="{url}"' in page
    confirm = tutor.get(url)
    assert confirm.status_code == 200 and "把 ana 移出班级 L1" in confirm.text
    assert tutor.post(url, data={"csrf": "forged"}).status_code == 403
    done = tutor.post(url, data={"csrf": csrf}, follow_redirects=False)
    assert done.status_code == 303 and "学习者已移出班级" in tutor.get(done.headers["location"]).text
    assert ana.get("/me", headers=JSON).json()["learner"]["class_code"] is None
    assert ana.get("/me", headers=JSON).json()["assignments"] == []
    assert attempt_rows(app) == before
    listed = {r["name"] for r in tutor.get("/teach/classes/L1", headers=JSON).json()["assignments"][0]["learners"]}
    assert listed == {"bo"}
    assert "已不在班级" in tutor.get("/teach/classes/L1").text  # still listed by the attempts made in it
    assert tutor.post(url, data={"csrf": csrf}).status_code == 404
    client = SiteClient(app)
    bo_label = labels["bo"]
    assert client.delete(f"/api/classes/L1/learners/{bo_label[1:]}").status_code == 401
    removed = client.delete(f"/api/classes/L1/learners/{bo_label[1:]}", headers=BEARER)
    assert removed.json() == {"class": "L1", "removed": bo_label}
    assert client.delete("/api/classes/L1/learners/ffffff", headers=BEARER).status_code == 404
    assert bo.get("/me", headers=JSON).json()["learner"]["class_code"] is None
    assert bo.post("/join/L1", follow_redirects=False).status_code == 303  # they may join again
    assert attempt_rows(app) == before


def test_refused_class_and_assignment_forms_are_shown_again_with_what_was_typed(app):
    tutor, csrf = teacher(app)
    listing = tutor.get("/teach/classes").text
    assert 'name="name" maxlength="60"' in listing and 'name="code" maxlength="32"' in listing
    refused = tutor.post("/teach/classes", data={"csrf": csrf, "code": "a b", "name": "三班"})
    assert refused.status_code == 422 and "<h1>班级</h1>" in refused.text
    assert re.search(r'value="a b" aria-invalid="true"[^>]*>\s*<span class="field-error"[^>]*>[^<]*字母', refused.text)
    assert 'value="三班"' in refused.text and count(app, classes) == 0
    make_class(tutor, csrf, "M1")
    taken = tutor.post("/teach/classes", data={"csrf": csrf, "code": "m1", "name": "又一班"})
    assert (
        taken.status_code == 409 and 'value="m1" aria-invalid="true"' in taken.text and 'value="又一班"' in taken.text
    )
    assert tutor.post("/teach/classes", data={"csrf": csrf, "code": "a b"}, headers=JSON).json()["error"]
    page = tutor.get("/teach/classes/M1").text
    assert 'name="rate" type="number" min="10" max="50"' in page
    assert 'name="target_reviews" type="number" min="1" max="30"' in page
    assert 'name="target_accuracy" type="number" min="1" max="100"' in page
    assert ">子表达式</option>" in page and ">span</option>" not in page
    english = tutor.get("/teach/classes/M1?lang=en").text
    assert ">Sub-expression</option>" in english
    tutor.cookies.delete("lang")
    form = {
        "csrf": csrf,
        "snippet": SNIPPET,
        "mode": "random",
        "rate": "80",
        "unit": "span",
        "target_kind": "reviews",
        "target_accuracy": "90",
        "target_reviews": "4",
        "starts": "2027-01-02",
        "due": "2027-01-20",
    }
    refused = tutor.post("/teach/classes/M1/assignments", data=form)
    assert refused.status_code == 422 and "<h1>班级 <code>M1</code>" in refused.text
    assert re.search(
        r'value="80" inputmode="numeric" aria-invalid="true"[^>]*>\s*<span class="field-error"', refused.text
    )
    assert '<option value="span" selected>' in refused.text and 'value="reviews" checked' in refused.text
    assert 'value="4"' in refused.text and 'value="2027-01-02"' in refused.text and 'value="2027-01-20"' in refused.text
    assert count(app, assignments) == 0
    assert (
        tutor.post("/teach/classes/M1/assignments", data={**form, "due": "2027-01-01", "rate": "20"}).status_code == 422
    )
    made = tutor.post("/teach/classes/M1/assignments", data={**form, "rate": "20"}, follow_redirects=False)
    assert made.status_code == 303 and "已布置作业" in tutor.get(made.headers["location"]).text
    (row,) = table(app, assignments)
    assert (row["starts"], row["due"], row["unit"], row["goal"]) == ("2027-01-02", "2027-01-20", "span", 4.0)


def test_a_refused_upload_says_what_is_wrong_with_the_id_beside_it_and_keeps_the_text(app):
    from tests.teach_helpers import snippet_text

    tutor, csrf = teacher(app)
    text = snippet_text()
    refused = tutor.post("/teach/new", data={"csrf": csrf, "id": SNIPPET, "text": text})
    assert refused.status_code == 422
    assert re.search(
        r'id="id" name="id" value="[^"]+"[^>]*aria-invalid="true"[^>]*>\s*<span class="field-error"', refused.text
    )
    assert "已被占用" in refused.text.split('class="field-error"')[1].split("</span>")[0]
    assert "Prose $x^2$" in refused.text  # the text kept
    assert 'maxlength="64"' in refused.text
