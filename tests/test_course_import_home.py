"""A course import over HTTP, on SQLite and PostgreSQL: its `_index.md` changes the home page only
when the teacher asks (and the preview says how), an `_index.md` alone imports, a preview is
confirmed only while it is still true (a changed file or server gets a new preview, nothing saved),
a refusal lists no snippet, and the /teach/import page does all of it with a CSRF form."""

import base64
import re

import pytest

from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, archive, login, snippet_text

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
BEARER = {"authorization": f"Bearer {TOKEN}", "content-type": "application/zip"}
BUNDLED_TITLE = "Flash Attention 代码填空"
INDEX = "---\ntitle: 导入的课程\nsections:\n  - title: 新的一节\n    snippets: [one]\n---\n\n这门课是导入的。\n"


@pytest.fixture
def app(teaching_app):
    return teaching_app


@pytest.fixture
def client(app):
    with SiteClient(app) as client:
        yield client


def api_import(client, data: bytes, query: str = ""):
    return client.post(f"/api/import{query}", content=data, headers=BEARER)


def home_page(client) -> str:
    return client.get("/").text


def home_title(client) -> str:
    return re.search(r"<h1>(.*?)</h1>", home_page(client)).group(1)


def uploaded(client) -> dict[str, str]:
    """Uploaded snippets by id, with their version."""
    listed = client.get("/api/snippets", headers=BEARER).json()
    return {s["id"]: s["version"] for s in listed if s["status"] != "bundled"}


def test_without_the_flag_an_index_leaves_the_home_page_and_says_so(client):
    made = api_import(client, archive({"one.md": snippet_text("One"), "_index.md": INDEX}))
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["saved"] and body["snippets"] == ["one"] and body["changes"] == {"one": "new"}
    assert body["home"]["apply"] is False and body["home"]["title"]["after"] == "导入的课程"
    page = home_page(client)
    assert home_title(client).startswith(BUNDLED_TITLE) and "导入的课程" not in page and "这门课是导入的。" not in page
    assert "新的一节" not in page


def test_with_the_flag_the_index_changes_the_title_intro_and_sections(client):
    preview = api_import(
        client, archive({"one.md": snippet_text("One"), "_index.md": INDEX}), "?home=true&preview=true"
    )
    assert preview.status_code == 200, preview.text
    told = preview.json()["preview"]["home"]
    assert told["apply"] is True and told["title"]["before"].startswith(BUNDLED_TITLE)
    assert told["title"]["after"] == "导入的课程" and told["intro"] == told["sections"] == "changed"
    assert home_title(client).startswith(BUNDLED_TITLE) and uploaded(client) == {}  # a preview saves nothing
    made = api_import(client, archive({"one.md": snippet_text("One"), "_index.md": INDEX}), "?home=true&publish=true")
    assert made.status_code == 201 and made.json()["home"]["apply"] is True
    page = home_page(client)
    assert home_title(client) == "导入的课程" and "这门课是导入的。" in page and "新的一节" in page


def test_an_index_alone_imports_with_the_flag_and_is_refused_without_it(client):
    alone = archive({"_index.md": "---\ntitle: 只改主页\n---\n\n只有介绍。\n"})
    refused = api_import(client, alone)
    assert refused.status_code == 422
    assert refused.json() == {
        "saved": False,
        "files": [{"file": "_index.md", "ok": False, "problems": [refused.json()["files"][0]["problems"][0]]}],
    }
    assert "home=true" in refused.json()["files"][0]["problems"][0]["message"]
    assert "只改主页" not in home_page(client)
    made = api_import(client, alone, "?home=true")
    assert made.status_code == 201, made.text
    assert made.json()["snippets"] == [] and made.json()["home"]["title"]["after"] == "只改主页"
    assert home_title(client) == "只改主页" and "只有介绍。" in home_page(client)


def test_a_refusal_lists_no_snippet_as_if_saved(client):
    broken = snippet_text("Two").replace("level: 1", "level: 9")
    refused = api_import(client, archive({"one.md": snippet_text("One"), "two.md": broken}))
    assert refused.status_code == 422
    body = refused.json()
    assert set(body) == {"saved", "files"} and body["saved"] is False  # no "snippets", no "changes"
    assert [(f["file"], f["ok"]) for f in body["files"]] == [("one.md", True), ("two.md", False)]
    assert uploaded(client) == {}


