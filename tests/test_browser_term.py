"""A term's progress in real headless Chromium: a learner joins by the link and is told the class's
name; an assignment past its due day says how many days late, in the error colour, on the class
page, the learner's home and /me; screenshots of the three at 1280 and 390 wide, in Chinese and
English (test-artifacts/term-*.png)."""

from datetime import UTC, date, datetime

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.a11y import violations_in_both_schemes
from tests.teach_helpers import TOKEN
from tests.test_browser import fill_right

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"
MASK = f"/s/{SNIPPET}/drill?rate=20&seed=154"
STARTS, DUE = "2026-01-03", "2026-01-10"  # a past term: the mark counts the days since it was due
SIZES = ((1280, 900), (390, 844))
ERROR_COLOUR = """e => { const probe = document.createElement('span'); probe.style.color = 'var(--wrong)';
  document.body.append(probe); const wrong = getComputedStyle(probe).color; probe.remove();
  return [getComputedStyle(e).color, wrong]; }"""


def days_late() -> set[str]:
    today = datetime.now(UTC).date()
    return {str((today - date.fromisoformat(DUE)).days + n) for n in (0, 1)}  # midnight may pass


def join(browser: Browser, link: str, name: str) -> Page:
    page = browser.new_context(locale="zh-CN").new_page()
    page.goto(link)
    page.click("text=加入这个班级")
    expect(page.locator("#joined")).to_have_text("已加入 五班")
    expect(page.locator(".my-class")).to_contain_text("五班")
    page.fill("input[name=name]", name)
    page.locator("input[name=name]").press("Enter")
    expect(page.locator("input[name=name]")).to_have_value(name)
    expect(page.locator("#joined")).to_have_count(0)  # said once
    return page


def late_mark(page: Page):
    mark = page.locator(".status .late").first
    expect(mark).to_be_visible()
    colour, wrong = mark.evaluate(ERROR_COLOUR)
    assert colour == wrong, (colour, wrong)
    return mark


def shots(page: Page, artifacts, name: str) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=artifacts / f"term-{name}-{width}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)


def test_joining_names_the_class_and_past_due_says_how_late(
    page: Page, browser: Browser, teacher_server, app, artifacts
):
    page.goto(teacher_server + "/teach/login")
    page.fill("#token", TOKEN)
    page.click(".token-login button[type=submit]")
    page.click("text=班级 >> nth=0")
    page.fill("input[name=code]", "term-5")
    page.fill("input[name=name]", "五班")
    page.click("text=创建班级")
    link = page.input_value("input.device-link")
    form = page.locator("form.new-assignment")
    form.locator("select[name=snippet]").select_option(SNIPPET)
    form.locator("input[name=rate]").fill("20")
    form.locator("input[name=target_kind][value=reviews]").check()
    form.locator("input[name=target_reviews]").fill("2")
    form.locator("input[name=starts]").fill(STARTS)
    form.locator("input[name=due]").fill(DUE)
    form.locator("button[type=submit]").click()
    expect(page.locator("table.assignment-status")).to_contain_text("2 个不同的日子复习")

    ana, bo = join(browser, link, "安娜"), join(browser, link, "波波")
    ana.goto(teacher_server + MASK)
    answers = fill_right(ana, app, SNIPPET)
    ana.locator("input.blank").last.press("Control+Enter")
    expect(ana.locator(".score")).to_contain_text(f"{len(answers)} / {len(answers)}", timeout=30_000)

    page.reload()
    table = page.locator("table.assignment-status")
    ana_cell = table.locator("tr", has_text="安娜").locator("td.status")
    expect(ana_cell).to_contain_text("进行中 (1 / 2)")
    expect(table.locator("tr", has_text="波波").locator("td.status")).to_contain_text("未开始")
    assert late_mark(page).inner_text().removeprefix("逾期 ").removesuffix(" 天") in days_late()
    expect(table.locator(".late")).to_have_count(2)
    shots(page, artifacts, "class-zh")
    assert violations_in_both_schemes(page, "class page, past due") == []

    for learner, state in ((ana, "进行中 (1 / 2)"), (bo, "未开始")):
        for path in ("/", "/me"):
            learner.goto(teacher_server + path)
            item = learner.locator(".learner-assignments li.assignment")
            expect(item).to_contain_text(state)
            assert late_mark(learner).inner_text().removeprefix("逾期 ").removesuffix(" 天") in days_late()
    expect(ana.locator(".my-class")).to_contain_text("五班")
    ana.goto(teacher_server + "/")
    shots(ana, artifacts, "home-zh")
    assert violations_in_both_schemes(ana, "home, past due") == []
    ana.goto(teacher_server + "/me")
    shots(ana, artifacts, "me-zh")
    assert violations_in_both_schemes(ana, "/me, past due") == []

    page.goto(teacher_server + "/teach/classes/term-5?lang=en")
    expect(page.locator("table.assignment-status")).to_contain_text("in progress (1 / 2)")
    assert late_mark(page).inner_text().removesuffix(" days late") in days_late()
    shots(page, artifacts, "class-en")
    ana.goto(teacher_server + "/?lang=en")
    assert late_mark(ana).inner_text().removesuffix(" days late") in days_late()
    shots(ana, artifacts, "home-en")
    ana.goto(teacher_server + "/me")
    expect(ana.locator(".my-class")).to_contain_text("Class 五班")
    shots(ana, artifacts, "me-en")

    bo.goto(teacher_server + "/me?lang=en")
    bo.locator("input[name=class_code]").fill("")
    bo.locator("input[name=class_code]").press("Enter")
    expect(bo.locator(".my-class")).to_have_count(0)
    bo.goto(link)
    bo.click("form[action^='/join/'] button[type=submit]")
    expect(bo.locator("#joined")).to_have_text("Joined 五班")
    shots(bo, artifacts, "joined-en")
    ana.context.close()
    bo.context.close()
