"""Assignments in real headless Chromium: a teacher assigns a drill to a class on its page, two
learners practise (one reaches the target), the class page shows done / in progress, and each
learner's home page shows the assignment with their progress. Screenshots at 1280 and 390."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.a11y import violations_in_both_schemes
from tests.teach_helpers import TOKEN
from tests.test_browser import fill_right

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"
MASK = f"/s/{SNIPPET}/drill?rate=20&seed=154"  # its mask holds s2 and s109


def join_as(browser: Browser, join: str, name: str) -> Page:
    page = browser.new_context(locale="zh-CN").new_page()
    page.goto(join)
    page.click("text=加入这个班级")
    page.fill("input[name=name]", name)
    page.locator("input[name=name]").press("Enter")
    expect(page.locator("input[name=name]")).to_have_value(name)
    return page


def practise(page: Page, url: str, app, wrong: dict[str, str]) -> None:
    page.goto(url + MASK)
    answers = fill_right(page, app, SNIPPET)
    for key, text in wrong.items():
        page.fill(f'input[name="{key}"]', text)
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".score")).to_contain_text(f"/ {len(answers)}", timeout=30_000)


def test_a_teacher_assigns_a_drill_and_sees_who_reached_the_target(
    page: Page, browser: Browser, teacher_server, app, artifacts
):
    page.goto(teacher_server + "/teach/login")
    page.fill("#token", TOKEN)
    page.click(".token-login button[type=submit]")
    page.click("text=班级 >> nth=0")
    page.fill("input[name=code]", "hw-7")
    page.click("text=创建班级")
    join = page.input_value("input.device-link")

    form = page.locator("form.new-assignment")
    form.locator("select[name=snippet]").select_option(SNIPPET)
    form.locator("select[name=mode]").select_option("random")
    form.locator("input[name=rate]").fill("20")
    form.locator("select[name=unit]").select_option("token")
    form.locator("input[name=target_kind][value=accuracy]").check()
    form.locator("input[name=target_accuracy]").fill("90")
    form.locator("input[name=due]").fill("2027-01-15")
    form.locator("button[type=submit]").click()
    expect(page.locator("table.assignment-status")).to_contain_text("正确率 ≥ 90%")

    ana, bo = join_as(browser, join, "安娜"), join_as(browser, join, "波波")
    practise(ana, teacher_server, app, {})  # 13 of 13
    practise(bo, teacher_server, app, {"s2": "y", "s109": "+"})  # 11 of 13: under 90 %

    page.reload()
    table = page.locator("table.assignment-status")
    expect(table.locator("tr", has_text="安娜").locator("td.status")).to_have_class("status done")
    expect(table.locator("tr", has_text="安娜")).to_contain_text("完成")
    expect(table.locator("tr", has_text="安娜")).not_to_contain_text("100%")  # done reads done, not a figure
    expect(table.locator("tr", has_text="波波").locator("td.status")).to_have_class("status in_progress")
    expect(table.locator("tr", has_text="波波")).to_contain_text("进行中 (85% / 90%)")
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=artifacts / f"assignments-class-{width}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width

    assert violations_in_both_schemes(page, "class page with assignments") == []

    for learner, state in ((ana, "完成"), (bo, "进行中")):
        learner.goto(teacher_server + "/")
        item = learner.locator(".learner-assignments li.assignment")
        expect(item).to_have_count(1)
        expect(item).to_contain_text("在线 Softmax")
        expect(item).to_contain_text(state)
        expect(item.locator("a")).to_have_attribute("href", f"/s/{SNIPPET}/drill?rate=20")
    for width, height in ((1280, 900), (390, 844)):
        bo.set_viewport_size({"width": width, "height": height})
        bo.screenshot(path=artifacts / f"assignments-home-{width}.png", full_page=True)
        assert bo.evaluate("document.documentElement.scrollWidth") <= width
    assert violations_in_both_schemes(bo, "home with an assignment") == []
    bo.goto(teacher_server + "/me")
    expect(bo.locator(".learner-assignments")).to_contain_text("进行中 (85% / 90%)")
    assert violations_in_both_schemes(bo, "/me with an assignment") == []
    ana.context.close()
    bo.context.close()
