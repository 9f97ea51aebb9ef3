"""The teacher operations as JSON, for scripting a course from a repository (bearer token)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.errors import Unsupported
from app.teach import publishing
from app.teach.publishing import Outcome, report_json
from app.web.deps import SandboxDep, TeachingDep, api_teacher, sandbox_or_503
from app.web.forms import SMALL_FORM, content_type, form_of, limited_body

from ..i18n import _
from ..snippets.files import MAX_BYTES
from ..teach import analysis_decisions, audit
from ..teach.analysis_decisions import analysed_version
from ..teach.strength_pages import stored
from .uploads import too_large_message

router = APIRouter(prefix="/api", dependencies=[Depends(api_teacher)], tags=["teachers"])


def _outcome(teaching, outcome: Outcome, created: bool) -> JSONResponse:
    body = {"saved": outcome.saved is not None, **report_json(outcome.report)}
    if outcome.saved:
        body["snippet"] = publishing.summary(teaching.catalog, outcome.saved)
        return JSONResponse(body, status_code=201 if created else 200)
    return JSONResponse(body, status_code=422)


async def _body(request: Request) -> bytes:
    if content_type(request) not in ("", "text/markdown", "text/plain", "application/octet-stream"):
        raise Unsupported(_("请以 text/markdown 上传片段文件本身。"))
    # One byte over the file limit is enough to tell the file is too large.
    return await limited_body(request, MAX_BYTES + 1, too_large_message())


@router.get("/snippets", summary="List every snippet with its status")
async def list_snippets(teaching: TeachingDep) -> list[dict]:
    return [publishing.summary(teaching.catalog, s) for s in teaching.library.all(include_hidden=True)]


@router.get("/snippets/{snippet_id}", summary="One snippet's metadata")
async def get_snippet(snippet_id: str, teaching: TeachingDep) -> dict:
    return publishing.summary(teaching.catalog, publishing.existing(teaching, snippet_id))


@router.get("/snippets/{snippet_id}/file", summary="Download the file, byte for byte as uploaded")
async def get_file(snippet_id: str, teaching: TeachingDep) -> Response:
    return Response(publishing.existing(teaching, snippet_id).source.encode("utf-8"), media_type="text/markdown")


@router.put(
    "/snippets/{snippet_id}",
    summary="Create or edit (validated; an edit makes a new version)",
    openapi_extra={"requestBody": {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
async def put_snippet(request: Request, snippet_id: str, teaching: TeachingDep) -> JSONResponse:
    data = await _body(request)
    exists = teaching.library.get(snippet_id) is not None
    if exists:
        publishing.changeable(teaching, snippet_id)
    outcome = await publishing.submit(teaching, data, snippet_id, editing=exists)
    audit.snippet_changed(teaching.engine, audit.API, "edited" if exists else "uploaded", outcome.saved)
    return _outcome(teaching, outcome, created=not exists)


@router.post("/snippets/{snippet_id}/publish", summary="Show to learners")
async def publish(snippet_id: str, teaching: TeachingDep) -> dict:
    snippet = publishing.changeable(teaching, snippet_id)
    teaching.catalog.set_published(snippet, True)
    audit.snippet_changed(teaching.engine, audit.API, "published", snippet)
    return publishing.summary(teaching.catalog, snippet)


@router.post("/snippets/{snippet_id}/unpublish", summary="Hide from learners")
async def unpublish(snippet_id: str, teaching: TeachingDep) -> dict:
    snippet = publishing.changeable(teaching, snippet_id)
    teaching.catalog.set_published(snippet, False)
    audit.snippet_changed(teaching.engine, audit.API, "unpublished", snippet)
    return publishing.summary(teaching.catalog, snippet)


@router.delete("/snippets/{snippet_id}", summary="Delete (past attempts keep their version)")
async def delete(snippet_id: str, teaching: TeachingDep) -> dict:
    snippet = publishing.changeable(teaching, snippet_id)
    publishing.delete(teaching, snippet_id)
    audit.snippet_changed(teaching.engine, audit.API, "deleted", snippet)
    return {"deleted": snippet_id}


@router.post(
    "/snippets/{snippet_id}/strength",
    status_code=202,
    summary="Start the current version's check-strength analysis in the background",
)
async def strength(snippet_id: str, teaching: TeachingDep, sandbox: SandboxDep) -> dict:
    snippet = publishing.existing(teaching, snippet_id)
    jobs = teaching.strength_jobs
    job_id = jobs.start(snippet, sandbox_or_503(sandbox), teaching.engine)
    return {"version": snippet.version, **stored(teaching.engine, snippet, jobs.get(job_id))}


@router.get(
    "/snippets/{snippet_id}/strength",
    summary="Check strength of a version: progress, then every position (caught, weak, blind, untested)",
)
async def strength_report(
    snippet_id: str,
    teaching: TeachingDep,
    v: Annotated[str | None, Query(description="a version (the current one when left out)")] = None,
) -> dict:
    snippet = analysed_version(teaching, snippet_id, v)
    jobs = teaching.strength_jobs
    job_id = jobs.running(snippet.id, snippet.version)
    return {"version": snippet.version, **stored(teaching.engine, snippet, jobs.get(job_id) if job_id else None)}


class Decision(BaseModel):
    """What a teacher decides about a version's analysis: `kind` equivalent (with `index` and
    `replacement`), position (`index`) or line (`line`, in the drill code); `v` the version."""

    kind: str = ""
    index: str = ""
    replacement: str = ""
    line: str = ""
    v: str = ""


@router.post(
    "/snippets/{snippet_id}/strength/decisions",
    status_code=201,
    summary="Decide what the check cannot tell: a survivor is equivalent, a position or line is excluded",
)
async def decide(
    snippet_id: str, teaching: TeachingDep, decision: Annotated[Decision, Depends(form_of(Decision, SMALL_FORM))]
) -> dict:
    snippet = analysed_version(teaching, snippet_id, decision.v)
    fields = decision.model_dump()
    return await run_in_threadpool(analysis_decisions.decide, teaching.engine, teaching.library, snippet, fields, "API")


@router.delete("/snippets/{snippet_id}/strength/decisions/{decision_id}", summary="Withdraw a decision")
async def withdraw_decision(snippet_id: str, decision_id: str, teaching: TeachingDep) -> dict:
    await run_in_threadpool(analysis_decisions.withdraw, teaching.engine, snippet_id, decision_id, "API")
    return {"withdrawn": decision_id}
