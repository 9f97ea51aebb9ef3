"""Accessibility in real Chromium: axe-core over every page (and the states a page takes: a scored
drill, an open dialog, a teacher's report) in both colour schemes, with zero serious or critical
findings; blanks named and focused in code order; verdicts read out; marks beside colour."""

import pytest
from playwright.sync_api import Browser, Page, expect

from app.learn.drills import random_drill
from tests.a11y import violations_in_both_schemes
from tests.helpers import right_answers
from tests.site import DRILL, MASK, SNIPPETS
from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.browser


def submit_with_one_wrong(page: Page, app, teacher_server: str | None) -> dict[str, str]:
    """MASK (opened unless `teacher_server` is None) with every blank right but the first; returns the right answers."""
    if teacher_server:
        page.goto(teacher_server + MASK)
    answers = right_answers(app, DRILL, 30, 1)
    for key, text in answers.items():
        page.fill(f'input[name="{key}"]', text)
    page.fill(f'input[name="{next(iter(answers))}"]', "None")
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".verdict")).to_be_visible(timeout=30_000)
    return answers


def check(page: Page, found: list, name: str) -> None:
    page.wait_for_load_state("load")
    found += violations_in_both_schemes(page, name)


def check_elsewhere(browser: Browser, url: str, found: list, name: str) -> None:
    """A link a learner opens in another browser (a device link, a class's join link)."""
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    page.goto(url)
    check(page, found, name)
    context.close()


def test_every_learner_page_has_no_serious_axe_violation(page: Page, browser: Browser, teacher_server, app):
    found: list[str] = []
    for path in [
        "/",
        *(f"/s/{s}" for s in SNIPPETS),
        MASK,
        MASK + "&unit=span",
        MASK + "&unit=line",
        f"/s/{DRILL}/drill/weak",
        "/me",
        "/s/no-such-snippet",
        f"/s/{DRILL}/review",
    ]:
        page.goto(teacher_server + path)
        check(page, found, path)
    page.goto(teacher_server + MASK)
    page.click("button.shortcuts-open")  # the shortcuts dialog, open
    expect(page.locator("dialog#shortcuts")).to_be_visible()
    check(page, found, "shortcuts dialog")
    page.keyboard.press("Escape")
    page.click("form.drill button.primary")  # every blank empty: the confirmation
    expect(page.locator(".confirm-empty")).to_be_visible()
    check(page, found, "confirm empty blanks")

    submit_with_one_wrong(page, app, teacher_server)
    check(page, found, "scored drill")
    page.click("button.reveal-all")
    check(page, found, "scored drill, answers shown")
    page.goto(f"{teacher_server}/s/ex1-attention-memory")
    page.locator("input.blank").first.fill("x")
    page.locator("input.blank").last.press("Control+Enter")
    page.click(".confirm-submit")
    expect(page.locator(".score")).to_be_visible(timeout=30_000)
    check(page, found, "scored exercise")
    page.goto(teacher_server + "/me")  # now with history, a chart and a heatmap
    check(page, found, "/me after practice")
    check_elsewhere(browser, page.input_value("input.device-link"), found, "continue on another device")
    assert found == [], "\n".join(found)


def test_every_teacher_page_has_no_serious_axe_violation(page: Page, browser: Browser, teacher_server):
    found: list[str] = []
    page.goto(teacher_server + "/teach/login")
    check(page, found, "/teach/login")
    page.fill("#token", "wrong")
    page.click(".token-login button[type=submit]")
    expect(page.locator(".notice.error")).to_be_visible()
    check(page, found, "/teach/login, wrong token")
    page.fill("#token", TOKEN)
    page.click(".token-login button[type=submit]")
    expect(page.locator("h1")).to_have_text("教师后台")
    check(page, found, "/teach")
    page.goto(teacher_server + "/teach/new")
    check(page, found, "/teach/new")
    page.fill("#id", "a11y-square")
    page.fill("#text", snippet_text(check="assert True"))  # saved, with a weak-check warning
    page.click("text=校验并保存")
    expect(page.locator("h1")).to_have_text("Square")
    check(page, found, "/teach/snippets/a11y-square (saved with a report)")
    page.goto(teacher_server + "/teach/new")
    page.fill("#id", "a11y-broken")
    page.fill("#text", "---\ntitle: [\n---\n")
    page.click("text=校验并保存")
    expect(page.locator(".notice.error")).to_be_visible()
    check(page, found, "/teach/new with problems")
    for path in [
        "/teach/snippets/a11y-square/edit",
        "/teach/snippets/a11y-square/delete",
        f"/teach/snippets/{DRILL}",
        f"/teach/stats/{DRILL}",
        "/teach/classes",
        "/teach/accounts",
        "/teach/audit",
        "/teach/lti",
    ]:
        page.goto(teacher_server + path)
        check(page, found, path)
    page.goto(f"{teacher_server}/teach/snippets/a11y-square")
    page.click("text=运行检查强度分析")
    expect(page.locator(".strength")).to_contain_text("这些地方的错误没有被检查发现", timeout=60_000)
    check(page, found, "check strength")
    page.goto(teacher_server + "/teach/classes")
    page.fill("input[name=code]", "a11y-1")
    page.fill("input[name=name]", "一班")
    page.click("text=创建班级")
    check(page, found, "/teach/classes/a11y-1")
    check_elsewhere(browser, page.input_value("input.device-link"), found, "/join/a11y-1")
    page.goto(f"{teacher_server}/teach/stats/{DRILL}?class=a11y-1")
    check(page, found, "class stats")
    assert found == [], "\n".join(found)


