"""Every way a request can be wrong gets a clear message and a 4xx, never a 500 or a traceback."""
import pytest
from hypothesis import given, settings, strategies as st

from tests.helpers import drill_form

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


@pytest.mark.parametrize("query, words", [
    ("rate=9&seed=1", "挖空率必须在 10% 到 50% 之间"),
    ("rate=51&seed=1", "挖空率必须在 10% 到 50% 之间"),
    ("rate=abc&seed=1", "挖空率必须是 10 到 50 之间的整数"),
    ("rate=20&seed=x", "seed 必须是整数"),
    ("rate=20&seed=-1", "seed 必须在 0 到"),
    ("rate=20&seed=99999999999999999999", "seed 必须在 0 到"),
])
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
    assert_readable(client.post(URL, content=b"a=" + b"x" * 400_000,
                                headers={"content-type": "application/x-www-form-urlencoded"}), 413, "太大")


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
    response = client.post(URL, content=b"version=\xff\xfe&rate=20",
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert_readable(response, 400, "不是 UTF-8")
    response = client.post(URL, content=b"version=%ff%fe", headers={"content-type": "application/x-www-form-urlencoded"})
    assert_readable(response, 400, "不是 UTF-8")


@pytest.mark.parametrize("body", [b"[1, 2]", b"{not json", b'{"answers": [1]}', b'{"version": {"a": 1}}',
                                  b'{"answers": {"s1": "\\ud800"}}', b'{"\\udfff": "x"}'])
def test_malformed_json(client, body):
    response = client.post(URL, content=body, headers={"content-type": "application/json", **JSON})
    assert response.status_code == 400 and "无法读取提交的内容" in response.json()["error"]


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
    assert_readable(client.post("/attempts/12345/rating", data={"question": "0", "rating": "good"}), 404, "找不到这次作答")


def test_form_fields_decode_like_the_standard_library():
    from urllib.parse import parse_qsl

    from app.submission import form_fields
    body = "a=1&b=x+y&c=%E4%BD%A0&d=&e&f=%2B%26&a=2"
    assert form_fields(body) == dict(parse_qsl(body, keep_blank_values=True))
    with pytest.raises(UnicodeDecodeError):
        form_fields("a=%ff")


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)


@given(st.lists(st.tuples(TEXT, TEXT), max_size=8), st.sampled_from(["", "%3D", "%26", "%3d"]))
@settings(max_examples=1500, deadline=None)
def test_form_fields_decode_any_form_like_the_standard_library(pairs, left_raw):
    from urllib.parse import parse_qsl, unquote, urlencode

    from app.submission import form_fields
    body = urlencode(pairs)
    if left_raw:  # clients that send `=` or `&` unencoded
        body = body.replace(left_raw, unquote(left_raw))
    assert form_fields(body) == {k: v for k, v in parse_qsl(body, keep_blank_values=True) if k}
