"""The drill's keyboard, verdicts and layout in real headless Chromium, as a learner uses them."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import right_answers

pytestmark = pytest.mark.browser


def names(page: Page) -> list[str]:
    return page.locator("input.blank").evaluate_all("els => els.map(e => e.name)")


def focused(page: Page) -> str:
    return page.evaluate("document.activeElement.name || document.activeElement.className")


def test_enter_moves_between_blanks_and_never_submits(page: Page, live_server):
    page.goto(live_server + "/s/mlm-online-softmax/drill?rate=20&seed=3")
    keys = names(page)
    assert focused(page) == ""  # nothing on arrival (a phone would raise its keyboard over the prose)
    page.keyboard.type("x")  # typing starts at the first blank
    assert focused(page) == keys[0]
    page.keyboard.press("Enter")
    assert focused(page) == keys[1]
    page.keyboard.press("Shift+Enter")
    assert focused(page) == keys[0]
    page.focus(f'input[name="{keys[-1]}"]')
    page.keyboard.press("Enter")
    assert focused(page) == keys[1]  # past the last blank: back to the first one still empty
    for key in keys:
        page.fill(f'input[name="{key}"]', "x")
    page.focus(f'input[name="{keys[-1]}"]')
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # twice: the second Enter once reached the submit button
    assert focused(page) == keys[-1]  # every blank is filled: it stays and says how to submit
    expect(page.locator("#announcer")).to_have_text(re.compile("最后一个空.*Ctrl\\+Enter"))
    page.wait_for_timeout(300)
    expect(page.locator(".result")).to_have_count(0)  # nothing was submitted
    expect(page.locator(".answers")).to_have_count(0)


def test_submitting_with_empty_blanks_asks_first_and_the_code_is_not_run(page: Page, live_server, app):
    page.goto(live_server + "/s/mlm-online-softmax/drill?rate=20&seed=5")
    answers = right_answers(app, "mlm-online-softmax", 20, 5)
    keys = list(answers)
    for key in keys[1:]:
        page.fill(f'input[name="{key}"]', answers[key])
    page.locator(f'input[name="{keys[-1]}"]').press("Control+Enter")
    confirm = page.locator(".confirm-empty")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("还有 1 个空没填")
    expect(page.locator(".result")).to_have_count(0)
    page.click(".confirm-back")
    assert focused(page) == keys[0] and not confirm.is_visible()
    page.locator(f'input[name="{keys[0]}"]').press("Control+Enter")
    page.click(".confirm-submit")
    expect(page.locator(".empty-note")).to_contain_text("1 个空还没填，代码没有运行")
    expect(page.locator(".verdict")).to_have_count(0)
    expect(page.locator(".score")).to_contain_text(f"{len(keys) - 1} / {len(keys)}")
    expect(page.locator(f'input[name="{keys[0]}"]')).to_have_class(re.compile(r"\bempty\b"))
    page.fill(f'input[name="{keys[0]}"]', answers[keys[0]])
    page.locator(f'input[name="{keys[0]}"]').press("Meta+Enter")  # all filled: no question, it runs
    expect(page.locator(".verdict.passed")).to_contain_text("验证通过")
    expect(confirm).to_be_hidden()


def test_reference_answers_wait_until_every_blank_was_tried(page: Page, live_server, app):
    page.goto(live_server + "/s/ex3-blocked-matmul")
    answers = right_answers(app, "ex3-blocked-matmul")
    first, *rest = answers
    page.fill(f'input[name="{first}"]', answers[first])
    page.locator(f'input[name="{first}"]').press("Control+Enter")
    page.click(".confirm-submit")
    expect(page.locator(".score")).to_be_visible()
    later = page.locator("details.answers-later")
    expect(later).to_be_visible()
    expect(later.locator(".answers h2").first).not_to_be_visible()  # until the learner asks
    later.locator("summary").click()
    expect(later.locator(".answers h2").first).to_be_visible()
    for key in rest:
        page.fill(f'input[name="{key}"]', answers[key])
    page.click("form.drill button.primary")
    expect(page.locator("#outcome > .answers")).to_contain_text("参考答案")
    expect(page.locator("details.answers-later")).to_have_count(0)


def test_revealing_a_blank_keeps_focus_and_is_never_scored_right(page: Page, live_server, app):
    page.goto(live_server + "/s/mlm-blocked-attention/drill?rate=10&seed=7")
    answers = right_answers(app, "mlm-blocked-attention", 10, 7)
    keys = list(answers)
    page.focus(f'input[name="{keys[0]}"]')
    page.keyboard.press("Alt+KeyR")  # reveal the focused blank
    expect(page.locator(f'input[name="{keys[0]}"]')).to_have_value(answers[keys[0]])
    for key in keys[1:]:
        page.fill(f'input[name="{key}"]', answers[key])
    page.fill(f'input[name="{keys[1]}"]', "None")
    page.click("form.drill button.primary")
    expect(page.locator(f'input[name="{keys[0]}"]')).to_have_class(re.compile(r"\brevealed\b"))
    expect(page.locator(".score")).to_contain_text(f"{len(keys) - 2} / {len(keys)}")
    button = page.locator(f'button.reveal[data-for="blank-{keys[1]}"]')
    expect(button).to_have_accessible_name(re.compile(r"显示第 \d+ 空（共 \d+ 个），第 \d+ 行的答案"))
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator(f'input[name="{keys[1]}"]')).to_have_value(answers[keys[1]])
    assert focused(page) == keys[1]  # focus stays with the blank, not the page
    page.keyboard.press("Control+Enter")
    expect(page.locator(f'input[name="{keys[1]}"]')).to_have_class(re.compile(r"\brevealed\b"))
    expect(page.locator(".score")).to_contain_text(f"{len(keys) - 2} / {len(keys)}")


def test_shortcut_overlay_and_new_mask(page: Page, live_server, artifacts):
    page.goto(live_server + "/s/mlm-online-softmax/drill?rate=20&seed=3")
    page.locator("h1").click()  # out of the blanks: `?` is a shortcut, not text
    page.keyboard.press("?")
    dialog = page.locator("dialog#shortcuts")
    expect(dialog).to_be_visible()
    for text in ("下一个空", "上一个空", "Alt", "换一个遮盖", "提交"):
        expect(dialog).to_contain_text(text)
    page.screenshot(path=artifacts / "drill-shortcuts.png")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.focus("input.blank")
    page.keyboard.type("a?")
    expect(dialog).to_be_hidden()  # typed into the blank
    page.click("button.shortcuts-open")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    before = names(page)
    page.focus("input.blank")
    page.keyboard.press("Alt+KeyN")
    expect(page).to_have_url(re.compile(r"seed=(?!3&)\d+"))
    # htmx pushes the new URL before it swaps the new mask in: wait for the blanks to change
    page.wait_for_function(
        "before => [...document.querySelectorAll('input.blank')].map(i => i.name).join() !== before",
        arg=",".join(before),
    )
    assert names(page) != before


def test_a_blank_grows_with_its_text(page: Page, live_server):
    page.goto(live_server + "/s/mlm-flash-forward/drill?rate=20&seed=4")
    blank = page.locator("input.blank").first
    width = blank.bounding_box()["width"]
    blank.fill("a_much_longer_answer_than_the_reference(x, y, z)")
    grown = blank.bounding_box()["width"]
    assert grown > width + 100
    assert blank.evaluate("e => e.scrollWidth <= e.clientWidth + 1")  # nothing cut off


def test_units_and_kinds_are_chosen_on_the_page(page: Page, live_server):
    page.goto(live_server + "/s/mlm-flash-forward/drill?rate=20&seed=4")
    expect(page.locator(".counts")).to_contain_text("共 162 个可挖空位 | 已挖 32 个")
    page.click("a.kind[data-kind=punctuation]")
    expect(page).to_have_url(re.compile(r"kinds=names,literals,operators,punctuation"))
    expect(page.locator(".counts")).to_contain_text("共 254 个可挖空位 | 已挖 51 个")
    page.click("a.unit[data-unit=span]")
    expect(page).to_have_url(re.compile(r"unit=span&kinds=names,literals,operators,punctuation"))
    expect(page.locator(".counts")).to_contain_text("已挖 51 个，分成")
    page.click("a.unit[data-unit=line]")
    expect(page.locator(".counts")).to_contain_text("28 行 | 已挖 6 行")
    shared = page.url
    keys = names(page)
    page.reload()
    assert names(page) == keys and page.url == shared
    query = parse_qs(urlparse(shared).query)
    assert query["unit"] == ["line"] and query["seed"] == ["4"]


@pytest.mark.parametrize("unit", ["token", "span", "line"])
@pytest.mark.parametrize("width", [1280, 390, 360])
def test_layout_keeps_line_numbers_and_fits_the_screen(browser, live_server, app, artifacts, unit, width):
    page = browser.new_page(viewport={"width": width, "height": 900}, device_scale_factor=1 if width > 800 else 2)
    page.goto(f"{live_server}/s/mlm-flash-forward/drill?rate=20&seed=11&unit={unit}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    code = page.locator("pre.trainer-code")
    assert code.evaluate("e => e.scrollWidth <= e.clientWidth")  # long lines wrap, nothing scrolls away
    # Every line number sits inside the code box, left of its line's text.
    gutter = code.evaluate("""e => [...e.querySelectorAll('.line')].map(l => {
        const box = e.getBoundingClientRect(), n = getComputedStyle(l, '::before');
        return [l.getBoundingClientRect().left - box.left, parseFloat(n.width)]; })""")
    assert all(left >= 0 and w > 0 for left, w in gutter)
    for blank in page.locator("input.blank").all():
        box = blank.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    answers = right_answers(app, "mlm-flash-forward", 20, 11, unit)
    for key, answer in answers.items():
        page.fill(f'input[name="{key}"]', answer)
    page.screenshot(path=artifacts / f"drill-{unit}-{width}.png", full_page=True)
    page.click("form.drill button.primary")
    expect(page.locator(".verdict.passed")).to_be_visible()
    expect(page.locator("input.blank.right")).to_have_count(len(answers))
    page.close()


WRAPPED_ROWS = """e => [...e.querySelectorAll('.line')].map(line => {
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let first = null;
    for (let node = walker.nextNode(); node && !first; node = walker.nextNode()) {
      const k = node.data.search(/\\S/);
      if (k >= 0) { first = document.createRange(); first.setStart(node, k); first.setEnd(node, k + 1); }
    }
    if (!first) return null;
    const all = document.createRange(); all.selectNodeContents(line);
    const rects = [...all.getClientRects()].filter(r => r.width > 0), top = first.getBoundingClientRect().top;
    const later = rects.filter(r => r.top > top + 4);
    return {indent: parseInt(line.style.getPropertyValue('--i') || '0'), code: first.getBoundingClientRect().left,
            wrapped: later.length ? Math.min(...later.map(r => r.left)) : null,
            guides: getComputedStyle(line).backgroundSize};
  }).filter(Boolean)"""


@pytest.mark.parametrize("width", [390, 1280])
def test_a_wrapped_line_keeps_its_indentation_visible(browser, live_server, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{live_server}/s/ex5-flash-backward")
    rows = page.locator("pre.lines").first.evaluate(WRAPPED_ROWS)
    wrapped = [r for r in rows if r["wrapped"] is not None]
    if width == 390:
        assert any(r["indent"] >= 8 for r in wrapped)  # deeply nested lines do wrap on a phone
    for row in wrapped:  # a wrapped row starts right of where its line's code starts
        assert row["wrapped"] > row["code"] + 1, row
    nested = [r for r in rows if r["indent"] >= 4]
    assert nested and all(r["guides"].split()[0] not in ("0px", "auto") for r in nested)  # indent guides drawn
    page.close()
