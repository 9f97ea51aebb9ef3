"""Memory words in real headless Chromium under a moving clock (libfaketime): a retry of the
missed blanks with and without script, the next day's review at the learner's rate, and times in
the browser's own time zone; /me and the review page looked at in zh and en, 1280 and 390 wide."""

import re
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Browser, Page, expect

from app.engine.tokens import eligible_spans
from app.learn.drills import fixed_drill
from tests.faketime_server import faked_server, snippet

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"
START = datetime(2027, 1, 4, 23, 30, tzinfo=UTC)  # 07:30 on 5 January in Shanghai


@pytest.fixture(scope="module", autouse=True)
def patient():
    """A loaded machine (the server works under LD_PRELOAD, the CPU is shared): wait longer."""
    expect.set_options(timeout=30_000)
    yield
    expect.set_options(timeout=5_000)


def new_page(browser: Browser, **options) -> Page:
    page = browser.new_context(**options).new_page()
    page.set_default_timeout(90_000)
    return page


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faked-browser")
    with faked_server(folder / "data", START) as (url, clock):
        yield url, clock


def blank_spans(page: Page) -> list[int]:
    return [int(n[1:]) for n in page.locator("input.blank").evaluate_all("els => els.map(e => e.name)")]


def answer(page: Page, miss: int = 0) -> list[int]:
    """Fill every blank right except the first `miss`, submit; the spans missed."""
    text = {s.index: s.text for s in eligible_spans(snippet(SNIPPET).code)}
    spans = blank_spans(page)
    for i, span in enumerate(spans):
        page.fill(f'input[name="s{span}"]', "nope" if i < miss else text[span])
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".score")).to_contain_text(f"{len(spans) - miss} / {len(spans)}")
    return spans[:miss]


def look(page: Page, artifacts, name: str) -> None:
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=artifacts / f"{name}-{width}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_retry_review_and_times_in_the_learners_zone(browser: Browser, served, artifacts, lang):
    url, clock = served
    clock.set(START)
    locale = "zh-CN" if lang == "zh" else "en-US"
    page = new_page(browser, locale=locale, timezone_id="Asia/Shanghai")
    page.goto(f"{url}/s/{SNIPPET}/drill?rate=30&seed=21")
    assert page.context.cookies(url)[0]["name"] in ("cc_tz", "cc_learner")
    assert any(c["name"] == "cc_tz" and c["value"] == "Asia/Shanghai" for c in page.context.cookies(url))
    missed = answer(page, miss=3)
    retry = page.locator("a.retry")
    expect(retry).to_contain_text("再练一次没答出的空 (3)" if lang == "zh" else "Retry the missed blanks (3)")
    look(page, artifacts, f"result-{lang}")
    retry.click()  # htmx swaps in the mask of exactly the missed blanks
    expect(page).to_have_url(re.compile(rf"/s/{SNIPPET}/retry\?rate=30&v=\w+&at=\d+&miss=[\d.]+&sig="))
    expect(page.locator("input.blank")).to_have_count(3)
    assert blank_spans(page) == sorted(missed)
    look(page, artifacts, f"retry-{lang}")
    answer(page)
    expect(page.locator("a.retry")).to_have_count(0)

    clock.advance(days=1)  # 07:30 on 6 January in Shanghai: yesterday's misses have slipped
    page.goto(f"{url}/")
    expect(page.locator(".due-count")).to_have_text("1")
    due_text = page.locator(".due-list li").first.inner_text()
    assert "UTC" not in due_text and re.search(r"2027-01-05 \d\d:\d\d", due_text), due_text  # Shanghai's time
    page.click("a.start-review")
    expect(page).to_have_url(re.compile(rf"/s/{SNIPPET}/review\?rate=30&seed=\d+"))  # the rate they drill at
    note = page.locator(".review-note")
    expect(note).to_contain_text("2027-01-06 07:30")  # when it was chosen, in Shanghai
    expect(note).to_contain_text("挑了 19 个空：" if lang == "zh" else "19 blanks chosen from your memory")
    look(page, artifacts, f"review-{lang}")
    page.goto(f"{url}/me")
    expect(page.locator(".forecast").first).to_contain_text("0 个已经记牢" if lang == "zh" else "0 of")
    look(page, artifacts, f"me-{lang}")
    page.context.close()


