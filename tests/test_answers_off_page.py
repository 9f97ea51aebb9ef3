"""Answers stay on the server: no drill or exercise page holds a blank's answer; revealing asks
the server, which keeps it, so a later submission counts that blank as revealed whatever the
page sends (through a real uvicorn, with script's JSON and without script)."""

import html
import re
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from markupsafe import escape

from app.engine.units import UNITS
from app.learn.drills import fixed_drill, random_drill
from app.memory.identity import LEARNER_COOKIE
from app.memory.reveals import KEPT_FOR, MASKS_KEPT
from tests.helpers import drill_form
from tests.servers import running_server

pytestmark = pytest.mark.server

SEEDS = (1, 2, 3)


class Attributes(HTMLParser):
    """Values of every data-* (but a formula's data-tex) and title attribute, and each blank input's attributes."""

    def __init__(self):
        super().__init__()
        self.values, self.blanks = [], []

    def handle_starttag(self, tag, attrs):
        # data-tex is a prose formula's TeX, shown on the page as that formula: text, not hidden data
        self.values += [v for k, v in attrs if v and (k.startswith("data-") or k == "title") and k != "data-tex"]
        if tag == "input" and "blank" in (dict(attrs).get("class") or ""):
            self.blanks.append(dict(attrs))
            self.values += [v for k, v in attrs if v and k != "class"]


def assert_no_answer(page: str, snippet, holes) -> None:
    assert "data-answer" not in page
    found = Attributes()
    found.feed(page)
    assert len(found.blanks) == len(holes)
    assert all(not b.get("value") for b in found.blanks)  # no blank arrives filled in
    for hole in holes:
        if hole.hint and hole.answer in hole.hint:
            continue  # the author's hint gives it away (ex3's 填空 4 hints "P_i @ V"): shown by choice
        forms = {
            hole.answer,
            html.escape(hole.answer),
            html.escape(hole.answer).encode("ascii", "xmlcharrefreplace").decode(),
        }
        # no attribute that could carry data is the answer
        assert not any(value.strip() in forms for value in found.values), (hole.key, hole.answer)
        if len(hole.answer.split()) > 1 and snippet.source.count(hole.answer) == 1:
            # several tokens found only at this blank in the file: highlighting would split them in
            # the code, so whole they could only be a leak
            assert not any(form in page for form in forms), (hole.key, hole.answer)


def test_no_drill_or_exercise_page_holds_a_blank_s_answer(client):
    library = client.app.state.library
    checked = 0
    for snippet in library.all():
        if snippet.is_exercise:
            drill = fixed_drill(snippet)
            assert_no_answer(client.get(f"/s/{snippet.id}").text, snippet, drill.holes)
            checked += 1
        for rate in snippet.rates:
            for unit in UNITS:
                for seed in SEEDS:
                    drill = random_drill(snippet, rate, seed, unit)
                    query = f"rate={rate}&seed={seed}&v={snippet.version}"
                    query += f"&unit={unit}" if unit != "token" else ""
                    assert_no_answer(client.get(f"/s/{snippet.id}/drill?{query}").text, snippet, drill.holes)
                    checked += 1
    assert checked > 100


def test_a_scored_page_holds_no_answer_of_a_wrong_blank(client):
    form = drill_form(client.app, "mlm-online-softmax", 30, 2, unit="line")
    key, answer = next((k, v) for k, v in form.items() if re.fullmatch(r"s\d+", k))
    form[key] = "wrong"
    page = client.post("/s/mlm-online-softmax/drill", data=form).text
    wrong = next(
        h for h in random_drill(client.app.state.library.get("mlm-online-softmax"), 30, 2, "line").holes if h.key == key
    )
    assert "data-answer" not in page and str(escape(wrong.answer)) not in page and wrong.answer not in page


@pytest.fixture(scope="module")
def served_data(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reveal")


@pytest.fixture(scope="module")
def served(served_data):
    with running_server(served_data, CODECLOZE_EXECUTION="false") as url:
        yield url


def learner(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"origin": url}, timeout=30)


def states(response) -> dict:
    return {b["key"]: b["state"] for b in response.json()["result"]["blanks"]}


