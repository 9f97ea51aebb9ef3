"""Uploads whose reference is run in the sandbox: failing, endless, and passing checks."""

import pytest

from app.main import create_app
from app.settings import Settings
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, login, snippet_text, stored_text, upload

pytestmark = pytest.mark.app


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("d"), use_cdn=False, teacher_token=TOKEN, cpu_seconds=2, wall_seconds=3
    )
    with SiteClient(create_app(settings)) as client:
        yield client, login(client), settings.data_dir


def test_passing_reference_is_saved_with_its_verdict_and_time(teacher):
    client, token, data = teacher
    html = upload(client, token, snippet_text(), "passes").text
    assert "已保存" in html and "验证通过" in html and " ms" in html
    assert stored_text(client.app, "passes") == snippet_text()


def test_reference_failing_its_check_is_not_saved(teacher):
    client, token, data = teacher
    response = upload(client, token, snippet_text(check='assert square(3) == 10, "要 10"'), "fails")
    assert response.status_code == 422 and "参考代码没有通过自己的检查：验证未通过 — " in response.text
    assert "要 10" in response.text and "（验证代码 第 1 行）" in response.text  # every word in Chinese
    problem = response.text.split("参考代码没有通过")[1].split("</")[0]
    assert "failed" not in problem and "check" not in problem
    assert stored_text(client.app, "fails") is None


def test_check_that_never_terminates_is_not_saved_and_the_server_carries_on(teacher):
    client, token, data = teacher
    response = upload(client, token, snippet_text(check="while True:\n    pass"), "endless")
    assert response.status_code == 422 and "没有在时限内运行完" in response.text
    assert stored_text(client.app, "endless") is None
    assert client.get("/healthz").json()["status"] == "ok"
    assert "已保存" in upload(client, token, snippet_text(), "after-endless").text


def test_a_save_redirects_to_the_snippets_page_so_a_reload_resubmits_nothing(teacher):
    client, token, data = teacher
    for path in ("/teach/new", "/teach/snippets/prg/edit"):
        text = snippet_text(title="PRG " + path[-4:])
        sent = client.post(path, data={"csrf": token, "id": "prg", "text": text}, follow_redirects=False)
        version = client.app.state.library.get("prg").version
        assert sent.status_code == 303, path
        location = sent.headers["location"]
        assert location.startswith(f"/teach/snippets/prg?saved={version}&ms=")
        page = client.get(location)  # what a reload fetches again: nothing is posted
        assert page.status_code == 200 and "已保存" in page.text and "验证通过" in page.text and " ms" in page.text
        assert stored_text(client.app, "prg") == text
    plain = client.get("/teach/snippets/prg").text
    assert "已保存" not in plain and client.get("/teach/snippets/prg?saved=000000000000").text.count("已保存") == 0
    as_json = client.post(
        "/teach/new",
        data={"csrf": token, "id": "prg-json", "text": snippet_text()},
        headers={"accept": "application/json"},
    )
    assert as_json.status_code == 200 and as_json.json()["saved"] is True  # API clients get the outcome itself
