"""Teachers' accounts in real Chromium: an admin invites a teacher, the teacher sets a password
through the link and signs in with it; every page passes axe in both colour schemes, wide and on
a phone."""

import pytest
from playwright.sync_api import Browser, expect

from tests.a11y import violations_in_both_schemes
from tests.servers import running_server
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.browser
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running_server(
        tmp_path_factory.mktemp("accounts-ui"), CODECLOZE_TEACHER_TOKEN=TOKEN, CODECLOZE_EXECUTION="false"
    ) as url:
        yield url


@pytest.mark.parametrize("width", [390, 1280])
def test_an_admin_invites_and_the_teacher_signs_up_and_in(browser: Browser, served, width, artifacts):
    found: list[str] = []
    viewport = {"width": width, "height": 844 if width < 600 else 900}
    admin = browser.new_context(viewport=viewport, locale="zh-CN").new_page()
    admin.goto(served + "/teach/login")
    if not admin.locator("#token").is_visible():  # open while no account exists, folded after
        admin.click(".token-login summary")
    admin.fill("#token", TOKEN)  # the first admin's way in
    admin.click(".token-login button[type=submit]")
    expect(admin.locator("h1")).to_have_text("教师后台")
    admin.click("text=教师账号")
    login = f"zoe{width}"
    admin.fill("input[name=login]", login)
    admin.fill("input[name=name]", "Zoe")
    admin.click("text=生成注册链接")
    link = admin.locator("input.device-link").input_value()
    assert "/teach/welcome?code=" in link
    expect(admin.locator("table.grid")).to_contain_text("等待注册")
    found += violations_in_both_schemes(admin, "/teach/accounts with a new link")
    admin.screenshot(path=str(artifacts / f"accounts-{width}.png"), full_page=True)

    teacher = browser.new_context(viewport=viewport, locale="en-US").new_page()
    teacher.goto(link)
    expect(teacher.locator("h1")).to_have_text("Set your password")
    found += violations_in_both_schemes(teacher, "/teach/welcome")
    teacher.fill("#password", PASSWORD)
    teacher.fill("#again", PASSWORD)
    teacher.click("text=Set the password and sign in")
    expect(teacher.locator("h1")).to_have_text("Teaching")
    expect(teacher.locator("nav.teach-nav")).not_to_contain_text("Teacher accounts")  # not an admin

    again = browser.new_context(viewport=viewport, locale="zh-CN").new_page()
    again.goto(served + "/teach/login")
    expect(again.locator("#token")).not_to_be_visible()  # accounts exist: the token folds away
    found += violations_in_both_schemes(again, "/teach/login with accounts")
    again.fill("#login", login)
    again.fill("#password", PASSWORD)
    again.locator("#password").press("Enter")
    expect(again.locator("h1")).to_have_text("教师后台")
    admin.reload()
    expect(admin.locator("table.grid")).to_contain_text("可登录")
    assert found == [], "\n".join(found)
    for page in (admin, teacher, again):
        page.context.close()