def test_a_revealed_blank_counts_as_revealed_however_the_page_is_edited(served, main_app):
    form = drill_form(main_app, "mlm-online-softmax", 20, 7)
    keys = [k for k in form if re.fullmatch(r"s\d+", k)]
    http, honest = learner(served), learner(served)
    honest.post("/s/mlm-online-softmax/drill", data=form).raise_for_status()  # another learner meanwhile
    reply = http.post(
        "/s/mlm-online-softmax/drill",
        data={**form, keys[0]: "", "reveal": keys[0]},
        headers={"accept": "application/json"},
    )
    assert reply.status_code == 200 and reply.json() == {"revealed": {keys[0]: form[keys[0]]}}
    # The page "forgets" the reveal: the server does not.
    scored = http.post(
        "/s/mlm-online-softmax/drill", data={**form, "revealed": ""}, headers={"accept": "application/json"}
    )
    assert states(scored)[keys[0]] == "revealed" and {states(scored)[k] for k in keys[1:]} == {"right"}
    assert (
        states(honest.post("/s/mlm-online-softmax/drill", data=form, headers={"accept": "application/json"}))[keys[0]]
        == "right"
    )  # another learner's reveal is not theirs
    again = http.post("/s/mlm-online-softmax/drill", data=form, headers={"accept": "application/json"})
    assert states(again)[keys[0]] == "right"  # that submission counted it; a new try starts afresh
    # Reveal all, then a submission claiming none revealed.
    http.post("/s/mlm-online-softmax/drill", data={**form, "reveal": "all"}, headers={"accept": "application/json"})
    assert set(
        states(http.post("/s/mlm-online-softmax/drill", data=form, headers={"accept": "application/json"})).values()
    ) == {"revealed"}


def test_without_script_a_reveal_button_posts_the_form_and_gets_the_page_back(served, main_app):
    form = drill_form(main_app, "mlm-online-softmax", 20, 8)
    keys = [k for k in form if re.fullmatch(r"s\d+", k)]
    http = learner(served)
    page = http.post(
        "/s/mlm-online-softmax/drill", data={**form, keys[1]: "typed so far", keys[0]: "", "reveal": keys[0]}
    )
    assert page.status_code == 200 and 'id="trainer"' in page.text
    assert re.search(
        rf'class="blank revealed" name="{keys[0]}"[^>]*value="{re.escape(str(escape(form[keys[0]])))}"', page.text
    ) or re.search(
        rf'class="blank revealed" name="{keys[0]}"[^>]*value="'
        rf'{re.escape(html.escape(form[keys[0]]))}"',
        page.text,
    )
    assert re.search(rf'name="{keys[1]}"[^>]*value="typed so far"', page.text)  # what was typed stays
    scored = http.post("/s/mlm-online-softmax/drill", data=form, headers={"accept": "application/json"})
    assert states(scored)[keys[0]] == "revealed"


def test_reveal_all_of_an_exercise_is_kept_too(served, main_app):
    http = learner(served)
    snippet = main_app.state.library.get("ex3-blocked-matmul")
    answers = {h.key: h.answer for h in fixed_drill(snippet).holes}
    assert http.get("/s/ex3-blocked-matmul?reveal=1").status_code == 200  # a link another site may give
    untouched = http.post(
        "/s/ex3-blocked-matmul", data={"version": snippet.version, **answers}, headers={"accept": "application/json"}
    )
    assert set(states(untouched).values()) == {"right"}
    assert http.post("/s/ex3-blocked-matmul", data={"version": snippet.version, "reveal": "all"}).status_code == 200
    scored = http.post(
        "/s/ex3-blocked-matmul", data={"version": snippet.version, **answers}, headers={"accept": "application/json"}
    )
    assert set(states(scored).values()) == {"revealed"}


def test_a_reveal_of_a_blank_outside_the_mask_or_from_another_site_is_refused(served, main_app):
    form = drill_form(main_app, "mlm-online-softmax", 20, 9)
    http = learner(served)
    assert http.post("/s/mlm-online-softmax/drill", data={**form, "reveal": "s9999"}).status_code == 422
    cross = httpx.post(
        served + "/s/mlm-online-softmax/drill",
        data={**form, "reveal": "all"},
        headers={"origin": "http://evil.example", "accept": "application/json"},
    )
    assert cross.status_code == 403 and "revealed" not in cross.text


def reveal_rows(data: Path, learner_id: str | None = None) -> list[tuple]:
    with closing(sqlite3.connect(data / "codecloze.db")) as db:
        rows = db.execute("SELECT learner, mask, blanks, created_at FROM reveals").fetchall()
    return [row for row in rows if learner_id is None or row[0] == learner_id]


