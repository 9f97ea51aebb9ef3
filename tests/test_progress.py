"""Progress towards assignments that counts right, and what joining and the class figures say, over
HTTP on SQLite and PostgreSQL: attempts before joining or before the start day do not count, a
review target never reads more than its goal, past due says how late (pages, JSON, CSV), joining
names the class, a fixed blank's label is its full text, alternatives are described by line and
text, and CSV times carry their offset."""

import csv
import io
import re
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select, update

from app.classes.assignments import assignments
from app.db.records import AttemptRecord
from app.memory.tables import learners
from tests.class_helpers import SNIPPET, make_class, submit, teacher, write_at
from tests.helpers import right_answers
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
JSON = {"accept": "application/json"}
BEARER = {"authorization": f"Bearer {TOKEN}"}
FAR = "2099-12-31"
LATE_DUE = "2026-01-10"


@pytest.fixture
def app(teaching_app):
    return teaching_app


def assign(app, code: str, target: dict, due: str = FAR) -> int:
    starts = min(date.fromisoformat(due), datetime.now(UTC).date()).isoformat()  # a past due had a past start
    body = {"snippet": SNIPPET, "rate": 30, "unit": "token", "target": target, "starts": starts, "due": due}
    made = SiteClient(app).post(f"/api/classes/{code}/assignments", json=body, headers=BEARER)
    assert made.status_code == 201, made.text
    return made.json()["id"]


def board(app, code: str) -> dict:
    """(assignment id, learner name) → that learner's progress, as the API lists it."""
    listed = SiteClient(app).get(f"/api/classes/{code}/assignments", headers=BEARER).json()["assignments"]
    return {(a["id"], row["name"]): row for a in listed for row in a["learners"]}


def state(app, code: str, assignment: int, name: str) -> tuple:
    row = board(app, code)[assignment, name]
    return row["status"], row["progress"], row["attempts"], row["late_days"]


def member(app, code: str, name: str) -> tuple[SiteClient, str]:
    """A learner who joined `code` by its link and then named themselves; their client and id."""
    client = SiteClient(app)
    assert client.post(f"/join/{code}", follow_redirects=False).status_code == 303
    named = client.post("/me/profile", data={"name": name, "class_code": code}, follow_redirects=False)
    assert named.status_code == 303 and named.headers["location"] == "/me"  # same class: no join to confirm
    return client, app.state.identity.learner_from(client.cookies.get("cc_learner"))


def joined_at(app, learner: str) -> datetime | None:
    with app.state.store.engine.connect() as db:
        at = db.execute(select(learners.c.class_joined_at).where(learners.c.id == learner)).scalar()
    return at if at is None or at.tzinfo else at.replace(tzinfo=UTC)


def set_joined(app, learner: str, at: datetime | None) -> None:
    with app.state.store.engine.begin() as db:
        db.execute(update(learners).where(learners.c.id == learner).values(class_joined_at=at))


def set_starts(app, day: str) -> None:
    with app.state.store.engine.begin() as db:
        db.execute(update(assignments).values(starts=day))


def practised_at(app, learner: str, at: datetime) -> None:
    """An attempt with every blank right, dated `at`, in the class the learner's profile names now."""
    version = app.state.library.get(SNIPPET).version
    blanks = ({"span": 2, "key": "s2", "expected": "x", "given": "x", "state": "right"},)
    write_at(
        app.state.store, AttemptRecord(learner, SNIPPET, version, "random", 30, 7, {"s2": True}, blanks=blanks), at
    )


def day(text: str, hour: int = 12) -> datetime:
    return datetime.fromisoformat(text).replace(hour=hour, tzinfo=UTC)


def days_late() -> set[int]:
    """Days from LATE_DUE to today (UTC), and to tomorrow should midnight pass during the test."""
    today = datetime.now(UTC).date()
    return {(today - date.fromisoformat(LATE_DUE)).days + n for n in (0, 1)}


