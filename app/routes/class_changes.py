"""Correcting a class: archive and restore, delete, remove a learner (CSRF forms, each destructive
one confirmed first), and the same with renaming as JSON API routes (Bearer token)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import Unsupported, UserError
from app.web.deps import TAUGHT, ActorDep, StoreDep, TeacherSession, api_teacher
from app.web.forms import content_type, limited_body, teacher_form_of

from ..classes import assignments as class_assignments
from ..classes import roster
from ..i18n import _
from ..teach import assignments as setting
from ..teach import audit, class_changes
from .assignments import BODY_BYTES, ConfirmForm
from .class_page import page

router = APIRouter()
api = APIRouter(prefix="/api", dependencies=[Depends(api_teacher)], tags=["teachers"])


class DeleteForm(ConfirmForm):
    """The class's code typed again."""


def _back(code: str, done: str) -> Response:
    return RedirectResponse(f"/teach/classes/{code}?done={done}", status_code=303)


@router.post("/teach/classes/{code}/archive", dependencies=[TAUGHT])
async def archive(
    code: str, store: StoreDep, who: ActorDep, form: Annotated[ConfirmForm, Depends(teacher_form_of(ConfirmForm))]
):
    form.confirmed(_("请勾选确认后再归档班级。"))
    with store.engine.begin() as db:
        row = class_changes.archive(db, code, True)
        audit.record(db, who, "archived", "class", row["code"])
    return _back(row["code"], "archived")


@router.post("/teach/classes/{code}/restore", dependencies=[TAUGHT])
async def restore(
    code: str, store: StoreDep, who: ActorDep, _form: Annotated[ConfirmForm, Depends(teacher_form_of(ConfirmForm))]
):
    with store.engine.begin() as db:
        row = class_changes.archive(db, code, False)
        audit.record(db, who, "restored", "class", row["code"])
    return _back(row["code"], "restored")


@router.get("/teach/classes/{code}/delete", dependencies=[TAUGHT])
async def delete_page(request: Request, code: str, session: TeacherSession, store: StoreDep) -> Response:
    with store.engine.connect() as db:
        row = class_changes.found(db, code)
        members = class_assignments.members(db, row["code"])
    data = {"code": row["code"], "members": len(members)}
    return page(request, session, "class_delete.html", {"cls": row, "members": members}, data=data)


@router.post("/teach/classes/{code}/delete", dependencies=[TAUGHT])
async def delete(
    code: str, store: StoreDep, who: ActorDep, form: Annotated[DeleteForm, Depends(teacher_form_of(DeleteForm))]
):
    with store.engine.begin() as db:
        unlinked = class_changes.delete(db, code, form.confirm)
        audit.record(db, who, "deleted", "class", form.confirm.strip() or code, f"{unlinked} learners unlinked")
    return RedirectResponse("/teach/classes?done=deleted", status_code=303)


@router.get("/teach/classes/{code}/learners/{short}/remove", dependencies=[TAUGHT])
async def remove_page(request: Request, code: str, short: str, session: TeacherSession, store: StoreDep) -> Response:
    with store.engine.connect() as db:
        row = class_changes.active(db, code)
        learner = class_changes.member(db, row["code"], short)
        who = (roster.names(db, [learner]).get(learner) or roster.short_id(learner)) if learner else None
    if learner is None:
        raise class_changes.not_a_member(short)
    context = {"cls": row, "short": short, "who": who}
    return page(request, session, "learner_remove.html", context, data={"code": row["code"], "learner": who})


@router.post("/teach/classes/{code}/learners/{short}/remove", dependencies=[TAUGHT])
async def remove(
    code: str,
    short: str,
    store: StoreDep,
    who: ActorDep,
    _form: Annotated[ConfirmForm, Depends(teacher_form_of(ConfirmForm))],
) -> Response:
    with store.engine.begin() as db:
        stored, label = class_changes.remove_learner(db, code, short)
        audit.record(db, who, "learner removed", "class", stored, label)
    return _back(stored, "removed")


def _class_json(row: dict) -> dict:
    archived = row["archived_at"]
    return {"code": row["code"], "name": row["name"], "archived_at": archived.isoformat() if archived else None}


@api.patch("/classes/{code}", summary="Rename a class")
async def rename_json(request: Request, code: str, store: StoreDep) -> dict:
    if content_type(request) != "application/json":
        raise Unsupported(_("请以 JSON（application/json）提交。"))
    fields = setting.json_fields(await limited_body(request, BODY_BYTES))
    if set(fields) != {"name"} or not isinstance(fields["name"], str | None):
        raise UserError(_('需要 {"name": "新名称"}（空字符串或 null 表示没有名称）。'))
    with store.engine.begin() as db:
        row = class_changes.rename(db, code, fields["name"] or "")
        audit.record(db, audit.API, "renamed", "class", row["code"], row["name"] or "")
    return _class_json(row)


@api.post("/classes/{code}/archive", summary="Archive a class: read only, nobody can join")
async def archive_json(code: str, store: StoreDep) -> dict:
    with store.engine.begin() as db:
        row = class_changes.archive(db, code, True)
        audit.record(db, audit.API, "archived", "class", row["code"])
    return _class_json(row)


@api.post("/classes/{code}/restore", summary="Restore an archived class")
async def restore_json(code: str, store: StoreDep) -> dict:
    with store.engine.begin() as db:
        row = class_changes.archive(db, code, False)
        audit.record(db, audit.API, "restored", "class", row["code"])
    return _class_json(row)


@api.delete("/classes/{code}", summary="Delete a class: its assignments go, its learners leave, attempts stay")
async def delete_json(code: str, store: StoreDep) -> dict:
    with store.engine.begin() as db:
        row = class_changes.found(db, code)
        unlinked = class_changes.delete(db, code, None)
        audit.record(db, audit.API, "deleted", "class", row["code"], f"{unlinked} learners unlinked")
    return {"deleted": row["code"], "learners_unlinked": unlinked}


@api.delete("/classes/{code}/learners/{learner}", summary="Remove a learner (by short label) from a class")
async def remove_json(code: str, learner: str, store: StoreDep) -> dict:
    with store.engine.begin() as db:
        stored, label = class_changes.remove_learner(db, code, learner)
        audit.record(db, audit.API, "learner removed", "class", stored, label)
    return {"class": stored, "removed": label}
