"""Reading a submitted form (or JSON) into answers, with a clear message for each way it can be wrong."""
import json
import re
from urllib.parse import unquote_plus, unquote_to_bytes

from fastapi import Request
from starlette.requests import ClientDisconnect

from .engine.score import Hole
from .engine.tokens import has_comment
from .errors import UserError
from .i18n import _

ANSWER_KEY = re.compile(r"^[sc]\d+$")


FORM_TYPES = ("", "application/x-www-form-urlencoded", "application/json")


def content_type(request: Request) -> str:
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


async def read_fields(request: Request, max_bytes: int, too_large: str | None = None) -> dict[str, str]:
    """Form or JSON fields as text; JSON `answers`/`responses` objects are flattened into them."""
    kind = content_type(request)
    if kind not in FORM_TYPES:
        raise UserError(415, _("提交的内容类型是 “%(type)s”：请以表单（application/x-www-form-urlencoded）"
                               "或 JSON（application/json）提交。", type=kind[:60]))
    body = await limited_body(request, max_bytes, too_large)
    if b"\x00" in body or (kind != "application/json" and b"%00" in body):
        raise UserError(400, _("提交的内容含有 NUL 字符（\\0），请检查后重新提交。"))
    try:
        text = body.decode("utf-8")
        if kind == "application/json":
            return _valid_text(_flatten_json(json.loads(text or "{}")))
        return form_fields(text)
    except UnicodeDecodeError:
        raise UserError(400, _("提交的内容不是 UTF-8 编码的文本。")) from None
    except RecursionError:
        raise UserError(400, _("无法读取提交的内容：JSON 嵌套太深。")) from None
    except (ValueError, TypeError) as err:
        raise UserError(400, _("无法读取提交的内容：%(err)s", err=str(err)[:200])) from None


def form_fields(text: str, max_fields: int = 2000) -> dict[str, str]:
    """An urlencoded body as a dict (last value wins), strict about UTF-8."""
    pairs = text.split("&") if text else []
    if len(pairs) > max_fields:
        raise ValueError(f"more than {max_fields} fields")
    if "%26" not in text and _ONE_EQUALS_EACH.fullmatch(text):
        # One raw `=` per pair and no value that decodes to `&`: the body decodes in one call
        # (a drill posts dozens of fields, most of them encoded punctuation).
        items = unquote_to_bytes(text.replace("=", "&").replace("+", " ")).decode("utf-8").split("&")
        return {key: value for key, value in zip(items[::2], items[1::2]) if key}
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if "%" in pair or "+" in pair:
            key, value = unquote_plus(key, errors="strict"), unquote_plus(value, errors="strict")
        if key:
            out[key] = value
    return out


# Every pair holds exactly one raw `=`: then splitting on both `=` and `&` keeps keys and values paired.
_ONE_EQUALS_EACH = re.compile(r"[^=&]*=[^=&]*(?:&[^=&]*=[^=&]*)*")


async def limited_body(request: Request, max_bytes: int, too_large: str | None = None) -> bytes:
    """The body, read no further than `max_bytes` whatever Content-Length says (chunked bodies
    have none); a client that goes away mid-body ends the request quietly."""
    message = too_large or _("提交的内容太大（上限 %(kb)s KB）。", kb=max_bytes // 1024)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise UserError(413, message)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise UserError(413, message)
            chunks.append(chunk)
    except ClientDisconnect:
        raise UserError(400, _("连接在提交完成前断开了。")) from None
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
        raise UserError(400, _("提交的内容含有无效的 Unicode 字符（单独的代理项），请检查后重新提交。")) from None
    if "\x00" in joined:  # a JSON "\u0000": no database text column holds it
        raise UserError(400, _("提交的内容含有 NUL 字符（\\0），请检查后重新提交。"))
    return fields


def answers_for(holes: tuple[Hole, ...], fields: dict[str, str], max_chars: int) -> dict[str, str]:
    """The answer to every hole, or a UserError naming the blanks that are missing, foreign or too long."""
    answers = {h.key: fields.get(h.key) for h in holes}
    foreign = sorted(k for k in fields.keys() - answers.keys() if ANSWER_KEY.match(k))
    if foreign:
        raise UserError(422, _("提交里有不属于这次遮盖的空：%(keys)s。请刷新页面后重新作答。",
                               keys=", ".join(foreign[:10])))
    if None in answers.values():
        missing = [h.label for h in holes if answers[h.key] is None]
        raise UserError(422, _("缺少这些空的答案：%(labels)s。", labels=", ".join(missing[:10])))
    # One look at all answers at once; the loop below only runs to name the culprit.
    text = "".join(answers.values())
    if "\n" in text or "\r" in text or max(map(len, answers.values()), default=0) > max_chars:
        for hole in holes:
            answer = answers[hole.key]
            if len(answer) > max_chars:
                raise UserError(422, _("%(label)s 的答案太长（%(n)s 个字符，上限 %(max)s）。",
                                       label=hole.label, n=len(answer), max=max_chars))
            if "\n" in answer or "\r" in answer:
                raise UserError(422, _("%(label)s 的答案只能有一行。", label=hole.label))
    if "#" in text:
        _refuse_comments(holes, answers)
    return answers


def _refuse_comments(holes: tuple[Hole, ...], answers: dict[str, str]) -> None:
    """A comment in an answer would swallow the rest of its line once spliced: refused, never scored."""
    for hole in holes:
        if has_comment(answers[hole.key]):
            raise UserError(422, _("%(label)s 的答案含有注释（#）：放进代码后，它会把这一行其余的代码变成注释。"
                                   "请去掉注释再提交。", label=hole.label))