def test_attempts_before_joining_and_before_the_start_day_do_not_count(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "P1", "一班")
    early = SiteClient(app)
    submit(early, seed=1)  # every blank right, in no class yet
    assert early.post("/join/P1", follow_redirects=False).status_code == 303
    assert early.post("/me/profile", data={"name": "ana", "class_code": "P1"}).status_code == 200
    accuracy, reviews = assign(app, "P1", {"accuracy": 0.9}), assign(app, "P1", {"reviews": 3})
    # Not "done (100%)" from what was done before joining: nothing counts yet.
    assert state(app, "P1", accuracy, "ana") == ("not_started", 0.0, 0, None)
    assert state(app, "P1", reviews, "ana") == ("not_started", 0, 0, None)
    page = tutor.get("/teach/classes/P1").text
    assert "未开始" in page and "完成" not in page and "100%" not in page

    # Fixed dates: the assignments start on 10 March, the learner joined on 1 March.
    ana = early.app.state.identity.learner_from(early.cookies.get("cc_learner"))
    set_starts(app, "2026-03-10")
    set_joined(app, ana, day("2026-03-01"))
    practised_at(app, ana, day("2026-02-27"))  # before joining
    practised_at(app, ana, day("2026-03-05"))  # joined, but before the start day
    assert state(app, "P1", reviews, "ana") == ("not_started", 0, 0, None)
    practised_at(app, ana, day("2026-03-10", hour=0))  # the start day counts, from its first hour
    practised_at(app, ana, day("2026-03-12"))
    assert state(app, "P1", accuracy, "ana") == ("done", 1.0, 2, None)
    assert state(app, "P1", reviews, "ana") == ("in_progress", 2, 2, None)
    page = tutor.get("/teach/classes/P1").text
    assert "(2 / 3)" in page
    mine = {a["id"]: a for a in early.get("/me", headers=JSON).json()["assignments"]}
    assert (mine[reviews]["status"], mine[reviews]["progress"], mine[reviews]["starts"]) == (
        "in_progress",
        2,
        "2026-03-10",
    )

    # Four days of reviews towards three: done, and the progress reads three, never "4 / 3".
    practised_at(app, ana, day("2026-03-14"))
    practised_at(app, ana, day("2026-03-15"))
    assert state(app, "P1", reviews, "ana") == ("done", 3, 4, None)
    for page in (tutor.get("/teach/classes/P1").text, early.get("/").text, early.get("/me").text):
        assert "完成" in page and "4 / 3" not in page and "3 / 3" not in page


def test_joining_is_dated_kept_while_in_the_class_and_cleared_on_leaving(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "Q1")
    make_class(tutor, csrf, "Q2")
    before = datetime.now(UTC)
    client, bo = member(app, "Q1", "bo")
    first = joined_at(app, bo)
    assert first is not None and before - timedelta(seconds=1) <= first <= datetime.now(UTC) + timedelta(seconds=1)
    client.post("/me/profile", data={"name": "bo b", "class_code": "q1"})  # the same class, typed in lower case
    client.post("/join/Q1")  # the join link of the class they are in
    assert joined_at(app, bo) == first  # staying in a class keeps the day they joined
    reviews = assign(app, "Q1", {"reviews": 2})
    set_starts(app, "2026-03-10")

    # Unknown joining (a learner from before it was kept): only the start day bounds it.
    set_joined(app, bo, None)
    practised_at(app, bo, day("2026-03-08"))
    practised_at(app, bo, day("2026-03-11"))
    assert state(app, "Q1", reviews, "bo b") == ("in_progress", 1, 1, None)

    # Work done in another class is not this class's.
    assert client.post("/me/profile", data={"name": "bo b", "class_code": "Q2"}).status_code == 200
    assert joined_at(app, bo) > first
    practised_at(app, bo, day("2026-03-13"))
    assert client.post("/me/profile", data={"name": "bo b", "class_code": ""}).status_code == 200
    assert joined_at(app, bo) is None  # leaving clears it
    assert client.post("/join/Q1").status_code == 200
    rejoined = joined_at(app, bo)
    assert rejoined is not None and rejoined > first
    # Back in Q1 from now on: March's attempts were made before this stay (and one in Q2).
    assert state(app, "Q1", reviews, "bo b") == ("not_started", 0, 0, None)
    set_joined(app, bo, day("2026-03-01"))
    assert state(app, "Q1", reviews, "bo b") == ("in_progress", 1, 1, None)  # 13 March was in Q2


