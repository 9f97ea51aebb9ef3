"""`/me` (HTML and JSON), the due list on `/`, CSV export, deleting history, the profile."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from app.memory.summary import due_list
from app.memory.tables import cards, tokens
from tests.helpers import attempts_of
from tests.memory_helpers import SNIPPET, card_row, learner_of, practise

pytestmark = pytest.mark.app


def time_passes(client, days: float) -> None:
    """Move this learner's cards' due dates and tokens' last tests back, as if `days` had gone by."""
    with client.app.state.store.engine.begin() as db:
        for card in db.execute(cards.select().where(cards.c.learner == learner_of(client))):
            db.execute(
                update(cards)
                .where(
                    cards.c.learner == card.learner, cards.c.snippet_id == card.snippet_id, cards.c.item == card.item
                )
                .values(due=card.due - timedelta(days=days))
            )
        db.execute(
            update(tokens)
            .where(tokens.c.learner == learner_of(client))
            .values(last_review=tokens.c.last_review - days * 86400)
        )


def test_me_shows_figures_chart_and_heatmap_per_snippet(client):
    assert "还没有练习记录" in client.get("/me").text
    practise(client, seed=1, wrong=2, ms="30000")
    practise(client, seed=2, wrong=0, ms="30000")
    data = client.get("/me", headers={"accept": "application/json"}).json()
    [s] = data["snippets"]
    assert s["snippet"] == SNIPPET and s["attempts"] == 2 and s["best"] == 1.0 and s["latest"] == 1.0
    assert s["seconds"] == 60.0 and s["streak"] == 1 and len(s["history"]) == 2 and s["history"][0][1] < 1
    assert sum(t["misses"] for t in s["tokens"].values()) == 2
    html = client.get("/me").text
    assert html.count('<svg class="chart"') == 1 and html.count("<circle") == 2
    assert "1 分 0 秒" in html
    heat = html.split('<pre class="heatmap">')[1].split("</pre>")[0]
    assert heat.count('class="tok h0"') > 0 and heat.count('class="tok h1"') > 0
    assert '没答出 1 次；答过：nope"' in heat and 'tabindex="0"' in heat
    assert "h2" in heat or "h3" in heat


def test_the_heatmap_cools_as_misses_age(client):
    practise(client, seed=1, wrong=2)
    from app.memory.progress import heat_level
    from tests.memory_helpers import token_rows

    row = next(r for r in token_rows(client).values() if r.misses)
    now = datetime.now(UTC)
    row = row._mapping
    from app.memory.state import TokenMemory

    memory = TokenMemory(0, row["stability"], None, row["heat"], row["heat_at"], 1, 1, ["nope"])
    assert heat_level(memory, now) > heat_level(memory, now + timedelta(days=30)) >= 1


def test_home_and_me_list_what_is_due_soonest_first(client):
    assert "今天没有要复习的" in client.get("/").text
    practise(client, snippet_id="mlm-online-softmax", seed=1, wrong=3)
    practise(client, snippet_id="mlm-blocked-attention", seed=1, wrong=0)
    store, library = client.app.state.store, client.app.state.library
    with store.engine.connect() as db:  # nothing is due again minutes after it was answered
        assert due_list(db, learner_of(client), library, datetime.now(UTC) + timedelta(minutes=30)) == []
    time_passes(client, 0.5)  # three of 19 missed: below the retention within hours
    with store.engine.connect() as db:
        assert [d["snippet"] for d in due_list(db, learner_of(client), library, datetime.now(UTC))] == [SNIPPET]
    time_passes(client, 3)  # tokens recalled once slip within a few days
    home = client.get("/").text  # due today
    assert '<span class="due-count">2</span>' in home and "开始复习" in home
    due = client.get("/me", headers={"accept": "application/json"}).json()["due"]
    assert [d["snippet"] for d in due] == ["mlm-online-softmax", "mlm-blocked-attention"]  # the missed one is due first
    assert due[0]["url"] == "/s/mlm-online-softmax/review?rate=30"  # the rate this learner drills at


