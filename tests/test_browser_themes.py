"""Light and dark themes in real Chromium: the system setting is followed, the header's switch
overrides it before the first paint and is remembered, and every text and control boundary on the
main pages passes WCAG AA contrast in both themes."""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.contrast import failures, focus_ring, measure
from tests.helpers import right_answers
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"
DRILL = f"/s/{SNIPPET}/drill?rate=30&seed=1"
CLASS_MASK = f"/s/{SNIPPET}/drill?rate=20&seed=154"  # s35 is `0.0`: `0` passes the check (unproven)
LABELS = {"system": "主题：跟随系统", "light": "主题：浅色", "dark": "主题：深色"}


def colours(page: Page) -> dict[str, float]:
    """Relative luminance of the page's background and of its body text."""
    return page.evaluate("""() => {
      const lum = t => { const c = t.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map(v => {
        v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
      const s = getComputedStyle(document.body);
      return {background: lum(s.backgroundColor), text: lum(s.color),
              scheme: getComputedStyle(document.documentElement).colorScheme};
    }""")


def is_dark(page: Page) -> bool:
    seen = colours(page)
    assert seen["background"] < 0.05 < 0.6 < seen["text"] or seen["text"] < 0.05 < 0.6 < seen["background"], seen
    return seen["background"] < seen["text"]


