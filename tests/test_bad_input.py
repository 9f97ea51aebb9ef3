"""Every way a request can be wrong gets a clear message and a 4xx, never a 500 or a traceback."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import drill_form

pytestmark = pytest.mark.app

JSON = {"accept": "application/json"}
URL = "/s/mlm-online-softmax/drill"


def assert_readable(response, status: int, words: str):
    assert response.status_code == status
    assert words in response.text
    assert "Traceback" not in response.text and "Internal Server Error" not in response.text


def test_unknown_snippet_is_a_404_page(client):
    response = client.get("/s/no-such-snippet/drill?rate=20&seed=1")
    assert_readable(response, 404, "没有找到片段")
    assert "<html" in response.text
    assert client.get("/s/no-such-snippet", headers=JSON).json()["error"].startswith("没有找到片段")
    assert_readable(client.get("/nowhere"), 404, "页面不存在")


@pytest.mark.parametrize(
    "query, words",
    [
        ("rate=9&seed=1", "挖空率必须在 10% 到 50% 之间"),
        ("rate=51&seed=1", "挖空率必须在 10% 到 50% 之间"),
        ("rate=abc&seed=1", "挖空率必须是 10 到 50 之间的整数"),
        ("rate=20&seed=x", "seed 必须是整数"),
        ("rate=20&seed=-1", "seed 必须在 0 到"),
        ("rate=20&seed=99999999999999999999", "seed 必须在 0 到"),
    ],
)
def test_bad_rate_or_seed_is_a_422_with_a_message(client, query, words):
    assert_readable(client.get(f"{URL}?{query}"), 422, words)
    data = client.get(f"{URL}?{query}", headers=JSON).json()
    assert words in data["error"]


def test_blank_that_is_not_in_the_mask(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5, s99999="x")
    assert_readable(client.post(URL, data=form), 422, "不属于这次遮盖的空：s99999")


def test_missing_answers(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5)
    key = next(k for k in form if k[0] == "s" and k[1:].isdigit())
    del form[key]
    assert_readable(client.post(URL, data=form), 422, "缺少这些空的答案")


def test_answer_of_100_kb(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5)
    key = next(k for k in form if k[0] == "s" and k[1:].isdigit())
    form[key] = "x" * 100_000
    assert_readable(client.post(URL, data=form), 422, "的答案太长")


def test_body_over_the_limit(client):
    assert_readable(
        client.post(URL, content=b"a=" + b"x" * 400_000, headers={"content-type": "application/x-www-form-urlencoded"}),
        413,
        "太大",
    )


def test_multi_line_answer(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5)
    key = next(k for k in form if k[0] == "s" and k[1:].isdigit())
    form[key] = "x\nimport os"
    assert_readable(client.post(URL, data=form), 422, "只能有一行")


def test_stale_version(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5, version="0123456789ab")
    assert_readable(client.post(URL, data=form), 409, "这个片段已经更新")
    del form["version"]
    assert_readable(client.post(URL, data=form), 409, "请刷新页面")


def test_non_utf8_body(client):
    response = client.post(
        URL, content=b"version=\xff\xfe&rate=20", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert_readable(response, 400, "不是 UTF-8")
    response = client.post(
        URL, content=b"version=%ff%fe", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert_readable(response, 400, "不是 UTF-8")


@pytest.mark.parametrize("body", [b"[1, 2]", b"{not json", b'{"answers": [1]}', b'{"version": {"a": 1}}'])
def test_malformed_json(client, body):
    response = client.post(URL, content=body, headers={"content-type": "application/json", **JSON})
    assert response.status_code == 400 and "无法读取提交的内容" in response.json()["error"]


@pytest.mark.parametrize("body", [b'{"answers": {"s1": "\\ud800"}}', b'{"\\udfff": "x"}'])
def test_lone_surrogates_in_json_are_a_400(client, body):
    response = client.post(URL, content=body, headers={"content-type": "application/json", **JSON})
    assert response.status_code == 400 and "单独的代理项" in response.json()["error"]


def test_bad_rate_in_a_submission(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5)
    form["rate"] = "70"
    assert_readable(client.post(URL, data=form), 422, "挖空率必须在")


def test_htmx_errors_keep_the_form(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 5, version="0123456789ab")
    response = client.post(URL, data=form, headers={"HX-Request": "true"})
    assert response.status_code == 409
    assert response.headers["HX-Retarget"] == "#flash" and response.headers["HX-Reswap"] == "innerHTML"
    assert "<html" not in response.text and "这个片段已经更新" in response.text


def test_rating_errors(client):
    assert_readable(client.post("/attempts/1/rating", data={"question": "0", "rating": "great"}), 422, "评分必须是")
    assert_readable(
        client.post("/attempts/12345/rating", data={"question": "0", "rating": "good"}), 404, "找不到这次作答"
    )


def test_form_fields_decode_like_the_standard_library():
    from urllib.parse import parse_qsl

    from app.web.forms import form_fields

    body = "a=1&b=x+y&c=%E4%BD%A0&d=&e&f=%2B%26&a=2"
    assert form_fields(body) == dict(parse_qsl(body, keep_blank_values=True))
    with pytest.raises(UnicodeDecodeError):
        form_fields("a=%ff")


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)


@given(st.lists(st.tuples(TEXT, TEXT), max_size=8), st.sampled_from(["", "%3D", "%26", "%3d"]))
@settings(max_examples=1500, deadline=None)
def test_form_fields_decode_any_form_like_the_standard_library(pairs, left_raw):
    from urllib.parse import parse_qsl, unquote, urlencode

    from app.web.forms import form_fields

    body = urlencode(pairs)
    if left_raw:  # clients that send `=` or `&` unencoded
        body = body.replace(left_raw, unquote(left_raw))
    assert form_fields(body) == {k: v for k, v in parse_qsl(body, keep_blank_values=True) if k}


ALIAS_BOMB = (
    "a: &a ["
    + ",".join(["x"] * 10)
    + "]\n"
    + "".join(f"{n}: &{n} [" + ",".join([f"*{p}"] * 10) + "]\n" for p, n in zip("abcdefgh", "bcdefghi"))
    + "level: *i\n"
)


def test_a_yaml_alias_bomb_is_refused_at_once():
    import time

    from app.snippets.errors import Problem
    from app.snippets.frontmatter import load_meta

    problems: list[Problem] = []
    started = time.monotonic()
    assert load_meta(ALIAS_BOMB, problems) is None
    assert time.monotonic() - started < 1  # a billion-element expansion would take minutes
    assert "别名" in problems[0].message and problems[0].line == 3
    problems.clear()
    assert load_meta("title: x\n" * 3000, problems) is None and "太长" in problems[0].message


@pytest.mark.parametrize(
    "query, words",
    [
        ("rate=2_0&seed=1", "挖空率必须是 10 到 50 之间的整数"),
        ("rate=%EF%BC%92%EF%BC%90&seed=1", "挖空率必须是"),  # full-width digits
        ("rate=20&seed=" + "9" * 5000, "seed 必须在 0 到"),
        ("rate=20&seed=1_0", "seed 必须是整数"),
        ("rate=20&seed=%2B5", "seed 必须是整数"),
    ],
)
def test_numbers_are_plain_ascii_digits_within_range(client, query, words):
    assert_readable(client.get(f"{URL}?{query}"), 422, words)


def test_form_pairs_without_or_with_extra_equals_are_read_like_the_standard_library():
    from urllib.parse import parse_qsl

    from app.web.forms import form_fields

    for body in ["s4&junk=1=2", "a==&b=1", "a=1&b", "=x&a=1=", "a=1=2&b=3"]:
        assert form_fields(body) == {k: v for k, v in parse_qsl(body, keep_blank_values=True) if k}, body


def test_a_body_of_the_wrong_content_type_is_a_415(client):
    response = client.post(URL, content=b"<xml/>", headers={"content-type": "application/xml", **JSON})
    assert response.status_code == 415 and "JSON" in response.json()["error"]
    assert_readable(client.post(URL, content=b"x", headers={"content-type": "text/plain"}), 415, "表单")


def test_json_nested_1000_deep_is_a_400(client):
    body = b'{"answers": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    response = client.post(URL, content=body, headers={"content-type": "application/json", **JSON})
    assert response.status_code == 400 and "嵌套太深" in response.json()["error"]


def test_ids_and_question_numbers_beyond_64_bits_are_clear_4xx(client):
    big = str(2**63 + 5)
    assert_readable(
        client.post(f"/attempts/{big}/rating", data={"question": "0", "rating": "good"}), 404, "找不到这次作答"
    )
    assert_readable(client.post("/attempts/5/rating", data={"question": big, "rating": "good"}), 422, "题号")
    assert client.post(f"/attempts/{'9' * 5000}/rating", data={"question": "0", "rating": "good"}).status_code == 422


@pytest.mark.parametrize(
    "accept, json_wanted",
    [
        ("application/json", True),
        ("text/html, application/json", False),
        ("text/html;q=0.5, application/json", True),
        ("application/json;q=0, text/html", False),
        ("application/json;q=0.9, */*;q=0.1", True),
        ("text/*;q=0.3, application/json;q=0.2", False),
        ("application/json;q=abc", False),
        ("*/*", False),
    ],
)
def test_accept_q_values_decide_between_json_and_html(client, accept, json_wanted):
    response = client.get("/s/mlm-online-softmax/drill?rate=20&seed=1", headers={"accept": accept})
    assert response.headers["content-type"].startswith("application/json" if json_wanted else "text/html")


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/s/ex1-attention-memory",
        "/s/mlm-online-softmax/drill?rate=20&seed=1",
        "/healthz",
        "/teach/login",
        "/static/app.css",
    ],
)
def test_head_answers_like_get_without_a_body(client, path):
    head, get = client.head(path), client.get(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]


@pytest.mark.parametrize(
    "body, kind",
    [
        (b"version=x&s1=a%00b", "application/x-www-form-urlencoded"),
        (b'{"version": "x", "answers": {"s1": "a\\u0000b"}}', "application/json"),
    ],
)
def test_nul_characters_are_refused_before_anything_is_stored(client, body, kind):
    response = client.post(URL, content=body, headers={"content-type": kind, **JSON})
    assert response.status_code == 400 and "NUL" in response.json()["error"]
