"""A class's page for its teacher, and the forms on it that are shown again when refused (a new
assignment, a new name), beside their field, with what was typed."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from starlette.concurrency import run_in_threadpool

from app.errors import UserError
from app.web.deps import TAUGHT, ActorDep, LibraryDep, StoreDep, TeacherSession
from app.web.errors import status_of
from app.web.forms import TeacherForm, teacher_form_of
from app.web.teacher_auth import shown_teacher
from app.web.templating import render, wants_json

from ..classes import assignments as class_assignments
from ..classes import roster
from ..classes.figures import Scope
from ..classes.fold import fold
from ..classes.query import day_or_none, days
from ..i18n import _
from ..memory.summary import end_of_today
from ..teach import accounts, audit, class_changes
from ..teach import assignments as setting
from . import assignment_form, audit_page
from .assignments import board

router = APIRouter()


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


class Done(BaseModel):
    """What a correction just did, said on the page it leads back to (after it was committed)."""

    done: str = Field("", description="the change just made, to confirm on the page")

    def message(self) -> str:
        return {
            "assigned": _("已布置作业。"),
            "saved": _("作业已修改；进度按学习者的作答重新计算。"),
            "unassigned": _("作业已删除；学习者的作答记录保留。"),
            "renamed": _("班级已改名。"),
            "archived": _("班级已归档：只能查看，学习者不能再加入；可以随时恢复。"),
            "restored": _("班级已恢复，学习者又可以加入。"),
            "removed": _("学习者已移出班级；他们的作答记录保留。"),
            "deleted": _("班级已删除；学习者的作答记录保留。"),
        }.get(self.done, "")


DoneQuery = Annotated[Done, Query()]


def page(request: Request, session: dict | None, template: str, context: dict, data, status: int = 200) -> Response:
    return render(
        request,
        f"teach/{template}",
        {"csrf": (session or {}).get("csrf", ""), "teacher_name": shown_teacher, **context},
        data=data,
        status=status,
    )


class RenameForm(TeacherForm):
    name: str = ""


class AssignmentForm(TeacherForm):
    """The class page's form; its fields are checked by the use case, as the JSON API's are."""

    model_config = ConfigDict(extra="allow")


@router.get("/teach/classes/{code}", dependencies=[TAUGHT])
async def class_page(
    request: Request,
    code: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    query: DaysQuery,
    done: DoneQuery,
) -> Response:
    return await class_view(request, session, store, library, code, query.range(), done=done.message())


async def class_view(
    request: Request,
    session: dict,
    store,
    library,
    code: str,
    dates: tuple[str | None, str | None] = (None, None),
    *,
    assigning: dict | None = None,
    renaming: dict | None = None,
    adding: dict | None = None,
    status: int = 200,
    done: str = "",
) -> Response:
    """The class page; `assigning` and `renaming` carry a refused form (what was typed, its error)."""
    start, end = dates
    await run_in_threadpool(fold, store.engine)  # not on the event loop: it writes
    with store.engine.connect() as db:
        found = class_changes.found(db, code)
        code = found["code"]
        learners = roster.roster(db, Scope("", "", code, start, end), end_of_today(datetime.now(UTC)))
        members = [roster.short_id(i) for i in class_assignments.members(db, code)]
        snippets = roster.snippets_practised(db, code)
        work = board(db, code, library)
        co_teachers = accounts.named(db, roster.co_teachers(db, code))
        changes = audit_page.changes_of(db, "class", code)
    titles = {s: (library.get(s).title if library.get(s) else s) for s in snippets}
    join = str(request.base_url).rstrip("/") + f"/join/{code}"
    context = {
        "cls": found,
        "learners": learners,
        "members": members,
        "snippets": titles,
        "join": join,
        "start": start,
        "end": end,
        "work": work["assignments"],
        "choices": library.all(include_hidden=True),
        "assignment_form": assigning or assignment_form.context(assignment_form.new_values()),
        "rename_form": renaming or {"values": {"name": found["name"] or ""}, "field": "", "error": ""},
        "teacher_form": adding or {"values": {"login": ""}, "field": "", "error": ""},
        "co_teachers": co_teachers,
        "changes": changes,
        "teacher_name": shown_teacher,
        "name_max": roster.NAME_MAX,
        "done": done,
    }
    data = {
        "code": code,
        "name": found["name"],
        "archived_at": found["archived_at"].isoformat() if found["archived_at"] else None,
        "join": join,
        "learners": learners,
        "snippets": snippets,
        "assignments": work["assignments"],
        "co_teachers": [{"id": t.id, "login": t.login, "name": t.name} for t in co_teachers],
    }
    return page(request, session, "class.html", context, data=data, status=status)


async def _shown_again(request: Request, session: dict, store, library, code: str, refused: UserError, **form):
    """A refused form of the class page, shown again beside its field (JSON clients get the error)."""
    if wants_json(request) or not refused.field:
        raise refused
    return await class_view(request, session, store, library, code, status=status_of(refused), **form)


class TeacherLoginForm(TeacherForm):
    login: str = ""


@router.post("/teach/classes/{code}/teachers", dependencies=[TAUGHT])
async def add_teacher(
    request: Request,
    code: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    who: ActorDep,
    form: Annotated[TeacherLoginForm, Depends(teacher_form_of(TeacherLoginForm))],
) -> Response:
    """Another account teaches the class too: it sees and changes it as its creator does."""
    try:
        with store.engine.begin() as db:
            row = class_changes.add_co_teacher(db, code, form.login)
            audit.record(db, who, "co-teacher added", "class", row["code"], form.login.strip().lower())
    except UserError as refused:
        adding = {"values": {"login": form.login[:60]}, "field": refused.field, "error": refused.message}
        return await _shown_again(request, session, store, library, code, refused, adding=adding)
    return RedirectResponse(f"/teach/classes/{row['code']}#teachers", status_code=303)


@router.post("/teach/classes/{code}/teachers/{teacher_id}/remove", dependencies=[TAUGHT])
async def remove_teacher(
    code: str,
    teacher_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    store: StoreDep,
    who: ActorDep,
    _form: Annotated[TeacherForm, Depends(teacher_form_of(TeacherForm))],
) -> Response:
    with store.engine.begin() as db:
        row = class_changes.remove_co_teacher(db, code, teacher_id)
        audit.record(db, who, "co-teacher removed", "class", row["code"], str(teacher_id))
    return RedirectResponse(f"/teach/classes/{row['code']}#teachers", status_code=303)


@router.post("/teach/classes/{code}/assignments", dependencies=[TAUGHT])
async def assign(
    request: Request,
    code: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    who: ActorDep,
    form: Annotated[AssignmentForm, Depends(teacher_form_of(AssignmentForm))],
) -> Response:
    fields = {**(form.model_extra or {})}
    try:
        fields["target"] = setting.form_target(fields)
        with store.engine.begin() as db:
            made = setting.create(db, code, fields, library, who)
    except UserError as refused:
        typed = assignment_form.context(assignment_form.typed_values(fields), refused)
        return await _shown_again(request, session, store, library, code, refused, assigning=typed)
    return RedirectResponse(f"/teach/classes/{made.class_code}?done=assigned#assignments", status_code=303)


@router.post("/teach/classes/{code}/rename", dependencies=[TAUGHT])
async def rename(
    request: Request,
    code: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    who: ActorDep,
    form: Annotated[RenameForm, Depends(teacher_form_of(RenameForm))],
) -> Response:
    try:
        with store.engine.begin() as db:
            renamed = class_changes.rename(db, code, form.name)
            audit.record(db, who, "renamed", "class", renamed["code"], renamed["name"] or "")
    except UserError as refused:
        typed = {"values": {"name": form.name[:120]}, "field": refused.field, "error": refused.message}
        return await _shown_again(request, session, store, library, code, refused, renaming=typed)
    return RedirectResponse(f"/teach/classes/{renamed['code']}?done=renamed", status_code=303)
