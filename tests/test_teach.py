"""The teacher area over HTTP: access, upload and validation, lifecycle, and bad input."""

import re
import time

import pytest

from app.main import create_app
from app.settings import Settings
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, login, snippet_text, stored_text, upload

pytestmark = pytest.mark.app


@pytest.fixture
def settings(data_dir):
    return Settings(data_dir=data_dir, execution=False, use_cdn=False, teacher_token=TOKEN)


def test_learner_pages_need_no_login_but_the_teacher_area_does(client):
    assert client.get("/").status_code == 200
    response = client.get("/teach")
    assert response.status_code == 401 and "请先以教师身份登录" in response.text and "/teach/login" in response.text


def test_login_sets_a_signed_httponly_strict_cookie(client):
    response = client.get(f"/teach/login?token={TOKEN}", follow_redirects=False)
    cookie = response.headers["set-cookie"]
    assert response.headers["location"] == "/teach"
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert client.get("/teach").status_code == 200
    client.cookies.set("cc_teacher", "forged")
    assert client.get("/teach").status_code == 401


def test_while_backed_off_the_right_token_is_answered_as_a_wrong_one(client):
    for _ in range(5):
        assert client.post("/teach/login", data={"token": "nope"}).status_code == 401
    waits = []
    for _ in range(3):  # each further wrong token judged doubles the wait
        wrong, right = (client.post("/teach/login", data={"token": t}, follow_redirects=False) for t in ("nope", TOKEN))
        assert wrong.status_code == right.status_code == 429 and "登录失败次数过多" in right.text
        assert "set-cookie" not in right.headers and right.text == wrong.text  # nothing tells them apart
        waits.append(int(re.search(r"请 (\d+) 秒", wrong.text).group(1)))
        time.sleep(waits[-1])
        assert client.post("/teach/login", data={"token": "nope"}).status_code == 401  # judged again, wrong
    assert waits == [1, 2, 4]
    time.sleep(8)
    response = client.post("/teach/login", data={"token": TOKEN}, follow_redirects=False)
    assert response.status_code == 303 and "cc_teacher" in response.headers["set-cookie"]


def test_a_short_token_stops_start_up_with_a_clear_message(tmp_path):
    from pydantic import ValidationError

    from app.settings import wrong_settings

    with pytest.raises(ValidationError) as refused:
        Settings(data_dir=tmp_path / "d", execution=False, teacher_token="short-token")
    (line,) = wrong_settings(refused.value)
    assert line.startswith("CODECLOZE_TEACHER_TOKEN: has 11 characters; it must have at least 16")
    assert "short-token" not in line  # a secret is never echoed
    derived = create_app(Settings(data_dir=tmp_path / "e", execution=False)).state.auth.token
    assert len(derived) >= 16


def test_generated_token_is_logged_once(tmp_path, caplog):
    app = create_app(Settings(data_dir=tmp_path / "d", execution=False))
    with caplog.at_level("WARNING", logger="codecloze"), SiteClient(app):
        pass
    assert f"/teach/login?token={app.state.auth.token}" in caplog.text


def test_logout_ends_the_session(client):
    token = login(client)
    client.post("/teach/logout", data={"csrf": token})
    assert client.get("/teach").status_code == 401


def test_expired_session_says_so(tmp_path):
    import time

    app = create_app(Settings(data_dir=tmp_path / "d", execution=False, teacher_token=TOKEN, session_hours=1 / 3600))
    with SiteClient(app) as client:
        login(client)
        time.sleep(2.1)
        response = client.get("/teach")
    assert response.status_code == 401 and "登录已过期" in response.text


def test_upload_saves_a_draft_that_only_teachers_see_until_published(client, settings):
    token = login(client)
    response = upload(client, token, snippet_text())
    assert response.status_code == 200 and "已保存" in response.text and "草稿" in response.text
    assert stored_text(client.app) == snippet_text()
    assert "预览：这个片段尚未发布" in client.get("/s/square").text
    learner = SiteClient(client.app)
    assert learner.get("/s/square").status_code == 404 and "Square" not in learner.get("/").text
    client.post("/teach/snippets/square/publish", data={"csrf": token})
    assert learner.get("/s/square").status_code == 200 and "Square" in learner.get("/").text
    client.post("/teach/snippets/square/unpublish", data={"csrf": token})
    assert learner.get("/s/square").status_code == 404