def test_past_due_says_how_many_days_late_on_every_page_and_in_the_csv(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "L1", "四班")
    ana_client, _ana = member(app, "L1", "ana")
    bo_client, _bo = member(app, "L1", "bo")
    finished = assign(app, "L1", {"accuracy": 0.5}, LATE_DUE)
    unfinished = assign(app, "L1", {"reviews": 2}, LATE_DUE)
    on_time = assign(app, "L1", {"reviews": 2})
    submit(ana_client, seed=3)  # every blank right: the accuracy target is met, one day of two reviews
    late = days_late()
    status, progress, attempts, ana_late = state(app, "L1", unfinished, "ana")
    assert (status, progress, attempts) == ("in_progress", 1, 1) and ana_late in late
    assert state(app, "L1", finished, "ana") == ("done", 1.0, 1, None)  # done: no longer late
    assert state(app, "L1", on_time, "ana")[3] is None  # not due yet
    assert state(app, "L1", finished, "bo")[0] == "not_started" and state(app, "L1", finished, "bo")[3] in late

    marks = re.compile(r'<strong class="late">逾期 (\d+) 天</strong>')
    page = tutor.get("/teach/classes/L1").text.split('class="grid assignment-status"')[1].split("</table>")[0]
    rows = {r.split("</td>")[0]: r for r in page.split("<tr><td>")[1:]}
    assert {int(n) for n in marks.findall(rows["ana"])} <= late and len(marks.findall(rows["ana"])) == 1
    assert len(marks.findall(rows["bo"])) == 2  # not started on both assignments past due
    for client, count in ((ana_client, 1), (bo_client, 2)):
        for path in ("/", "/me"):
            found = marks.findall(client.get(path).text)
            assert len(found) == count and {int(n) for n in found} <= late, path
    english = re.compile(r'<strong class="late">(\d+) days late</strong>')
    for path in ("/teach/classes/L1?lang=en", "/?lang=en", "/me?lang=en"):
        client = tutor if path.startswith("/teach") else bo_client
        assert english.search(client.get(path).text), path
    assert re.search(r"\.status \.late \{ color: var\(--wrong\)", SiteClient(app).get("/static/app.css").text)

    table = list(csv.DictReader(io.StringIO(tutor.get("/teach/classes/L1/attempts.csv").text)))
    assert table and {r["learner"] for r in table} == {table[0]["learner"]}  # ana's attempt only
    assert {r[f"assignment {unfinished}: {SNIPPET}"] for r in table} == {"in_progress"}
    assert {int(r[f"assignment {unfinished}: days late"]) for r in table} <= late
    assert {r[f"assignment {finished}: days late"] for r in table} == {""}
    assert {r[f"assignment {on_time}: days late"] for r in table} == {""}


