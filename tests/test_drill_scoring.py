"""Fair scoring and clear verdicts: literal values, empty blanks, revealed blanks, failed checks."""

import json
import re
from html import unescape

import pytest

from app.engine.diff import token_diff
from app.engine.score import Hole, is_match, score
from app.main import create_app
from app.settings import Settings
from tests.helpers import attempts_of, drill_form, right_answers
from tests.servers import copy_snippets
from tests.site_client import SiteClient

pytestmark = pytest.mark.server

JSON = {"accept": "application/json"}


@pytest.mark.parametrize(
    "given, expected",
    [
        ("1e-6", "0.000001"),
        ("10000.0", "1e4"),
        ("0x10", "16"),
        ("1_000", "1000"),
        ("1E4", "10000.0"),
        ("x * 1e-6", "x*0.000001"),
        ("2j", "2.0j"),
    ],
)
def test_numbers_compare_by_value(given, expected):
    assert is_match(given, expected)


@pytest.mark.parametrize("given, expected", [("1", "1.0"), ("1e4", "10000"), ("0.1", "0.10001"), ("x1", "x01")])
def test_numbers_of_another_type_or_value_differ(given, expected):
    assert not is_match(given, expected)


def test_a_revealed_blank_is_never_right():
    holes = [Hole("s0", 0, 1, "a"), Hole("s2", 4, 5, "b")]
    verdicts = score(holes, {"s0": "a", "s2": "b"}, frozenset({"s2"}))
    assert [(v.correct, v.revealed) for v in verdicts] == [(True, False), (False, True)]


def test_token_diff_marks_what_is_missing_and_what_is_extra():
    changes = token_diff("p_ij.sum(dim=1)", "p_ij.sum(dim=-1, keepdim=True)")
    assert [c.text for c in changes if c.op == "missing"] == ["-", ",", "keepdim", "=", "True"]
    assert [c.text for c in changes if c.op == "extra"] == []
    swapped = token_diff("torch.maximum(a,b)", "torch.max(a, b)")
    assert [(c.op, c.text) for c in swapped if c.op != "same"] == [("extra", "maximum"), ("missing", "max")]
    assert all(c.op == "same" for c in token_diff("1e4 + x  # c", "10000.0+x"))


def post(client, snippet_id, form, **headers):
    return client.post(f"/s/{snippet_id}/drill", data=form, headers=headers)


def test_empty_blanks_are_not_run_and_the_filled_ones_are_scored(running_client):
    form = drill_form(running_client.app, "mlm-online-softmax", 20, 5)
    keys = [k for k in form if re.fullmatch(r"s\d+", k)]
    form[keys[0]] = form[keys[1]] = "  "
    data = post(running_client, "mlm-online-softmax", form, **JSON).json()["result"]
    assert data["run"] is None and data["empty"] == 2
    assert data["correct"] == len(keys) - 2
    states = {b["key"]: b["state"] for b in data["blanks"]}
    assert states[keys[0]] == states[keys[1]] == "empty" and set(states.values()) == {"right", "empty"}
    html = post(running_client, "mlm-online-softmax", form).text
    assert "2 个空还没填，代码没有运行" in html and "SyntaxError" not in html and 'class="verdict' not in html
    form[keys[0]], form[keys[1]] = (
        right_answers(running_client.app, "mlm-online-softmax", 20, 5)[keys[0]],
        "no_such_name",
    )
    data = post(running_client, "mlm-online-softmax", form, **JSON).json()["result"]
    assert data["run"]["status"] in ("error", "failed") and data["empty"] == 0  # all filled: it runs


