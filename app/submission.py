"""Reading a submitted form (or JSON) into answers, with a clear message for each way it can be wrong."""
import json
import re
from urllib.parse import unquote_plus, unquote_to_bytes

from fastapi import Request

from .engine.score import Hole
from .errors import UserError
from .i18n import _

ANSWER_KEY = re.compile(r"^[sc]\d+$")


async def read_fields(request: Request, max_bytes: int) -> dict[str, str]:
    """Form or JSON fields as text; JSON `answers`/`responses` objects are flattened into them."""
    body = await _body(request, max_bytes)
    try:
        text = body.decode("utf-8")
        if request.headers.get("content-type", "").startswith("application/json"):
            return _flatten_json(json.loads(text or "{}"))
        return form_fields(text)
    except UnicodeDecodeError:
        raise UserError(400, _("提交的内容不是 UTF-8 编码的文本。")) from None
    except (ValueError, TypeError) as err:
        raise UserError(400, _("无法读取提交的内容：%(err)s", err=str(err)[:200])) from None


def form_fields(text: str, max_fields: int = 2000) -> dict[str, str]:
    """An urlencoded body as a dict (last value wins), strict about UTF-8."""
    pairs = text.split("&") if text else []
    if len(pairs) > max_fields:
        raise ValueError(f"more than {max_fields} fields")
    if text.count("=") == len(pairs) and "%26" not in text:
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


async def _body(request: Request, max_bytes: int) -> bytes:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise UserError(413, _("提交的内容太大（上限 %(kb)s KB）。", kb=max_bytes // 1024))
        chunks.append(chunk)
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
    fields = {str(k): str(v) for k, v in out.items()}
    # JSON can spell a lone surrogate ("\ud800"): no page, database or sandbox can encode it.
    if not _encodable("".join(fields) + "".join(fields.values())):
        raise ValueError("a lone surrogate (\\ud800–\\udfff) is not text")
    return fields


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
    return answers
