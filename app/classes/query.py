"""Reading a class page's filters (class, date range, version) from a query; bad ones are a 4xx."""

from datetime import date

from app.errors import NotFound, UserError

from ..i18n import _
from . import roster
from .figures import Scope


def day_or_none(value: str | None, field: str) -> str | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value).isoformat() if len(value) == 10 else _bad_day(field)
    except ValueError:
        return _bad_day(field)


def _bad_day(field: str):
    raise UserError(_("日期“%(field)s”要写成 YYYY-MM-DD，例如 2026-12-01。", field=field))


def class_or_none(db, code: str | None) -> str | None:
    """None for every class; else a code that exists (404 otherwise)."""
    if not code:
        return None
    stored = roster.stored_code(db, code) if roster.CODE.match(code) else None
    if stored is None:
        raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))
    return stored


def days(query) -> tuple[str | None, str | None]:
    start, end = day_or_none(query.get("from"), "from"), day_or_none(query.get("to"), "to")
    if start and end and start > end:
        raise UserError(_("开始日期晚于结束日期。"))
    return start, end


def scope_of(db, library, snippet_id: str, query) -> tuple[object, Scope]:
    """The snippet version a page is about, and what it sums."""
    current = library.get(snippet_id)
    if current is None:
        raise NotFound(_("没有找到片段 “%(id)s”。", id=snippet_id[:64]))
    version = query.get("v") or current.version
    snippet = current if version == current.version else library.get(snippet_id, version)
    if snippet is None:
        raise NotFound(_("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id[:64], v=version[:12]))
    start, end = days(query)
    return snippet, Scope(snippet_id, version, class_or_none(db, query.get("class")), start, end)
