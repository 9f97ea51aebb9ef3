"""The teacher area: sign in, upload, validate, preview, publish, edit and remove snippets."""

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import NotFound, UserError
from app.teach import publishing
from app.teach.publishing import report_json
from app.web import deps
from app.web.forms import read_fields
from app.web.teacher_auth import SESSION_COOKIE
from app.web.templating import render, wants_json

from ..i18n import _
from ..teach.strength_pages import LEVELS, heatmap, state_names, stored
from ..web import client_address
from .uploads import read_upload

router = APIRouter(prefix="/teach")


def _page(request: Request, template: str, status: int = 200, **context) -> Response:
    session = deps.auth(request).session(request) or {}
    return render(
        request,
        f"teach/{template}",
        {"csrf": session.get("csrf", ""), **context},
        status=status,
        block="main" if template == "strength.html" else None,
        data=lambda: _page_json(request, context),
    )


def _page_json(request: Request, context: dict) -> dict:
    """What a teacher page shows, for JSON clients (the same figures as the page)."""
    data: dict = {}
    if "rows" in context:
        data["snippets"] = [publishing.summary(deps.catalog(request), s) for s, _status in context["rows"]]
    if context.get("snippet") is not None:
        data["snippet"] = publishing.summary(deps.catalog(request), context["snippet"])
    if "text" in context:
        data.update(id=context["snippet_id"], text=context["text"], editing=context["editing"])
    if context.get("report") is not None:
        data.update(saved=bool(context.get("just_saved")), **report_json(context["report"]))
    if context.get("error"):
        data["error"] = context["error"]
    if "analysis" in context:
        data["strength"] = context["analysis"]
    return data


@router.get("/login")
async def login_page(request: Request, token: str | None = None) -> Response:
    if token is not None:
        return _login(request, token)
    return _page(request, "login.html")


@router.post("/login")
async def login(request: Request) -> Response:
    fields = await read_fields(request, 4096)
    return _login(request, fields.get("token", ""), " ".join(fields.get("name", "").split()))


def _login(request: Request, token: str, name: str = "") -> Response:
    auth = deps.auth(request)
    client = client_address.of_request(request) or "?"
    if len(name) > 40 or not name.isprintable():
        raise UserError(_("名字最多 40 个字符。"))
    if not auth.token_matches(token.strip()):
        auth.refused(client)
        return _page(request, "login.html", status=401, error=_("令牌不正确。"))
    response = RedirectResponse("/teach", status_code=303)
    auth.start_session(response, secure=request.url.scheme == "https", name=name)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    await deps.teacher_form(request)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("")
async def dashboard(request: Request) -> Response:
    deps.teacher_session(request)
    snippets = deps.library(request).all(include_hidden=True)
    return _page(request, "home.html", rows=[(s, publishing.status_of(deps.catalog(request), s)) for s in snippets])


@router.get("/new")
async def new_form(request: Request) -> Response:
    deps.teacher_session(request)
    return _page(request, "edit.html", snippet_id="", text="", editing=False)


@router.post("/new")
async def create(request: Request) -> Response:
    upload = await read_upload(request)
    outcome = await publishing.submit(deps.teaching(request), upload.data, upload.snippet_id, editing=False)
    if outcome.saved is None:
        return _page(
            request,
            "edit.html",
            status=422,
            snippet_id=upload.snippet_id,
            text=upload.text,
            editing=False,
            report=outcome.report,
        )
    return _saved(request, outcome)


@router.get("/snippets/{snippet_id}")
async def detail(request: Request, snippet_id: str) -> Response:
    deps.teacher_session(request)
    snippet = publishing.existing(deps.teaching(request), snippet_id)
    just_saved = request.query_params.get("saved") == snippet.version  # sent here by a save (`_saved`)
    ms = request.query_params.get("ms", "")
    return _page(
        request,
        "snippet.html",
        snippet=snippet,
        status_name=publishing.status_of(deps.catalog(request), snippet),
        just_saved=just_saved,
        saved_ms=int(ms) if just_saved and ms.isdigit() and len(ms) < 7 else None,
    )


@router.get("/snippets/{snippet_id}/edit")
async def edit_form(request: Request, snippet_id: str) -> Response:
    deps.teacher_session(request)
    snippet = publishing.changeable(deps.teaching(request), snippet_id)
    return _page(request, "edit.html", snippet_id=snippet_id, text=snippet.source, editing=True)


