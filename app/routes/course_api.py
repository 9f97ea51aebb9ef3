"""A course at once through the JSON API: `POST /api/import` with a zip or tar of `.md` files."""

import asyncio
import re
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator

from app.errors import Unsupported, UserError
from app.web.deps import CatalogDep, SandboxDep, SettingsDep, StoreDep, api_teacher
from app.web.forms import content_type, limited_body

from ..i18n import _
from ..snippets.course import ArchiveRefused, read_archive
from ..teach import audit
from ..teach.course_import import import_course

FINGERPRINT = re.compile(r"[0-9a-f]{32}")
router = APIRouter(prefix="/api", dependencies=[Depends(api_teacher)], tags=["teachers"])
MAX_ARCHIVE_BYTES = 8 << 20
ARCHIVE_TYPES = (
    "",
    "application/zip",
    "application/x-zip-compressed",
    "application/x-tar",
    "application/gzip",
    "application/x-gzip",
    "application/x-bzip2",
    "application/x-xz",
    "application/octet-stream",
)


class ImportQuery(BaseModel):
    publish: bool = Field(False, description="publish every snippet of the course once it is saved")
    home: bool = Field(False, description="let the course's _index.md change the home page (title, intro, sections)")
    preview: bool = Field(False, description="save nothing: say what the import would do, and its fingerprint")
    expect: str | None = Field(
        None, description="a preview's fingerprint: save only if the import still does exactly that (else 409)"
    )

    @field_validator("publish", "home", "preview", mode="before")
    @classmethod
    def _flag(cls, raw, info) -> bool:
        value = str(raw).lower()
        if value not in ("true", "false", "1", "0"):
            raise UserError(_("%(name)s 只能是 true 或 false。", name=info.field_name))
        return value in ("true", "1")

    @field_validator("expect")
    @classmethod
    def _fingerprint(cls, raw: str | None) -> str | None:
        if raw is not None and not FINGERPRINT.fullmatch(raw):
            raise UserError(_("expect 必须是预览给出的指纹（32 个十六进制字符）。"))
        return raw


@router.post(
    "/import",
    summary="Import a course: a zip or tar of .md files, all saved or none",
    openapi_extra={"requestBody": {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}},
)
async def import_archive(
    request: Request,
    catalog: CatalogDep,
    sandbox: SandboxDep,
    settings: SettingsDep,
    store: StoreDep,
    query: Annotated[ImportQuery, Query()],
) -> JSONResponse:
    if content_type(request) not in ARCHIVE_TYPES:
        raise Unsupported(_("请以 zip 或 tar 压缩包上传课程。"))
    data = await limited_body(request, MAX_ARCHIVE_BYTES, too_large_message())
    try:
        files = await archive_files(data)
    except ArchiveRefused as err:
        return JSONResponse({"saved": False, "error": list(err.args[0])}, status_code=422)
    report = await import_course(
        files,
        catalog,
        sandbox=sandbox,
        packages=settings.package_names,
        publish=query.publish,
        home=query.home,
        preview=query.preview,
        expect=query.expect,
    )
    if report.saved:
        audit.course_imported(store.engine, audit.API, report.changes or {})
    return JSONResponse(report.as_json(), status_code=status_of(report))


def too_large_message() -> str:
    return _("压缩包太大（上限 %(mb)s MB）。", mb=MAX_ARCHIVE_BYTES >> 20)


async def archive_files(data: bytes) -> dict[str, bytes]:
    """The archive's `.md` files, read within its bounds; decompressing is no work for the event loop."""
    return await asyncio.to_thread(read_archive, data)


def status_of(report) -> int:
    """Saved 201; a preview 200; a confirm whose preview is out of date 409; problems 422."""
    if report.saved:
        return 201
    if not report.ok:
        return 422
    return 409 if report.stale else 200
