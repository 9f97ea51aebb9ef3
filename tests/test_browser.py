"""The drills in real headless Chromium, as a learner uses them."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from app.engine.tokens import eligible_spans
from tests.helpers import right_answers

pytestmark = pytest.mark.browser


def mask_of(page: Page) -> tuple[int, int]:
    query = parse_qs(urlparse(page.url).query)
    return int(query["rate"][0]), int(query["seed"][0])


def fill_right(page: Page, app, snippet_id: str) -> dict[str, str]:
    rate, seed = mask_of(page)
    answers = right_answers(app, snippet_id, rate, seed)
    for key, answer in answers.items():
        page.fill(f'input[name="{key}"]', answer)
    return answers


def test_rate_and_refresh_swap_only_the_code_and_update_the_url(page: Page, live_server):
    page.goto(live_server + "/s/mlm-online-softmax/drill?rate=15&seed=1")
    expect(page.locator(".counts")).to_contain_text("共 64 个可挖空位 | 已挖 10 个")
    page.evaluate("window.__sameDocument = true")
    page.click("a.rate:text('30%')")
    expect(page).to_have_url(re.compile(r"rate=30&seed=1&v=\w+$"))
    expect(page.locator(".counts")).to_contain_text("已挖 19 个")
    before = page.locator("input.blank").evaluate_all("els => els.map(e => e.name)")
    page.click("a.refresh")
    expect(page).to_have_url(re.compile(r"rate=30&seed=(?!1&)\d+&v=\w+$"))
    after = page.locator("input.blank").evaluate_all("els => els.map(e => e.name)")
    assert before != after
    assert page.evaluate("window.__sameDocument") is True  # no full reload
    shared = page.url
    page.reload()
    assert page.locator("input.blank").evaluate_all("els => els.map(e => e.name)") == after
    assert page.url == shared


def test_right_answers_by_keyboard_score_every_blank_right(page: Page, live_server, app, artifacts):
    page.goto(live_server + "/s/mlm-flash-forward/drill?rate=20&seed=2024")
    answers = fill_right(page, app, "mlm-flash-forward")
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".score")).to_contain_text(f"{len(answers)} / {len(answers)}")
    expect(page.locator("input.blank.right")).to_have_count(len(answers))
    expect(page.locator(".verdict.passed")).to_contain_text("验证通过")
    page.screenshot(path=artifacts / "drill-all-right.png", full_page=True)


def test_a_wrong_blank_is_marked_and_can_be_revealed(page: Page, live_server, app):
    page.goto(live_server + "/s/mlm-blocked-attention/drill?rate=10&seed=7")
    answers = fill_right(page, app, "mlm-blocked-attention")
    first = next(iter(answers))
    page.fill(f'input[name="{first}"]', "None")  # fails the check wherever it stands
    page.click("form.drill button.primary")
    wrong = page.locator(f'input[name="{first}"]')
    expect(wrong).to_have_class(re.compile(r"\bwrong\b"))
    expect(page.locator(".score")).to_contain_text(f"{len(answers) - 1} / {len(answers)}")
    page.click(f'button.reveal[data-for="blank-{first}"]')
    expect(wrong).to_have_value(answers[first])
    page.click("text=同一遮盖再试一次")
    expect(page.locator(f'input[name="{first}"]')).to_have_value("")


def test_marks_follow_each_submission_and_messages_clear(page: Page, live_server, app):
    page.goto(live_server + "/s/mlm-online-softmax/drill?rate=20&seed=5")
    answers = fill_right(page, app, "mlm-online-softmax")
    code = app.state.library.get("mlm-online-softmax").code
    spans = {s.index: s for s in eligible_spans(code)}  # a blank's key names its span's index
    first = next(k for k, a in answers.items() if a.isidentifier() and spans[int(k[1:])].start > code.index(":\n"))
    page.fill(f'input[name="{first}"]', "undefined_name")  # a NameError in the function's body
    page.click("form.drill button.primary")
    expect(page.locator(f'input[name="{first}"]')).to_have_class(re.compile(r"\bwrong\b"))
    expect(page.locator("button.reveal")).to_have_count(1)
    expect(page.locator(".verdict")).to_contain_text("NameError")
    expect(page.locator("pre.trainer-code .line.error-line")).to_have_count(1)
    # A rejected submission leaves its message and the typed answers ...
    page.evaluate("document.querySelector('input[name=version]').value = '0123456789ab'")
    page.locator(f'input[name="{first}"]').press("Control+Enter")
    expect(page.locator("#flash")).to_contain_text("这个片段已经更新")
    expect(page.locator(f'input[name="{first}"]')).to_have_value("undefined_name")
    # ... and the next one clears it and marks every blank again.
    page.evaluate(
        f"document.querySelector('input[name=version]').value = '{app.state.library.get('mlm-online-softmax').version}'"
    )
    page.fill(f'input[name="{first}"]', answers[first])
    page.locator(f'input[name="{first}"]').press("Control+Enter")
    expect(page.locator(".score")).to_contain_text(f"{len(answers)} / {len(answers)}")
    expect(page.locator("input.blank.right")).to_have_count(len(answers))
    expect(page.locator("#flash")).to_be_empty()
    expect(page.locator("button.reveal")).to_have_count(0)
    expect(page.locator(".line.error-line")).to_have_count(0)


def test_tab_moves_between_blanks(page: Page, live_server):
    page.goto(live_server + "/s/mlm-online-softmax/drill?rate=20&seed=3")
    names = page.locator("input.blank").evaluate_all("els => els.map(e => e.name)")
    page.focus(f'input[name="{names[0]}"]')
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == names[1]


def test_reads_on_a_phone_width_screen(browser, live_server, artifacts):
    phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    phone.goto(live_server + "/s/mlm-flash-forward/drill?rate=15&seed=9")
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    expect(phone.locator("a.rate")).to_have_count(5)
    phone.screenshot(path=artifacts / "drill-phone.png", full_page=True)
    phone.close()
