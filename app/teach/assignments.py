"""Setting a class an assignment: the teacher's input checked, then one row written.

The same rules for the class page's form and `POST /api/classes/{code}/assignments`; every
refusal is a 4xx in the teacher's language that changes nothing.
"""

import json
from collections.abc import Callable
from datetime import UTC, date, datetime

from app.errors import Malformed, NotFound, UserError
from app.learn.drills import parse_rate, parse_unit

from ..classes import assignment_rows, assignments
from ..i18n import _
from . import audit, class_changes

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
    """The form's target: a kind and a number (accuracy in percent there), from the kind's own
    field (`target_accuracy`, `target_reviews`) or the shared `target_value`."""
    kind = fields.get("target_kind", "")
    raw = str(fields.get(f"target_{kind}") or fields.get("target_value", "")).strip()
    try:
        number = float(raw)
    except ValueError:
        raise UserError(_("目标必须是数字，收到的是 “%(raw)s”。", raw=raw[:40]), field="target") from None
    if kind == "accuracy" and not 1 <= number <= 100:
        raise UserError(_("正确率目标必须在 1%% 到 100%% 之间。"), field="target")
    return {"accuracy": number / 100} if kind == "accuracy" else {kind: number}


def values(fields: dict, library) -> dict:
    """Checked column values for an assignment, from form or JSON fields (starts today unless given)."""
    snippet = library.get(str(fields.get("snippet", ""))[:64])
    if snippet is None:
        raise UserError(_("没有找到片段 “%(id)s”。", id=str(fields.get("snippet", ""))[:64]), field="snippet")
    unit = _text(fields.get("unit"))
    fixed = _text(fields.get("mode")) == "fixed" or unit == "fixed"
    if fixed and not snippet.is_exercise:
        raise UserError(_("“%(id)s” 没有固定填空，只能布置随机挖空（挖空率和单位）。", id=snippet.id), field="mode")
    rate = None if fixed else _at("rate", parse_rate, _text(fields.get("rate")))
    unit = None if fixed else _at("unit", parse_unit, unit)
    target, goal = _at("target", _target, fields.get("target"))
    starts = _at("starts", _day, fields.get("starts") or datetime.now(UTC).date().isoformat())
    due = _at("due", _day, fields.get("due"))
    if due < starts:
        raise UserError(_("截止日期（%(due)s）不能早于开始日期（%(starts)s）。", due=due, starts=starts), field="due")
    return {
        "snippet_id": snippet.id,
        "mode": "fixed" if fixed else "random",
        "rate": rate,
        "unit": unit,
        "target": target,
        "goal": goal,
        "starts": starts,
        "due": due,
    }


def _at(field: str, check: Callable, raw):
    """`check(raw)`, its refusal naming the form field at fault."""
    try:
        return check(raw)
    except UserError as err:
        err.field = err.field or field
        raise


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


def _day(raw) -> str:
    text = str(raw or "").strip()
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise UserError(_("日期必须是 YYYY-MM-DD（UTC 日期），收到的是 “%(raw)s”。", raw=text[:40])) from None


def create(db, code: str, fields: dict, library, actor: audit.Actor) -> assignments.Assignment:
    """A new assignment of an active class, in the audit trail in the same transaction."""
    cls = class_changes.active(db, code)
    made = assignments.create(db, class_code=cls["code"], **values(fields, library), who=actor.label)
    audit.record(db, actor, "assigned", "class", made.class_code, f"{made.id}: {made.snippet_id}")
    return made


def current(db, code: str, assignment_id: str) -> dict:
    """An assignment of the class as its form and the API show it (the id as typed in a URL)."""
    row = (
        assignment_rows.one(db, code, int(assignment_id))
        if assignment_id.isdigit() and len(assignment_id) < 10
        else None
    )
    if row is None:
        raise NotFound(_("这个班级没有作业 %(id)s。", id=assignment_id[:12]))
    return row


def as_fields(row: dict) -> dict:
    """A stored assignment as the fields `values` reads (what an edit starts from)."""
    target = {"accuracy": row["goal"]} if row["target"] == "accuracy" else {"reviews": int(row["goal"])}
    return {
        "snippet": row["snippet_id"],
        "mode": row["mode"],
        "rate": row["rate"],
        "unit": row["unit"],
        "target": target,
        "starts": row["starts"],
        "due": row["due"],
    }


def change(db, code: str, assignment_id: str, fields: dict, library) -> dict:
    """Changes the given fields of an assignment (the others stay); its new values, as the API shows them."""
    cls = class_changes.active(db, code)
    row = current(db, cls["code"], assignment_id)
    checked = values({**as_fields(row), **fields}, library)
    assignment_rows.change(db, row["id"], checked)
    return shown(db, cls["code"], row["id"])


def shown(db, code: str, assignment_id: int) -> dict:
    row = assignment_rows.one(db, code, assignment_id)
    return {"id": row["id"], "class": code, **as_fields(row)}


def delete(db, code: str, assignment_id: str) -> None:
    cls = class_changes.active(db, code)
    assignment_rows.remove(db, current(db, cls["code"], assignment_id)["id"])
