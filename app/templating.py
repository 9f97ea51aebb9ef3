"""One place that decides how a page is answered: full page, the htmx block, or JSON."""
from collections.abc import Hashable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import Environment, FileSystemLoader
from jinja2_fragments.fastapi import Jinja2Blocks

from . import i18n
from .settings import PROJECT_DIR


def make_templates() -> Jinja2Blocks:
    env = Environment(loader=FileSystemLoader(PROJECT_DIR / "templates"), autoescape=True,
                      extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True,
                      auto_reload=False)  # templates change with a deploy, not under a running server
    templates = Jinja2Blocks(env=env)
    templates.env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=True)
    templates.env.globals["_"] = i18n._
    return templates


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true" and request.headers.get("hx-boosted") != "true"


def render(request: Request, template: str, context: dict[str, Any], *, block: str | None = None,
           status: int = 200, data: Any = None, headers: dict[str, str] | None = None,
           shell_key: Hashable | None = None) -> Response:
    """JSON for JSON clients (`data`), the named block for htmx swaps, else the whole page.

    With `shell_key`, everything outside `block` depends only on that key, so it is rendered
    once and reused: a new mask then costs just the block.
    """
    if data is not None and wants_json(request):
        return JSONResponse(data, status_code=status, headers=headers)
    templates: Jinja2Blocks = request.app.state.templates
    if block and is_htmx(request):
        return HTMLResponse(_block_html(templates, template, block, request, context), status_code=status,
                            headers=headers)
    if block and shell_key is not None:
        inner = _block_html(templates, template, block, request, context)
        shell = _shell(templates, template, request, context, shell_key, inner)
        if shell is not None:
            return HTMLResponse(b"".join((shell[0], inner.encode(), shell[1])), status_code=status,
                                headers=headers)
    return templates.TemplateResponse(request, template, context, status_code=status, headers=headers)


def _block_html(templates: Jinja2Blocks, template: str, block: str, request: Request, context: dict) -> str:
    tpl = templates.env.get_template(template)
    return "".join(tpl.blocks[block](tpl.new_context({**context, "request": request})))


def _shell(templates, template, request, context, key, inner: str) -> tuple[bytes, bytes] | None:
    shells: dict = templates.env.globals.setdefault("_shells", {})
    if (template, key) not in shells:
        full = templates.get_template(template).render({**context, "request": request})
        before, found, after = full.partition(inner)
        if not found:  # the block's output is not plain text of the page: render whole pages
            return None
        if len(shells) > 512:
            shells.clear()
        shells[template, key] = (before.encode(), after.encode())  # encoded once, not per request
    return shells[template, key]
