"""Assignments: the class page's form, the JSON API, and each learner's status."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import ConfigDict

from app.errors import NotFound, Unsupported
from app.web.deps import LibraryDep, StoreDep, TeacherSession, api_teacher
from app.web.forms import TeacherForm, content_type, limited_body, teacher_form_of
from app.web.teacher_auth import teacher_label

from ..classes import assignments, roster
from ..i18n import _
from ..teach import assignments as setting

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


def _title(library, snippet_id: str) -> str:
    snippet = library.get(snippet_id)
    return snippet.title if snippet else snippet_id


class AssignmentForm(TeacherForm):
    """The class page's form; its fields are checked by the use case, as the JSON API's are."""

    model_config = ConfigDict(extra="allow")


@router.post("/teach/classes/{code}/assignments")
async def assign(
    code: str,
    session: TeacherSession,
    store: StoreDep,
    library: LibraryDep,
    form: Annotated[AssignmentForm, Depends(teacher_form_of(AssignmentForm))],
) -> Response:
    fields = {**(form.model_extra or {})}
    fields["target"] = setting.form_target(fields)
    with store.engine.begin() as db:
        _class_or_404(db, code)
        setting.create(db, code, fields, library, teacher_label(session))
    return RedirectResponse(f"/teach/classes/{code}#assignments", status_code=303)


@api.post("/classes/{code}/assignments", status_code=201, summary="Assign a snippet to a class")
async def assign_json(request: Request, code: str, store: StoreDep, library: LibraryDep) -> JSONResponse:
    if content_type(request) != "application/json":
        raise Unsupported(_("请以 JSON（application/json）提交。"))
    fields = setting.json_fields(await limited_body(request, BODY_BYTES))
    with store.engine.begin() as db:
        _class_or_404(db, code)
        made = setting.create(db, code, fields, library, "API")
    return JSONResponse(made.as_json(), status_code=201)


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
        {**a.as_json(), "title": _title(library, a.snippet_id), "href": _href(a), **p.as_json()}
        for a, p in assignments.for_learner(db, learner, code)
    ]


def _href(a) -> str:
    if a.mode == "fixed":
        return f"/s/{a.snippet_id}"
    return f"/s/{a.snippet_id}/drill?rate={a.rate}" + ("" if a.unit == "token" else f"&unit={a.unit}")
