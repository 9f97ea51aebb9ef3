"""Reading a teacher's upload: a file or pasted text, with the snippet id, CSRF-checked.

Read here rather than through FastAPI's `Form()`/`UploadFile`: a multipart body is bounded before
it is parsed (a chunked body declares no length), and the form may also come urlencoded (the
pasted text), both with the limit's message in the teacher's language.
"""

from dataclasses import dataclass
from pathlib import PurePath

from fastapi import Request
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from app.errors import Malformed
from app.web.deps import check_csrf
from app.web.forms import content_type, limited_body, read_fields

from ..i18n import _
from ..snippets.files import MAX_BYTES

BODY_LIMIT = MAX_BYTES * 4  # room for the form around the file; larger bodies are refused unread


@dataclass(frozen=True)
class Upload:
    snippet_id: str
    data: bytes | str
    text: str  # what the form shows again if the upload is rejected


async def read_upload(request: Request, session: dict, snippet_id: str | None = None) -> Upload:
    if content_type(request) == "multipart/form-data":
        # Read (bounded) before parsing: a chunked body declares no length.
        request._body = await limited_body(request, BODY_LIMIT, too_large_message())
        try:
            form = await request.form(max_files=1, max_fields=20, max_part_size=BODY_LIMIT)
        except HTTPException:
            raise Malformed(_("上传的表单无法解析，请重新选择文件上传。")) from None
        fields = {k: v for k, v in form.items()}
    else:
        fields = await read_fields(request, BODY_LIMIT, too_large_message())
    check_csrf(session, fields.get("csrf", ""))
    file = fields.get("file")
    if isinstance(file, UploadFile) and file.filename:
        data = await file.read(BODY_LIMIT + 1)
        name = snippet_id or str(fields.get("id") or "").strip() or PurePath(file.filename).stem
        return Upload(name, data, _shown(data))
    text = str(fields.get("text", ""))
    return Upload(snippet_id or str(fields.get("id", "")).strip(), text, text)


def too_large_message() -> str:
    return _("上传的内容太大：片段文件最多 %(kb)s KB。", kb=MAX_BYTES // 1024)


def _shown(data: bytes) -> str:
    try:
        return data.decode("utf-8") if len(data) <= MAX_BYTES and b"\x00" not in data else ""
    except UnicodeDecodeError:
        return ""
