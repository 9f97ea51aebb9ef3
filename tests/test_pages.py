import json
import re
from html import unescape

import pytest

from app.engine.tokens import eligible_spans
from tests.helpers import EXERCISES, attempts_of, drill_form, input_names, right_answers
from tests.site_client import SiteClient

pytestmark = pytest.mark.app


def is_blank(key: str) -> bool:
    return re.fullmatch(r"[sc]\d+", key) is not None


DRILLS = ["mlm-online-softmax", "mlm-blocked-attention", "mlm-flash-forward"]


def test_home_lists_every_snippet_with_its_facts(client):
    html = client.get("/").text
    for snippet in client.app.state.library.all():
        assert snippet.title in html and snippet.summary in html
        assert f'href="/s/{snippet.id}' in html
    assert "MLM 代码训练模式" in html and "Level 1-2" in html
    data = client.get("/", headers={"accept": "application/json"}).json()
    assert [d["id"] for d in data][:1] == ["ex1-attention-memory"]  # sorted by level
    assert {d["id"] for d in data} == set(DRILLS + EXERCISES)


def test_drill_without_seed_redirects_to_a_shareable_url(client):
    response = client.get("/s/mlm-online-softmax/drill?rate=20", follow_redirects=False)
    assert response.status_code == 303
    version = client.app.state.library.get("mlm-online-softmax").version
    assert re.fullmatch(rf"/s/mlm-online-softmax/drill\?rate=20&seed=\d+&v={version}", response.headers["location"])


def test_drill_page_shows_prose_code_rates_and_counts(client):
    snippet = client.app.state.library.get("mlm-flash-forward")
    html = client.get("/s/mlm-flash-forward/drill?rate=30&seed=5").text
    n = len(eligible_spans(snippet.code))
    m = max(1, round(0.3 * n))
    assert f"共 {n} 个可挖空位 | 已挖 {m} 个" in html
    assert len(input_names(html)) == m
    for rate in (10, 15, 20, 30, 50):
        assert f'drill?rate={rate}&amp;seed=5&amp;v={snippet.version}"' in html
    assert 'class="math' in html and snippet.title in html


def test_same_url_same_mask_and_new_seed_new_mask(client):
    first = input_names(client.get("/s/mlm-online-softmax/drill?rate=20&seed=11").text)
    again = input_names(client.get("/s/mlm-online-softmax/drill?rate=20&seed=11").text)
    other = input_names(client.get("/s/mlm-online-softmax/drill?rate=20&seed=12").text)
    assert first == again and first != other


def test_htmx_gets_only_the_trainer_block(client):
    html = client.get("/s/mlm-online-softmax/drill?rate=50&seed=3", headers={"HX-Request": "true"}).text
    assert html.lstrip().startswith('<section id="trainer"') and "<html" not in html
    assert "已挖" in html


def test_right_answers_score_full_marks(client):
    form = drill_form(client.app, "mlm-blocked-attention", 30, 99)
    html = client.post("/s/mlm-blocked-attention/drill", data=form).text
    total = len(form) - 3
    assert f"<strong>{total} / {total}</strong>" in html
    assert html.count('class="blank right"') == total and 'class="blank wrong"' not in html


def test_whitespace_in_answers_never_matters(client):
    form = drill_form(client.app, "mlm-online-softmax", 50, 1)
    form = {k: (f"  {v}  " if is_blank(k) else v) for k, v in form.items()}
    html = client.post("/s/mlm-online-softmax/drill", data=form).text
    assert 'class="blank wrong"' not in html


def test_a_wrong_answer_is_marked_wrong_in_place(client):
    form = drill_form(client.app, "mlm-online-softmax", 10, 4)
    key = next(k for k in form if is_blank(k))
    form[key] = "wrong_name"
    total = len(form) - 3
    html = client.post("/s/mlm-online-softmax/drill", data=form).text  # a whole page, as without JavaScript
    assert f"<strong>{total - 1} / {total}</strong>" in html
    assert re.search(rf'class="blank wrong" name="{key}"[^>]*value="wrong_name"', html)
    # its reveal button asks the server (the form's submit button without script); no answer in the page
    assert f'name="reveal" value="{key}" class="reveal"' in html and "data-answer" not in html


def test_htmx_submission_gets_the_outcome_with_every_blank_marked(client):
    form = drill_form(client.app, "mlm-online-softmax", 10, 4)
    answers = right_answers(client.app, "mlm-online-softmax", 10, 4)
    key = next(k for k in form if is_blank(k))
    form[key] = "wrong_name"
    html = client.post("/s/mlm-online-softmax/drill", data=form, headers={"HX-Request": "true"}).text
    assert html.lstrip().startswith('<div id="outcome"') and "<input" not in html
    marks = json.loads(unescape(re.search(r'data-marks="([^"]*)"', html).group(1)))
    assert marks == {key: ["wrong"]}  # every other blank is right
    page = client.get("/s/mlm-online-softmax/drill?rate=10&seed=4").text
    assert f'name="{key}"' in page and "data-answer" not in page  # answers are asked of the server
    assert f"<strong>{len(answers) - 1} / {len(answers)}</strong>" in html and "同一遮盖再试一次" in html


