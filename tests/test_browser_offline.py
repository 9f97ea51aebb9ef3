"""Offline, in real Chromium: every request that is not to the app itself fails (as in a classroom
without internet). With the default settings no page even tries to leave, and every page is fully
styled, its math typeset, htmx working, and the console free of errors. With the CDN setting on, the
vendored fallback still styles and typesets every page."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.helpers import right_answers
from tests.servers import start_server
from tests.site import DRILL, MASK, SNIPPETS
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.browser
LEARNER_PAGES = ["/", *(f"/s/{s}" for s in SNIPPETS), MASK, MASK + "&unit=line", "/me", "/s/no-such-snippet"]
TEACHER_PAGES = [
    "/teach/login",
    "/teach",
    "/teach/new",
    "/teach/classes",
    f"/teach/snippets/{DRILL}",
    f"/teach/stats/{DRILL}",
]
# What a page looks like once app.css applied and every script ran (math typeset, htmx there).
PAGE_STATE = """() => ({
  styled: getComputedStyle(document.querySelector('header.site')).display === 'flex'
          && getComputedStyle(document.body).margin === '0px',
  sheets: [...document.styleSheets].filter(s => { try { return s.cssRules.length > 0; } catch (e) { return false; } })
          .map(s => s.href ? new URL(s.href).pathname : 'inline'),
  math: document.querySelectorAll('.math').length,
  typeset: document.querySelectorAll('.math > .katex, .math > .katex-display').length,
  errors: document.querySelectorAll('.katex-error').length,
  htmx: typeof window.htmx === 'object' && typeof window.katex === 'object',
})"""


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """The defaults (no CDN setting at all), and one with the CDN turned on."""
    plain = start_server(tmp_path_factory.mktemp("offline"), CODECLOZE_USE_CDN=None, CODECLOZE_TEACHER_TOKEN=TOKEN)
    cdn = start_server(
        tmp_path_factory.mktemp("offline-cdn"),
        CODECLOZE_USE_CDN="true",
        CODECLOZE_TEACHER_TOKEN=TOKEN,
        CODECLOZE_EXECUTION="false",
    )
    yield {"default": plain[1], "cdn": cdn[1]}
    for proc, _ in (plain, cdn):
        proc.terminate()
        proc.wait(10)


def offline_page(browser: Browser, origin: str) -> tuple[Page, list[str], list[str]]:
    """A page whose requests beyond `origin` fail; the URLs it tried, and its console errors."""
    context = browser.new_context(locale="zh-CN")
    blocked, errors = [], []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(origin + "/")
            else (blocked.append(route.request.url), route.abort("internetdisconnected"))
        ),
    )
    page = context.new_page()
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    return page, blocked, errors


def missing_page_status(error: str) -> bool:
    """Chromium notes a 404 document in the console: expected for the page that does not exist."""
    return "/s/no-such-snippet: " in error and "status of 404" in error


def looks_complete(page: Page, path: str) -> None:
    state = page.evaluate(PAGE_STATE)
    assert state["styled"] and "/static/app.css" in state["sheets"], (path, state)
    assert "/highlight.css" in state["sheets"], (path, state)
    assert state["htmx"], (path, state)
    assert state["typeset"] == state["math"] and state["errors"] == 0, (path, state)
    if state["math"]:
        page.evaluate("document.fonts.ready")
        loaded = page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
        assert "KaTeX_Main" in loaded, (path, loaded)


def visit_every_page(page: Page, origin: str) -> int:
    """Every learner and teacher page; returns how many had math."""
    with_math = 0
    for path in LEARNER_PAGES:
        page.goto(origin + path)
        page.wait_for_load_state("load")
        looks_complete(page, path)
        with_math += page.locator(".math").count() > 0
    page.goto(f"{origin}/teach/login?token={TOKEN}")
    for path in TEACHER_PAGES:
        page.goto(origin + path)
        page.wait_for_load_state("load")
        looks_complete(page, path)
    return with_math


def test_by_default_no_page_leaves_the_app_and_every_page_is_whole(browser: Browser, servers, app):
    origin = servers["default"]
    page, blocked, errors = offline_page(browser, origin)
    assert visit_every_page(page, origin) >= 8  # the course's prose is full of math
    # htmx works offline too: a submission is scored and its verdict swapped in
    page.goto(origin + MASK)
    answers = right_answers(app, DRILL, 30, 1)
    for key, text in answers.items():
        page.fill(f'input[name="{key}"]', text)
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".verdict.passed")).to_be_visible(timeout=30_000)
    expect(page.locator(".score")).to_contain_text(f"{len(answers)} / {len(answers)}")
    page.goto(origin + "/docs")  # the API reference, Swagger UI from static/
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("codecloze")
    expect(page.locator(".opblock").first).to_be_visible()
    assert page.evaluate("getComputedStyle(document.querySelector('.swagger-ui .opblock')).borderRadius") != "0px"
    assert blocked == []
    assert [e for e in errors if not missing_page_status(e)] == []
    page.context.close()


def test_with_the_cdn_on_and_no_internet_the_fallback_makes_every_page_whole(browser: Browser, servers):
    origin = servers["cdn"]
    page, blocked, errors = offline_page(browser, origin)
    visit_every_page(page, origin)
    assert blocked and all(url.startswith(("https://unpkg.com/", "https://cdn.jsdelivr.net/")) for url in blocked)
    # the only errors: the browser's own notes of the failed CDN loads
    assert [e for e in errors if "Failed to load resource: net::" not in e and not missing_page_status(e)] == []
    page.context.close()