def test_a_flood_of_anonymous_reveals_writes_a_row_each_and_an_honest_learner_is_unaffected(
    served, served_data, main_app
):
    """3,000 cookie-less `reveal=all` posts once wrote a row per blank (243,000 rows, 50 MB): now one a mask."""
    form = drill_form(main_app, "mlm-online-softmax", 50, 11)
    blanks = [k for k in form if re.fullmatch(r"s\d+", k)]
    before = len(reveal_rows(served_data))

    def anonymous(_):
        reply = httpx.post(
            served + "/s/mlm-online-softmax/drill",
            data={**form, "reveal": "all"},
            headers={"origin": served, "accept": "application/json"},
            timeout=30,
        )
        return reply.status_code

    honest = learner(served)
    with ThreadPoolExecutor(8) as pool:
        flood = pool.map(anonymous, range(300))
        honest.post(
            "/s/mlm-online-softmax/drill", data={**form, "reveal": blanks[0]}, headers={"accept": "application/json"}
        )
        scored = honest.post("/s/mlm-online-softmax/drill", data=form, headers={"accept": "application/json"})
        assert set(flood) == {200}
    assert len(blanks) > 20 and states(scored)[blanks[0]] == "revealed" and states(scored)[blanks[1]] == "right"
    assert len(reveal_rows(served_data)) - before == 300  # one row a mask, not one a blank


def test_a_learner_keeps_reveals_of_their_latest_masks_only(served, served_data, main_app):
    http = learner(served)
    seeds = range(100, 100 + MASKS_KEPT + 4)
    for seed in seeds:
        form = drill_form(main_app, "mlm-online-softmax", 20, seed)
        http.post("/s/mlm-online-softmax/drill", data={**form, "reveal": "all"}, headers={"accept": "application/json"})
    assert len(reveal_rows(served_data, http.cookies[LEARNER_COOKIE].split(".")[0])) == MASKS_KEPT
    latest = drill_form(main_app, "mlm-online-softmax", 20, seeds[-1])
    scored = http.post("/s/mlm-online-softmax/drill", data=latest, headers={"accept": "application/json"})
    assert set(states(scored).values()) == {"revealed"}
    first = drill_form(main_app, "mlm-online-softmax", 20, seeds[0])
    scored = http.post("/s/mlm-online-softmax/drill", data=first, headers={"accept": "application/json"})
    assert set(states(scored).values()) == {"right"}  # dropped: it counts as a new try


def test_reveals_older_than_a_day_count_for_nothing_and_go(served, served_data, main_app):
    form = drill_form(main_app, "mlm-online-softmax", 20, 12)
    http = learner(served)
    http.post("/s/mlm-online-softmax/drill", data={**form, "reveal": "all"}, headers={"accept": "application/json"})
    old = (datetime.now(UTC) - KEPT_FOR - timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S.%f")
    with closing(sqlite3.connect(served_data / "codecloze.db")) as db, db:
        db.execute("UPDATE reveals SET created_at = ?", (old,))  # everyone's, as if a day had passed
    scored = http.post("/s/mlm-online-softmax/drill", data=form, headers={"accept": "application/json"})
    assert set(states(scored).values()) == {"right"}
    other = drill_form(main_app, "mlm-online-softmax", 20, 13)
    learner(served).post(
        "/s/mlm-online-softmax/drill", data={**other, "reveal": "all"}, headers={"accept": "application/json"}
    )
    assert [row[2] for row in reveal_rows(served_data)] == [
        ",".join(sorted(k for k in other if re.fullmatch(r"s\d+", k)))
    ]


def row_counts(data: Path) -> dict[str, int]:
    with closing(sqlite3.connect(data / "codecloze.db")) as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: db.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def test_cookie_less_pages_write_nothing(served, served_data):
    """Anyone may ask without a cookie: reading a page keeps nothing of them (only a reveal or an attempt does)."""
    deadline = time.monotonic() + 60
    while (before := row_counts(served_data))["class_pending"] and time.monotonic() < deadline:
        time.sleep(0.2)  # earlier tests' attempts are still being folded into the class counters
    assert not before["class_pending"]
    for path in (
        "/",
        "/me",
        "/s/mlm-online-softmax/drill?rate=20&seed=1",
        "/s/mlm-online-softmax/review",
        "/s/ex1-attention-memory",
    ):
        for _ in range(5):
            assert httpx.get(served + path, timeout=30, follow_redirects=True).status_code == 200
    assert row_counts(served_data) == before
