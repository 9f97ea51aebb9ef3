"""A progress bar on what a person waits for over a second, in real headless Chromium: a
submission whose code runs to its time limit (htmx) and an upload whose check takes a while
(a plain form). A quick answer shows none."""

import pytest
from playwright.sync_api import Page, expect

from app.settings import PROJECT_DIR
from app.snippets.library import SnippetLibrary
from tests.servers import start_server
from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.browser
EXERCISE = "ex1-attention-memory"
NOTE_BARS = """() => { window.bars = 0; new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(
  n => { if (n.matches && n.matches('progress.waiting')) window.bars++; }))).observe(document.body,
  {childList: true, subtree: true}); }"""
NOTE_BAR_TIME = """() => { sessionStorage.setItem('sent', String(performance.now())); new MutationObserver(records =>
  records.forEach(r => r.addedNodes.forEach(n => { if (n.matches && n.matches('progress.waiting'))
  sessionStorage.setItem('bar', String(performance.now())); }))).observe(document.body, {childList: true, subtree: true}); }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc, url = start_server(
        tmp_path_factory.mktemp("progress-data"),
        CODECLOZE_TEACHER_TOKEN=TOKEN,
        CODECLOZE_WALL_SECONDS="2.5",
        CODECLOZE_CPU_SECONDS="2",
        CODECLOZE_WORKERS="1",
    )
    yield url
    proc.terminate()
    proc.wait(10)


def answers() -> dict[str, str]:
    library = SnippetLibrary()
    library.load_dir(PROJECT_DIR / "snippets")
    from app.learn.drills import fixed_drill

    return {h.key: h.answer for h in fixed_drill(library.get(EXERCISE)).holes}


def submit_right_answers(page: Page, right: dict[str, str]) -> None:
    for key, text in right.items():
        page.fill(f'input[name="{key}"]', text)
    page.click("form.drill button.primary")
    expect(page.locator(".verdict")).to_be_visible()


def test_a_slow_submission_shows_a_bar_until_its_verdict_and_a_quick_one_none(page: Page, server, artifacts):
    right = answers()
    page.goto(f"{server}/s/{EXERCISE}")
    # A server's very first verdict may take over a second on a loaded machine (a cold job
    # process): the quick answer below is a learner's on a server that has answered before.
    submit_right_answers(page, right)
    page.goto(f"{server}/s/{EXERCISE}")
    page.evaluate(NOTE_BARS)
    submit_right_answers(page, right)
    page.wait_for_timeout(300)
    assert page.evaluate("window.bars") == 0  # answered well within a second: no bar

    page.fill(f'input[name="{next(iter(right))}"]', "any(iter(int, 1))")  # runs until the wall limit
    button = page.locator("form.drill button.primary[type=submit]")
    button.click()
    bar = page.locator("progress.waiting")
    expect(bar).to_be_visible(timeout=2000)
    assert bar.get_attribute("aria-label") == button.inner_text().strip()
    assert page.locator("form.drill").get_attribute("aria-busy") == "true"
    page.screenshot(path=artifacts / "progress-submission.png")
    expect(bar).to_have_count(0, timeout=10000)
    expect(page.locator(".verdict")).to_contain_text("超出时间限制")
    assert page.locator("form.drill").get_attribute("aria-busy") is None


def test_an_upload_whose_check_takes_a_while_shows_a_bar(page: Page, server):
    page.goto(f"{server}/teach/login?token={TOKEN}")
    page.goto(f"{server}/teach/new")
    page.fill("#id", "slow-square")
    page.fill("#text", snippet_text(check="import time\ntime.sleep(1.8)\nassert square(3) == 9"))
    # While a plain form's answer is awaited the old page cannot be inspected from outside:
    # it notes when the bar appeared where the next page can read it.
    page.evaluate(NOTE_BAR_TIME)
    page.click("form.upload button[type=submit]")
    expect(page.locator("main")).to_contain_text("slow-square · ")  # saved: the check passed
    sent, shown = page.evaluate("[sessionStorage.getItem('sent'), sessionStorage.getItem('bar')]")
    assert shown is not None and 950 <= float(shown) - float(sent) < 1800  # after a second, before the answer
    assert page.locator("progress.waiting").count() == 0
