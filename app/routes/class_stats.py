"""A snippet's class page: figures, heatmap, answers, and accepting an answer as an alternative."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from starlette.concurrency import run_in_threadpool

from app.errors import NotFound, UserError
from app.teach import audit, publishing
from app.web.deps import (
    ActorDep,
    LibraryDep,
    StoreDep,
    TeacherSession,
    TeachingDep,
    api_teacher,
    teacher_account,
)
from app.web.forms import TeacherForm, teacher_form_of
from app.web.teacher_auth import shown_teacher, teacher_label
from app.web.templating import render

from ..classes import alternatives, roster
from ..classes.figures import versions_practised
from ..classes.fold import fold
from ..classes.query import day_or_none, scope_of
from ..classes.stats import page_parts, snippet_stats
from ..engine.tokens import candidate_spans
from ..i18n import _
from ..memory.summary import end_of_today
from ..teach import class_changes as class_rules

router = APIRouter()
api = APIRouter(prefix="/api", dependencies=[Depends(api_teacher)], tags=["teachers"])


class Filters(BaseModel):
    """Which attempts a class page sums: a class, a date range, a version (the current one by default)."""

    cls: str = Field("", alias="class", description="a class code (every class when left out)")
    start: str = Field("", alias="from", description="first day, YYYY-MM-DD")
    end: str = Field("", alias="to", description="last day, YYYY-MM-DD")
    v: str = Field("", description="the snippet's version (the current one when left out)")

    @field_validator("start", "end")
    @classmethod
    def _day(cls, value: str, info: ValidationInfo) -> str:
        return day_or_none(value, "from" if info.field_name == "start" else "to") or ""

    def query(self) -> dict[str, str]:
        """As the page's query names them (what the class figures read)."""
        return self.model_dump(by_alias=True)


FiltersQuery = Annotated[Filters, Query()]


@router.get("/teach/stats/{snippet_id}")
async def stats_page(
    request: Request,
    snippet_id: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    filters: FiltersQuery,
) -> Response:
    await run_in_threadpool(fold, store.engine)  # not on the event loop: it writes
    with store.engine.connect() as db:
        if filters.cls and not class_rules.may_teach(db, filters.cls, teacher_account(session)):
            raise NotFound(_("没有班级代码 “%(code)s”。", code=filters.cls[:32]))
        snippet, scope = scope_of(db, library, snippet_id, filters.query())
        stats = snippet_stats(db, snippet, scope, end_of_today(datetime.now(UTC)))
        classes = roster.all_classes(db, teacher_account(session))
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


@api.get("/snippets/{snippet_id}/stats", summary="Class figures of a snippet version")
async def stats_json(snippet_id: str, store: StoreDep, library: LibraryDep, filters: FiltersQuery) -> dict:
    await run_in_threadpool(fold, store.engine)  # not on the event loop: it writes
    with store.engine.connect() as db:
        snippet, scope = scope_of(db, library, snippet_id, filters.query())
        return snippet_stats(db, snippet, scope, end_of_today(datetime.now(UTC)))


class BackForm(TeacherForm):
    back: str = ""  # the page the form was on


class AlternativeForm(BackForm):
    """An answer a teacher accepts at one blank (first and last candidate index) of a version."""

    model_config = ConfigDict(validate_default=True)  # an empty answer is worded as one

    version: str = ""
    first: str = ""
    last: str = ""
    text: str = ""

    @field_validator("text")
    @classmethod
    def _text(cls, text: str) -> str:
        text = text.strip()
        if not text or len(text) > alternatives.TEXT_MAX:
            raise UserError(_("要接受的答案不能为空，最多 %(n)s 个字符。", n=alternatives.TEXT_MAX))
        return text


@router.post("/teach/stats/{snippet_id}/alternatives")
async def accept(
    snippet_id: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    teaching: TeachingDep,
    who: ActorDep,
    form: Annotated[AlternativeForm, Depends(teacher_form_of(AlternativeForm))],
) -> Response:
    """An accepted answer changes how the snippet is scored for every learner: its owner's and
    admins' decision, as any change of a snippet is."""
    snippet = _version(library, snippet_id, form.version)
    where = _blank(snippet, form.first, form.last)
    publishing.owned(teaching, snippet_id, teacher_account(session))
    with store.engine.begin() as db:
        alternatives.accept(db, snippet_id, snippet.version, where, form.text, teacher_label(session))
        audit.record(db, who, "answer accepted", "snippet", snippet_id, form.text[:200])
    return _back(form)


@router.post("/teach/stats/{snippet_id}/alternatives/{alternative_id}/withdraw")
async def withdraw(
    snippet_id: str,
    alternative_id: str,
    session: TeacherSession,
    store: StoreDep,
    teaching: TeachingDep,
    who: ActorDep,
    form: Annotated[BackForm, Depends(teacher_form_of(BackForm))],
) -> Response:
    publishing.owned(teaching, snippet_id, teacher_account(session))
    with store.engine.begin() as db:
        known = alternative_id.isascii() and alternative_id.isdigit() and len(alternative_id) < 10
        if not known or not alternatives.withdraw(db, snippet_id, int(alternative_id), teacher_label(session)):
            raise NotFound(_("没有这个生效中的替代答案（可能已经撤回）。"))
        audit.record(db, who, "answer withdrawn", "snippet", snippet_id, alternative_id)
    return _back(form)


def _version(library, snippet_id: str, version: str):
    snippet = library.get(snippet_id, version) if version else None
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


def _back(form: BackForm) -> Response:
    """Back to the page the form was on (its query is a relative one we wrote)."""
    back = form.back
    return RedirectResponse(back if back.startswith("/teach/stats/") else "/teach", status_code=303)
