"""Classes: teachers create codes and see their learners; learners join with a code or a link."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from app.errors import Conflict, NotFound, UserError
from app.web.deps import LearnerDep, LibraryDep, StoreDep, TeacherSession, remember_learner
from app.web.forms import TeacherForm, teacher_form_of
from app.web.teacher_auth import shown_teacher, teacher_label
from app.web.templating import render

from ..classes import roster
from ..classes.export import class_csv
from ..classes.figures import Scope
from ..classes.fold import fold
from ..classes.query import day_or_none, days
from ..i18n import _
from ..memory import identity
from ..memory.summary import end_of_today
from . import assignments, class_stats
from .me import joined_url

router = APIRouter()
router.include_router(class_stats.router)
router.include_router(class_stats.api)
router.include_router(assignments.router)
router.include_router(assignments.api)


class ClassForm(TeacherForm):
    """A new class: its code (one is made when left empty) and an optional name."""

    code: str = ""
    name: str = ""

    @field_validator("code")
    @classmethod
    def _code(cls, code: str) -> str:
        code = code.strip() or roster.new_code()
        if not roster.CODE.match(code):
            raise UserError(_("班级代码只能由字母、数字和 - 组成，最多 32 个字符。"))
        return code

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        name = " ".join(name.split())
        if name and (len(name) > roster.NAME_MAX or not name.isprintable()):
            raise UserError(_("班级名称最多 %(n)s 个字符。", n=roster.NAME_MAX))
        return name

    model_config = ConfigDict(validate_default=True)  # an empty code is made one


class Days(BaseModel):
    """A date range of a class's attempts (every day when left out)."""

    start: str = Field("", alias="from", description="first day, YYYY-MM-DD")
    end: str = Field("", alias="to", description="last day, YYYY-MM-DD")
    snippet: str = Field("", description="one snippet's attempts only (the CSV)")

    @field_validator("start", "end")
    @classmethod
    def _day(cls, value: str, info: ValidationInfo) -> str:
        return day_or_none(value, "from" if info.field_name == "start" else "to") or ""

    def range(self) -> tuple[str | None, str | None]:
        return days({"from": self.start, "to": self.end})


DaysQuery = Annotated[Days, Query()]


def _page(request: Request, session: dict | None, template: str, context: dict, data, status: int = 200) -> Response:
    return render(
        request,
        f"teach/{template}",
        {"csrf": (session or {}).get("csrf", ""), "teacher_name": shown_teacher, **context},
        data=data,
        status=status,
    )


@router.get("/teach/classes")
async def class_list(request: Request, session: TeacherSession, store: StoreDep) -> Response:
    with store.engine.connect() as db:
        rows = roster.all_classes(db)
    data = [{**r, "created_at": r["created_at"].isoformat()} for r in rows]
    return _page(request, session, "classes.html", {"classes": rows}, data={"classes": data})


@router.post("/teach/classes")
async def create_class(
    session: TeacherSession, store: StoreDep, form: Annotated[ClassForm, Depends(teacher_form_of(ClassForm))]
) -> Response:
    code, name = form.code, form.name or None
    try:
        with store.engine.begin() as db:
            if roster.exists(db, code):
                raise Conflict(_("班级代码 “%(code)s” 已经有了，换一个。", code=code))
            roster.create(db, code, name, teacher_label(session))
    except IntegrityError:  # created at the same moment elsewhere
        raise Conflict(_("班级代码 “%(code)s” 已经有了，换一个。", code=code)) from None
    return RedirectResponse(f"/teach/classes/{code}", status_code=303)


@router.get("/teach/classes/{code}")
async def class_page(
    request: Request, code: str, session: TeacherSession, store: StoreDep, library: LibraryDep, query: DaysQuery
) -> Response:
    start, end = query.range()
    await run_in_threadpool(fold, store.engine)  # not on the event loop: it writes
    with store.engine.connect() as db:
        found = roster.one(db, code) if roster.CODE.match(code) else None
        if found is None:
            raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))
        code = found["code"]
        learners = roster.roster(db, Scope("", "", code, start, end), end_of_today(datetime.now(UTC)))
        snippets = roster.snippets_practised(db, code)
        work = assignments.board(db, code, library)
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
    return _page(request, session, "class.html", context, data=data)


@router.get("/teach/classes/{code}/attempts.csv")
async def class_export(code: str, _session: TeacherSession, store: StoreDep, query: DaysQuery) -> Response:
    start, end = query.range()
    with store.engine.connect() as db:
        stored = roster.stored_code(db, code) if roster.CODE.match(code) else None
        if stored is None:
            raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))
    return StreamingResponse(
        class_csv(store.engine, stored, start, end, query.snippet or None),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="class-{stored}.csv"'},
    )


@router.get("/join/{code}")
async def join_page(request: Request, code: str, store: StoreDep) -> Response:
    """Asks first: a link alone must not move a browser into a class (another site could send it)."""
    found = _class_or_404(store, code)
    return render(request, "join.html", {"cls": found}, data={"code": found["code"], "name": found["name"]})


@router.post("/join/{code}")
async def join(code: str, store: StoreDep, learner: LearnerDep) -> Response:
    found = _class_or_404(store, code)
    with store.engine.begin() as db:
        identity.set_class(db, learner, found["code"])
    return remember_learner(RedirectResponse(joined_url(found["code"]), status_code=303), learner)


def _class_or_404(store, code: str) -> dict:
    with store.engine.connect() as db:
        found = roster.one(db, code) if roster.CODE.match(code) else None
    if found is None:
        raise NotFound(_("没有班级代码 “%(code)s”。请向老师确认。", code=code[:32]))
    return found
