"""Correcting a class in real headless Chromium, in Chinese and in English: a teacher edits an
assignment (a refused edit comes back with the error beside its field and what was typed), then
archives the class and restores it. Screenshots at 1280 and 390 wide; axe finds nothing serious."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.a11y import violations_in_both_schemes
from tests.servers import running_server
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"
WIDTHS = ((1280, 900), (390, 844))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A served app with the teachers' token; scoring by token match is all these pages need."""
    with running_server(
        tmp_path_factory.mktemp("corrections"), CODECLOZE_TEACHER_TOKEN=TOKEN, CODECLOZE_EXECUTION="false"
    ) as url:
        yield url


def shots(page: Page, artifacts, name: str) -> None:
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=artifacts / f"{name}-{width}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name


@pytest.mark.parametrize("locale", ["zh-CN", "en"])
def test_a_teacher_edits_an_assignment_and_archives_the_class(browser: Browser, served, artifacts, locale):
    lang = "zh" if locale == "zh-CN" else "en"
    code = f"term-{lang}"
    page = browser.new_context(locale=locale).new_page()
    page.goto(served + "/teach/login")
    page.fill("#token", TOKEN)
    page.click(".token-login button[type=submit]")
    page.goto(served + "/teach/classes")
    page.fill("input[name=code]", code)
    page.locator("form.new-class button[type=submit]").click()
    join = page.input_value("input.device-link")
    learner = browser.new_context(locale=locale).new_page()
    learner.goto(join)
    learner.locator("main form button[type=submit]").first.click()

    form = page.locator("form.new-assignment")
    form.locator("select[name=snippet]").select_option(SNIPPET)
    expect(form.locator("select[name=unit] option[value=span]")).to_have_text(
        "子表达式" if lang == "zh" else "Sub-expression"
    )
    form.locator("input[name=rate]").fill("20")
    form.locator("input[name=target_kind][value=accuracy]").check()
    form.locator("input[name=target_accuracy]").fill("80")
    form.locator("input[name=starts]").fill("2027-01-04")
    form.locator("input[name=due]").fill("2027-01-15")
    form.locator("button[type=submit]").click()
    expect(page.locator(".notice.ok")).to_be_visible()
    page.locator("table.assignment-status thead a[href$='/edit']").click()

    edit = page.locator("form.edit-assignment")
    expect(edit.locator("input[name=rate]")).to_have_value("20")
    expect(edit.locator("input[name=target_accuracy]")).to_have_value("80")
    edit.locator("select[name=unit]").select_option("line")
    edit.locator("input[name=due]").fill("2027-01-02")  # before the start: the server refuses it
    edit.locator("button[type=submit]").click()
    due = page.locator("input[name=due]")
    expect(due).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#due-error")).to_contain_text("2027-01-04")
    expect(due).to_have_value("2027-01-02")
    expect(page.locator("select[name=unit]")).to_have_value("line")  # what was typed is kept
    shots(page, artifacts, f"assignment-edit-refused-{lang}")
    assert violations_in_both_schemes(page, f"refused assignment edit ({lang})") == []
    page.locator("input[name=due]").fill("2027-01-31")
    page.locator("form.edit-assignment button[type=submit]").click()
    expect(page.locator(".notice.ok")).to_be_visible()
    expect(page.locator("table.assignment-status thead")).to_contain_text("2027-01-31")
    shots(page, artifacts, f"assignment-edited-{lang}")
    assert violations_in_both_schemes(page, f"class page with its corrections ({lang})") == []

    archive = page.locator("form.archive")
    archive.locator("input[name=confirm]").check()
    archive.locator("button[type=submit]").click()
    expect(page.locator(".notice.archived")).to_be_visible()
    expect(page.locator("form.new-assignment")).to_have_count(0)
    expect(page.locator("input.device-link")).to_have_count(0)
    shots(page, artifacts, f"class-archived-{lang}")
    assert violations_in_both_schemes(page, f"archived class ({lang})") == []
    other = browser.new_context(locale=locale).new_page()
    refused = other.request.post(join, headers={"origin": served})
    assert refused.status == 409
    page.goto(served + "/teach/classes")
    expect(page.locator("#archived ~ .table-wrap")).to_contain_text(code)
    shots(page, artifacts, f"classes-archived-{lang}")
    page.goto(f"{served}/teach/classes/{code}")
    page.locator(".notice.archived button[type=submit]").click()
    expect(page.locator("form.new-assignment")).to_have_count(1)
    for context in (page.context, learner.context, other.context):
        context.close()
