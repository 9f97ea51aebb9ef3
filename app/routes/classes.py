"""Classes: teachers create codes and see their learners; learners join with a code or a link."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse
from sqlalchemy.exc import IntegrityError

from app.errors import Conflict, NotFound, UserError
from app.web.deps import TAUGHT, ActorDep, LearnerDep, StoreDep, TeacherSession, remember_learner, teacher_account
from app.web.errors import status_of
from app.web.forms import TeacherForm, teacher_form_of
from app.web.teacher_auth import teacher_label
from app.web.templating import render, wants_json

from ..classes import roster
from ..classes.export import class_csv
from ..i18n import _
from ..memory import identity
from ..teach import audit
from ..teach import class_changes as class_rules
from . import assignments, class_changes, class_page, class_stats
from .class_page import DaysQuery, DoneQuery, page
from .me import joined_url

router = APIRouter()
router.include_router(class_stats.router)
router.include_router(class_stats.api)
router.include_router(class_page.router)
router.include_router(assignments.router)
router.include_router(assignments.api)
router.include_router(class_changes.router)
router.include_router(class_changes.api)


class ClassForm(TeacherForm):
    """A new class: its code (one is made when left empty) and an optional name, checked by the
    use case: a refused form is shown again with what was typed."""

    code: str = ""
    name: str = ""


@router.get("/teach/classes")
async def class_list(request: Request, session: TeacherSession, store: StoreDep, query: DoneQuery) -> Response:
    return _class_list(request, session, store, done=query.message())


def _class_list(
    request: Request, session: dict, store, typed: dict | None = None, refused=None, done: str = ""
) -> Response:
    with store.engine.connect() as db:
        rows = roster.all_classes(db, teacher_account(session))
    data = [{**r, "created_at": r["created_at"].isoformat(), "archived_at": _iso(r["archived_at"])} for r in rows]
    context = {
        "active": [r for r in rows if r["archived_at"] is None],
        "archived": [r for r in rows if r["archived_at"] is not None],
        "form": {
            "values": typed or {"code": "", "name": ""},
            "field": refused.field if refused else "",
            "error": refused.message if refused else "",
        },
        "name_max": roster.NAME_MAX,
        "done": done,
    }
    status = status_of(refused) if refused else 200
    return page(request, session, "classes.html", context, data={"classes": data}, status=status)


def _iso(at) -> str | None:
    return at.isoformat() if at else None


@router.post("/teach/classes")
async def create_class(
    request: Request,
    session: TeacherSession,
    store: StoreDep,
    who: ActorDep,
    form: Annotated[ClassForm, Depends(teacher_form_of(ClassForm))],
) -> Response:
    try:
        with store.engine.begin() as db:
            code = class_rules.create(db, form.code, form.name, teacher_label(session), session.get("tid") or None)
            audit.record(db, who, "created", "class", code, form.name)
    except IntegrityError:  # created at the same moment elsewhere
        refused = Conflict(_("班级代码 “%(code)s” 已经有了，换一个。", code=form.code.strip()), field="code")
        return _refused_class(request, session, store, form, refused)
    except UserError as refused:
        return _refused_class(request, session, store, form, refused)
    return RedirectResponse(f"/teach/classes/{code}", status_code=303)


def _refused_class(request: Request, session: dict, store, form: ClassForm, refused: UserError) -> Response:
    """Shown on the class list beside its field, with what was typed (JSON clients get the error)."""
    if wants_json(request) or not refused.field:
        raise refused
    typed = {"code": form.code[:64], "name": form.name[:120]}
    return _class_list(request, session, store, typed, refused)


@router.get("/teach/classes/{code}/attempts.csv", dependencies=[TAUGHT])
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
    found = _joinable(store, code)
    return render(request, "join.html", {"cls": found}, data={"code": found["code"], "name": found["name"]})


@router.post("/join/{code}")
async def join(code: str, store: StoreDep, learner: LearnerDep) -> Response:
    found = _joinable(store, code)
    with store.engine.begin() as db:
        identity.set_class(db, learner, found["code"])
    return remember_learner(RedirectResponse(joined_url(found["code"]), status_code=303), learner)


def _joinable(store, code: str) -> dict:
    """The class of a join link, unless it is archived (nobody joins one)."""
    found = _class_or_404(store, code)
    if found["archived_at"] is not None:
        raise Conflict(_("班级 “%(code)s” 已归档，不能再加入。", code=found["code"]))
    return found


def _class_or_404(store, code: str) -> dict:
    with store.engine.connect() as db:
        found = roster.one(db, code) if roster.CODE.match(code) else None
    if found is None:
        raise NotFound(_("没有班级代码 “%(code)s”。请向老师确认。", code=code[:32]))
    return found
