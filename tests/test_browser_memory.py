"""Learner memory in real headless Chromium: practise three times, then find it on /me and /."""

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect

from tests.test_browser import fill_right

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"


def heat_classes(page: Page, live_server: str) -> list[str]:
    page.goto(live_server + "/me")
    return page.locator(f"#p-{SNIPPET} pre.heatmap .tok").evaluate_all("els => els.map(e => e.className)")


def due_count(page: Page, live_server: str) -> int:
    page.goto(live_server + "/")
    return int(page.locator(".due-count").inner_text())


def practise_once(page: Page, live_server: str, app, seed: int, wrong: int) -> None:
    page.goto(f"{live_server}/s/{SNIPPET}/drill?rate=30&seed={seed}")
    answers = fill_right(page, app, SNIPPET)
    for key in list(answers)[:wrong]:
        page.fill(f'input[name="{key}"]', "nope")
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".score")).to_contain_text(f"{len(answers) - wrong} / {len(answers)}")


def test_three_practices_change_the_heatmap_and_the_review(page: Page, live_server, app, artifacts):
    assert heat_classes(page, live_server) == [] and due_count(page, live_server) == 0
    expect(page.locator(".due")).to_contain_text("今天没有要复习的")
    practise_once(page, live_server, app, seed=101, wrong=3)
    after_one = heat_classes(page, live_server)
    assert any(c in ("tok h2", "tok h3", "tok h4", "tok h5") for c in after_one)
    practise_once(page, live_server, app, seed=102, wrong=2)
    practise_once(page, live_server, app, seed=103, wrong=4)
    after_three = heat_classes(page, live_server)
    assert after_three != after_one and len(after_three) == len(after_one)
    assert sum(c != "tok h0" for c in after_three) > sum(c != "tok h0" for c in after_one)
    expect(page.locator(f"#p-{SNIPPET} .figures")).to_contain_text("3")
    expect(page.locator(f"#p-{SNIPPET} svg.chart circle")).to_have_count(3)
    hot = page.locator(f"#p-{SNIPPET} pre.heatmap .tok.h3, #p-{SNIPPET} pre.heatmap .tok.h2").first
    hot.focus()
    assert "nope" in hot.get_attribute("data-tip")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=artifacts / "me-1280.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=artifacts / "me-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling on a phone
    page.goto(f"{live_server}/s/{SNIPPET}/review")  # when it is due: tests/test_memory_time_http.py
    # at the rate this learner drills at
    expect(page).to_have_url(re.compile(rf"/s/{SNIPPET}/review\?rate=30&seed=\d+&v=\w+&at=\d+&low=[\d.]*&new="))
    expect(page.locator(".review-note")).to_contain_text("的记忆状态挑了")
    page.screenshot(path=artifacts / "review-390.png", full_page=True)


def exported(page: Page, live_server: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(page.request.get(live_server + "/me/attempts.csv").text())))


def test_time_on_task_and_revealed_blanks_are_sent_with_the_submission(page: Page, live_server, app):
    page.goto(f"{live_server}/s/{SNIPPET}/drill?rate=10&seed=7")
    answers = fill_right(page, app, SNIPPET)
    first = next(iter(answers))
    page.fill(f'input[name="{first}"]', "nope")
    page.wait_for_timeout(400 * len(answers))  # a plausible pace (faster is not recorded)
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(f'input[name="{first}"].wrong')).to_have_count(1)
    page.click("button.reveal-all")  # then submit the same mask again with the answer shown
    expect(page.locator(f'input[name="{first}"].revealed')).to_have_count(1)
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(f'input[name="{first}"].revealed')).to_have_count(1)  # revealed is never right
    rows = exported(page, live_server)
    assert len(rows) == 2
    first_try = next(r for r in rows if '"given": "nope"' in r["blanks"])
    assert 0.4 * len(answers) <= float(first_try["seconds"]) < 600
    second_try = next(r for r in rows if r is not first_try)
    assert '"state": "revealed"' in second_try["blanks"] and second_try["practice"] == "False"


def test_opened_hints_are_counted_with_the_submission(page: Page, live_server, app):
    page.goto(f"{live_server}/s/ex1-attention-memory")
    page.click("details.hints > summary")
    page.locator("input.blank").last.press("Control+Enter")
    page.click(".confirm-submit")  # the blanks are empty: it asks first
    expect(page.locator(".score")).to_be_visible()
    rows = exported(page, live_server)
    assert len(rows) == 1 and rows[0]["hints"] == "1" and rows[0]["mode"] == "fixed"