def test_json_clients_get_json(client):
    data = client.get("/s/mlm-online-softmax/drill?rate=20&seed=8", headers={"accept": "application/json"}).json()
    assert data["rate"] == 20 and data["seed"] == 8 and len(data["blanks"]) == round(0.2 * data["eligible"])
    answers = right_answers(client.app, "mlm-online-softmax", 20, 8)
    result = client.post(
        "/s/mlm-online-softmax/drill",
        headers={"accept": "application/json"},
        json={"version": data["version"], "rate": 20, "seed": 8, "answers": answers},
    ).json()
    assert result["result"]["correct"] == result["result"]["total"] == len(answers)


def test_exercise_page_has_fixed_blanks_labelled_by_group(client):
    html = client.get("/s/ex3-blocked-matmul").text
    snippet = client.app.state.library.get("ex3-blocked-matmul")
    assert input_names(html) == [f"c{b.index}" for b in snippet.blanks]
    labels = [unescape(label) for label in re.findall(r'<input class="blank[^>]*aria-label="([^"]*)"', html)]
    groups = len({b.group for b in snippet.blanks})
    assert labels == [
        f"填空 {b.group}（共 {groups} 个），第 {snippet.code.count(chr(10), 0, b.start) + 1} 行" for b in snippet.blanks
    ]


def test_random_blanks_are_named_by_place_total_and_line(client):
    """ "blank 3 of 12, line 7": what a screen reader says for each blank, in code order."""
    snippet = client.app.state.library.get("mlm-flash-forward")
    html = client.get("/s/mlm-flash-forward/drill?rate=30&seed=3").text
    labels = [unescape(label) for label in re.findall(r'<input class="blank[^>]*aria-label="([^"]*)"', html)]
    starts = [span.start for span in eligible_spans(snippet.code) if f'name="s{span.index}"' in html]
    assert len(labels) == len(starts) > 10
    assert labels == [
        f"第 {n} 空（共 {len(starts)} 个），第 {snippet.code.count(chr(10), 0, start) + 1} 行"
        for n, start in enumerate(starts, start=1)
    ]
    english = client.get("/s/mlm-flash-forward/drill?rate=30&seed=3", headers={"accept-language": "en"}).text
    assert (
        unescape(re.search(r'<input class="blank[^>]*aria-label="([^"]*)"', english).group(1))
        == f"blank 1 of {len(starts)}, line {snippet.code.count(chr(10), 0, starts[0]) + 1}"
    )


def test_exercise_right_answers_score_full_marks(client):
    answers = right_answers(client.app, "ex4-flash-forward")
    snippet = client.app.state.library.get("ex4-flash-forward")
    html = client.post("/s/ex4-flash-forward", data={"version": snippet.version, **answers}).text
    assert f"<strong>{len(answers)} / {len(answers)}</strong>" in html


def test_attempts_are_stored_with_their_version(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 77)
    response = client.post("/s/mlm-online-softmax/drill", data=form)
    learner = client.app.state.identity.learner_from(response.cookies.get("cc_learner"))
    rows = attempts_of(client.app.state.store, learner)
    assert rows[0]["snippet_id"] == "mlm-online-softmax" and rows[0]["version"] == form["version"]
    assert rows[0]["correct"] == rows[0]["total"] == len(form) - 3 and rows[0]["seed"] == 77


def test_health_reports_execution_state(client):
    data = client.get("/healthz").json()
    assert data["status"] == "ok" and data["execution"] == "off" and data["snippets"] == 8


def test_reused_page_shell_gives_whole_pages(client):
    first = client.get("/s/mlm-online-softmax/drill?rate=20&seed=1").text
    second = client.get("/s/mlm-online-softmax/drill?rate=20&seed=2").text
    for html in (first, second):
        assert html.count('<section id="trainer"') == 1 and html.count("</html>") == 1
    assert first.split('<section id="trainer"')[0] == second.split('<section id="trainer"')[0]
    assert first != second


def test_weak_spots_aim_the_mask_at_blanks_missed_before(client):
    snippet = client.app.state.library.get("mlm-online-softmax")
    form = drill_form(client.app, "mlm-online-softmax", 20, 11)
    missed = [k for k in form if is_blank(k)][:8]
    for key in missed:
        form[key] = "wrong"
    client.post("/s/mlm-online-softmax/drill", data=form)  # the learner's cookie is kept by the client
    response = client.get("/s/mlm-online-softmax/drill/weak?rate=50", follow_redirects=True)
    assert response.status_code == 200 and "/review?" in str(response.url)
    # The review mask spends the rate on the tokens with the lowest recall: every missed one.
    assert set(missed) <= set(input_names(response.text))
    assert f"&v={snippet.version}" in str(response.url)
    fresh = SiteClient(client.app).get("/s/mlm-online-softmax/drill/weak?rate=50", follow_redirects=True)
    assert fresh.status_code == 200 and "seed=" in str(fresh.url)
    assert "32 个还没测过（新的）" in fresh.text and "上次没答出" not in fresh.text  # a new learner: all new


def test_home_follows_the_course_order_exercises_then_the_drills_with_their_intro(client):
    html = client.get("/").text
    exercises, drills = html.index("/s/ex1-attention-memory"), html.index("/s/mlm-online-softmax")
    heading, intro = re.search(r"<h2[^>]*>MLM 代码训练模式</h2>", html).start(), html.index("完成上面的固定填空后")
    assert html.index("/s/ex5-flash-backward") < heading < intro < drills and exercises < heading


def test_a_misleading_hint_of_the_course_gets_a_note_beside_it(client):
    html = client.get("/s/ex4-flash-forward").text
    assert "1 / l_new (或 p_ij / l_new)" in unescape(html)  # the course's own hint is kept
    assert "codecloze 注" in html and "beta @ v_j" in unescape(html)
