"""Reading a submitted form (or JSON) into a model, with a clear message for each way it can be wrong.

Routes take a form as a pydantic model through `form_of(Model, max_bytes)`. The body is read here
rather than by FastAPI's `Form()`: it is bounded before anything is parsed, JSON bodies are taken
too (submissions accept them), text must be UTF-8 (Starlette's form parser reads raw bytes as
Latin-1 and replaces invalid UTF-8 silently) and NUL characters, which no database text column
holds, are refused with a message.
"""

import json
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect

from app.errors import Malformed, TooLarge, Unsupported
from app.i18n import _
from app.web.deps import SettingsDep, TeacherSession, check_csrf

FORM_TYPES = ("", "application/x-www-form-urlencoded", "application/json")
SMALL_FORM = 4096  # bytes: a form of a few short fields (a rating, a name, a CSRF token)
Model = TypeVar("Model", bound=BaseModel)


def form_of(model: type[Model], max_bytes: int | None = None) -> Callable:
    """A dependency: the request's form (or JSON) fields as `model`, the body read no further than
    `max_bytes` (the `max_form_bytes` setting when None)."""

    async def posted(request: Request, config: SettingsDep) -> model:  # type: ignore[valid-type]
        return validated(model, await read_fields(request, max_bytes or config.max_form_bytes))

    return posted


class TeacherForm(BaseModel):
    """A teacher's state-changing form: it carries the session's CSRF token."""

    csrf: str = ""


def teacher_form_of(model: type[TeacherForm]) -> Callable:
    """A dependency: a signed-in teacher's form as `model`, its CSRF token checked before any of
    its fields (a 401 without a session comes before the body is read)."""

    async def checked(request: Request, session: TeacherSession, config: SettingsDep) -> model:  # type: ignore[valid-type]
        fields = await read_fields(request, config.max_form_bytes)
        check_csrf(session, fields.get("csrf", ""))
        return validated(model, fields)

    return checked


def validated(model: type[Model], fields: dict) -> Model:
    """`fields` as `model`; what pydantic refuses is a RequestValidationError, as FastAPI's own
    form parameters would raise (its fields' validators word their own errors as UserErrors)."""
    try:
        return model.model_validate(fields)
    except ValidationError as err:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in err.errors(include_url=False, include_context=False)]
        raise RequestValidationError(errors) from None


def content_type(request: Request) -> str:
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


async def read_fields(request: Request, max_bytes: int, too_large: str | None = None) -> dict[str, str]:
    """Form or JSON fields as text; JSON `answers`/`responses` objects are flattened into them."""
    kind = content_type(request)
    if kind not in FORM_TYPES:
        raise Unsupported(
            _(
                "提交的内容类型是 “%(type)s”：请以表单（application/x-www-form-urlencoded）"
                "或 JSON（application/json）提交。",
                type=kind[:60],
            ),
        )
    body = await limited_body(request, max_bytes, too_large)
    if b"\x00" in body or (kind != "application/json" and b"%00" in body):
        raise Malformed(_("提交的内容含有 NUL 字符（\\0），请检查后重新提交。"))
    try:
        text = body.decode("utf-8")
        if kind == "application/json":
            return _valid_text(_flatten_json(json.loads(text or "{}")))
        return form_fields(text)
    except UnicodeDecodeError:
        raise Malformed(_("提交的内容不是 UTF-8 编码的文本。")) from None
    except RecursionError:
        raise Malformed(_("无法读取提交的内容：JSON 嵌套太深。")) from None
    except (ValueError, TypeError) as err:
        raise Malformed(_("无法读取提交的内容：%(err)s", err=str(err)[:200])) from None


def form_fields(text: str, max_fields: int = 2000) -> dict[str, str]:
    """An urlencoded body as a dict (last value wins, blank keys dropped), strict about UTF-8."""
    pairs = parse_qsl(text, keep_blank_values=True, errors="strict", max_num_fields=max_fields)
    return {key: value for key, value in pairs if key}


async def limited_body(request: Request, max_bytes: int, too_large: str | None = None) -> bytes:
    """The body, read no further than `max_bytes` whatever Content-Length says (chunked bodies
    have none); a client that goes away mid-body ends the request quietly."""
    message = too_large or _("提交的内容太大（上限 %(kb)s KB）。", kb=max_bytes // 1024)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(message)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise TooLarge(message)
            chunks.append(chunk)
    except ClientDisconnect:
        raise Malformed(_("连接在提交完成前断开了。")) from None
    return b"".join(chunks)


def _flatten_json(data) -> dict[str, str]:
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    out = {k: v for k, v in data.items() if k not in ("answers", "responses")}
    for nested in ("answers", "responses"):
        value = data.get(nested) or {}
        if not isinstance(value, dict):
            raise ValueError(f"'{nested}' must be an object")
        out.update(value)
    if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in out.values()):
        raise ValueError("every value must be a string or an integer")
    return {str(k): str(v) for k, v in out.items()}


def _valid_text(fields: dict[str, str]) -> dict[str, str]:
    """Fields whose text the database and the page can hold: JSON escapes can make lone
    surrogates (`"\\ud800"`), which are no text at all."""
    try:
        joined = "".join([*fields, *fields.values()])
        joined.encode("utf-8")
    except UnicodeEncodeError:
        raise Malformed(_("提交的内容含有无效的 Unicode 字符（单独的代理项），请检查后重新提交。")) from None
    if "\x00" in joined:  # a JSON "\u0000": no database text column holds it
        raise Malformed(_("提交的内容含有 NUL 字符（\\0），请检查后重新提交。"))
    return fields
