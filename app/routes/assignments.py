"""Assignments: the JSON API, each learner's status, and correcting one (its page and the API)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import ConfigDict

from app.errors import NotFound, Unsupported, UserError
from app.web.deps import TAUGHT, ActorDep, LibraryDep, StoreDep, TeacherSession, api_teacher
from app.web.errors import status_of
from app.web.forms import TeacherForm, content_type, limited_body, teacher_form_of
from app.web.templating import render, wants_json

from ..classes import assignments, roster
from ..i18n import _
from ..teach import assignments as setting
from ..teach import audit, class_changes
from . import assignment_form

router = APIRouter()
api = APIRouter(prefix="/api", dependencies=[Depends(api_teacher)], tags=["teachers"])
BODY_BYTES = 4096


def _class_or_404(db, code: str) -> None:
    if not roster.CODE.match(code) or not roster.exists(db, code):
        raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))


def board(db, code: str, library) -> dict:
    """Every assignment of a class with each member's status: what the page, the API and the CSV show."""
    sets = assignments.of_class(db, code)
    ids = assignments.members(db, code)
    found = assignments.progress(db, sets, ids)
    names = roster.names(db, ids)
    people = sorted(ids, key=lambda i: (names.get(i) or "~", roster.short_id(i)))
    return {
        "assignments": [
            {
                **a.as_json(),
                "title": _title(library, a.snippet_id),
                "learners": [
                    {"learner": roster.short_id(i), "name": names.get(i), **found[i, a.id].as_json()} for i in people
                ],
            }
            for a in sets
        ]
    }


class EditForm(TeacherForm):
    """An assignment's form; its fields are checked by the use case, as the JSON API's are."""

    model_config = ConfigDict(extra="allow")


class ConfirmForm(TeacherForm):
    """A destructive form's box, ticked to confirm."""

    confirm: str = ""

    def confirmed(self, message: str) -> None:
        if self.confirm != "yes":
            raise UserError(message)


def _title(library, snippet_id: str) -> str:
    snippet = library.get(snippet_id)
    return snippet.title if snippet else snippet_id


@api.post("/classes/{code}/assignments", status_code=201, summary="Assign a snippet to a class")
async def assign_json(request: Request, code: str, store: StoreDep, library: LibraryDep) -> JSONResponse:
    if content_type(request) != "application/json":
        raise Unsupported(_("请以 JSON（application/json）提交。"))
    fields = setting.json_fields(await limited_body(request, BODY_BYTES))
    with store.engine.begin() as db:
        made = setting.create(db, code, fields, library, audit.API)
        shown = setting.shown(db, made.class_code, made.id)
    return JSONResponse({**made.as_json(), "starts": shown["starts"]}, status_code=201)


@api.get("/classes/{code}/assignments", summary="A class's assignments with each learner's status")
async def list_json(code: str, store: StoreDep, library: LibraryDep) -> dict:
    with store.engine.connect() as db:
        _class_or_404(db, code)
        return board(db, code, library)


def learner_work(db, learner: str, library) -> list[dict]:
    """The learner's assignments (their class's) with progress and where to practise them."""
    from ..memory import identity

    code = identity.profile(db, learner)["class_code"]
    return [
        {**a.as_json(), "title": _title(library, a.snippet_id), "href": a.href, **p.as_json()}
        for a, p in assignments.for_learner(db, learner, code)
    ]


@router.get("/teach/classes/{code}/assignments/{assignment_id}/edit", dependencies=[TAUGHT])
async def edit_page(
    request: Request, code: str, assignment_id: str, session: TeacherSession, store: StoreDep, library: LibraryDep
) -> Response:
    with store.engine.connect() as db:
        cls = class_changes.active(db, code)
        row = setting.current(db, cls["code"], assignment_id)
    form = assignment_form.context(assignment_form.stored_values(row))
    return _edit_page(request, session, library, cls, row["id"], form)


def _edit_page(request: Request, session: dict, library, cls: dict, assignment_id: int, form: dict, status=200):
    context = {
        "csrf": session.get("csrf", ""),
        "cls": cls,
        "assignment_id": assignment_id,
        "title": _title(library, form["values"]["snippet"]),
        "choices": library.all(include_hidden=True),
        "form": form,
    }
    return render(request, "teach/assignment_edit.html", context, status=status, data=lambda: form["values"])


@router.post("/teach/classes/{code}/assignments/{assignment_id}/edit", dependencies=[TAUGHT])
async def edit(
    request: Request,
    code: str,
    assignment_id: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    who: ActorDep,
    form: Annotated[EditForm, Depends(teacher_form_of(EditForm))],
) -> Response:
    fields = {**(form.model_extra or {})}
    try:
        fields["target"] = setting.form_target(fields)
        with store.engine.begin() as db:
            changed = setting.change(db, code, assignment_id, fields, library)
            audit.record(db, who, "assignment edited", "class", changed["class"], assignment_id)
    except UserError as refused:
        if wants_json(request) or not refused.field:
            raise
        with store.engine.connect() as db:
            cls = class_changes.active(db, code)
            row = setting.current(db, cls["code"], assignment_id)
        typed = assignment_form.context(assignment_form.typed_values(fields), refused)
        return _edit_page(request, session, library, cls, row["id"], typed, status_of(refused))
    return RedirectResponse(f"/teach/classes/{changed['class']}?done=saved#assignments", status_code=303)


@router.post("/teach/classes/{code}/assignments/{assignment_id}/delete", dependencies=[TAUGHT])
async def delete(
    code: str,
    assignment_id: str,
    store: StoreDep,
    who: ActorDep,
    form: Annotated[ConfirmForm, Depends(teacher_form_of(ConfirmForm))],
) -> Response:
    form.confirmed(_("请勾选确认后再删除作业。"))
    with store.engine.begin() as db:
        cls = class_changes.active(db, code)
        setting.delete(db, cls["code"], assignment_id)
        audit.record(db, who, "assignment deleted", "class", cls["code"], assignment_id)
    return RedirectResponse(f"/teach/classes/{cls['code']}?done=unassigned#assignments", status_code=303)


@api.patch("/classes/{code}/assignments/{assignment_id}", summary="Change an assignment (the fields given)")
async def edit_json(request: Request, code: str, assignment_id: str, store: StoreDep, library: LibraryDep) -> dict:
    if content_type(request) != "application/json":
        raise Unsupported(_("请以 JSON（application/json）提交。"))
    fields = setting.json_fields(await limited_body(request, BODY_BYTES))
    with store.engine.begin() as db:
        changed = setting.change(db, code, assignment_id, fields, library)
        audit.record(db, audit.API, "assignment edited", "class", changed["class"], assignment_id)
    return changed


@api.delete("/classes/{code}/assignments/{assignment_id}", summary="Delete an assignment (attempts stay)")
async def delete_json(code: str, assignment_id: str, store: StoreDep) -> dict:
    with store.engine.begin() as db:
        cls = class_changes.found(db, code)
        setting.delete(db, code, assignment_id)
        audit.record(db, audit.API, "assignment deleted", "class", cls["code"], assignment_id)
    return {"deleted": int(assignment_id)}