def test_joining_says_the_class_name_and_me_shows_it(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "J1", "三班")
    make_class(tutor, csrf, "J2")
    pupil = SiteClient(app)
    assert "已加入" not in pupil.get("/me").text
    joined = pupil.post("/join/J1", follow_redirects=False)
    assert joined.status_code == 303 and joined.headers["location"] == "/me?joined=J1"
    page = pupil.get(joined.headers["location"]).text
    assert '<div class="notice ok" role="status" id="joined"><p><strong>已加入 三班</strong>' in page
    assert "三班</strong> <code>J1</code>" in page  # /me names the class, with its code
    assert "Joined 三班" in pupil.get("/me?joined=J1&lang=en").text
    assert "已加入" not in pupil.get("/me?lang=zh").text  # said once, after joining
    assert "已加入" not in pupil.get("/me?joined=J2").text  # a link cannot claim a class the learner is not in
    assert pupil.get("/me", headers=JSON).json()["learner"] == {"name": None, "class_code": "J1", "class_name": "三班"}

    moved = pupil.post("/me/profile", data={"name": "", "class_code": "j2"}, follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/me?joined=J2"
    page = pupil.get(moved.headers["location"]).text
    assert "已加入 J2" in page and "三班" not in page  # a class without a name is called by its code
    again = pupil.post("/me/profile", data={"name": "小红", "class_code": "J2"}, follow_redirects=False)
    assert again.headers["location"] == "/me"  # saving a name joins nothing
    left = pupil.post("/me/profile", data={"name": "小红", "class_code": ""}, follow_redirects=False)
    assert left.headers["location"] == "/me" and 'class="meta my-class"' not in pupil.get("/me").text


def test_stats_show_a_fixed_blanks_full_text_and_alternatives_by_line_and_text(app):
    tutor, csrf = teacher(app)
    exercise = "ex4-flash-forward"
    snippet = app.state.library.get(exercise)
    answers = right_answers(app, exercise)
    key = next(k for k, text in answers.items() if text == "torch.max(m_i, m_ij)")
    line = next(n for n, text in enumerate(snippet.code.splitlines(), 1) if "m_new = torch.max(m_i, m_ij)" in text)
    pupil = SiteClient(app)
    result = pupil.post(f"/s/{exercise}", data={"version": snippet.version, **answers, key: "torch.min(m_i, m_ij)"})
    assert result.status_code == 200
    blank = next(b for b in tutor.get(f"/teach/stats/{exercise}", headers=JSON).json()["tokens"])
    assert (blank["text"], blank["line"]) == ("torch.max(m_i, m_ij)", line)
    assert blank["wrong"] == [{"given": "torch.min(m_i, m_ij)", "count": 1}]
    assert "<code>torch.max(m_i, m_ij)</code>" in tutor.get(f"/teach/stats/{exercise}").text

    form = {"csrf": csrf, "version": snippet.version, "first": str(blank["first"]), "last": str(blank["last"])}
    accepted = tutor.post(
        f"/teach/stats/{exercise}/alternatives",
        data={**form, "text": "torch.maximum(m_i, m_ij)"},
        follow_redirects=False,
    )
    assert accepted.status_code == 303
    (alternative,) = tutor.get(f"/teach/stats/{exercise}", headers=JSON).json()["alternatives"]
    assert (alternative["text"], alternative["blank"], alternative["line"]) == (
        "torch.maximum(m_i, m_ij)",
        "torch.max(m_i, m_ij)",
        line,
    )
    page = tutor.get(f"/teach/stats/{exercise}").text
    said = f'<code>torch.maximum(m_i, m_ij)</code> 代替 <code class="blank-text">torch.max(m_i, m_ij)</code> <span class="muted">第 {line} 行</span>'
    assert said in page and "token 起的空" not in page
    english = tutor.get(f"/teach/stats/{exercise}?lang=en").text
    assert (
        f'in place of <code class="blank-text">torch.max(m_i, m_ij)</code> <span class="muted">Line {line}</span>'
        in english
    )


def test_csv_times_carry_their_offset(app):
    tutor, csrf = teacher(app)
    make_class(tutor, csrf, "T1")
    pupil, _id = member(app, "T1", "ana")
    submit(pupil, seed=2)
    offset = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$")
    for text in (tutor.get("/teach/classes/T1/attempts.csv").text, pupil.get("/me/attempts.csv").text):
        times = {row["created_at"] for row in csv.DictReader(io.StringIO(text))}
        assert times and all(offset.match(t) for t in times), times
        for t in times:
            assert abs(datetime.fromisoformat(t) - datetime.now(UTC)) < timedelta(minutes=5)
