"""A course at once through the JSON API: `POST /api/import` with a zip or tar of `.md` files."""

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator

from app.errors import Unsupported, UserError
from app.web.deps import CatalogDep, SandboxDep, SettingsDep, api_teacher
from app.web.forms import content_type, limited_body

from ..i18n import _
from ..snippets.course import ArchiveRefused, read_archive
from ..teach.course_import import import_course

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

    @field_validator("publish", mode="before")
    @classmethod
    def _flag(cls, raw) -> bool:
        value = str(raw).lower()
        if value not in ("true", "false", "1", "0"):
            raise UserError(_("publish 只能是 true 或 false。"))
        return value in ("true", "1")


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
    query: Annotated[ImportQuery, Query()],
) -> JSONResponse:
    if content_type(request) not in ARCHIVE_TYPES:
        raise Unsupported(_("请以 zip 或 tar 压缩包上传课程。"))
    data = await limited_body(
        request, MAX_ARCHIVE_BYTES, _("压缩包太大（上限 %(mb)s MB）。", mb=MAX_ARCHIVE_BYTES >> 20)
    )
    try:
        files = await asyncio.to_thread(read_archive, data)  # decompressing is no work for the event loop
    except ArchiveRefused as err:
        return JSONResponse({"saved": False, "error": list(err.args[0])}, status_code=422)
    report = await import_course(
        files,
        catalog,
        sandbox=sandbox,
        packages=settings.package_names,
        publish=query.publish,
    )
    return JSONResponse(report.as_json(), status_code=201 if report.saved else 422)
