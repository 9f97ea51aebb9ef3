"""The upload page explains the snippet format itself, with a filled-in example a teacher can start
from, and pasted text with no id takes a free slug of its title (on SQLite and PostgreSQL)."""

import re

import pytest

from app.snippets.parse import parse_snippet
from app.snippets.slugs import slug
from app.teach.starter import STARTER
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, login, snippet_text, upload

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
JSON = {"accept": "application/json"}


@pytest.mark.unit
def test_the_starter_uses_every_part_of_the_format_and_its_reference_passes_its_check():
    snippet = parse_snippet(STARTER, "safe-softmax", "starter.md")
    assert snippet.setup and snippet.check and len({b.group for b in snippet.blanks}) == 2
    assert snippet.hints and snippet.answers and snippet.explanation and snippet.questions
    scope: dict = {}
    exec(compile(snippet.setup + "\n" + snippet.code + "\n" + snippet.check, "starter", "exec"), scope)  # noqa: S102
    broken = snippet.code.replace("sum(es)", "max(es)")
    with pytest.raises(AssertionError):
        exec(compile(snippet.setup + "\n" + broken + "\n" + snippet.check, "starter", "exec"), {})  # noqa: S102


@pytest.mark.unit
@pytest.mark.parametrize(
    "title, expected",
    [
        ("Safe Softmax", "safe-softmax"),
        ("在线 Softmax (m/l 更新)", "softmax-m-l"),
        ("练习 3：分块矩阵乘", "3"),
        ("分块注意力", "snippet"),
        ("A" * 80, "a" * 64),
    ],
)
def test_a_title_slug_is_a_valid_id(title, expected):
    assert slug(title) == expected


@pytest.fixture
def app(teaching_app):
    return teaching_app


@pytest.fixture
def client(app):
    with SiteClient(app) as client:
        yield client


def test_the_upload_page_explains_the_format_and_offers_the_filled_in_example(client):
    login(client)
    page = client.get("/teach/new").text
    assert "README" not in page and "格式见下方" in page and "留空则用文件名，粘贴的文本用标题" in page
    for part in ("front matter", "```python setup", "```python check", "{{c1::答案::提示}}", "## 提示"):
        assert part in page, part
    assert "title: Safe Softmax" in page and 'href="/teach/new?start=starter"' in page
    started = client.get("/teach/new?start=starter").text
    textarea = re.search(r'<textarea id="text"[^>]*>(.*?)</textarea>', started, re.S).group(1)
    assert "title: Safe Softmax" in textarea and "{{c1::max(xs)::先取最大值}}" in textarea
    english = client.get("/teach/new", headers={"accept-language": "en"}).text
    assert "The snippet file format" in english and "Start from this example" in english


def test_pasted_text_with_no_id_takes_its_titles_slug_and_says_so(client):
    csrf = login(client)
    saved = client.post("/teach/new", data={"csrf": csrf, "id": "", "text": STARTER}, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"].startswith("/teach/snippets/safe-softmax?saved=")
    page = client.get(saved.headers["location"]).text
    assert "没有填写 id，所以由标题得出：safe-softmax" in page
    again = upload(client, csrf, STARTER.replace("level: 2", "level: 3"), snippet_id="  ")
    assert again.status_code == 200 and "由标题得出：safe-softmax-2" in again.text  # the first is taken
    chinese = upload(client, csrf, snippet_text(title="平方"), snippet_id="")
    assert "由标题得出：snippet" in chinese.text
    named = upload(client, csrf, snippet_text(title="Named"), snippet_id="my-own")
    assert named.status_code == 200 and "由标题得出" not in named.text  # an id given is kept
    listed = {s["id"] for s in client.get("/api/snippets", headers={"authorization": f"Bearer {TOKEN}"}).json()}
    assert {"safe-softmax", "safe-softmax-2", "snippet", "my-own"} <= listed
    as_json = client.post("/teach/new", data={"csrf": csrf, "text": snippet_text(title="By JSON")}, headers=JSON)
    assert as_json.json()["snippet"]["id"] == "by-json"


def test_a_file_with_no_id_takes_its_file_name(client):
    csrf = login(client)
    sent = client.post(
        "/teach/new",
        data={"csrf": csrf, "id": ""},
        files={"file": ("from-file.md", snippet_text(title="Other Title").encode(), "text/markdown")},
        follow_redirects=False,
    )
    assert sent.status_code == 303 and sent.headers["location"].startswith("/teach/snippets/from-file?saved=")
    assert "named=title" not in sent.headers["location"]
