"""One place that decides how a page is answered: full page, the htmx block, or JSON."""

from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import Environment, FileSystemLoader
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup

from app import i18n
from app.engine.cjk import lang_attribute
from app.engine.inputs import ASKABLE, mark_names, unit_names
from app.settings import PROJECT_DIR
from app.web.accept import prefers

from . import zone

# The switch names each language in itself.
UI_LANGUAGES = (("zh", "zh-CN", "中文"), ("en", "en", "English"))


def make_templates() -> Jinja2Blocks:
    env = Environment(
        loader=FileSystemLoader(PROJECT_DIR / "templates"),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )  # templates change with a deploy, not under a running server
    templates = Jinja2Blocks(env=env)
    templates.env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=True)
    templates.env.globals["_"] = i18n._
    templates.env.globals["ui_language"] = i18n.language
    templates.env.globals["ui_languages"] = UI_LANGUAGES
    templates.env.globals["mark_names"] = mark_names
    templates.env.globals["unit_names"] = unit_names
    templates.env.globals["askable"] = ASKABLE  # templates/_blank.html
    templates.env.globals["lang_of"] = lambda text: Markup(lang_attribute(str(text)))  # snippet content
    templates.env.globals["local_time"] = zone.local_time
    templates.env.globals["local_date"] = zone.local_date
    return templates


class Deferred:
    """A value made only if the page being rendered prints it (an htmx outcome skips the code)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]):
        self.make = make

    def __html__(self) -> str:
        return self.make()


def wants_json(request: Request) -> bool:
    """JSON when the client prefers it to HTML by its Accept header (q-values count)."""
    return prefers(request.headers.get("accept", ""), "application/json", over="text/html")


def templates_of(request: Request) -> Jinja2Blocks:
    return request.app.state.templates


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true" and request.headers.get("hx-boosted") != "true"


def render(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    block: str | None = None,
    status: int = 200,
    data: Any = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """JSON for JSON clients (`data`, or a function that makes it), the named block for htmx
    swaps, else the whole page."""
    if data is not None and wants_json(request):
        return JSONResponse(data() if callable(data) else data, status_code=status, headers=headers)
    templates = templates_of(request)
    part = block if block and is_htmx(request) else None
    if part:
        return HTMLResponse(
            _rendered(templates, template, part, {**context, "request": request}), status_code=status, headers=headers
        )
    return templates.TemplateResponse(request, template, context, status_code=status, headers=headers)


def _rendered(templates: Jinja2Blocks, template: str, block: str | None, context: dict) -> str:
    tpl = templates.env.get_template(template)
    if block is None:
        return tpl.render(context)
    return "".join(tpl.blocks[block](tpl.new_context(context)))
