"""The five fixed exercises: blanks, hints, answers, explanation and the short-answer questions."""

import re

import pytest

from tests.helpers import EXERCISES, input_names, responses_of, right_answers

pytestmark = pytest.mark.app


def submit(client, snippet_id, answers, **extra):
    version = client.app.state.library.get(snippet_id).version
    return client.post(f"/s/{snippet_id}", data={"version": version, **answers, **extra})


def test_every_exercise_renders_its_blanks_hints_and_math(client):
    for snippet_id in EXERCISES:
        snippet = client.app.state.library.get(snippet_id)
        html = client.get(f"/s/{snippet_id}").text
        assert len(input_names(html)) == len(snippet.blanks) > 0
        assert "$$" not in html.replace("\\$", "")
        assert 'class="math' in html
        hints = html.split('<details class="hints">')[1].split("</details>")[0]
        assert hints.count("<li>") >= len(snippet.hints)
        assert "参考答案" not in html.split('id="trainer"')[1]  # only after a submission or reveal


def test_group_hints_from_cloze_are_offered(client):
    html = client.get("/s/ex1-attention-memory").text
    assert "Q 的 shape 是 [N, d]" in html


def test_reveal_all_before_submitting(client):
    snippet = client.app.state.library.get("ex3-blocked-matmul")
    page = client.get("/s/ex3-blocked-matmul").text
    assert 'name="reveal" value="all"' in page.split('class="reveal-every"')[1].split("</form>")[0]
    reveal = {"version": snippet.version, "reveal": "all"}
    html = client.post("/s/ex3-blocked-matmul", data=reveal, headers={"HX-Request": "true"}).text
    assert html.count('class="blank revealed"') == len(snippet.blanks)
    assert "参考答案" in html
    # A link cannot reveal: the old address shows the exercise as it is.
    plain = client.get("/s/ex3-blocked-matmul?reveal=1").text
    assert 'class="blank revealed"' not in plain and "参考答案" not in plain.split('id="trainer"')[1]


def test_submission_shows_answers_and_explanation(client):
    answers = right_answers(client.app, "ex2-online-softmax")
    html = submit(client, "ex2-online-softmax", answers).text
    assert f"<strong>{len(answers)} / {len(answers)}</strong>" in html
    assert "参考答案" in html and "解析" in html and "需要在文件顶部 <code>import math</code>" in html


def test_wrong_fixed_blank_is_marked_wrong(client):
    answers = right_answers(client.app, "ex5-flash-backward")
    first = next(iter(answers))
    answers[first] = "Q_i @ K_j / math.sqrt(d)"
    html = submit(client, "ex5-flash-backward", answers).text
    assert re.search(rf'class="blank wrong" name="{first}"', html)


def test_questions_show_the_reference_beside_the_learners_text_and_store_a_rating(client):
    answers = right_answers(client.app, "ex5-flash-backward")
    response = submit(client, "ex5-flash-backward", answers, q0="因为 S 是 N×N 的", q1="")
    html = response.text
    assert "因为 S 是 N×N 的" in html and "（未作答）" in html
    assert "计算换显存" in html or "O(N^2)" in html or "O(B^2)" in html
    attempt = int(re.search(r"/attempts/(\d+)/rating", html).group(1))
    rated = client.post(
        f"/attempts/{attempt}/rating", data={"question": "0", "rating": "good"}, headers={"HX-Request": "true"}
    )
    assert rated.status_code == 200 and "良好" in rated.text
    stored = responses_of(client.app.state.store, attempt)
    assert [(r["question"], r["text"], r["rating"]) for r in stored] == [(0, "因为 S 是 N×N 的", "good"), (1, "", None)]


def test_another_learner_cannot_rate_my_answer(client):
    answers = right_answers(client.app, "ex5-flash-backward")
    html = submit(client, "ex5-flash-backward", answers, q0="x", q1="y").text
    attempt = int(re.search(r"/attempts/(\d+)/rating", html).group(1))
    client.cookies.set("cc_learner", "f" * 32, domain="testserver.local")
    response = client.post(f"/attempts/{attempt}/rating", data={"question": "0", "rating": "easy"})
    assert response.status_code == 404


def test_exercise_links_to_random_mode_of_the_same_code(client):
    html = client.get("/s/ex4-flash-forward").text
    assert 'href="/s/ex4-flash-forward/drill"' in html
    drill = client.get("/s/ex4-flash-forward/drill?rate=20&seed=1").text
    assert "共 " in drill and "已挖" in drill