@router.post("/snippets/{snippet_id}/edit")
async def edit(request: Request, snippet_id: str) -> Response:
    publishing.changeable(deps.teaching(request), snippet_id)
    upload = await read_upload(request, snippet_id)
    outcome = await publishing.submit(deps.teaching(request), upload.data, snippet_id, editing=True)
    if outcome.saved is None:
        return _page(
            request,
            "edit.html",
            status=422,
            snippet_id=snippet_id,
            text=upload.text,
            editing=True,
            report=outcome.report,
        )
    return _saved(request, outcome)


def _saved(request: Request, outcome) -> Response:
    """After a save, browsers are sent on to the snippet's page (post/redirect/get: reloading it
    resubmits nothing); it says what was saved and how long the reference run took."""
    snippet = outcome.saved
    if wants_json(request):
        return _page(
            request,
            "snippet.html",
            snippet=snippet,
            status_name=publishing.status_of(deps.catalog(request), snippet),
            report=outcome.report,
            just_saved=True,
        )
    verdict = outcome.report.verdict
    ms = f"&ms={verdict.seconds * 1000:.0f}" if verdict is not None else ""
    return RedirectResponse(f"/teach/snippets/{snippet.id}?saved={snippet.version}{ms}", status_code=303)


@router.post("/snippets/{snippet_id}/{action}")
async def change_state(request: Request, snippet_id: str, action: str) -> Response:
    fields = await deps.teacher_form(request)
    snippet = publishing.changeable(deps.teaching(request), snippet_id)
    if action in ("publish", "unpublish"):
        deps.catalog(request).set_published(snippet, action == "publish")
        return RedirectResponse(f"/teach/snippets/{snippet_id}", status_code=303)
    if action == "delete":
        if fields.get("confirm") != snippet_id:
            raise UserError(_("请输入片段 id “%(id)s” 以确认删除。", id=snippet_id))
        deps.catalog(request).delete(snippet_id)
        return RedirectResponse("/teach", status_code=303)
    if action == "strength":
        job_id = request.app.state.strength_jobs.start(
            snippet, deps.sandbox_or_503(request), deps.store(request).engine
        )
        return _strength(request, job_id)
    raise NotFound(_("页面不存在。"))


@router.get("/snippets/{snippet_id}/delete")
async def confirm_delete(request: Request, snippet_id: str) -> Response:
    deps.teacher_session(request)
    return _page(request, "delete.html", snippet=publishing.changeable(deps.teaching(request), snippet_id))


@router.get("/snippets/{snippet_id}/download")
async def download(request: Request, snippet_id: str) -> Response:
    deps.teacher_session(request)
    snippet = publishing.existing(deps.teaching(request), snippet_id)
    return Response(
        snippet.source.encode("utf-8"),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{snippet_id}.md"'},
    )


@router.get("/strength/{job_id}")
async def strength_progress(request: Request, job_id: str) -> Response:
    deps.teacher_session(request)
    return _strength(request, job_id)


@router.get("/snippets/{snippet_id}/strength")
async def stored_strength(request: Request, snippet_id: str) -> Response:
    """The current version's analysis, as far as it has come."""
    deps.teacher_session(request)
    snippet = publishing.existing(deps.teaching(request), snippet_id)
    job = request.app.state.strength_jobs.running(snippet.id, snippet.version)
    return _strength_page(
        request, snippet, job and request.app.state.strength_jobs.get(job), f"/teach/snippets/{snippet.id}/strength"
    )


def _strength(request: Request, job_id: str) -> Response:
    job = request.app.state.strength_jobs.get(job_id)
    if job is None:
        raise NotFound(_("这次检查强度的运行已经不存在，请重新开始。"))
    snippet = deps.library(request).get(job.snippet_id, job.version)
    if snippet is None:
        raise NotFound(_("没有找到片段 “%(id)s”。", id=job.snippet_id[:64]))
    return _strength_page(request, snippet, job, f"/teach/strength/{job_id}")


def _strength_page(request: Request, snippet, job, poll_url: str) -> Response:
    analysis = stored(deps.store(request).engine, snippet.id, snippet.version, job)
    report = analysis["report"]
    return _page(
        request,
        "strength.html",
        analysis=analysis,
        poll_url=poll_url,
        snippet_id=snippet.id,
        heatmap=heatmap(snippet.code, report) if report else None,
        state_names=state_names(),
        levels=LEVELS,
    )
