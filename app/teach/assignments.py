"""Setting a class an assignment: the teacher's input checked, then one row written.

The same rules for the class page's form and `POST /api/classes/{code}/assignments`; every
refusal is a 4xx in the teacher's language that changes nothing.
"""

import json
from datetime import date

from app.errors import Malformed, UserError
from app.learn.drills import parse_rate, parse_unit

from ..classes import assignments
from ..i18n import _

MAX_REVIEWS = 30


def json_fields(body: bytes) -> dict:
    """A JSON object body (nested `target` allowed, unlike the flat forms elsewhere)."""
    try:
        data = json.loads(body.decode("utf-8") or "{}")
    except UnicodeDecodeError:
        raise Malformed(_("提交的内容不是 UTF-8 编码的文本。")) from None
    except RecursionError:
        raise Malformed(_("无法读取提交的内容：JSON 嵌套太深。")) from None
    except ValueError as err:
        raise Malformed(_("无法读取提交的内容：%(err)s", err=str(err)[:200])) from None
    if not isinstance(data, dict):
        raise UserError(_("需要一个 JSON 对象。"))
    return data


def form_target(fields: dict[str, str]) -> dict:
    """The form's target: a kind and a number (accuracy in percent there)."""
    kind, raw = fields.get("target_kind", ""), fields.get("target_value", "").strip()
    try:
        number = float(raw)
    except ValueError:
        raise UserError(_("目标必须是数字，收到的是 “%(raw)s”。", raw=raw[:40])) from None
    return {"accuracy": number / 100} if kind == "accuracy" else {kind: number}


def values(fields: dict, library) -> dict:
    """Checked column values for an assignment, from form or JSON fields."""
    snippet = library.get(str(fields.get("snippet", ""))[:64])
    if snippet is None:
        raise UserError(_("没有找到片段 “%(id)s”。", id=str(fields.get("snippet", ""))[:64]))
    unit = _text(fields.get("unit"))
    fixed = _text(fields.get("mode")) == "fixed" or unit == "fixed"
    if fixed and not snippet.is_exercise:
        raise UserError(_("“%(id)s” 没有固定填空，只能布置随机挖空（挖空率和单位）。", id=snippet.id))
    rate = None if fixed else parse_rate(_text(fields.get("rate")))
    unit = None if fixed else parse_unit(unit)
    target, goal = _target(fields.get("target"))
    return {
        "snippet_id": snippet.id,
        "mode": "fixed" if fixed else "random",
        "rate": rate,
        "unit": unit,
        "target": target,
        "goal": goal,
        "due": _due(fields.get("due")),
    }


def _text(value) -> str | None:
    return None if value is None else str(value).strip()


def _target(raw) -> tuple[str, float]:
    if not isinstance(raw, dict) or len(raw) != 1:
        raise UserError(_('目标必须是 {"accuracy": 0.9} 或 {"reviews": 3} 之一。'))
    ((kind, number),) = raw.items()
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise UserError(_("目标必须是数字。"))
    if kind == "accuracy" and 0 < number <= 1:
        return kind, float(number)
    if kind == "reviews" and float(number).is_integer() and 1 <= number <= MAX_REVIEWS:
        return kind, float(number)
    if kind == "accuracy":
        raise UserError(_("正确率目标必须大于 0、至多 1（即 100%%）。"))
    if kind == "reviews":
        raise UserError(_("复习次数目标必须是 1 到 %(n)s 之间的整数。", n=MAX_REVIEWS))
    raise UserError(_('目标必须是 {"accuracy": 0.9} 或 {"reviews": 3} 之一。'))


def _due(raw) -> str:
    text = str(raw or "").strip()
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise UserError(_("截止日期必须是 YYYY-MM-DD（UTC 日期），收到的是 “%(raw)s”。", raw=text[:40])) from None


def create(db, code: str, fields: dict, library, who: str) -> assignments.Assignment:
    return assignments.create(db, class_code=code, **values(fields, library), who=who)
