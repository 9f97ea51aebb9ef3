"""A class in real headless Chromium: a teacher makes a code, a learner joins by its link and
practises, the class page shows the heatmap and answers, and one click accepts an answer the check
passed where it cannot tell (the learner's next submission with it is a match)."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.teach_helpers import TOKEN
from tests.test_browser import fill_right

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"
# Its blank s35 is `l = 0.0`: `0` passes any check (l is first multiplied by exp(-inf) = 0), token match
# says no, and the check cannot tell there: unproven, counted wrong, listed for the teacher.
MASK = f"/s/{SNIPPET}/drill?rate=20&seed=154"


def practise(page: Page, url: str, app, wrong: dict[str, str]) -> None:
    page.goto(url + MASK)
    answers = fill_right(page, app, SNIPPET)
    for key, text in wrong.items():
        page.fill(f'input[name="{key}"]', text)
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".score")).to_contain_text(f"/ {len(answers)}", timeout=30_000)


def test_class_page_heatmap_and_one_click_alternative(page: Page, browser: Browser, teacher_server, app, artifacts):
    page.goto(teacher_server + "/teach/login")
    page.fill("#token", TOKEN)
    page.fill("#name", "王老师")
    page.click(".token-login button[type=submit]")
    page.click("text=班级 >> nth=0")
    page.fill("input[name=code]", "cs-101")
    page.fill("input[name=name]", "一班")
    page.click("text=创建班级")
    join = page.input_value("input.device-link")
    assert join.endswith("/join/cs-101")

    learner = browser.new_context(locale="zh-CN").new_page()
    learner.goto(join)
    learner.click("text=加入这个班级")
    expect(learner.locator("input[name=class_code]")).to_have_value("cs-101")
    practise(learner, teacher_server, app, {"s35": "0"})
    expect(learner.locator('input[name="s35"].unproven')).to_have_count(1)
    practise(learner, teacher_server, app, {"s2": "y", "s109": "+"})

    page.goto(f"{teacher_server}/teach/stats/{SNIPPET}?class=cs-101")
    expect(page.locator(".n-attempts")).to_have_text("2")
    expect(page.locator(".n-learners")).to_have_text("1")
    expect(page.locator("svg.chart circle")).to_have_count(1)
    expect(page.locator("pre.class-heatmap .tok.h4")).to_have_count(3)  # s2, s109, s35: missed in 1 of 2
    expect(page.locator("pre.class-heatmap .tok.h1")).to_have_count(10)  # the others
    expect(page.locator("table.answers")).to_contain_text("y ×1")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=artifacts / "class-stats-1280.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=artifacts / "class-stats-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # wide tables scroll in their own box
    page.click("#b35-35 button.accept")
    expect(page.locator("#b35-35 .badge")).to_have_text("已接受")
    expect(page.locator("ul.alternatives")).to_contain_text("王老师")

    practise(learner, teacher_server, app, {"s35": "0"})
    expect(learner.locator('input[name="s35"].unproven')).to_have_count(0)
    expect(learner.locator(".score")).to_contain_text("13 / 13")
    page.click("ul.alternatives button.withdraw")
    expect(page.locator("ul.alternatives")).to_contain_text("撤回")
    learner.context.close()
    page.goto(teacher_server + "/teach/classes/cs-101")
    expect(page.locator("table.learners")).to_contain_text("92%")  # 12, 11 and 13 of 13 recalled
    page.screenshot(path=artifacts / "class-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