def test_a_preview_is_confirmed_by_its_fingerprint_and_a_changed_file_is_not(client):
    first = archive({"one.md": snippet_text("One")})
    preview = api_import(client, first, "?preview=true").json()["preview"]
    assert preview["changes"] == {"one": "new"} and re.fullmatch(r"[0-9a-f]{32}", preview["fingerprint"])
    changed = archive({"one.md": snippet_text("One, changed")})  # the teacher edited the file meanwhile
    stale = api_import(client, changed, f"?expect={preview['fingerprint']}")
    assert stale.status_code == 409 and "预览之后" in stale.json()["error"][0]
    assert "snippets" not in stale.json() and stale.json()["preview"]["fingerprint"] != preview["fingerprint"]
    assert uploaded(client) == {}
    other_choice = api_import(client, first, f"?publish=true&expect={preview['fingerprint']}")
    assert other_choice.status_code == 409 and uploaded(client) == {}  # the preview was of drafts
    made = api_import(client, first, f"?expect={preview['fingerprint']}")
    assert made.status_code == 201 and list(uploaded(client)) == ["one"]
    again = api_import(client, first, f"?expect={preview['fingerprint']}")  # "new" is no longer true
    assert again.status_code == 409 and again.json()["preview"]["changes"] == {"one": "unchanged"}
    assert api_import(client, first, "?expect=nope").status_code == 422
    assert api_import(client, first, "?home=maybe").status_code == 422


def preview_page(client, csrf: str, data: bytes, **choices):
    fields = {"csrf": csrf, **{name: "1" for name, on in choices.items() if on}}
    return client.post("/teach/import", data=fields, files={"archive": ("course.zip", data, "application/zip")})


def confirm_fields(page: str) -> dict[str, str]:
    form = page[page.index('action="/teach/import/confirm"') :]
    return dict(re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)">', form.split("</form>")[0]))


def test_the_page_previews_every_file_and_the_confirm_saves_what_was_previewed(client):
    csrf = login(client)
    assert 'href="/teach/import"' in client.get("/teach").text
    files = {"one.md": snippet_text("One"), "two.md": snippet_text("Two"), "_index.md": INDEX}
    shown = preview_page(client, csrf, archive(files), home=True)
    assert shown.status_code == 200, shown.text[:500]
    assert shown.text.count("新增") >= 2 and "将改变主页：标题" in shown.text and ">导入的课程</span>”" in shown.text
    assert uploaded(client) == {}
    fields = confirm_fields(shown.text)
    assert fields["home"] == "1" and "publish" not in fields
    done = client.post("/teach/import/confirm", data=fields, follow_redirects=False)
    assert (
        done.status_code == 303 and done.headers["location"] == "/teach/import?new=2&changed=0&unchanged=0&home=applied"
    )
    assert "已导入：新增 2 个片段" in client.get(done.headers["location"]).text
    assert sorted(uploaded(client)) == ["one", "two"] and home_title(client) == "导入的课程"
    kept = preview_page(client, csrf, archive({**files, "two.md": snippet_text("Two, again")}))
    assert "不会改变主页" in kept.text and "新版本" in kept.text and "不变" in kept.text


def test_the_confirm_refuses_a_changed_archive_or_server_and_shows_the_new_preview(client):
    csrf = login(client)
    shown = preview_page(client, csrf, archive({"one.md": snippet_text("One")}))
    fields = confirm_fields(shown.text)
    swapped = base64.urlsafe_b64encode(archive({"one.md": snippet_text("Another")})).decode()
    refused = client.post("/teach/import/confirm", data={**fields, "archive": swapped})
    assert refused.status_code == 409 and "预览之后，文件或服务器上的片段变了" in refused.text
    assert confirm_fields(refused.text)["fingerprint"] != fields["fingerprint"] and uploaded(client) == {}
    assert api_import(client, archive({"one.md": snippet_text("One by API")})).status_code == 201
    before = uploaded(client)
    late = client.post("/teach/import/confirm", data=fields)  # another import came in between
    assert late.status_code == 409 and "新版本" in late.text and uploaded(client) == before


def test_the_page_refuses_bad_input_in_the_teachers_language_and_saves_nothing(client):
    csrf = login(client)
    data = archive({"one.md": snippet_text("One")})
    assert preview_page(client, "wrong", data).status_code == 403
    fields = confirm_fields(preview_page(client, csrf, data).text)
    assert client.post("/teach/import/confirm", data={**fields, "csrf": "wrong"}).status_code == 403
    bad = client.post("/teach/import/confirm", data={**fields, "archive": "%%%"})
    assert bad.status_code == 400 and "压缩包读不出来" in bad.text
    assert client.post("/teach/import/confirm", data={**fields, "fingerprint": ""}).status_code == 422
    not_zip = preview_page(client, csrf, b"not an archive")
    assert not_zip.status_code == 422 and "不是 zip 或 tar" in not_zip.text
    english = client.post(
        "/teach/import",
        data={"csrf": csrf},
        files={"archive": ("c.zip", b"nothing", "application/zip")},
        headers={"accept-language": "en"},
    )
    assert english.status_code == 422 and "not a zip or tar" in english.text
    broken = preview_page(client, csrf, archive({"one.md": snippet_text("One").replace("level: 1", "level: 9")}))
    assert broken.status_code == 422 and "确认导入" not in broken.text and "&#39;level&#39;" in broken.text
    assert uploaded(client) == {}
    assert client.post("/teach/import", data={"csrf": csrf}).status_code in (415, 422)