def test_blanks_are_named_and_tab_follows_the_code(page: Page, teacher_server, app):
    page.goto(teacher_server + MASK)
    blanks = page.locator("input.blank")
    names = blanks.evaluate_all("els => els.map(e => e.name)")
    total = len(names)
    code = app.state.library.get(DRILL).code
    starts = {h.key: h.start for h in random_drill(app.state.library.get(DRILL), 30, 1).holes}
    for n, name in enumerate(names, start=1):
        line = code.count("\n", 0, starts[name]) + 1
        expect(page.locator(f'input[name="{name}"]')).to_have_accessible_name(
            f"第 {n} 空（共 {total} 个），第 {line} 行"
        )
    assert sorted(names, key=lambda k: int(k[1:])) == names  # the DOM holds them in code order
    blanks.first.focus()
    reached = []
    for _ in range(total + 3):  # Tab alone walks the blanks in order, then on to the buttons
        reached.append(page.evaluate("document.activeElement.name || document.activeElement.className"))
        page.keyboard.press("Tab")
    assert reached[:total] == names
    submit_with_one_wrong(page, app, teacher_server)
    wrong = names[0]
    page.focus(f'input[name="{names[-1]}"]')
    page.focus(f'input[name="{wrong}"]')
    page.keyboard.press("Tab")  # after a wrong blank: its ? button, then the next blank
    assert page.evaluate("document.activeElement.dataset.for") == f"blank-{wrong}"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == names[1]


def test_the_verdict_is_read_out_from_a_live_region_that_stays(page: Page, teacher_server, app):
    page.goto(teacher_server + MASK)
    announcer = page.locator("#announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_have_text("")
    page.evaluate("window.__announcer = document.getElementById('announcer')")
    answers = submit_with_one_wrong(page, app, None)
    expect(announcer).to_contain_text(f"{len(answers) - 1} / {len(answers)}")
    verdict = page.locator(".verdict strong").inner_text().replace("✗", "").strip()
    expect(announcer).to_contain_text(verdict)
    assert verdict and "✗" not in announcer.text_content()  # the mark is for the eye; the words are read
    assert page.evaluate("window.__announcer === document.getElementById('announcer')")  # not swapped away
    page.click("text=同一遮盖再试一次")
    expect(page.locator(".score")).to_have_count(0)  # the fresh mask swapped in: answers go into its blanks
    for key, text in answers.items():
        page.fill(f'input[name="{key}"]', text)
    page.locator("input.blank").last.press("Control+Enter")
    expect(announcer).to_contain_text(f"{len(answers)} / {len(answers)}")


def test_marks_say_right_and_wrong_without_colour(page: Page, teacher_server, app):
    answers = submit_with_one_wrong(page, app, teacher_server)
    wrong, right = list(answers)[:2]
    wrong_mark = page.locator(f'input[name="{wrong}"] + span.mark')
    expect(wrong_mark).to_have_text("✗")
    expect(wrong_mark).to_have_accessible_name("错误")
    expect(page.locator(f'input[name="{wrong}"]')).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f'input[name="{right}"] + span.mark')).to_have_text("✓")
    assert page.locator(f'input[name="{right}"]').get_attribute("aria-invalid") is None
    expect(page.locator("span.mark.right")).to_have_count(len(answers) - 1)
    expect(page.locator(".legend")).to_contain_text("✓ 匹配")
    expect(page.locator(".verdict strong .mark")).to_have_text("✗")
    page.click(f'button.reveal[data-for="blank-{wrong}"]')
    expect(wrong_mark).to_have_text("↩")
    expect(page.locator(f'input[name="{wrong}"]')).not_to_have_attribute("aria-invalid", "true")
    # the same marks without JavaScript: a plain form post renders them on the teacher_server
    context = page.context.browser.new_context(locale="zh-CN", java_script_enabled=False)
    plain = context.new_page()
    plain.goto(teacher_server + MASK)
    for key, text in answers.items():
        plain.fill(f'input[name="{key}"]', text)
    plain.fill(f'input[name="{wrong}"]', "None")
    plain.click("form.drill button.primary")
    expect(plain.locator(f'input[name="{wrong}"] + span.mark')).to_have_text("✗", timeout=30_000)
    expect(plain.locator("span.mark.right")).to_have_count(len(answers) - 1)
    context.close()
