import base64
import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from app.web.assets import API_DOCS, HTMX_JS, KATEX_CSS, KATEX_JS, MATH_JS, PROGRESS_JS, STATIC_DIR, VENDORED, head_tags
from app.web.markdown import render_markdown

pytestmark = pytest.mark.unit


def static_url(path: str) -> str:
    return "/static/" + path


def file_for(url: str) -> Path:
    assert url.startswith("/static/")
    return STATIC_DIR / url.removeprefix("/static/")


def sri(path: Path) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()


@pytest.mark.parametrize("asset", VENDORED + API_DOCS, ids=lambda a: a.path)
def test_integrity_matches_vendored_file(asset):
    assert asset.integrity == sri(STATIC_DIR / asset.path)


@pytest.mark.parametrize("asset", VENDORED + API_DOCS, ids=lambda a: a.path)
def test_cdn_url_pins_the_vendored_version(asset):
    package_dir = asset.path.split("/")[1]  # e.g. katex-0.19.1
    version = package_dir.rsplit("-", 1)[1]
    assert f"@{version}/" in asset.cdn_url and asset.cdn_url.endswith("/" + Path(asset.path).name)
    assert asset.cdn_url.startswith("https://")


def test_htmx_file_is_the_pinned_release():
    assert 'version:"2.0.11"' in (STATIC_DIR / HTMX_JS.path).read_text()


def test_katex_css_fonts_are_vendored():
    css_path = STATIC_DIR / KATEX_CSS.path
    fonts = re.findall(r"url\((fonts/[^)]+\.woff2)\)", css_path.read_text())
    assert len(fonts) == 20
    for font in fonts:
        assert (css_path.parent / font).is_file(), font


def test_math_js_and_progress_js_exist():
    assert (STATIC_DIR / MATH_JS).is_file() and (STATIC_DIR / PROGRESS_JS).is_file()


def fallback_urls(tags: str) -> list[str]:
    js_strings = re.findall(r'document\.write\(("(?:[^"\\]|\\.)*")\)', tags)
    writes = [json.loads(s) for s in js_strings]
    scripts = [re.search(r'src="([^"]+)"', w).group(1) for w in writes]
    handlers = [html.unescape(h) for h in re.findall(r'onerror="([^"]+)"', tags)]
    styles = [json.loads(re.search(r"this\.href=(\"[^\"]+\")", h).group(1)) for h in handlers]
    return styles + scripts


def test_cdn_mode_loads_from_cdn_with_integrity():
    tags = str(head_tags(True, static_url))
    for asset in VENDORED:
        tag = re.search(rf'<[^>]*"{re.escape(asset.cdn_url)}"[^>]*>', tags).group(0)
        assert f'integrity="{asset.integrity}"' in tag
        assert 'crossorigin="anonymous"' in tag


def test_cdn_mode_falls_back_to_existing_vendored_files():
    urls = fallback_urls(str(head_tags(True, static_url)))
    assert urls == [static_url(a.path) for a in (KATEX_CSS, HTMX_JS, KATEX_JS)]
    for url in urls:
        assert file_for(url).is_file()


def test_cdn_mode_keeps_script_order():
    tags = str(head_tags(True, static_url))
    order = [HTMX_JS.cdn_url, "window.htmx||", KATEX_JS.cdn_url, "window.katex||", MATH_JS]
    positions = [tags.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert "async" not in tags  # a fallback written by document.write needs blocking scripts


def test_local_mode_uses_only_vendored_files():
    tags = str(head_tags(False, static_url))
    assert "http" not in tags and "document.write" not in tags
    urls = re.findall(r'(?:src|href)="([^"]+)"', tags)
    assert urls == [static_url(p) for p in (KATEX_CSS.path, HTMX_JS.path, KATEX_JS.path, MATH_JS, PROGRESS_JS)]
    for url in urls:
        assert file_for(url).is_file()


def test_static_urls_cannot_inject_markup():
    evil = '/x"><script>alert(1)</script>'
    for use_cdn, scripts in ((True, 6), (False, 4)):
        tags = str(head_tags(use_cdn, lambda p: evil))
        assert tags.count("<script") == scripts
        assert "alert(1)</script>" not in tags


# --- in headless Chromium, with the CDN unreachable --------------------------------------

ORIGIN = "http://codecloze.test"
PROSE = r"""其中 $S=Q{K}^T/\sqrt{d}\to P=\text{softmax}(S)\to O=PV$，$Q,K,V\in {\mathbb{R}}^{N\times d}$，
当$N=4096$时 $O(N^2{d}^2{M}^{-1})$，$P_{ij}=\text{diag}(l_i{)}^{-1}\cdot \exp (S_{ij}-m_i)$。

$$m_{\text{new}}=max(m_{\text{old}},x_j)$$$$\text{softmax}(x_i)=e^{x_i}/\sum _j{e}^{x_j}$$
"""


def page_html(use_cdn: bool) -> str:
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{head_tags(use_cdn, static_url)}</head>'
        f"<body>{render_markdown(PROSE)}"
        '<button hx-get="/frag" hx-target="#swap">swap</button><div id="swap"></div></body></html>'
    )


def serve(route, use_cdn: bool, offline: list):
    url = route.request.url
    if not url.startswith(ORIGIN):
        offline.append(url)
        return route.abort("internetdisconnected")
    path = url.removeprefix(ORIGIN)
    if path == "/page":
        return route.fulfill(body=page_html(use_cdn), content_type="text/html")
    if path == "/frag":
        fragment = str(render_markdown(r"新的 $\sqrt{x}$"))
        return route.fulfill(body=fragment, content_type="text/html")
    if path.startswith("/static/") and file_for(path).is_file():
        return route.fulfill(path=file_for(path))
    return route.fulfill(status=404, body="")


@pytest.mark.browser
@pytest.mark.parametrize("use_cdn", [True, False], ids=["cdn-offline", "local"])
def test_math_typesets_in_chromium(browser, use_cdn):
    page = browser.new_page()
    errors, offline = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/*", lambda route: serve(route, use_cdn, offline))
    page.goto(f"{ORIGIN}/page")
    page.wait_for_function("document.querySelectorAll('.math .katex').length === 7")
    assert page.evaluate("htmx.version") == "2.0.11"
    assert page.locator(".katex-error").count() == 0
    assert page.locator(".math-display .katex-display").count() == 2
    page.evaluate("document.fonts.ready")
    loaded = page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
    assert "KaTeX_Main" in loaded  # the css found its fonts/ next to it
    page.click("text=swap")
    page.wait_for_selector("#swap .math .katex")
    # a second htmx:load must not typeset anything twice
    page.evaluate("document.body.dispatchEvent(new CustomEvent('htmx:load', {bubbles: true}))")
    assert page.locator(".katex").count() == 8
    assert errors == []
    assert sorted(offline) == (sorted(a.cdn_url for a in VENDORED) if use_cdn else [])
    page.close()