def test_without_script_the_retry_is_a_link_and_times_are_utc(browser: Browser, served):
    url, clock = served
    clock.set(START)
    page = new_page(browser, locale="zh-CN", java_script_enabled=False, timezone_id="Asia/Shanghai")
    page.goto(f"{url}/s/{SNIPPET}/drill?rate=30&seed=22")
    text = {s.index: s.text for s in eligible_spans(snippet(SNIPPET).code)}
    spans = blank_spans(page)
    for i, span in enumerate(spans):
        page.fill(f'input[name="s{span}"]', "nope" if i < 2 else text[span])
    page.click("button.primary[type=submit]")
    page.click("a.retry")  # a plain link: the whole page with the retry mask
    page.wait_for_url(re.compile(rf"/s/{SNIPPET}/retry\?"))
    expect(page.locator("input.blank")).to_have_count(2)
    assert blank_spans(page) == sorted(spans[:2])
    clock.advance(days=1)
    page.goto(f"{url}/me")
    assert not any(c["name"] == "cc_tz" for c in page.context.cookies(url))
    expect(page.locator(".due-list li").first).to_contain_text(" UTC")
    page.context.close()


EXERCISE = "ex5-flash-backward"  # 练习 5: code blanks and two short-answer questions
REVIEW_VIEWS = [(390, "zh", "light"), (390, "en", "dark"), (1280, "zh", "dark"), (1280, "en", "light")]


def answer_exercise(page: Page, question: str) -> None:
    """Every code blank right (no empty-blank question), the first question answered, submitted."""
    for hole in fixed_drill(snippet(EXERCISE)).holes:
        page.fill(f'input[name="{hole.key}"]', hole.answer)
    page.fill("#q0", question)
    page.locator("#q0").press("Control+Enter")
    expect(page.locator("form.rating").first).to_be_visible()


def test_a_due_question_is_the_one_the_review_shows(browser: Browser, served, artifacts):
    url, clock = served
    clock.set(datetime(2027, 2, 1, 1, tzinfo=UTC))
    first = new_page(browser, locale="zh-CN")
    first.goto(f"{url}/s/{EXERCISE}")
    answer_exercise(first, "不知道")
    first.locator("form.rating").first.locator('button[value="again"]').click()
    expect(first.locator(".rated")).to_be_visible()
    learner = first.context.storage_state()
    first.context.close()
    clock.advance(minutes=20)  # past the learning step of an "again"
    for width, lang, theme in REVIEW_VIEWS:
        page = new_page(
            browser,
            storage_state=learner,
            locale="zh-CN" if lang == "zh" else "en-US",
            color_scheme=theme,
            viewport={"width": width, "height": 844 if width < 600 else 900},
        )
        page.goto(f"{url}/")
        page.click("a.start-review")
        expect(page).to_have_url(re.compile(rf"/s/{EXERCISE}\?due=q0#question-0$"))
        due = page.locator("fieldset.question.due")
        expect(due).to_have_count(1)
        expect(due).to_have_id("question-0")
        expect(due.locator(".due-badge")).to_have_text("到期复习" if lang == "zh" else "due for review")
        expect(due).to_be_in_viewport()
        expect(page.locator("fieldset.question:not(.due)")).to_have_count(1)  # the other question, unmarked
        page.screenshot(path=artifacts / f"due-question-{width}-{lang}-{theme}.png")
        answer_exercise(page, "重新计算比存储省显存")
        review = page.locator(".question-review.due")
        expect(review).to_have_count(1)
        expect(review).to_contain_text("为什么 Flash Attention 反向传播选择重新计算")  # the question, repeated
        expect(review.locator(".due-badge")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        review.scroll_into_view_if_needed()
        page.screenshot(path=artifacts / f"due-question-reviewed-{width}-{lang}-{theme}.png")
        page.context.close()
