"""One place that decides how a page is answered: full page, the htmx block, or JSON."""
import re
import secrets
from functools import lru_cache
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import Environment, FileSystemLoader
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup, escape

from . import i18n
from .engine.cjk import lang_attribute
from .engine.inputs import mark_names
from .settings import PROJECT_DIR

FRAMES_KEPT = 1024
# The switch names each language in itself.
UI_LANGUAGES = (("zh", "zh-CN", "中文"), ("en", "en", "English"))


def make_templates() -> Jinja2Blocks:
    env = Environment(loader=FileSystemLoader(PROJECT_DIR / "templates"), autoescape=True,
                      extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True,
                      auto_reload=False)  # templates change with a deploy, not under a running server
    templates = Jinja2Blocks(env=env)
    templates.env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=True)
    templates.env.globals["_"] = i18n._
    templates.env.globals["ui_language"] = i18n.language
    templates.env.globals["ui_languages"] = UI_LANGUAGES
    templates.env.globals["mark_names"] = mark_names
    templates.env.globals["lang_of"] = lambda text: Markup(lang_attribute(str(text)))  # snippet content
    templates.frames = {}
    return templates


class Frame(NamedTuple):
    """A page (or block) that is the same for every request with `key`, except for `slots`.

    Slots name context values that the template only prints (`{{ name }}`), never tests or
    filters. The page is rendered once per key with a marker in each slot; a request then
    costs one join of the cached parts and its own slot values.
    """
    key: Hashable
    slots: tuple[str, ...]


class Deferred:
    """A value made only if the page being rendered prints it (an htmx outcome skips the code)."""
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]):
        self.make = make

    def __html__(self) -> str:
        return self.make()


def wants_json(request: Request) -> bool:
    """JSON when the client prefers it to HTML by its Accept header (q-values count)."""
    accept = request.headers.get("accept", "")
    if "json" not in accept:
        return False  # browsers, htmx and most clients: no parsing needed
    return _quality(accept, "application/json") > _quality(accept, "text/html")


@lru_cache(maxsize=256)
def _quality(accept: str, media: str) -> float:
    """The q-value `accept` gives `media` (the most specific matching range wins; 0 if none)."""
    kind = media.split("/")[0]
    best, q = -1, 0.0
    for part in accept.split(",")[:32]:
        name, *params = (p.strip() for p in part.split(";"))
        rank = {media: 2, f"{kind}/*": 1, "*/*": 0}.get(name.lower(), -1)
        if rank > best:
            best, q = rank, q_value(params)
    return q


def q_value(params: list[str]) -> float:
    """The `q=` of a header element's parameters (1 when absent)."""
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "q":
            try:
                return min(max(float(value), 0.0), 1.0)
            except ValueError:
                return 0.0
    return 1.0


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true" and request.headers.get("hx-boosted") != "true"


def render(request: Request, template: str, context: dict[str, Any], *, block: str | None = None,
           status: int = 200, data: Any = None, headers: dict[str, str] | None = None,
           frame: Frame | None = None) -> Response:
    """JSON for JSON clients (`data`, or a function that makes it), the named block for htmx
    swaps, else the whole page."""
    if data is not None and wants_json(request):
        return JSONResponse(data() if callable(data) else data, status_code=status, headers=headers)
    templates: Jinja2Blocks = request.app.state.templates
    part = block if block and is_htmx(request) else None
    if frame is not None:
        html = _filled(_frame_parts(templates, template, part, request, context, frame), context)
        return HTMLResponse(html, status_code=status, headers=headers)
    if part:
        return HTMLResponse(_rendered(templates, template, part, {**context, "request": request}),
                            status_code=status, headers=headers)
    return templates.TemplateResponse(request, template, context, status_code=status, headers=headers)


def _rendered(templates: Jinja2Blocks, template: str, block: str | None, context: dict) -> str:
    tpl = templates.env.get_template(template)
    if block is None:
        return tpl.render(context)
    return "".join(tpl.blocks[block](tpl.new_context(context)))


_TOKEN = secrets.token_hex(8)  # markers no page text can contain by chance
_MARKER = re.compile(rf"\x00{_TOKEN}:(\w+)\x00")


def _frame_parts(templates, template: str, block: str | None, request: Request, context: dict,
                 frame: Frame) -> tuple[bytes | str, ...]:
    """Encoded text between slots, with slot names at the odd positions."""
    frames: dict = templates.frames
    # The page's own text is in the request's language: one frame per language.
    key = (template, block, frame.key, i18n.language())
    parts = frames.get(key)
    if parts is None:
        markers = {name: Markup(f"\x00{_TOKEN}:{name}\x00") for name in frame.slots}
        split = _MARKER.split(_rendered(templates, template, block, {**context, **markers, "request": request}))
        parts = tuple(p.encode() if i % 2 == 0 else p for i, p in enumerate(split))
        if len(frames) >= FRAMES_KEPT:
            del frames[next(iter(frames))]  # the oldest
        frames[key] = parts
    return parts


def _filled(parts: tuple[bytes | str, ...], context: dict) -> bytes:
    values = {name: _encoded(context[name]) for name in parts[1::2]}
    out = list(parts)
    out[1::2] = [values[name] for name in parts[1::2]]
    return b"".join(out)


def _encoded(value: Any) -> bytes:
    return str(value if isinstance(value, Markup) else escape(value)).encode()
