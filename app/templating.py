"""One place that decides how a page is answered: full page, the htmx block, or JSON."""
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from jinja2 import Environment, FileSystemLoader
from jinja2_fragments.fastapi import Jinja2Blocks

from . import i18n
from .settings import PROJECT_DIR


def make_templates() -> Jinja2Blocks:
    env = Environment(loader=FileSystemLoader(PROJECT_DIR / "templates"), autoescape=True,
                      extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True)
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
           status: int = 200, data: Any = None, headers: dict[str, str] | None = None) -> Response:
    """JSON for JSON clients (`data`), the named block for htmx swaps, else the whole page."""
    if data is not None and wants_json(request):
        return JSONResponse(data, status_code=status, headers=headers)
    templates: Jinja2Blocks = request.app.state.templates
    block_name = block if block and is_htmx(request) else None
    return templates.TemplateResponse(request, template, context, status_code=status,
                                      headers=headers, block_name=block_name)
