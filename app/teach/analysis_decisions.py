"""Teachers deciding what the check cannot tell: a survivor is equivalent, a place is dead code.

A decision is made against the version's complete analysis (a survivor it lists, a position or a
line it has), stored attributed and timestamped, and holds for every version whose code at that
place is unchanged. Each one judges the snippet's unproven answers again at once (an answer
equal to a survivor marked equivalent becomes 运行接受, present and future).
"""

from sqlalchemy.exc import SQLAlchemyError

from app.db import strength_decisions, strength_rows
from app.errors import Busy, Conflict, NotFound, UserError
from app.i18n import _
from app.learn.rejudging import rejudge
from app.snippets.decisions import KINDS, anchor
from app.teach.publishing import Teaching, existing


def analysed_version(teaching: Teaching, snippet_id: str, version: str | None):
    """The version a decision is about: the one named, else the current one."""
    snippet = existing(teaching, snippet_id)
    if version and version != snippet.version:
        snippet = teaching.library.get(snippet_id, version)
        if snippet is None:
            raise NotFound(_("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id[:64], v=version[:12]))
    return snippet


def decide(engine, library, snippet, fields: dict, who: str) -> dict:
    """Store a decision from `fields` (kind; index and replacement, or line) about this version."""
    kind = fields.get("kind", "")
    if kind not in KINDS:
        raise UserError(_("决定的种类只能是 equivalent、position 或 line。"))
    row = strength_rows.load(engine, snippet.id, snippet.version)
    report = row and row["state"] == "complete" and row["report"]
    if not report:
        raise Conflict(_("这个版本的检查强度分析还没有完成，完成后才能对它做决定。"))
    index, line = _number(fields.get("index")), _number(fields.get("line"))
    replacement = str(fields.get("replacement") or "")
    _known(report, kind, index, line, replacement)
    try:
        place = anchor(snippet.code, kind, index=index, line=line, replacement=replacement or None)
        with engine.begin() as db:
            decision_id, new = strength_decisions.decide(db, snippet.id, snippet.version, place, who)
    except ValueError:
        raise UserError(_("这个位置不在这个版本的代码里。")) from None
    except SQLAlchemyError:
        raise Busy(_("数据库暂时不能写入，决定没有保存，请稍后重试。")) from None
    credited = rejudge(engine, library.get, snippet.id, by=who) if new else 0
    return {"id": decision_id, "kind": kind, "new": new, "credited": credited}


def withdraw(engine, snippet_id: str, decision_id: str, who: str) -> None:
    """Withdrawn from now on: answers it credited keep their verdict."""
    number = _number(decision_id)
    with engine.begin() as db:
        if number is None or not strength_decisions.withdraw(db, snippet_id, number, who):
            raise NotFound(_("没有这个生效中的决定（可能已经撤回）。"))


def _number(value) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value < 10**6 else None
    text = str(value or "")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 7 else None


def _known(report: dict, kind: str, index: int | None, line: int | None, replacement: str) -> None:
    """The place is one the report has: a survivor, a position, a line with positions."""
    if kind == "equivalent":
        ok = any(m["index"] == index and m["replacement"] == replacement for m in report["survivors"])
        message = _("这个版本的分析里没有这个存活的变异体。")
    elif kind == "position":
        ok = any(p["index"] == index for p in report["positions"])
        message = _("这个版本的分析里没有这个位置。")
    else:
        ok = any(p["line"] == line for p in report["positions"])
        message = _("这一行没有可分析的位置。")
    if not ok:
        raise UserError(message)
