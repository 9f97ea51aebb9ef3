"""The five fixed exercises and the teacher preview in real headless Chromium."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import EXERCISES, right_answers

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("snippet_id", EXERCISES)
def test_exercise_typesets_math_and_scores_fixed_blanks(page: Page, live_server, app, artifacts, snippet_id):
    page.goto(f"{live_server}/s/{snippet_id}")
    expect(page.locator(".katex").first).to_be_visible()
    assert page.locator(".katex-error").count() == 0
    assert "$$" not in page.locator("main").inner_text()
    page.screenshot(path=artifacts / f"{snippet_id}.png", full_page=True)
    answers = right_answers(app, snippet_id)
    keys = list(answers)
    for key in keys:
        page.fill(f'input[name="{key}"]', answers[key])
    page.fill(f'input[name="{keys[0]}"]', "wrong_answer_here")
    page.click("form.drill button.primary")
    expect(page.locator(".score")).to_contain_text(f"{len(keys) - 1} / {len(keys)}")
    expect(page.locator(f'input[name="{keys[0]}"]')).to_have_class(re.compile(r"\bwrong\b"))
    for key in keys[1:]:
        expect(page.locator(f'input[name="{key}"]')).to_have_class(re.compile(r"\b(right)\b"))
    # 参考答案 and 解析 arrive by an htmx swap; their math is typeset too.
    expect(page.locator(".answers")).to_contain_text("参考答案")
    assert page.locator(".katex-error").count() == 0
    assert page.locator(".answers .math:not(:has(.katex))").count() == 0
    page.screenshot(path=artifacts / f"{snippet_id}-submitted.png", full_page=True)


def test_short_answers_and_self_rating(page: Page, live_server, app):
    page.goto(f"{live_server}/s/ex5-flash-backward")
    answers = right_answers(app, "ex5-flash-backward")
    for key, answer in answers.items():
        page.fill(f'input[name="{key}"]', answer)
    page.fill("textarea#q0", "S 是 N×N 的，存下来要 O(N^2) 显存")
    page.click("form.drill button.primary")
    review = page.locator(".question-review").first
    expect(review).to_contain_text("S 是 N×N 的")
    expect(review).to_contain_text("O(N^2)")
    review.locator("button[value=good]").click()
    expect(page.locator(".rated").first).to_contain_text("良好")


def test_hints_open_on_demand(page: Page, live_server):
    page.goto(f"{live_server}/s/ex1-attention-memory")
    hints = page.locator("details.hints")
    expect(hints.locator("li").first).not_to_be_visible()
    hints.locator("summary").click()
    expect(hints).to_contain_text("Q 的 shape 是 [N, d]")


@pytest.mark.parametrize("script", [True, False], ids=["htmx", "no-script"])
def test_show_every_answer_asks_the_server_and_counts_them_revealed(browser, live_server, app, artifacts, script):
    """显示全部答案 posts (no link can reveal); the answers and explanations come back, and the
    submission after it is practice: every blank revealed."""
    context = browser.new_context(java_script_enabled=script, viewport={"width": 390, "height": 844}, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{live_server}/s/ex3-blocked-matmul")
    page.locator("form.reveal-every button").click()
    blanks = page.locator("input.blank")
    expect(page.locator("input.blank.revealed")).to_have_count(blanks.count())
    expect(page.locator(".answers")).to_contain_text("参考答案")
    answers = right_answers(app, "ex3-blocked-matmul")
    assert [blanks.nth(i).input_value() for i in range(blanks.count())] == list(answers.values())
    page.screenshot(path=artifacts / f"reveal-every-{'htmx' if script else 'plain'}.png", full_page=True)
    page.click("form.drill button.primary")
    expect(page.locator(".score")).to_contain_text(f"0 / {len(answers)}")
    context.close()
