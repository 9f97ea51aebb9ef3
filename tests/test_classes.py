"""Classes over HTTP, on SQLite and PostgreSQL: codes and joining, figures (against a plain recount
of the attempts), alternatives for token match, the CSV export and the JSON API."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.classes.tables import alternatives, classes
from app.db.records import AttemptRecord
from app.db.tables import attempts
from app.memory.export import csv_cell
from tests.class_helpers import SNIPPET, answers_of, learner, make_class, plain_figures, submit, teacher, write_at
from tests.helpers import drill_form
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
JSON = {"accept": "application/json"}
BEARER = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def app(teaching_app):
    return teaching_app


def stats(client, query: str = "") -> dict:
    response = client.get(f"/teach/stats/{SNIPPET}?{query}", headers=JSON)
    assert response.status_code == 200, response.text[:300]
    return response.json()


def count(app, table, *where) -> int:
    with app.state.store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(table).where(*where)).scalar()


def class_of_attempts(app) -> list:
    with app.state.store.engine.connect() as db:
        return list(db.execute(select(attempts.c.class_code).order_by(attempts.c.created_at)).scalars())


def test_a_learner_joins_with_a_code_and_attempts_keep_the_class_of_their_time(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "cs-101", "一班")
    assert "cs-101" in tutor.get("/teach/classes").text
    pupil = SiteClient(app)
    page = pupil.get("/join/cs-101")
    assert page.status_code == 200 and "加入这个班级" in page.text and "一班" in page.text
    assert pupil.get("/me", headers=JSON).json()["learner"]["class_code"] is None  # the link alone changes nothing
    refused = pupil.post("/join/cs-101", headers={"origin": "https://evil.example"})
    assert refused.status_code == 403 and "本站" in refused.text
    assert pupil.get("/me", headers=JSON).json()["learner"]["class_code"] is None
    assert pupil.post("/join/cs-101", follow_redirects=False).status_code == 303
    assert pupil.get("/me", headers=JSON).json()["learner"]["class_code"] == "cs-101"
    submit(pupil, seed=1)
    assert pupil.post("/me/profile", data={"class_code": ""}, follow_redirects=False).status_code == 303
    submit(pupil, seed=2)
    assert class_of_attempts(app) == ["cs-101", None]
    assert stats(tutor, "class=cs-101")["attempts"] == 1 and stats(tutor)["attempts"] == 2


def test_bad_class_input_is_refused_in_chinese_and_changes_nothing(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "cs-101")
    for form, status, words in (
        ({"code": "cs-101"}, 409, "已经有了"),
        ({"code": "a b"}, 422, "字母、数字"),
        ({"code": "x", "name": "名" * 61}, 422, "最多"),
    ):
        response = tutor.post("/teach/classes", data={"csrf": csrf, **form})
        assert response.status_code == status and words in response.text
    assert tutor.post("/teach/classes", data={"csrf": "forged", "code": "x2"}).status_code == 403
    assert SiteClient(app).post("/teach/classes", data={"csrf": csrf, "code": "x3"}).status_code == 401
    assert count(app, classes) == 1
    pupil = SiteClient(app)
    assert pupil.get("/join/nope").status_code == 404 and "没有班级代码" in pupil.get("/join/nope").text
    assert pupil.post("/join/nope").status_code == 404
    assert pupil.post("/me/profile", data={"class_code": "cs-999"}).status_code == 422
    assert pupil.get("/me", headers=JSON).json()["learner"]["class_code"] is None
    for query, status in (
        ("class=nope", 404),
        ("from=2026-13-01", 422),
        ("from=yesterday", 422),
        ("from=2026-12-02&to=2026-12-01", 422),
        ("v=000000000000", 404),
    ):
        response = tutor.get(f"/teach/stats/{SNIPPET}?{query}")
        assert response.status_code == status, query
        assert any("\u4e00" <= ch <= "\u9fff" for ch in response.text), query  # said in Chinese
    assert tutor.get("/teach/stats/no-such-snippet").status_code == 404
    assert SiteClient(app).get(f"/teach/stats/{SNIPPET}").status_code == 401


def test_figures_equal_a_plain_recount_of_the_attempts(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "a")
    make_class(tutor, csrf, "b")
    one, two, other, loner = learner(app, "a", "小明"), learner(app, "a"), learner(app, "b"), learner(app)
    form = drill_form(app, SNIPPET, 30, 1)
    keys = [k for k in form if k[:1] == "s" and k[1:].isdigit()]
    submit(one, 1, {keys[0]: "nope", keys[1]: "wrong one"})
    submit(one, 1, {keys[0]: "nope"})
    submit(two, 1, {keys[0]: "nope", keys[2]: ""})
    submit(two, 2, revealed="all")  # practice: counted as an attempt, not as recall
    submit(other, 1, {keys[0]: "other"})
    submit(loner, 1, {keys[1]: "x"})
    snippet = app.state.library.get(SNIPPET)
    learner_id = app.state.identity.learner_from(one.cookies.get("cc_learner"))
    old = datetime.now(UTC) - timedelta(days=3)
    write_at(
        app.state.store,
        AttemptRecord(
            learner_id,
            SNIPPET,
            snippet.version,
            "random",
            30,
            9,
            {"s2": False},
            "passed",
            blanks=({"span": 2, "key": "s2", "expected": "x", "given": "x1", "state": "accepted"},),
        ),
        old,
    )
    today, three_ago = datetime.now(UTC).date().isoformat(), old.date().isoformat()
    engine = app.state.store.engine
    for query, code, start, end in (
        ("class=a", "a", None, None),
        ("", None, None, None),
        ("class=b", "b", None, None),
        (f"class=a&from={today}", "a", today, None),
        (f"to={three_ago}", None, None, three_ago),
    ):
        figures, plain = stats(tutor, query), plain_figures(engine, SNIPPET, snippet.version, code, start, end)
        for name in ("attempts", "learners", "recalls", "accuracy", "heat"):
            assert figures[name] == plain[name], (query, name)
        assert answers_of(figures) == plain["given"], query
    assert stats(tutor, "class=a")["attempts"] == 5 and stats(tutor, f"class=a&from={today}")["attempts"] == 4
    assert [a["given"] for a in stats(tutor, "class=a")["tokens"][0]["wrong"]][:1] == ["nope"]
    per = {p["name"] or p["learner"]: p for p in stats(tutor, "class=a")["per_learner"]}
    assert per["小明"]["attempts"] == 3 and len(per) == 2 and all(p["due"] >= 0 for p in per.values())
    page = tutor.get(f"/teach/stats/{SNIPPET}?class=a").text
    assert "<svg" in page and 'class="tok h' in page and "小明" in page and "接受为替代答案" in page


def test_an_accepted_alternative_counts_as_right_until_it_is_withdrawn(app):
    tutor, csrf = teacher(app, name="王老师")
    make_class(tutor, csrf, "a")
    pupil = learner(app, "a")
    form = drill_form(app, SNIPPET, 30, 5)
    key = next(k for k in form if k[:1] == "s" and k[1:].isdigit())
    first = int(key[1:])
    states = lambda result: {b["key"]: b["state"] for b in result["result"]["blanks"]}  # noqa: E731
    assert states(submit(pupil, 5, {key: "alt_name"}))[key] == "wrong"
    version = app.state.library.get(SNIPPET).version
    base = {
        "csrf": csrf,
        "version": version,
        "first": str(first),
        "last": str(first),
        "back": f"/teach/stats/{SNIPPET}",
    }
    for bad, status in (
        ({"first": "x"}, 422),
        ({"last": "99999"}, 422),
        ({"text": ""}, 422),
        ({"version": "000000000000"}, 404),
        ({"csrf": "forged"}, 403),
    ):
        assert (
            tutor.post(f"/teach/stats/{SNIPPET}/alternatives", data={**base, "text": "alt_name", **bad}).status_code
            == status
        ), bad
    assert count(app, alternatives) == 0
    accepted = tutor.post(
        f"/teach/stats/{SNIPPET}/alternatives", data={**base, "text": "alt_name"}, follow_redirects=False
    )
    assert accepted.status_code == 303 and accepted.headers["location"] == f"/teach/stats/{SNIPPET}"
    assert states(submit(pupil, 5, {key: " alt_name "}))[key] == "right"
    [shown] = stats(tutor)["alternatives"]
    assert shown["text"] == "alt_name" and shown["accepted_by"] == "王老师" and shown["withdrawn_at"] is None
    assert "王老师" in tutor.get(f"/teach/stats/{SNIPPET}").text
    assert (
        tutor.post(f"/teach/stats/{SNIPPET}/alternatives/{shown['id']}/withdraw", data={"csrf": "no"}).status_code
        == 403
    )
    assert (
        tutor.post(
            f"/teach/stats/{SNIPPET}/alternatives/{shown['id']}/withdraw", data={"csrf": csrf}, follow_redirects=False
        ).status_code
        == 303
    )
    assert (
        tutor.post(f"/teach/stats/{SNIPPET}/alternatives/{shown['id']}/withdraw", data={"csrf": csrf}).status_code
        == 404
    )
    for unknown in ("99999999999", "x", "-1"):
        assert (
            tutor.post(f"/teach/stats/{SNIPPET}/alternatives/{unknown}/withdraw", data={"csrf": csrf}).status_code
            == 404
        ), unknown
    assert states(submit(pupil, 5, {key: "alt_name"}))[key] == "wrong"
    [gone] = stats(tutor)["alternatives"]
    assert gone["withdrawn_by"] == "王老师" and gone["withdrawn_at"]


def test_csv_has_one_row_per_blank_of_the_class_only(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "a")
    make_class(tutor, csrf, "b")
    pupil, other = learner(app, "a", "小红"), learner(app, "b")
    form = drill_form(app, SNIPPET, 30, 1)
    key = next(k for k in form if k[:1] == "s" and k[1:].isdigit())
    submit(pupil, 1, {key: "=cmd()"})
    submit(pupil, 2)
    submit(other, 1)
    response = tutor.get("/teach/classes/a/attempts.csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    blanks = len([k for k in form if k[:1] == "s" and k[1:].isdigit()]) + len(
        [k for k in drill_form(app, SNIPPET, 30, 2) if k[:1] == "s" and k[1:].isdigit()]
    )
    assert len(rows) == blanks and {r["class_code"] for r in rows} == {"a"} and {r["name"] for r in rows} == {"小红"}
    wrong = [r for r in rows if r["state"] == "wrong"]
    assert [r["given"] for r in wrong] == ["'=cmd()"]  # a spreadsheet would run it: quoted
    assert tutor.get("/teach/classes/nope/attempts.csv").status_code == 404
    assert SiteClient(app).get("/teach/classes/a/attempts.csv").status_code == 401
    assert tutor.get("/teach/classes/a/attempts.csv?from=2099-01-01").text.count("\n") == 1  # the header only
    page = tutor.get("/teach/classes/a")
    assert page.status_code == 200 and "小红" in page.text and "/join/a" in page.text


def test_the_api_returns_the_page_figures_with_the_bearer_token(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "a")
    key = next(k for k in drill_form(app, SNIPPET, 30, 1) if k[:1] == "s" and k[1:].isdigit())
    submit(learner(app, "a"), 1, {key: "nope"})
    api = SiteClient(app)
    assert api.get(f"/api/snippets/{SNIPPET}/stats?class=a").status_code == 401
    figures = api.get(f"/api/snippets/{SNIPPET}/stats?class=a", headers=BEARER)
    assert figures.status_code == 200 and figures.json() == stats(tutor, "class=a")
    assert figures.json()["attempts"] == 1 and figures.json()["learners"] == 1
    response = api.get(f"/api/snippets/{SNIPPET}/stats?from=2026-02-30", headers=BEARER)
    assert response.status_code == 422 and "YYYY-MM-DD" in response.text
    assert api.get(f"/api/snippets/{SNIPPET}/stats?class=zz", headers=BEARER).status_code == 404


def test_without_a_name_at_login_the_session_is_recorded_by_a_short_id(app):
    assert SiteClient(app).post("/teach/login", data={"token": TOKEN, "name": "名" * 41}).status_code == 422
    tutor, csrf = teacher(app, name="")
    version = app.state.library.get(SNIPPET).version
    assert (
        tutor.post(
            f"/teach/stats/{SNIPPET}/alternatives",
            data={"csrf": csrf, "version": version, "first": "2", "last": "2", "text": "y"},
            follow_redirects=False,
        ).status_code
        == 303
    )
    [shown] = stats(tutor)["alternatives"]
    label = shown["accepted_by"]
    assert label.startswith("教师 ") and len(label) == len("教师 ") + 6
    other, other_csrf = teacher(app, name="")
    make_class(other, other_csrf, "z")
    assert [c["created_by"] for c in other.get("/teach/classes", headers=JSON).json()["classes"]] != [label]


def test_attempts_from_before_classes_are_counted_as_no_class_by_the_migration(database_url):
    from alembic import command
    from sqlalchemy import JSON, DateTime, column, create_engine, insert, table

    from app.classes.tables import spans
    from app.db import migrate

    old = table(
        "attempts",
        *(
            column(n)
            for n in (
                "id",
                "learner",
                "snippet_id",
                "version",
                "mode",
                "correct",
                "total",
                "unit",
                "kinds",
                "hints",
                "practice",
            )
        ),
        column("results", JSON),
        column("blanks", JSON),
        column("created_at", DateTime(timezone=True)),
    )
    engine = create_engine(database_url)
    with engine.begin() as conn:
        config = migrate.alembic_config()
        config.attributes["connection"] = conn
        command.upgrade(config, "0003")
        conn.execute(
            insert(old),
            [
                {
                    "id": i,
                    "learner": "a" * 32,
                    "snippet_id": "s",
                    "version": "v1",
                    "mode": "random",
                    "correct": 1,
                    "total": 2,
                    "results": {},
                    "unit": "token",
                    "kinds": "names",
                    "hints": 0,
                    "practice": False,
                    "created_at": datetime(2026, 11, 30, 23, 0, tzinfo=UTC),
                    "blanks": [
                        {"span": 3, "key": "s3", "expected": "x", "given": "x", "state": "right"},
                        {"span": [5, 6], "key": "s5", "expected": "a.b", "given": "q", "state": "wrong"},
                    ],
                }
                for i in (1, 2, 1500)
            ],
        )
        command.upgrade(config, "head")
    with engine.connect() as db:
        rows = {r.span: (r.class_code, r.day, r.seen, r.missed) for r in db.execute(select(spans))}
    assert rows == {3: ("", "2026-11-30", 3, 0), 5: ("", "2026-11-30", 3, 3), 6: ("", "2026-11-30", 3, 3)}
    engine.dispose()


def test_an_alternative_on_a_fixed_blank_of_an_exercise(app):
    from tests.helpers import right_answers

    tutor, csrf = teacher(app)
    pupil = learner(app)
    exercise = "ex2-online-softmax"
    snippet = app.state.library.get(exercise)
    answers = right_answers(app, exercise)
    key = next(iter(answers))

    def state_of(text: str) -> tuple[str, object]:
        form = {"version": snippet.version, **answers, key: text}
        result = pupil.post(f"/s/{exercise}", data=form, headers=JSON).json()["result"]
        with app.state.store.engine.connect() as db:
            blanks = db.execute(select(attempts.c.blanks).order_by(attempts.c.created_at.desc()).limit(1)).scalar()
        return next(b["state"] for b in result["blanks"] if b["key"] == key), blanks[0]["span"]

    state, span = state_of("other_text")
    assert state == "wrong"
    first, last = (span, span) if isinstance(span, int) else span
    assert (
        tutor.post(
            f"/teach/stats/{exercise}/alternatives",
            data={
                "csrf": csrf,
                "version": snippet.version,
                "first": str(first),
                "last": str(last),
                "text": "other_text",
            },
            follow_redirects=False,
        ).status_code
        == 303
    )
    assert state_of("other_text")[0] == "right" and state_of("else")[0] == "wrong"


def test_a_class_code_is_typed_in_any_case_and_a_wrong_one_is_said_on_the_me_page(app):
    tutor, csrf = teacher(app)
    made = tutor.post("/teach/classes", data={"csrf": csrf}, follow_redirects=False)
    code = made.headers["location"].rsplit("/", 1)[1]
    assert code.isupper()  # generated codes are upper case
    pupil = SiteClient(app)
    assert pupil.post("/me/profile", data={"class_code": code.lower()}, follow_redirects=False).status_code == 303
    assert pupil.get("/me", headers=JSON).json()["learner"]["class_code"] == code  # stored as created
    other = SiteClient(app)
    assert other.get(f"/join/{code.lower()}").status_code == 200
    assert other.post(f"/join/{code.lower()}", follow_redirects=False).status_code == 303
    assert other.get("/me", headers=JSON).json()["learner"]["class_code"] == code
    assert tutor.get(f"/teach/classes/{code.lower()}").status_code == 200
    submit(other, seed=1)
    assert stats(tutor, f"class={code.lower()}")["attempts"] == 1
    chart = tutor.get(f"/teach/stats/{SNIPPET}").text.split('<svg class="chart"')[1].split("</svg>")[0]
    assert f">{datetime.now(UTC).date().isoformat()}</text>" in chart  # the day under its dot
    refused = tutor.post("/teach/classes", data={"csrf": csrf, "code": code.lower()})
    assert refused.status_code == 409 and count(app, classes) == 1  # no second class differing only in case
    wrong = pupil.post("/me/profile", data={"name": "小明", "class_code": "nope-1"})
    assert wrong.status_code == 422
    assert "没有班级代码 “nope-1”" in wrong.text and "我的进度" in wrong.text  # the /me page, not a bare error page
    assert 'value="nope-1" aria-invalid="true"' in wrong.text and 'value="小明"' in wrong.text  # what was typed
    assert pupil.get("/me", headers=JSON).json()["learner"] == {"name": None, "class_code": code, "class_name": None}
    assert pupil.post("/me/profile", data={"class_code": "nope-1"}, headers=JSON).json()["error"]


def test_an_unnamed_teacher_is_named_in_the_language_of_the_page(app):
    import re

    tutor, csrf = teacher(app, name="")
    make_class(tutor, csrf, "a")
    form = drill_form(app, SNIPPET, 30, 5)
    first = next(k for k in form if k[:1] == "s" and k[1:].isdigit())[1:]
    version = app.state.library.get(SNIPPET).version
    assert (
        tutor.post(
            f"/teach/stats/{SNIPPET}/alternatives",
            data={"csrf": csrf, "version": version, "first": first, "last": first, "text": "alt_name"},
            follow_redirects=False,
        ).status_code
        == 303
    )
    for url in ("/teach/classes", f"/teach/stats/{SNIPPET}"):
        english = tutor.get(url + "?lang=en").text
        sid = re.search(r"Teacher ([0-9a-f]{6})\b", english).group(1)
        assert "教师 " + sid not in english
        assert "教师 " + sid in tutor.get(url + "?lang=zh").text


def test_csv_keeps_operator_and_number_answers_and_quotes_formulas(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "a")
    pupil = learner(app, "a")
    seed, form = next(
        (seed, form)
        for seed in range(1, 200)
        for form in [drill_form(app, SNIPPET, 50, seed)]
        if {"-", "+", "0.0"} <= set(form.values())
    )
    keys = {text: next(k for k in form if k[:1] == "s" and form[k] == text) for text in ("-", "+", "0.0")}
    hostile = next(k for k in form if k[:1] == "s" and k[1:].isdigit() and k not in keys.values())
    submit(pupil, seed, {keys["-"]: "+", keys["+"]: "-2+3", keys["0.0"]: "-1", hostile: "@SUM(A1)"}, rate=50)
    rows = list(csv.DictReader(io.StringIO(tutor.get("/teach/classes/a/attempts.csv").text)))
    given = {r["blank"]: (r["expected"], r["given"]) for r in rows}
    assert given[keys["-"]] == ("-", "+") and given[keys["0.0"]] == ("0.0", "-1")  # as typed, so they count
    assert given[keys["+"]] == ("+", "'-2+3") and given[hostile][1] == "'@SUM(A1)"  # a spreadsheet would run these
    for cell in ("=1", "==", "-=", "+1+cmd", "\t=1", "＝1"):
        assert csv_cell(cell) == "'" + cell, cell
    for cell in ("-", "+", "@", "-0.5", "+3", "1e-3", "x - 1"):
        assert csv_cell(cell) == cell, cell