def test_revealed_blanks_are_marked_revealed_and_stored_so(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 6)
    keys = [k for k in form if re.fullmatch(r"s\d+", k)]
    form["revealed"] = f"{keys[0]},{keys[2]}"
    data = post(client, "mlm-online-softmax", form, **JSON).json()["result"]
    states = {b["key"]: b["state"] for b in data["blanks"]}
    assert states[keys[0]] == states[keys[2]] == "revealed" and data["correct"] == len(keys) - 2
    html = post(client, "mlm-online-softmax", form, **{"HX-Request": "true"}).text
    marks = json.loads(unescape(re.search(r'data-marks="([^"]*)"', html).group(1)))
    assert marks == {keys[0]: ["revealed"], keys[2]: ["revealed"]}
    rows = attempts_of(client.app.state.store, learner_of(client), "mlm-online-softmax")
    assert rows[0]["results"][keys[0]] is False and rows[0]["results"][keys[1]] is True
    assert {b["key"]: b["state"] for b in rows[0]["blanks"]}[keys[0]] == "revealed"


def test_a_revealed_key_outside_the_mask_is_refused(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 6, revealed="s9999")
    response = post(client, "mlm-online-softmax", form)
    assert response.status_code == 422 and "不属于这次遮盖" in response.text


def learner_of(client) -> str:
    return client.app.state.identity.learner_from(client.cookies.get("cc_learner"))


def test_the_attempt_record_carries_unit_kinds_states_and_ranges(client):
    form = drill_form(client.app, "mlm-flash-forward", 20, 8, unit="span", kinds="names,operators")
    keys = [k for k in form if re.fullmatch(r"s\d+", k)]
    form[keys[0]] = "wrong_thing"
    form[keys[1]] = ""
    assert post(client, "mlm-flash-forward", form).status_code == 200
    row = attempts_of(client.app.state.store, learner_of(client), "mlm-flash-forward")[0]
    assert row["unit"] == "span" and row["kinds"] == "names,operators"
    states = {b["key"]: b["state"] for b in row["blanks"]}
    assert states[keys[0]] == "wrong" and states[keys[1]] == "empty"
    assert set(states.values()) <= {"right", "wrong", "empty"} and row["results"][keys[0]] is False
    for blank in row["blanks"]:
        first, last = (blank["span"], blank["span"]) if isinstance(blank["span"], int) else blank["span"]
        assert first == int(blank["key"][1:]) <= last


def test_a_wrong_span_shows_a_token_diff(client):
    form = drill_form(client.app, "mlm-flash-forward", 30, 8, unit="line")
    key, answer = next((k, v) for k, v in form.items() if re.fullmatch(r"s\d+", k) and "(" in v)
    form[key] = answer.replace("(", "[", 1)
    html = post(client, "mlm-flash-forward", form, **{"HX-Request": "true"}).text
    assert '<ul class="diffs">' in html and "<del>[</del>" in html and "<ins>(</ins>" in html
    token_form = drill_form(client.app, "mlm-flash-forward", 30, 8)
    key = next(k for k in token_form if re.fullmatch(r"s\d+", k))
    token_form[key] = "nope"
    assert "diffs" not in post(client, "mlm-flash-forward", token_form, **{"HX-Request": "true"}).text


def test_a_wrong_fixed_blank_of_an_exercise_shows_a_token_diff(client):
    snippet = client.app.state.library.get("ex2-online-softmax")
    answers = right_answers(client.app, "ex2-online-softmax")
    assert answers["c0"] == "x.max(dim=-1, keepdim=True).values"
    answers["c0"] = "x.max(dim=1).values"
    html = client.post("/s/ex2-online-softmax", data={"version": snippet.version, **answers}).text
    diffs = html.split('<ul class="diffs">')[1].split("</ul>")[0]
    assert diffs.count("<li>") == 1 and "<ins>-</ins>" in diffs and "<ins>keepdim</ins>" in diffs
    assert "<span>values</span>" in diffs  # the tokens in common, as they are
    right = client.post(
        "/s/ex2-online-softmax", data={"version": snippet.version, **right_answers(client.app, "ex2-online-softmax")}
    ).text
    assert '<ul class="diffs">' not in right