def test_published_state_survives_a_restart(client, settings):
    token = login(client)
    upload(client, token, snippet_text())
    client.post("/teach/snippets/square/publish", data={"csrf": token})
    with SiteClient(create_app(settings)) as again:
        assert again.get("/s/square").status_code == 200


def test_a_rejected_upload_lists_every_problem_and_keeps_the_text(client, settings):
    token = login(client)
    bad = snippet_text().replace("level: 1\n", "").replace("{{c1::x * x::乘以自己}}", "{{c1::x * x")
    response = upload(client, token, bad)
    assert response.status_code == 422
    assert "&#39;level&#39; 必须是" in response.text and "挖空标记格式不对" in response.text
    assert "{{c1::x * x" in response.text  # the teacher's text, back in the form
    assert stored_text(client.app) is None


@pytest.mark.parametrize(
    "case, words",
    [
        (lambda: snippet_text().replace("```python check", "```text"), "python check 代码块"),
        (lambda: snippet_text().replace("title: Square", "title: Square\ntitle2: x"), "未知的 front matter 键"),
    ],
)
def test_format_problems(client, case, words):
    assert words in upload(client, login(client), case()).text


def test_path_traversal_and_bad_ids(client, settings):
    token = login(client)
    for snippet_id in ("../evil", "..", "a/b", "UPPER"):  # an empty id takes the title (test_upload_help.py)
        response = upload(client, token, snippet_text(), snippet_id=snippet_id)
        assert response.status_code == 422, snippet_id
    assert not list(settings.data_dir.parent.rglob("evil*"))


def test_duplicate_ids_are_refused(client):
    token = login(client)
    upload(client, token, snippet_text())
    response = upload(client, token, snippet_text("Other"))
    assert response.status_code == 422 and "已被占用" in response.text
    assert upload(client, token, snippet_text(), snippet_id="mlm-online-softmax").status_code == 422


def test_uploads_of_non_utf8_binary_and_huge_files(client):
    token = login(client)
    files = {"file": ("square.md", snippet_text().encode("gbk"), "text/markdown")}
    response = client.post("/teach/new", data={"csrf": token}, files=files)
    assert response.status_code == 422 and "UTF-8" in response.text
    files = {"file": ("square.md", b"\x89PNG\r\n\x1a\n\x00\x00", "image/png")}
    assert "二进制" in client.post("/teach/new", data={"csrf": token}, files=files).text
    files = {"file": ("big.md", b"a" * (10 * 1024 * 1024), "text/markdown")}
    response = client.post("/teach/new", data={"csrf": token}, files=files)
    assert response.status_code == 413 and "256 KB" in response.text
    files = {"file": ("medium.md", b"a" * (300 * 1024), "text/markdown")}
    assert "上限是 256 KB" in client.post("/teach/new", data={"csrf": token}, files=files).text


def test_file_upload_takes_its_id_from_the_file_name(client):
    token = login(client)
    files = {"file": ("cube-1.md", snippet_text("Cube").encode(), "text/markdown")}
    response = client.post("/teach/new", data={"csrf": token}, files=files)
    assert response.status_code == 200 and "cube-1" in response.text


def test_html_in_titles_and_prose_is_escaped(client):
    token = login(client)
    upload(
        client,
        token,
        snippet_text(
            title='"<script>alert(1)</script>"', prose="<script>alert(2)</script> <img src=x onerror=alert(3)>"
        ),
    )
    client.post("/teach/snippets/square/publish", data={"csrf": token})
    for html in (client.get("/").text, client.get("/s/square").text, client.get("/teach").text):
        assert "<script>alert" not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert" in html


def test_csrf_is_required(client, settings):
    login(client)
    response = upload(client, "wrong", snippet_text())
    assert response.status_code == 403 and "CSRF" in response.text
    assert stored_text(client.app) is None
    assert client.post("/teach/snippets/square/publish", data={}).status_code == 403


