"""The UI language per request: `?lang=`, the remembered cookie, Accept-Language, the default."""

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import ValidationError

from app.i18n import supported
from app.main import create_app
from app.settings import PROJECT_DIR, Settings, wrong_settings
from app.web.language import accepted, chosen
from tests.site_client import SiteClient

pytestmark = pytest.mark.server

DRILL = "/s/mlm-online-softmax/drill?rate=20&seed=5"


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.text).group(1)


@pytest.mark.parametrize(
    "header, language",
    [
        ("en-US,en;q=0.9", "en"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("en;q=0.5, zh-TW;q=0.8", "zh"),  # q-values, not order, decide
        ("fr-FR, en-GB;q=0.7, zh;q=0.3", "en"),  # an unoffered language is passed over
        ("zh;q=0, en;q=0.1", "en"),  # q=0 means "not this one"
        ("de, fr;q=0.9", None),
        ("*", None),
        ("", None),
        ("en;q=abc", None),
    ],
)
def test_accept_language_ranks_by_q(header, language):
    assert accepted(header) == language


def test_query_beats_cookie_beats_accept_language_beats_default():
    assert chosen("en", "zh", "zh", "zh") == "en"
    assert chosen(None, "en", "zh", "zh") == "en"
    assert chosen("xx", None, "en-US", "zh") == "en"  # an unknown ?lang= is ignored
    assert chosen(None, None, None, "en") == "en"
    assert supported("ZH_hans") == "zh" and supported("english") is None


def test_accept_language_chooses_the_page_language(client):
    english = client.get("/", headers={"Accept-Language": "en-US,en;q=0.9"})
    assert html_lang(english) == "en" and "My progress" in english.text and "我的进度" not in english.text
    chinese = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"})
    assert html_lang(chinese) == "zh-CN" and "我的进度" in chinese.text
    assert "Accept-Language" in english.headers["vary"]


def test_lang_query_overrides_and_is_remembered(client):
    page = client.get(DRILL + "&lang=en", headers={"Accept-Language": "zh-CN"})
    assert html_lang(page) == "en" and "maskable tokens" in page.text
    assert "lang=en" in page.headers["set-cookie"] and "Max-Age=" in page.headers["set-cookie"]
    # The next page, without ?lang= and with a Chinese browser: still English (the cookie).
    me = client.get("/me", headers={"Accept-Language": "zh-CN"})
    assert html_lang(me) == "en" and "set-cookie" not in me.headers
    back = client.get("/me?lang=zh", headers={"Accept-Language": "en"})
    assert html_lang(back) == "zh-CN" and client.cookies.get("lang") == "zh"


def test_the_switch_is_on_every_page_and_marks_the_current_language(client):
    for url in ("/", DRILL, "/s/ex2-online-softmax", "/me", "/teach/login", "/no-such-page"):
        page = client.get(url + ("&" if "?" in url else "?") + "lang=en", follow_redirects=True)
        switch = re.search(r'<nav class="lang-switch".*?</nav>', page.text, re.S).group(0)
        assert 'data-lang="zh"' in switch and 'data-lang="en" aria-current="true"' in switch, url


def test_the_default_comes_from_the_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("CODECLOZE_LANGUAGE", "en")
    settings = Settings(data_dir=tmp_path / "data", execution=False, use_cdn=False)
    with SiteClient(create_app(settings)) as client:
        assert html_lang(client.get("/")) == "en"
        assert html_lang(client.get("/", headers={"Accept-Language": "zh-CN"})) == "zh-CN"
    with pytest.raises(ValidationError) as refused:
        Settings(data_dir=tmp_path / "data2", execution=False, use_cdn=False, language="fr")
    assert wrong_settings(refused.value) == ["CODECLOZE_LANGUAGE='fr': not one of zh, en"]


def test_error_messages_follow_the_language(client):
    json_404 = client.get("/s/nope", headers={"Accept": "application/json", "Accept-Language": "en"})
    assert json_404.status_code == 404 and json_404.json()["error"] == "No snippet “nope”."
    page_404 = client.get("/no-such-page", headers={"Accept-Language": "en"})
    assert page_404.status_code == 404 and "Page not found." in page_404.text and html_lang(page_404) == "en"
    bad_rate = client.get("/s/mlm-online-softmax/drill?rate=abc&seed=1&lang=en", headers={"Accept": "application/json"})
    assert bad_rate.status_code == 422 and bad_rate.json()["error"].startswith("The mask rate must be")
    zh = client.get("/s/mlm-online-softmax/drill?rate=abc&seed=1&lang=zh", headers={"Accept": "application/json"})
    assert zh.json()["error"].startswith("挖空率必须是")


def test_concurrent_requests_keep_their_own_language(client):
    def page(language: str) -> tuple[str, str]:
        response = client.get(DRILL, headers={"Accept-Language": language})
        return language, html_lang(response) + ("maskable" in response.text) * " en-text"

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(page, ["en", "zh"] * 40))
    assert all(got == ("en en-text" if want == "en" else "zh-CN") for want, got in results)


@pytest.mark.parametrize(
    "cookie", ['lang=<script>; x="\\', "lang=english", "xlang=en", 'lang="; ;;', "lang=" + "e" * 5000]
)
def test_a_malformed_or_unknown_cookie_is_ignored(client, cookie):
    page = client.get("/", headers={"Cookie": cookie, "Accept-Language": "zh"})
    assert page.status_code == 200 and html_lang(page) == "zh-CN"


def test_the_cookie_is_found_among_others(client):
    page = client.get("/", headers={"Cookie": 'cc_learner=abc.def; lang="en"', "Accept-Language": "zh"})
    assert html_lang(page) == "en"


@pytest.mark.parametrize("setting, expected", [("en-US", "This is a binary file"), ("zh", "这是二进制文件")])
def test_the_checker_speaks_the_default_language(tmp_path, setting, expected):
    path = tmp_path / "binary.md"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    out = subprocess.run(
        [sys.executable, "-m", "app.snippets", "check", "--no-run", str(path)],
        cwd=PROJECT_DIR,
        env={**os.environ, "CODECLOZE_LANGUAGE": setting},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and expected in out.stdout
