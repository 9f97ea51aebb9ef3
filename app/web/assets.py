"""Front-end assets: each pinned to one version, served from its CDN with the vendored copy
under static/ as the fallback (offline classrooms and test machines have no internet)."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"

HTMX_VERSION = "2.0.11"  # last 2.x: 4.x changed inheritance, events and 4xx swaps
KATEX_VERSION = "0.19.1"


@dataclass(frozen=True)
class Asset:
    cdn_url: str
    path: str  # relative to static/
    integrity: str  # sha384 of the vendored file, which is byte-identical to the CDN's
    global_name: str | None = None  # what a script defines, to detect a failed CDN load


HTMX_JS = Asset(
    cdn_url=f"https://unpkg.com/htmx.org@{HTMX_VERSION}/dist/htmx.min.js",
    path=f"vendor/htmx-{HTMX_VERSION}/htmx.min.js",
    integrity="sha384-2OatzQy1H+Zd/IIrjr1TcuDGqLXeHhbooAyJY1KdQMKnr4LZ22k31GBLdYKHmVjg",
    global_name="htmx",
)
KATEX_JS = Asset(
    cdn_url=f"https://cdn.jsdelivr.net/npm/katex@{KATEX_VERSION}/dist/katex.min.js",
    path=f"vendor/katex-{KATEX_VERSION}/katex.min.js",
    integrity="sha384-a1WQdjRj162i159OYq041X6I4K8NenkrI09LlPmiHg0YOb7CR+wJOraXwK9abpnE",
    global_name="katex",
)
KATEX_CSS = Asset(
    cdn_url=f"https://cdn.jsdelivr.net/npm/katex@{KATEX_VERSION}/dist/katex.min.css",
    path=f"vendor/katex-{KATEX_VERSION}/katex.min.css",
    integrity="sha384-WwGtaC6ywCHxA5cstpj/3+xIZvTez8dq2IcBQaXRkenHZ7FVVq1ZROtURwfbtTlG",
)
SWAGGER_VERSION = "5.35.0"
SWAGGER_JS = Asset(
    cdn_url=f"https://cdn.jsdelivr.net/npm/swagger-ui-dist@{SWAGGER_VERSION}/swagger-ui-bundle.js",
    path=f"vendor/swagger-ui-{SWAGGER_VERSION}/swagger-ui-bundle.js",
    integrity="sha384-gjRm0bEPMeTmMh5jT2cHccIwCUZSTd8YC+j0d0sXw0MdGEfScduGpSyF3ZSSLkX9",
)
SWAGGER_CSS = Asset(
    cdn_url=f"https://cdn.jsdelivr.net/npm/swagger-ui-dist@{SWAGGER_VERSION}/swagger-ui.css",
    path=f"vendor/swagger-ui-{SWAGGER_VERSION}/swagger-ui.css",
    integrity="sha384-WlYgdmXYOOBWL5apwjDEZwN+U3HmXSSu5R6V5aGxEcf7z+KuRNwBhoxKVN1i3D5I",
)
VENDORED = (HTMX_JS, KATEX_JS, KATEX_CSS)
API_DOCS = (SWAGGER_JS, SWAGGER_CSS)  # /docs only (app/routes/docs.py)
MATH_JS = "math.js"  # typesets .math elements; needs katex, so it comes after it
PROGRESS_JS = "progress.js"  # a bar on any form that keeps a person waiting over a second


def _js_string(text: str) -> str:
    # "<" escaped so the string can never close the inline <script> it sits in
    return json.dumps(text).replace("<", "\\u003c")


def _script(src: str) -> str:
    return f'<script src="{escape(src)}"></script>'


def _cdn_script(asset: Asset, local_url: str) -> str:
    # A parser-blocking document.write keeps the fallback in document order, so everything
    # after it (math.js, app.js) still finds window.htmx / window.katex defined.
    fallback = f"window.{asset.global_name}||document.write({_js_string(_script(local_url))})"
    return (
        f'<script src="{escape(asset.cdn_url)}" integrity="{asset.integrity}"'
        f' crossorigin="anonymous"></script>\n<script>{fallback}</script>'
    )


def _cdn_stylesheet(asset: Asset, local_url: str) -> str:
    # Same bytes locally, so the integrity attribute still holds after the swap.
    onerror = f"this.onerror=null;this.href={_js_string(local_url)}"
    return (
        f'<link rel="stylesheet" href="{escape(asset.cdn_url)}" integrity="{asset.integrity}"'
        f' crossorigin="anonymous" onerror="{escape(onerror)}">'
    )


def _stylesheet(href: str) -> str:
    return f'<link rel="stylesheet" href="{escape(href)}">'


def head_tags(use_cdn: bool, static_url: Callable[[str], str]) -> Markup:
    """The <head> tags every page needs: KaTeX css, htmx, KaTeX, math.js, progress.js, in that order.
    `static_url` maps a path under static/ to its URL. The page's own scripts go after these."""

    def local(asset: Asset) -> str:
        return str(static_url(asset.path))

    if use_cdn:
        tags = [
            _cdn_stylesheet(KATEX_CSS, local(KATEX_CSS)),
            _cdn_script(HTMX_JS, local(HTMX_JS)),
            _cdn_script(KATEX_JS, local(KATEX_JS)),
        ]
    else:
        tags = [_stylesheet(local(KATEX_CSS)), _script(local(HTMX_JS)), _script(local(KATEX_JS))]
    tags += [f'<script src="{escape(str(static_url(path)))}" defer></script>' for path in (MATH_JS, PROGRESS_JS)]
    return Markup("\n".join(tags))
