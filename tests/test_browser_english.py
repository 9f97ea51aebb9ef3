"""English pages in real Chromium, as a learner and a teacher walk them: every Chinese character
on them is snippet content (marked `lang="zh-CN"`) or the language switch, and English text is
drawn in a Latin font (a CJK font's full-width curly quotes read as stray spaces)."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.helpers import right_answers
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.browser

# Chinese text outside snippet content: text nodes and the attributes a user sees or hears. A
# blank's `title` is its cloze hint (snippet content); the switch names each language in itself.
UNMARKED_CJK = r"""() => {
  const cjk = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/, out = [];
  const chinese = el => (el.closest('[lang]').getAttribute('lang') || '').startsWith('zh');
  const where = el => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    if (cjk.test(node.data) && !chinese(node.parentElement)) out.push(where(node.parentElement) + ': ' + node.data.trim());
  for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder], [alt], [data-tip]'))
    for (const name of ['title', 'aria-label', 'placeholder', 'alt', 'data-tip']) {
      const value = el.getAttribute(name) || '';
      if (!cjk.test(value) || chinese(el)) continue;
      if (name === 'title' && el.matches('input.blank')) continue;
      if (name === 'aria-label' && el.matches('nav.lang-switch')) continue;
      out.push(where(el) + '[' + name + ']: ' + value);
    }
  return out;
}"""


def unmarked_cjk(page: Page) -> list[str]:
    assert page.evaluate("document.documentElement.lang") == "en", page.url
    return page.evaluate(UNMARKED_CJK)


def fonts_of(page: Page, selector: str) -> list[str]:
    """The font families Chromium drew an element's text with (DevTools' "rendered fonts")."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    return [f["familyName"] for f in fonts]


def test_english_pages_hold_chinese_only_in_snippet_content(browser: Browser, teacher_server, app):
    teacher = browser.new_context(locale="en-US").new_page()
    teacher.goto(teacher_server + "/teach/login")
    teacher.fill("#token", TOKEN)
    teacher.click(".token-login button[type=submit]")
    expect(teacher.locator("h1")).to_have_text("Teaching")
    teacher.goto(teacher_server + "/teach/classes")
    teacher.fill("input[name=code]", "en-1")
    teacher.click(".new-class button[type=submit]")
    expect(teacher.locator("input.device-link")).to_have_value(teacher_server + "/join/en-1")

    learner = browser.new_context(locale="en-US").new_page()
    found: dict[str, list[str]] = {}

    def visit(page: Page, path: str, name: str = "") -> None:
        page.goto(teacher_server + path)
        found[name or path] = unmarked_cjk(page)

    for path in (
        "/",
        "/join/en-1",
        "/s/ex2-online-softmax",
        "/s/ex5-flash-backward",
        "/s/mlm-online-softmax/drill",
        "/no-such-page",
        "/me",
    ):
        visit(learner, path)
    learner.goto(teacher_server + "/join/en-1")
    learner.click("text=Join this class")
    exercise = "ex2-online-softmax"
    learner.goto(f"{teacher_server}/s/{exercise}")
    for key, answer in right_answers(app, exercise).items():
        learner.fill(f'input[name="{key}"]', answer + (" + 1" if key == "c1" else ""))
    for box in learner.locator("textarea[name^=q]").all():
        box.fill("因为 m 只会变大")  # a learner's own answer in Chinese
    learner.locator("input.blank").last.press("Control+Enter")
    expect(learner.locator(".answers")).to_be_visible(timeout=30_000)
    expect(learner.locator("ul.diffs")).to_be_visible()
    found["exercise, scored"] = unmarked_cjk(learner)
    visit(learner, "/me", "/me, after practice (chart, heatmap, due list)")
    for path in (
        "/teach",
        "/teach/new",
        "/teach/classes",
        "/teach/classes/en-1",
        f"/teach/stats/{exercise}",
        f"/teach/stats/{exercise}?class=en-1",
        f"/teach/snippets/{exercise}",
        f"/teach/snippets/{exercise}/edit",
    ):
        visit(teacher, path)
    unmarked = {path: texts for path, texts in found.items() if texts}
    assert unmarked == {}, "\n".join(f"{p}: {t[:6]}" for p, t in unmarked.items())
    assert len(found) == 17


def test_curly_quotes_in_english_are_drawn_with_a_latin_font(browser: Browser, live_server):
    for locale, latin in (("en-US", True), ("zh-CN", False)):
        page = browser.new_context(locale=locale).new_page()
        page.goto(live_server + "/me")
        page.fill("input[name=class_code]", "nope-1")
        page.click("form.profile button[type=submit]")
        expect(page.locator("#profile-error")).to_contain_text("“nope-1”")  # said on /me
        expect(page).to_have_url(live_server + "/me/profile")
        fonts = fonts_of(page, "#profile-error strong")
        if latin:
            assert fonts and not any("CJK" in f for f in fonts), fonts  # the quotes too
        else:
            assert any("CJK" in f for f in fonts), fonts  # Chinese keeps its own font and full-width quotes
        page.context.close()
