"""Classes: teachers create codes and see their learners; learners join with a code or a link."""

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from app.errors import Conflict, NotFound, UserError
from app.web import deps
from app.web.teacher_auth import shown_teacher, teacher_label
from app.web.templating import render

from ..classes import roster
from ..classes.export import class_csv
from ..classes.figures import Scope
from ..classes.fold import fold
from ..classes.query import days
from ..i18n import _
from ..memory import identity
from ..memory.summary import end_of_today
from . import assignments, class_stats

router = APIRouter()
router.include_router(class_stats.router)
router.include_router(class_stats.api)
router.include_router(assignments.router)
router.include_router(assignments.api)


def _page(request: Request, template: str, context: dict, data, status: int = 200) -> Response:
    session = deps.auth(request).session(request) or {}
    return render(
        request,
        f"teach/{template}",
        {"csrf": session.get("csrf", ""), "teacher_name": shown_teacher, **context},
        data=data,
        status=status,
    )


@router.get("/teach/classes")
async def class_list(request: Request) -> Response:
    deps.teacher_session(request)
    with deps.store(request).engine.connect() as db:
        rows = roster.all_classes(db)
    data = [{**r, "created_at": r["created_at"].isoformat()} for r in rows]
    return _page(request, "classes.html", {"classes": rows}, data={"classes": data})


@router.post("/teach/classes")
async def create_class(request: Request) -> Response:
    fields = await deps.teacher_form(request)
    session = deps.teacher_session(request)
    code = fields.get("code", "").strip() or roster.new_code()
    name = " ".join(fields.get("name", "").split()) or None
    if not roster.CODE.match(code):
        raise UserError(_("班级代码只能由字母、数字和 - 组成，最多 32 个字符。"))
    if name and (len(name) > roster.NAME_MAX or not name.isprintable()):
        raise UserError(_("班级名称最多 %(n)s 个字符。", n=roster.NAME_MAX))
    try:
        with deps.store(request).engine.begin() as db:
            if roster.exists(db, code):
                raise Conflict(_("班级代码 “%(code)s” 已经有了，换一个。", code=code))
            roster.create(db, code, name, teacher_label(session))
    except IntegrityError:  # created at the same moment elsewhere
        raise Conflict(_("班级代码 “%(code)s” 已经有了，换一个。", code=code)) from None
    return RedirectResponse(f"/teach/classes/{code}", status_code=303)


@router.get("/teach/classes/{code}")
async def class_page(request: Request, code: str) -> Response:
    deps.teacher_session(request)
    start, end = days(request.query_params)
    await run_in_threadpool(fold, deps.store(request).engine)  # not on the event loop: it writes
    with deps.store(request).engine.connect() as db:
        found = roster.one(db, code) if roster.CODE.match(code) else None
        if found is None:
            raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))
        code = found["code"]
        learners = roster.roster(db, Scope("", "", code, start, end), end_of_today(datetime.now(UTC)))
        snippets = roster.snippets_practised(db, code)
        work = assignments.board(db, code, deps.library(request))
    library = deps.library(request)
    titles = {s: (library.get(s).title if library.get(s) else s) for s in snippets}
    join = str(request.base_url).rstrip("/") + f"/join/{code}"
    choices = [s for s in library.all(include_hidden=True)]
    context = {
        "cls": found,
        "learners": learners,
        "snippets": titles,
        "join": join,
        "start": start,
        "end": end,
        "work": work["assignments"],
        "choices": choices,
        "today": datetime.now(UTC).date().isoformat(),
    }
    data = {
        "code": code,
        "name": found["name"],
        "join": join,
        "learners": learners,
        "snippets": snippets,
        "assignments": work["assignments"],
    }
    return _page(request, "class.html", context, data=data)


@router.get("/teach/classes/{code}/attempts.csv")
async def class_export(request: Request, code: str) -> Response:
    deps.teacher_session(request)
    start, end = days(request.query_params)
    with deps.store(request).engine.connect() as db:
        code = roster.stored_code(db, code) if roster.CODE.match(code) else None
        if code is None:
            raise NotFound(_("没有班级代码 “%(code)s”。", code=request.path_params["code"][:32]))
    snippet_id = request.query_params.get("snippet") or None
    return StreamingResponse(
        class_csv(deps.store(request).engine, code, start, end, snippet_id),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="class-{code}.csv"'},
    )


@router.get("/join/{code}")
async def join_page(request: Request, code: str) -> Response:
    """Asks first: a link alone must not move a browser into a class (another site could send it)."""
    found = _class_or_404(request, code)
    return render(request, "join.html", {"cls": found}, data={"code": found["code"], "name": found["name"]})


@router.post("/join/{code}")
async def join(request: Request, code: str) -> Response:
    found = _class_or_404(request, code)
    learner = deps.learner_id(request)
    with deps.store(request).engine.begin() as db:
        identity.save_profile(db, learner, class_code=found["code"])
    return deps.remember_learner(RedirectResponse("/me", status_code=303), learner)


def _class_or_404(request: Request, code: str) -> dict:
    with deps.store(request).engine.connect() as db:
        found = roster.one(db, code) if roster.CODE.match(code) else None
    if found is None:
        raise NotFound(_("没有班级代码 “%(code)s”。请向老师确认。", code=code[:32]))
    return found
