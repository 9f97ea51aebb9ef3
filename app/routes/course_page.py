"""Importing a course from the teacher pages: choose a zip or tar, see what the import would do
to every file and to the home page, then confirm.

The preview page carries the archive it previewed (base64, in the confirm form) and the preview's
fingerprint, so the confirm imports exactly the previewed bytes whatever happens to the file on the
teacher's disk meanwhile, and nothing is kept on the server between the two steps (any worker can
answer the confirm). The confirm validates everything again and saves only if the fingerprint still
matches: another import or edit in between gets a new preview, not a surprise.
"""

import base64
import binascii
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field, field_validator
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from app.errors import Forbidden, Malformed, UserError
from app.web.deps import (
    ActorDep,
    CatalogDep,
    SandboxDep,
    SettingsDep,
    StoreDep,
    TeacherSession,
    check_csrf,
    teacher_account,
)
from app.web.forms import limited_body, read_fields, validated
from app.web.templating import render, wants_json

from ..i18n import _
from ..snippets.course import MAX_FILES, ArchiveRefused
from ..teach import audit
from ..teach.course_import import ImportReport, import_course
from .course_api import FINGERPRINT, MAX_ARCHIVE_BYTES, archive_files, status_of, too_large_message

router = APIRouter()  # under teach.py's /teach
FORM_ROOM = 64 << 10  # the form's other fields around the archive
CONFIRM_LIMIT = (MAX_ARCHIVE_BYTES * 4) // 3 + FORM_ROOM  # the archive as base64, and the fields


class ImportChoices(BaseModel):
    """What the teacher chose beside the archive: publish the snippets, let `_index.md` change the home page."""

    publish: bool = False
    home: bool = False

    @field_validator("publish", "home", mode="before")
    @classmethod
    def _checked(cls, raw) -> bool:
        return str(raw) in ("1", "on", "true")  # an unticked checkbox sends nothing


class ConfirmForm(ImportChoices):
    archive: str = ""  # urlsafe base64 of the previewed archive
    fingerprint: str = ""

    @field_validator("fingerprint")
    @classmethod
    def _fingerprint(cls, raw: str) -> str:
        if not FINGERPRINT.fullmatch(raw):
            raise UserError(_("确认表单缺少预览的指纹：请重新选择文件并预览。"))
        return raw


class DoneQuery(BaseModel):
    """Where a saved import sends the browser: how many snippets it added, changed and left, and the home page."""

    new: int = Field(0, ge=0, le=MAX_FILES)
    changed: int = Field(0, ge=0, le=MAX_FILES)
    unchanged: int = Field(0, ge=0, le=MAX_FILES)
    home: str = ""


@router.get("/import")
async def import_page(request: Request, session: TeacherSession, query: Annotated[DoneQuery, Query()]) -> Response:
    done = query if query.home in ("applied", "kept", "none") else None
    return _page(request, session, done=done)


@router.post("/import")
async def preview(
    request: Request, session: TeacherSession, catalog: CatalogDep, sandbox: SandboxDep, settings: SettingsDep
) -> Response:
    data, choices = await _chosen(request, session)
    return await _run(request, session, catalog, sandbox, settings, data, choices, preview=True)


@router.post("/import/confirm")
async def confirm(
    request: Request,
    session: TeacherSession,
    catalog: CatalogDep,
    sandbox: SandboxDep,
    settings: SettingsDep,
    store: StoreDep,
    who: ActorDep,
) -> Response:
    fields = await read_fields(request, CONFIRM_LIMIT, too_large_message())
    check_csrf(session, fields.get("csrf", ""))
    form = validated(ConfirmForm, fields)
    try:
        data = base64.b64decode(form.archive.encode("ascii"), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise Malformed(_("确认表单里的压缩包读不出来：请重新选择文件并预览。")) from None

    def recorded(report: ImportReport) -> None:
        audit.course_imported(store.engine, who, report.changes or {})

    return await _run(
        request, session, catalog, sandbox, settings, data, form, expect=form.fingerprint, recorded=recorded
    )


async def _chosen(request: Request, session: dict) -> tuple[bytes, ImportChoices]:
    """The archive and the choices of the preview form (multipart), bounded before it is parsed."""
    request._body = await limited_body(request, MAX_ARCHIVE_BYTES + FORM_ROOM, too_large_message())
    try:
        form = await request.form(max_files=1, max_fields=10, max_part_size=FORM_ROOM)
    except HTTPException:
        raise Malformed(_("上传的表单无法解析，请重新选择压缩包。")) from None
    check_csrf(session, str(form.get("csrf", "")))
    file = form.get("archive")
    if not isinstance(file, UploadFile) or not file.filename:
        raise UserError(_("请选择一个 zip 或 tar 压缩包。"))
    data = await file.read(MAX_ARCHIVE_BYTES + 1)
    choices = validated(ImportChoices, {k: str(v) for k, v in form.items() if k in ("publish", "home")})
    return data, choices


async def _run(request, session, catalog, sandbox, settings, data: bytes, choices, recorded=None, **how) -> Response:
    if len(data) > MAX_ARCHIVE_BYTES:
        return _page(request, session, status=413, refused=[too_large_message()], choices=choices)
    try:
        files = await archive_files(data)
    except ArchiveRefused as err:
        return _page(request, session, status=422, refused=list(err.args[0]), choices=choices)
    teacher = teacher_account(session)
    if choices.home and teacher is not None:
        raise Forbidden(_("只有管理员能用 _index.md 更新主页。"))
    report = await import_course(
        files,
        catalog,
        sandbox=sandbox,
        packages=settings.package_names,
        publish=choices.publish,
        home=choices.home,
        teacher=teacher,
        **how,
    )
    if report.saved:
        if recorded is not None:
            recorded(report)
        return _saved(request, report)
    archive = base64.urlsafe_b64encode(data).decode("ascii")
    return _page(request, session, status=status_of(report), report=report, archive=archive, choices=choices)


def _saved(request: Request, report: ImportReport) -> Response:
    """Post/redirect/get: reloading the page after a saved import imports nothing again."""
    if wants_json(request):
        return render(request, "teach/import.html", {}, status=201, data=report.as_json())
    counts = {kind: list((report.changes or {}).values()).count(kind) for kind in ("new", "changed", "unchanged")}
    home = "none" if report.home is None else ("applied" if report.home.apply else "kept")
    query = "&".join(f"{kind}={n}" for kind, n in counts.items())
    return RedirectResponse(f"/teach/import?{query}&home={home}", status_code=303)


def _page(request: Request, session: dict, status: int = 200, **context) -> Response:
    report, refused = context.get("report"), context.get("refused")
    data = report.as_json() if report else {"saved": False, "error": refused} if refused else {}
    context.setdefault("choices", ImportChoices())
    return render(request, "teach/import.html", {"csrf": session.get("csrf", ""), **context}, status=status, data=data)
