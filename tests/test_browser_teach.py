"""A teacher's whole path in headless Chromium: sign in, upload, fix, preview, publish."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.browser
HOSTILE_TITLE = '<script>window.__pwned = "title"</script>'
HOSTILE_PROSE = '<script>window.__pwned = "prose"</script> <img src=x onerror="window.__pwned = \'img\'"> [x](javascript:window.__pwned=1)'


def sign_in(page: Page, url: str, wrong_first: bool = False) -> None:
    page.goto(url + "/teach/login")
    if wrong_first:  # only once: wrong tokens are rate-limited per client
        page.fill("#token", "wrong")
        page.click(".token-login button[type=submit]")
        expect(page.locator(".notice.error")).to_contain_text("令牌不正确")
    page.fill("#token", TOKEN)
    page.click(".token-login button[type=submit]")
    expect(page.locator("h1")).to_have_text("教师后台")


def upload_form(page: Page, url: str, snippet_id: str, text: str) -> None:
    sign_in(page, url)
    page.goto(url + "/teach/new")
    page.fill("#id", snippet_id)
    page.fill("#text", text)
    page.click("text=校验并保存")


def test_upload_fix_preview_publish(page: Page, teacher_server, artifacts):
    sign_in(page, teacher_server, wrong_first=True)
    page.click("text=上传新片段 >> nth=0")
    page.fill("#id", "square")
    page.fill("#text", snippet_text().replace("level: 1\n", ""))
    page.click("text=校验并保存")
    expect(page.locator(".notice.error")).to_contain_text("'level' 必须是")
    assert "def square" in page.input_value("#text")  # the text is still there to fix
    page.screenshot(path=artifacts / "teach-rejected.png", full_page=True)
    page.fill("#text", snippet_text())
    page.click("text=校验并保存")
    expect(page.locator(".notice.ok")).to_contain_text("已保存")
    expect(page).to_have_url(re.compile(r"/teach/snippets/square\?saved=\w+&ms=\d+$"))  # post/redirect/get
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.reload()  # a reload fetches the page again and posts nothing
    expect(page.locator(".notice.ok")).to_contain_text("已保存")
    assert posts == []
    page.screenshot(path=artifacts / "teach-saved.png", full_page=True)
    page.click("a.button:text('固定填空')")
    expect(page.locator(".preview-banner")).to_be_visible()
    page.go_back()
    page.click("button:text('发布')")
    expect(page.locator(".status-published")).to_be_visible()
    page.click("text=运行检查强度分析")
    expect(page.locator(".strength")).to_contain_text("检查抓住了", timeout=60_000)
    page.screenshot(path=artifacts / "teach-published.png", full_page=True)


def test_weak_check_shows_surviving_mutants(page: Page, teacher_server):
    upload_form(page, teacher_server, "weak", snippet_text(check="assert callable(square)"))
    expect(page.locator(".verdict.passed")).to_contain_text("验证通过")
    page.click("text=运行检查强度分析")
    expect(page.locator(".strength")).to_contain_text("这些地方的错误没有被检查发现", timeout=60_000)
    assert page.locator(".strength tbody tr").count() >= 1


def test_reference_that_fails_its_check_is_not_saved(page: Page, teacher_server):
    upload_form(page, teacher_server, "failing", snippet_text(check='assert square(3) == 10, "要 10"'))
    expect(page.locator(".notice.error")).to_contain_text("参考代码没有通过自己的检查")
    expect(page.locator(".notice.error")).to_contain_text("要 10")


def test_no_uploaded_script_ever_runs(page: Page, teacher_server):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    upload_form(page, teacher_server, "hostile", snippet_text(title=f"'{HOSTILE_TITLE}'", prose=HOSTILE_PROSE))
    expect(page.locator(".notice.ok")).to_be_visible()
    page.click("button:text('发布')")
    for path in ("/", "/s/hostile", "/s/hostile/drill?rate=20&seed=1", "/teach", "/teach/snippets/hostile"):
        page.goto(teacher_server + path)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None, path
    page.goto(teacher_server + "/s/hostile")
    expect(page.locator("h1")).to_contain_text("<script>")  # shown as text
    assert page.locator("main a[href^='javascript']").count() == 0
    assert dialogs == []