def test_edit_makes_a_new_version_and_old_masks_still_score(client):
    token = login(client)
    upload(client, token, snippet_text())
    client.post("/teach/snippets/square/publish", data={"csrf": token})
    old = client.app.state.library.get("square")
    response = client.post("/teach/snippets/square/edit", data={"csrf": token, "text": snippet_text("Square v2")})
    assert response.status_code == 200
    new = client.app.state.library.get("square")
    assert new.version != old.version and new.title == "Square v2" and client.app.state.library.is_visible("square")
    learner = SiteClient(client.app)
    answer = {"version": old.version, "c0": "x * x"}
    assert "<strong>1 / 1</strong>" in learner.post("/s/square", data=answer).text
    # A mask URL shared before the edit still shows (and scores) the old version's mask.
    shared = learner.get(f"/s/square/drill?rate=50&seed=4&v={old.version}").text
    assert "这是这个片段的旧版本" in shared and f'name="version" value="{old.version}"' in shared
    assert learner.get(f"/s/square/drill?rate=50&seed=4&v={new.version}").text.count("旧版本") == 0
    assert learner.get("/s/square/drill?rate=50&seed=4&v=000000000000").status_code == 404


def test_bundled_snippets_are_read_only(client):
    token = login(client)
    assert client.get("/teach/snippets/mlm-online-softmax").status_code == 200
    assert (
        client.post(
            "/teach/snippets/mlm-online-softmax/delete", data={"csrf": token, "confirm": "mlm-online-softmax"}
        ).status_code
        == 403
    )


def test_delete_needs_confirmation(client, settings):
    token = login(client)
    upload(client, token, snippet_text())
    assert "永久删除" in client.get("/teach/snippets/square/delete").text
    assert client.post("/teach/snippets/square/delete", data={"csrf": token, "confirm": "nope"}).status_code == 422
    assert client.app.state.library.get("square") is not None
    client.post("/teach/snippets/square/delete", data={"csrf": token, "confirm": "square"})
    assert client.app.state.library.get("square") is None
    assert stored_text(client.app) is None


def test_download_is_byte_identical(client):
    token = login(client)
    original = ("\ufeff" + snippet_text().replace("\n", "\r\n")).encode("utf-8")
    files = {"file": ("square.md", original, "text/markdown")}
    assert client.post("/teach/new", data={"csrf": token}, files=files).status_code == 200
    assert client.get("/teach/snippets/square/download").content == original


def test_strength_needs_execution(client):
    token = login(client)
    upload(client, token, snippet_text())
    response = client.post("/teach/snippets/square/strength", data={"csrf": token})
    assert response.status_code == 503 and "关闭了代码运行" in response.text


def test_a_chunked_upload_over_the_limit_names_the_file_limit(client):
    token = login(client)

    def ten_megabytes():
        yield f"csrf={token}&id=big&text=".encode()
        for _ in range(160):
            yield b"x" * 65536

    response = client.post(
        "/teach/new", content=ten_megabytes(), headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 413 and "片段文件最多 256 KB" in response.text
    assert "1024 KB" not in response.text
    api = client.put(
        "/api/snippets/big",
        content=ten_megabytes(),
        headers={"authorization": f"Bearer {TOKEN}", "content-type": "text/markdown"},
    )
    assert api.status_code == 413 and "256 KB" in api.json()["error"]
    assert stored_text(client.app, "big") is None


def test_teacher_pages_answer_json_too(client):
    token = login(client)
    json_accept = {"accept": "application/json"}
    created = client.post(
        "/teach/new", data={"csrf": token, "id": "square", "text": snippet_text()}, headers=json_accept
    )
    assert created.status_code == 200 and created.json()["saved"] is True
    assert created.json()["snippet"]["id"] == "square"
    listing = client.get("/teach", headers=json_accept).json()
    assert {"square", "mlm-online-softmax"} <= {s["id"] for s in listing["snippets"]}
    detail = client.get("/teach/snippets/square", headers=json_accept).json()
    assert detail["snippet"]["status"] == "draft"
    edit = client.get("/teach/snippets/square/edit", headers=json_accept).json()
    assert edit["text"] == snippet_text() and edit["editing"] is True
    bad = client.post("/teach/new", data={"csrf": token, "id": "bad", "text": "no front matter"}, headers=json_accept)
    assert bad.status_code == 422 and bad.json()["saved"] is False and bad.json()["problems"]
    login_page = SiteClient(client.app).get("/teach/login", headers=json_accept)
    assert login_page.status_code == 200 and login_page.headers["content-type"].startswith("application/json")
