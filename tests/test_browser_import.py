"""The course import page in real headless Chromium, in Chinese and in English, at 1280 and 390 px:
choose a zip, tick "update the home page", preview what every file and the home page would become,
change the file on disk, confirm: exactly the previewed archive is imported."""

import io
import zipfile

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.a11y import violations_in_both_schemes
from tests.teach_helpers import TOKEN, snippet_text
from tests.test_browser_english import UNMARKED_CJK

pytestmark = pytest.mark.browser
WORDS = {
    "zh-CN": {
        "preview": "预览",
        "new": "新增",
        "home": "将改变主页",
        "confirm": "确认导入",
        "done": "已导入：新增 1 个片段",
    },
    "en-US": {
        "preview": "Preview",
        "new": "new",
        "home": "Changes the home page",
        "confirm": "Confirm the import",
        "done": "Imported: 1 new snippet(s)",
    },
}


def course_zip(snippet_id: str, title: str, course_title: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zipped:
        zipped.writestr(f"course/{snippet_id}.md", snippet_text(title))
        zipped.writestr("course/_index.md", f"---\ntitle: {course_title}\n---\n\n一门导入的课。\n")
    return out.getvalue()


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_preview_then_confirm_imports_what_was_previewed(browser: Browser, teacher_server, artifacts, tmp_path, locale):
    words, tag = WORDS[locale], locale[:2]
    snippet_id, course_title = f"imported-{tag}", f"导入的课程 {tag}"
    page = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{teacher_server}/teach/login?token={TOKEN}")
    page.goto(f"{teacher_server}/teach/import")
    archive = tmp_path / "course.zip"
    archive.write_bytes(course_zip(snippet_id, "Previewed", course_title))
    page.set_input_files("#archive", str(archive))
    page.check("input[name=home]")
    page.get_by_role("button", name=words["preview"], exact=True).click()
    files = page.locator("ul.import-files")
    expect(files).to_contain_text(f"{snippet_id}.md")
    expect(files.locator(".change.new")).to_have_text(words["new"])
    expect(page.locator(".import-preview")).to_contain_text(words["home"])
    expect(page.locator(".import-preview")).to_contain_text(course_title)
    if tag == "en":  # Chinese only in course content (the titles), marked as such
        assert page.evaluate(UNMARKED_CJK) == []
    assert violations_in_both_schemes(page, f"/teach/import, preview ({tag})") == []
    page.screenshot(path=artifacts / f"import-preview-{tag}-1280.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=artifacts / f"import-preview-{tag}-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    archive.write_bytes(course_zip(snippet_id, "Changed on disk", course_title))  # after the preview
    page.get_by_role("button", name=words["confirm"]).click()
    expect(page.locator(".notice.ok")).to_contain_text(words["done"])
    page.screenshot(path=artifacts / f"import-done-{tag}-390.png", full_page=True)
    bearer = {"authorization": f"Bearer {TOKEN}"}
    saved = httpx.get(f"{teacher_server}/api/snippets/{snippet_id}", headers=bearer).json()
    assert saved["title"] == "Previewed"  # what was previewed, not what the disk holds now
    page.goto(teacher_server + "/")
    expect(page.locator("h1")).to_have_text(course_title)
    page.context.close()


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_the_upload_page_shows_the_format_and_fits_a_phone(browser: Browser, teacher_server, artifacts, locale):
    tag = locale[:2]
    page = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{teacher_server}/teach/login?token={TOKEN}")
    page.goto(f"{teacher_server}/teach/new")
    expect(page.locator("pre.starter")).to_contain_text("{{c1::max(xs)::先取最大值}}")
    page.screenshot(path=artifacts / f"upload-format-{tag}-1280.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=artifacts / f"upload-format-{tag}-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if tag == "en":
        assert page.evaluate(UNMARKED_CJK) == []
    assert violations_in_both_schemes(page, f"/teach/new ({tag})") == []
    page.locator(".snippet-format a.button").click()
    assert "title: Safe Softmax" in page.input_value("#text")
    page.context.close()
