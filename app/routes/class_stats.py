"""A snippet's class page: figures, heatmap, answers, and accepting an answer as an alternative."""

from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import NotFound, UserError
from app.web import deps
from app.web.teacher_auth import shown_teacher, teacher_label
from app.web.templating import render

from ..classes import alternatives, roster
from ..classes.figures import versions_practised
from ..classes.fold import fold
from ..classes.query import scope_of
from ..classes.stats import page_parts, snippet_stats
from ..engine.tokens import candidate_spans
from ..i18n import _
from ..memory.summary import end_of_today

router = APIRouter()
api = APIRouter(prefix="/api", dependencies=[Depends(deps.api_teacher)], tags=["teachers"])


@router.get("/teach/stats/{snippet_id}")
async def stats_page(request: Request, snippet_id: str) -> Response:
    session = deps.teacher_session(request)
    await run_in_threadpool(fold, deps.store(request).engine)  # not on the event loop: it writes
    with deps.store(request).engine.connect() as db:
        snippet, scope = scope_of(db, deps.library(request), snippet_id, request.query_params)
        stats = snippet_stats(db, snippet, scope, end_of_today(datetime.now(UTC)))
        classes = roster.all_classes(db)
        versions = versions_practised(db, snippet_id)
    context = {
        "csrf": session["csrf"],
        "snippet": snippet,
        "scope": scope,
        "stats": stats,
        "classes": classes,
        "versions": versions,
        "query": str(request.query_params),
        "teacher_name": shown_teacher,
        **page_parts(snippet, stats),
    }
    return render(request, "teach/class_stats.html", context, data=stats)


@api.get("/snippets/{snippet_id}/stats", summary="Class figures of a snippet version (class=, from=, to=, v=)")
async def stats_json(request: Request, snippet_id: str) -> dict:
    await run_in_threadpool(fold, deps.store(request).engine)  # not on the event loop: it writes
    with deps.store(request).engine.connect() as db:
        snippet, scope = scope_of(db, deps.library(request), snippet_id, request.query_params)
        return snippet_stats(db, snippet, scope, end_of_today(datetime.now(UTC)))


@router.post("/teach/stats/{snippet_id}/alternatives")
async def accept(request: Request, snippet_id: str) -> Response:
    fields = await deps.teacher_form(request)
    session = deps.teacher_session(request)
    snippet = _version(request, snippet_id, fields.get("version", ""))
    where = _blank(snippet, fields.get("first", ""), fields.get("last", ""))
    text = fields.get("text", "").strip()
    if not text or len(text) > alternatives.TEXT_MAX:
        raise UserError(_("要接受的答案不能为空，最多 %(n)s 个字符。", n=alternatives.TEXT_MAX))
    with deps.store(request).engine.begin() as db:
        alternatives.accept(db, snippet_id, snippet.version, where, text, teacher_label(session))
    return _back(fields)


@router.post("/teach/stats/{snippet_id}/alternatives/{alternative_id}/withdraw")
async def withdraw(request: Request, snippet_id: str, alternative_id: str) -> Response:
    fields = await deps.teacher_form(request)
    session = deps.teacher_session(request)
    with deps.store(request).engine.begin() as db:
        known = alternative_id.isascii() and alternative_id.isdigit() and len(alternative_id) < 10
        if not known or not alternatives.withdraw(db, snippet_id, int(alternative_id), teacher_label(session)):
            raise NotFound(_("没有这个生效中的替代答案（可能已经撤回）。"))
    return _back(fields)


def _version(request: Request, snippet_id: str, version: str):
    snippet = deps.library(request).get(snippet_id, version) if version else None
    if snippet is None:
        raise NotFound(_("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id[:64], v=version[:12]))
    return snippet


def _blank(snippet, first: str, last: str) -> tuple[int, int]:
    """A (first, last) candidate range that is a blank this version can have."""
    if not all(n.isascii() and n.isdigit() and len(n) < 6 for n in (first, last)):
        raise UserError(_("空的位置不对。"))
    where = (int(first), int(last))
    if not where[0] <= where[1] < len(candidate_spans(snippet.code)):
        raise UserError(_("空的位置不对。"))
    return where


def _back(fields: dict) -> Response:
    """Back to the page the form was on (its query is a relative one we wrote)."""
    back = fields.get("back", "")
    return RedirectResponse(back if back.startswith("/teach/stats/") else "/teach", status_code=303)
