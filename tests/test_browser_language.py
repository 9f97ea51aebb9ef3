"""The language switch in real Chromium: it keeps the page's mask and is remembered on the next page."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.browser

DRILL = "/s/mlm-online-softmax/drill?rate=20&seed=5"


def blank_names(page) -> list[str]:
    return page.locator("input.blank").evaluate_all("els => els.map(e => e.name)")


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_switching_language_on_a_drill_is_remembered(browser: Browser, live_server, artifacts, width, height):
    context = browser.new_context(locale="zh-CN", viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(live_server + DRILL)
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator(".counts")).to_contain_text("可挖空位")
    chinese_blanks = blank_names(page)
    page.screenshot(path=artifacts / f"language-drill-zh-{width}.png", full_page=False)

    page.click(".lang-switch a[data-lang=en]")
    page.wait_for_url("**lang=en**")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    query = parse_qs(urlparse(page.url).query)
    assert query["seed"] == ["5"] and query["rate"] == ["20"]  # the same mask, now in English
    assert blank_names(page) == chinese_blanks
    expect(page.locator(".counts")).to_contain_text("maskable tokens")
    expect(page.locator(".lang-switch a[aria-current]")).to_have_text("English")
    assert re.fullmatch(r"blank 1 of \d+, line \d+", page.locator("input.blank").first.get_attribute("aria-label"))
    page.screenshot(path=artifacts / f"language-drill-en-{width}.png", full_page=False)

    # The next page has no ?lang= and the browser still prefers Chinese: the cookie wins.
    page.click("a.me-link")
    page.wait_for_url("**/me")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("a.me-link")).to_have_text("My progress")
    page.screenshot(path=artifacts / f"language-me-en-{width}.png", full_page=False)
    page.goto(live_server + DRILL)
    expect(page.locator(".counts")).to_contain_text("maskable tokens")

    page.click(".lang-switch a[data-lang=zh]")
    page.wait_for_url("**lang=zh**")
    expect(page.locator(".counts")).to_contain_text("可挖空位")
    page.goto(live_server + "/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    context.close()


def test_an_english_browser_gets_english_first(browser: Browser, live_server):
    context = browser.new_context(locale="en-GB")
    page = context.new_page()
    page.goto(live_server + "/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("a.me-link")).to_have_text("My progress")
    context.close()
