"""The teacher operations as JSON, for scripting a course from a repository (bearer token)."""

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from app.errors import Unsupported
from app.teach import publishing
from app.teach.publishing import Outcome, report_json
from app.web import deps
from app.web.forms import content_type, limited_body

from ..i18n import _
from ..snippets.files import MAX_BYTES
from ..teach.strength_pages import stored
from .uploads import too_large_message

router = APIRouter(prefix="/api", dependencies=[Depends(deps.api_teacher)], tags=["teachers"])


def _outcome(request: Request, outcome: Outcome, created: bool) -> JSONResponse:
    body = {"saved": outcome.saved is not None, **report_json(outcome.report)}
    if outcome.saved:
        body["snippet"] = publishing.summary(deps.catalog(request), outcome.saved)
        return JSONResponse(body, status_code=201 if created else 200)
    return JSONResponse(body, status_code=422)


async def _body(request: Request) -> bytes:
    if content_type(request) not in ("", "text/markdown", "text/plain", "application/octet-stream"):
        raise Unsupported(_("请以 text/markdown 上传片段文件本身。"))
    # One byte over the file limit is enough to tell the file is too large.
    return await limited_body(request, MAX_BYTES + 1, too_large_message())


@router.get("/snippets", summary="List every snippet with its status")
async def list_snippets(request: Request) -> list[dict]:
    return [publishing.summary(deps.catalog(request), s) for s in deps.library(request).all(include_hidden=True)]


@router.get("/snippets/{snippet_id}", summary="One snippet's metadata")
async def get_snippet(request: Request, snippet_id: str) -> dict:
    return publishing.summary(deps.catalog(request), publishing.existing(deps.teaching(request), snippet_id))


@router.get("/snippets/{snippet_id}/file", summary="Download the file, byte for byte as uploaded")
async def get_file(request: Request, snippet_id: str) -> Response:
    return Response(
        publishing.existing(deps.teaching(request), snippet_id).source.encode("utf-8"), media_type="text/markdown"
    )


@router.put(
    "/snippets/{snippet_id}",
    summary="Create or edit (validated; an edit makes a new version)",
    openapi_extra={"requestBody": {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
async def put_snippet(request: Request, snippet_id: str) -> JSONResponse:
    data = await _body(request)
    exists = deps.library(request).get(snippet_id) is not None
    if exists:
        publishing.changeable(deps.teaching(request), snippet_id)
    return _outcome(
        request, await publishing.submit(deps.teaching(request), data, snippet_id, editing=exists), created=not exists
    )


@router.post("/snippets/{snippet_id}/publish", summary="Show to learners")
async def publish(request: Request, snippet_id: str) -> dict:
    snippet = publishing.changeable(deps.teaching(request), snippet_id)
    deps.catalog(request).set_published(snippet, True)
    return publishing.summary(deps.catalog(request), snippet)


@router.post("/snippets/{snippet_id}/unpublish", summary="Hide from learners")
async def unpublish(request: Request, snippet_id: str) -> dict:
    snippet = publishing.changeable(deps.teaching(request), snippet_id)
    deps.catalog(request).set_published(snippet, False)
    return publishing.summary(deps.catalog(request), snippet)


@router.delete("/snippets/{snippet_id}", summary="Delete (past attempts keep their version)")
async def delete(request: Request, snippet_id: str) -> dict:
    publishing.changeable(deps.teaching(request), snippet_id)
    deps.catalog(request).delete(snippet_id)
    return {"deleted": snippet_id}


@router.post(
    "/snippets/{snippet_id}/strength",
    status_code=202,
    summary="Start the current version's check-strength analysis in the background",
)
async def strength(request: Request, snippet_id: str) -> dict:
    snippet = publishing.existing(deps.teaching(request), snippet_id)
    jobs = request.app.state.strength_jobs
    job_id = jobs.start(snippet, deps.sandbox_or_503(request), deps.store(request).engine)
    return {
        "version": snippet.version,
        **stored(deps.store(request).engine, snippet.id, snippet.version, jobs.get(job_id)),
    }


@router.get(
    "/snippets/{snippet_id}/strength",
    summary="Check strength of a version: progress, then every position (caught, weak, blind, untested)",
)
async def strength_report(request: Request, snippet_id: str, v: str | None = None) -> dict:
    snippet = publishing.existing(deps.teaching(request), snippet_id)
    version = v or snippet.version
    jobs = request.app.state.strength_jobs
    job_id = jobs.running(snippet.id, version)
    return {
        "version": version,
        **stored(deps.store(request).engine, snippet.id, version, jobs.get(job_id) if job_id else None),
    }
