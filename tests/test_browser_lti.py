"""LTI launches in real Chromium, inside an iframe of another site, as an LMS shows a tool: a course
page on http://localhost frames the LMS (lti1p3platform, tests/lms.py, on 127.0.0.1), which
launches codecloze. Over HTTPS the whole flow lives in the frame: an instructor picks a drill as
an activity, a student practises it and the grade reaches the LMS. Over plain HTTP a browser keeps
no cookie in a frame of another site, so the launch offers a window of its own, and works there."""

from urllib.parse import quote, urlsplit

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from playwright.sync_api import Browser, FrameLocator, Page, expect

from tests.a11y import violations_in_both_schemes
from tests.helpers import eventually
from tests.live import ThreadedServer
from tests.lms import start_lms, stop_lms
from tests.servers import running_server
from tests.teach_helpers import TOKEN
from tests.tls import self_signed

pytestmark = pytest.mark.browser
SNIPPET = "mlm-online-softmax"


def registered(tool: str):
    lms = start_lms(tool)
    with httpx.Client(base_url=tool, verify=False, headers={"authorization": f"Bearer {TOKEN}"}) as api:
        assert api.post("/api/lti/platforms", json={"name": "Course LMS", **lms.registration}).status_code == 201
    return lms


@pytest.fixture(scope="module")
def course_site():
    """Another site (localhost, not 127.0.0.1) whose course page frames a launch, as an LMS does."""
    app = FastAPI()

    @app.get("/course")
    def course(src: str) -> HTMLResponse:
        frame = f'<iframe src="{src}" title="codecloze" style="width:100%;height:760px;border:0"></iframe>'
        return HTMLResponse(f'<!doctype html><html lang="en"><title>Course</title><h1>Course</h1>{frame}</html>')

    with ThreadedServer(app) as server:
        yield server.url.replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def https_tool(tmp_path_factory):
    tls = self_signed(tmp_path_factory.mktemp("tls"))
    env = {"CODECLOZE_TEACHER_TOKEN": TOKEN, "CODECLOZE_EXECUTION": "false"}
    with (
        running_server(tmp_path_factory.mktemp("lti-https"), tls=tls, **env) as url,
        pytest.MonkeyPatch.context() as mp,
    ):
        mp.setenv("REQUESTS_CA_BUNDLE", str(tls[0]))  # the LMS fetches the tool's keys, trusting its certificate
        lms = registered(url)
        yield url, lms
        stop_lms(lms)


@pytest.fixture(scope="module")
def http_tool(tmp_path_factory):
    env = {"CODECLOZE_TEACHER_TOKEN": TOKEN, "CODECLOZE_EXECUTION": "false"}
    with running_server(tmp_path_factory.mktemp("lti-http"), **env) as url:
        lms = registered(url)
        yield url, lms
        stop_lms(lms)


def framed(browser: Browser, course_site: str, launch: str, width: int = 1280):
    context = browser.new_context(ignore_https_errors=True, viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{course_site}/course?src={quote(launch, safe='')}")
    return page, page.frame_locator("iframe")


def frame_path(page) -> str:
    return urlsplit(page.frames[1].url).path


def test_inside_the_lms_frame_a_teacher_picks_a_drill_and_a_student_practises_it(
    browser: Browser, course_site, https_tool, artifacts
):
    tool, lms = https_tool
    launch = lms.login_url(user="prof-f", role="instructor", name="Frame Teacher", course="c-f", kind="deep")
    teacher, frame = framed(browser, course_site, launch)
    expect(frame.locator("h1")).to_have_text("选择练习作为 LMS 活动", timeout=20_000)
    pick(frame)
    expect(frame.locator("body")).to_contain_text("Deep link received", timeout=20_000)
    link = next(key[1] for key in lms.links if key[0] == "c-f" and key[1].startswith("dl-"))

    student, frame = framed(
        browser, course_site, lms.login_url(user="stu-f", name="Frame Student", course="c-f", link=link)
    )
    expect(frame.locator("input.blank").first).to_be_visible(timeout=20_000)
    assert frame_path(student) == f"/s/{SNIPPET}/drill"
    student.frames[1].wait_for_load_state()  # its scripts, which send the answers, have run
    for blank in frame.locator("input.blank").all():
        blank.fill("wrong")
    frame.locator("input.blank").last.press("Control+Enter")  # a post from the frame, with its cookie
    expect(frame.locator(".result .score")).to_be_visible(timeout=30_000)  # scored (token match: no sandbox here)
    expect(frame.locator("input.blank.wrong").first).to_be_visible()
    student.screenshot(path=str(artifacts / "lti-frame-drill.png"), full_page=True)
    assert any(s["userId"] == "stu-f" for s in eventually(lambda: lms.scores))


def pick(frame: FrameLocator | Page) -> None:
    frame.locator("select[name=snippet]").select_option(SNIPPET)
    frame.locator("input[name=rate]").fill("20")
    frame.locator("input[name=target_kind][value=reviews]").check()
    frame.locator("input[name=target_reviews]").fill("2")
    frame.locator("input[name=due]").fill("2099-01-01")
    frame.locator("button[type=submit]", has_text="加入 LMS 课程").click()


@pytest.mark.parametrize("width", [390, 1280])
def test_without_https_the_launch_offers_a_window_of_its_own_and_works_there(
    browser: Browser, course_site, http_tool, width, artifacts
):
    tool, lms = http_tool
    launch = lms.login_url(user=f"prof-w{width}", role="instructor", name="Window Teacher", course="c-w", kind="deep")
    page, frame = framed(browser, course_site, launch, width)
    offer = frame.locator("#lti1p3-new-tab-link")
    expect(offer).to_be_visible(timeout=20_000)
    expect(frame.locator("#lti1p3-warning-msg")).to_contain_text("你的浏览器不允许在 LMS 的框架里保存 Cookie。")
    page.screenshot(path=str(artifacts / f"lti-frame-fallback-{width}.png"), full_page=True)
    with page.context.expect_page() as opened:
        offer.click()
    window = opened.value
    expect(window.locator("h1")).to_have_text("选择练习作为 LMS 活动", timeout=20_000)
    found = violations_in_both_schemes(window, "deep-linking picker")
    window.screenshot(path=str(artifacts / f"lti-picker-{width}.png"), full_page=True)
    pick(window)
    expect(window.locator("body")).to_contain_text("Deep link received", timeout=20_000)
    assert found == [], "\n".join(found)