def submit_one_wrong(page: Page, url: str, app, path: str = DRILL, wrong: dict | None = None) -> None:
    """Open `path` (a drill or an exercise), fill it right but for `wrong` (else its first blank
    as `None`), submit, and wait for the verdict."""
    page.goto(url + path)
    snippet_id = urlparse(path).path.split("/")[2]
    query = {k: v[0] for k, v in parse_qs(urlparse(path).query).items()}
    answers = right_answers(
        app,
        snippet_id,
        int(query["rate"]) if "rate" in query else None,
        int(query["seed"]) if "seed" in query else None,
        query.get("unit", "token"),
    )
    wrong = wrong or {next(iter(answers)): "None"}
    for key, text in {**answers, **wrong}.items():
        page.fill(f'input[name="{key}"]', text)
    page.locator("input.blank").last.press("Control+Enter")
    expect(page.locator(".verdict")).to_be_visible(timeout=30_000)
    expect(page.locator("input.blank.wrong")).not_to_have_count(0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_the_system_setting(browser: Browser, teacher_server, scheme):
    context = browser.new_context(locale="zh-CN", color_scheme=scheme)
    page = context.new_page()
    page.goto(teacher_server + "/")
    assert is_dark(page) == (scheme == "dark")
    assert page.evaluate("document.documentElement.dataset.theme") is None
    expect(page.get_by_role("button", name=LABELS["system"])).to_be_visible()
    context.close()


def test_without_script_the_system_setting_still_applies(browser: Browser, teacher_server):
    context = browser.new_context(locale="zh-CN", color_scheme="dark", java_script_enabled=False)
    page = context.new_page()
    page.goto(teacher_server + DRILL)
    assert is_dark(page)
    expect(page.locator("#theme-switch")).to_be_hidden()  # it could not work without the script
    context.close()


def test_the_switch_overrides_the_system_and_is_remembered(browser: Browser, teacher_server):
    context = browser.new_context(locale="zh-CN", color_scheme="dark")
    page = context.new_page()
    # What <html> says when <body> first appears: the theme must be there before the first paint.
    page.add_init_script("""new MutationObserver((_, observer) => {
      if (document.body) { window.__themeAtBody = document.documentElement.dataset.theme || "system"; observer.disconnect(); }
    }).observe(document, {childList: true, subtree: true});""")
    page.goto(teacher_server + "/")
    switch = page.locator("#theme-switch")
    expect(switch).to_have_text(LABELS["system"])
    switch.click()
    expect(page.get_by_role("button", name=LABELS["light"])).to_be_visible()
    assert not is_dark(page)  # light, although the system is dark
    page.reload()
    assert page.evaluate("window.__themeAtBody") == "light"
    assert not is_dark(page)
    expect(switch).to_have_text(LABELS["light"])
    page.emulate_media(color_scheme="light")
    switch.click()
    expect(switch).to_have_text(LABELS["dark"])
    assert is_dark(page)  # dark, although the system is now light
    page.goto(teacher_server + "/me")  # another page
    assert page.evaluate("window.__themeAtBody") == "dark" and is_dark(page)
    switch.click()
    expect(switch).to_have_text(LABELS["system"])
    assert not is_dark(page) and page.evaluate("localStorage.length") == 0
    page.emulate_media(color_scheme="dark")
    assert is_dark(page)
    context.close()


def test_the_switch_speaks_english_too(browser: Browser, teacher_server):
    context = browser.new_context(locale="en-GB")
    page = context.new_page()
    page.goto(teacher_server + "/")
    page.get_by_role("button", name="Theme: system").click()
    expect(page.get_by_role("button", name="Theme: light")).to_be_visible()
    context.close()


@pytest.fixture(scope="module")
def pages(browser: Browser, teacher_server, app) -> tuple[dict[str, str], object]:
    """A learner with history in a class and a signed-in teacher; the pages to check, by name."""
    teacher = browser.new_context(locale="zh-CN")
    page = teacher.new_page()
    page.goto(teacher_server + "/teach/login")
    page.fill("#token", TOKEN)
    page.click(".token-login button[type=submit]")
    page.goto(teacher_server + "/teach/classes")
    page.fill("input[name=code]", "dark-1")
    page.fill("input[name=name]", "一班")
    page.click("text=创建班级")
    expect(page.locator("input.device-link")).to_be_visible()
    learner = browser.new_context(locale="zh-CN")
    practice = learner.new_page()
    practice.goto(teacher_server + "/join/dark-1")
    practice.click("text=加入这个班级")
    submit_one_wrong(practice, teacher_server, app, CLASS_MASK, {"s35": "0", "s2": "y"})
    submit_one_wrong(practice, teacher_server, app, f"/s/{SNIPPET}/drill?rate=20&seed=4&unit=span")
    learner_pages = {"home": "/", "me": "/me", "exercise": "/s/ex2-online-softmax", "join": "/join/dark-1"}
    teacher_pages = {
        "teach": "/teach",
        "upload": "/teach/new",
        "class": "/teach/classes/dark-1",
        "class-stats": f"/teach/stats/{SNIPPET}?class=dark-1",
    }
    yield {"learner": learner, "teacher": teacher, "learner_pages": learner_pages, "teacher_pages": teacher_pages}
    learner.close()
    teacher.close()


def check_contrast(page: Page, where: str, within: str = "body", least: int = 10) -> str:
    """Asserts every row passes; returns the lowest text and edge ratios (for the record)."""
    rows = measure(page, within)
    assert len(rows) >= least, where  # the page was measured, not empty
    if page.locator(f"{within} .katex").count():  # typeset math is part of what is measured
        assert any(".mord" in r["what"] for r in rows), where
    bad = [f"{r['what']} {r['text']!r}: {r['ratio']:.2f} < {r['need']}" for r in failures(rows)]
    assert bad == [], where
    lowest = {
        kind: min((r for r in rows if r["kind"] == kind), key=lambda r: r["ratio"], default=None)
        for kind in ("text", "edge")
    }
    return " ".join(f"{kind} {r['ratio']:.2f} ({r['what']})" for kind, r in lowest.items() if r)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_passes_aa_in_both_themes(pages, teacher_server, app, theme, artifacts):
    measured = {}
    for who in ("learner", "teacher"):
        context = pages[who]
        page = context.new_page()
        page.emulate_media(color_scheme=theme)
        for name, path in pages[f"{who}_pages"].items():
            page.goto(teacher_server + path)
            assert is_dark(page) == (theme == "dark")
            if name == "me":
                page.locator(".tok[data-tip]").first.focus()  # its tooltip is measured too
            measured[name] = check_contrast(page, f"{name} ({theme})")
            if who == "teacher":
                page.screenshot(path=artifacts / f"theme-{theme}-{name}.png", full_page=True)
        if who == "learner":
            submit_one_wrong(page, teacher_server, app)  # right, wrong, verdict, the failing line, reveal
            measured["drill"] = check_contrast(page, f"drill ({theme})")
            page.click("button.shortcuts-open")
            expect(page.locator("dialog#shortcuts")).to_be_visible()
            measured["shortcuts"] = check_contrast(page, f"shortcuts ({theme})", "dialog#shortcuts", 5)
            page.keyboard.press("Escape")
            for target in ("input.blank:not(.right):not(.wrong)", "a.refresh", "form.drill button.primary"):
                if page.locator(target).count():
                    ring = focus_ring(page, target)
                    assert ring["ratio"] >= ring["need"], (theme, ring)
            submit_one_wrong(page, teacher_server, app, f"/s/{SNIPPET}/drill?rate=20&seed=4&unit=span")
            expect(page.locator("code.diff")).not_to_have_count(0)
            measured["diffs"] = check_contrast(page, f"span drill ({theme})")
            submit_one_wrong(page, teacher_server, app, "/s/ex2-online-softmax")
            measured["exercise-scored"] = check_contrast(page, f"exercise scored ({theme})")
        page.close()
    for name, lowest in measured.items():
        print(f"{theme:5} {name:16} {lowest}")


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots_of_the_main_pages(pages, teacher_server, app, artifacts, theme, width, height):
    context = pages["learner"]
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=theme)
    submit_one_wrong(page, teacher_server, app)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=artifacts / f"theme-{theme}-drill-{width}.png", full_page=True)
    for name, path in (("home", "/"), ("me", "/me")):
        page.goto(teacher_server + path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=artifacts / f"theme-{theme}-{name}-{width}.png", full_page=True)
    page.close()


def test_the_measure_finds_poor_contrast(page: Page):
    """The check above can fail: the old grey line numbers on the code background, a pale
    underline, and faded text are caught; large text needs only 3:1."""
    page.set_content("""<body style="background:#f6f8fa; margin:0">
      <p id="grey" style="color:#9aa4b1">12</p>
      <p id="faded" style="color:#1d2430; opacity:.25">faded</p>
      <p id="big" style="color:#767676; font-size:24px">large enough at 4.3:1</p>
      <span style="background:#fff"><input id="pale" style="border:0; border-bottom:2px solid #d9dee5" value="x"></span>
      <p hidden style="color:#fff">not shown</p></body>""")
    bad = {row["what"]: row["ratio"] for row in failures(measure(page))}
    assert bad == {
        "p#grey": pytest.approx(2.37, abs=0.01),
        "p#faded": pytest.approx(1.66, abs=0.01),
        "input#pale[border]": pytest.approx(1.35, abs=0.01),
    }