BARE_CHECK = """---
title: bare check
summary: a check without messages
level: 1
---

```python
def double(x):
    return x * 2
```

```python check
assert double(2) == 4
assert double(3) == 6
```
"""


@pytest.fixture(scope="module")
def bare_client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bare")
    snippets = copy_snippets(folder)
    (snippets / "bare-check.md").write_text(BARE_CHECK, encoding="utf-8")
    settings = Settings(data_dir=folder / "data", snippets_dir=snippets, use_cdn=False, cpu_seconds=2, wall_seconds=4)
    with SiteClient(create_app(settings)) as client:
        yield client


def test_a_failed_check_without_a_message_shows_its_line(bare_client):
    snippet = bare_client.app.state.library.get("bare-check")
    page = bare_client.get("/s/bare-check/drill?rate=50&seed=1&kinds=operators").text
    (key,) = re.findall(r'name="(s\d+)"', page)  # `*` is the one operator
    form = {"version": snippet.version, "rate": "50", "seed": "1", "kinds": "operators", key: "+"}
    data = post(bare_client, "bare-check", form, **JSON).json()["result"]
    assert data["run"]["status"] == "failed" and data["run"]["line"] == 2  # 3 + 2 == 5, 2 + 2 passes
    html = post(bare_client, "bare-check", form).text
    assert "验证未通过" in html and "验证代码 第 2 行：" in html and "断言不成立：assert double(3) == 6" in html


@pytest.mark.parametrize(
    "status, message, shown",
    [
        ("timeout", "CPU time limit (2 s) reached", "超出 CPU 时间上限（2 秒）"),
        ("timeout", "wall-clock limit (4 s) reached", "超出运行时间上限（4 秒）"),
        ("memory", "memory limit (1024 MiB) reached: MemoryError", "超出内存上限（1024 MiB）"),
        ("error", "exited with code 3 before the check finished", "代码在验证完成前退出（退出码 3）"),
        (
            "error",
            "SystemExit(0): the code exited before the check finished",
            "代码调用了 SystemExit(0)，在验证完成前退出",
        ),
        ("crashed", "killed by SIGSEGV (Segmentation fault)", "进程被信号 SIGSEGV 终止"),
        ("error", "NameError: name 'm_ij' is not defined", "NameError: name 'm_ij' is not defined"),
        ("failed", "AssertionError", "断言不成立：assert b"),
        ("failed", "online_softmax 结果不正确", "online_softmax 结果不正确"),
    ],
)
def test_verdict_messages_speak_the_learners_language(status, message, shown):
    from app.learn.verdicts import learner_message
    from app.sandbox.types import Verdict

    run = Verdict(status, message, part="check" if status == "failed" else "code", line=2)
    assert learner_message(run, "assert a\nassert b\n") == shown


def test_a_token_diff_escapes_what_was_typed():
    from app.routes.outcome import _diff

    assert "&lt;b&gt;&amp;" in _diff("<b>&'", "x < y")
    assert _diff("torch.maximum(a,b)", "torch.max(a, b)").count("<del>") == 1


@pytest.mark.parametrize(
    "query, says",
    [
        ("unit=word", "挖空单位必须是 token、span 或 line 之一"),
        ("kinds=names,keywords", "挖空种类只能是 names、literals、operators、punctuation、annotations"),
        ("kinds=,", "挖空种类只能是"),
    ],
)
def test_a_bad_unit_or_kind_is_a_clear_422(client, query, says):
    page = client.get(f"/s/mlm-online-softmax/drill?rate=20&seed=1&{query}")
    assert page.status_code == 422 and says in page.text
    form = {**drill_form(client.app, "mlm-online-softmax", 20, 1), **dict([query.split("=")])}
    before = len(attempts_of(client.app.state.store, client.cookies.get("cc_learner") or "-"))
    submitted = post(client, "mlm-online-softmax", form)
    assert submitted.status_code == 422 and says in submitted.text
    assert len(attempts_of(client.app.state.store, client.cookies.get("cc_learner") or "-")) == before