def test_export_is_my_attempts_as_csv(client):
    practise(client, seed=1, wrong=1)
    practise(client, seed=2)
    other = type(client)(client.app)
    practise(other, seed=3)
    response = client.get("/me/attempts.csv")
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["seed"] for r in rows] == ["1", "2"] and rows[0]["mode"] == "random"
    assert '"state": "wrong"' in rows[0]["blanks"]


def test_export_defuses_formula_cells(client):
    practise(client, seed=1, wrong=1)
    from app.memory.export import csv_cell

    assert csv_cell("=cmd()") == "'=cmd()" and csv_cell("x") == "x" and csv_cell(None) == ""


def test_deleting_history_needs_confirmation_and_removes_everything(client):
    practise(client, seed=1, wrong=1)
    learner = learner_of(client)
    response = client.post("/me/delete", data={})
    assert response.status_code == 422 and "确认" in response.text
    assert len(attempts_of(client.app.state.store, learner)) == 1
    assert client.post("/me/delete", data={"confirm": "yes"}, follow_redirects=False).status_code == 303
    assert attempts_of(client.app.state.store, learner) == [] and card_row(client) is None
    assert client.get("/me", headers={"accept": "application/json"}).json()["snippets"] == []
    assert learner_of(client) == learner  # the id stays; only the history is gone


def test_profile_name_and_class_code(client):
    from app.classes import roster

    with client.app.state.store.engine.begin() as db:
        roster.create(db, "cs-101", None, "教师")
    assert (
        client.post(
            "/me/profile", data={"name": " 小  明 ", "class_code": "cs-101"}, follow_redirects=False
        ).status_code
        == 303
    )
    data = client.get("/me", headers={"accept": "application/json"}).json()
    assert data["learner"] == {"name": "小 明", "class_code": "cs-101", "class_name": None}
    assert "我的进度 · 小 明" in client.get("/me").text
    for bad in ({"name": "x" * 41}, {"class_code": "a b"}, {"class_code": "<script>"}, {"class_code": "cs-999"}):
        response = client.post("/me/profile", data=bad)
        assert response.status_code == 422, bad
    assert client.get("/me", headers={"accept": "application/json"}).json()["learner"]["name"] == "小 明"


def test_the_accuracy_chart_has_a_time_axis_with_dates(client):
    import re

    from app.memory.progress import CHART_W, chart_svg

    practise(client, seed=1, wrong=2)
    today = datetime.now(UTC).date().isoformat()
    chart = client.get("/me").text.split('<svg class="chart"')[1].split("</svg>")[0]
    assert re.search(rf'<text class="date" x="{CHART_W // 2}" y="\d+">{today}</text>', chart)  # one day: its date
    day = 86400.0
    start = datetime(2026, 11, 28, 9, tzinfo=UTC).timestamp()
    three = chart_svg([[start, 0.5], [start + day, 0.75], [start + 3 * day, 1.0]])
    assert ">2026-11-28</text>" in three and ">2026-12-01</text>" in three and "2026-11-29</text>" not in three
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', three)]
    assert xs == [0.0, CHART_W / 3, CHART_W]  # placed by time, not by count
    assert three.count('class="tick"') == 3


def test_an_overdue_review_says_how_late_it_is(client):
    practise(client, seed=1, wrong=2)  # two of 19 missed: due once both slip, FSRS's 0.212 days later
    now = datetime.now(UTC)
    time_passes(client, 3.3)
    due = client.get("/me").text.split('<ol class="due-list">')[1].split("</ol>")[0]
    assert '<strong class="overdue">3 天前到期</strong>' in due
    assert "due 3 days ago" in client.get("/me?lang=en").text
    with client.app.state.store.engine.begin() as db:
        db.execute(
            update(tokens)
            .where(tokens.c.learner == learner_of(client))
            .values(last_review=now.timestamp() - 0.212 * 86400 - 3900)
        )
    assert "1 小时前到期" in client.get("/me?lang=zh").text and "due 1 hour ago" in client.get("/?lang=en").text
    from app.memory.lateness import overdue_by

    assert overdue_by(now + timedelta(hours=1), now) is None and overdue_by(now, now) == "1 分钟前到期"
