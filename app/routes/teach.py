"""The teacher area: sign in, upload, validate, preview, publish, edit and remove snippets."""

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, field_validator
from starlette.concurrency import run_in_threadpool

from app.errors import NotFound, UserError
from app.teach import accounts, audit, publishing
from app.teach.publishing import Teaching, report_json
from app.web import client_address
from app.web.deps import (
    ActorDep,
    AuthDep,
    ClientAddress,
    MaybeTeacher,
    SandboxDep,
    TeacherSession,
    TeachingDep,
    sandbox_or_503,
    teacher_account,
)
from app.web.forms import SMALL_FORM, TeacherForm, form_of, teacher_form_of
from app.web.teacher_auth import SESSION_COOKIE, TeacherAuth, shown_teacher, teacher_label
from app.web.templating import render, wants_json

from ..i18n import _
from ..snippets.hints import failure_text, reason_text
from ..teach import analysis_decisions
from ..teach.analysis_decisions import analysed_version
from ..teach.starter import STARTER
from ..teach.strength_pages import LEVELS, heatmap, state_names, stored
from . import audit_page, course_page
from .uploads import read_upload

router = APIRouter(prefix="/teach")
router.include_router(course_page.router)


class LoginForm(BaseModel):
    login: str = ""  # an account's login and password ...
    password: str = ""
    token: str = ""  # ... or the teachers' token (the first admin's way in)
    name: str = ""  # who signs in with the token, shown beside what they change

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        name = " ".join(name.split())
        if len(name) > 40 or not name.isprintable():
            raise UserError(_("名字最多 40 个字符。"))
        return name


class ChangeForm(TeacherForm):
    confirm: str = ""  # the snippet's id again, to delete it


class DecisionForm(TeacherForm):
    """A decision about an analysis: its kind (equivalent, position, line), where, and which version."""

    kind: str = ""
    index: str = ""
    replacement: str = ""
    line: str = ""
    v: str = ""


class SavedQuery(BaseModel):
    """Where a save sends the browser: which version was saved and how long its reference run took."""

    saved: str = ""
    ms: str = ""
    named: str = ""  # "title": the upload named no id, so its title gave one


def _page(
    request: Request, teaching: Teaching, session: dict | None, template: str, status: int = 200, **context
) -> Response:
    return render(
        request,
        f"teach/{template}",
        {"csrf": (session or {}).get("csrf", ""), **context},
        status=status,
        block="main" if template == "strength.html" else None,
        data=lambda: _page_json(teaching, context),
    )


def _page_json(teaching: Teaching, context: dict) -> dict:
    """What a teacher page shows, for JSON clients (the same figures as the page)."""
    data: dict = {}
    if "rows" in context:
        data["snippets"] = [publishing.summary(teaching.catalog, s) for s, _status in context["rows"]]
    if context.get("snippet") is not None:
        data["snippet"] = publishing.summary(teaching.catalog, context["snippet"])
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
async def login_page(
    request: Request,
    teaching: TeachingDep,
    teachers: AuthDep,
    client: ClientAddress,
    session: MaybeTeacher,
    token: Annotated[str | None, Query(description="the teachers' token: signs in at once")] = None,
) -> Response:
    if token is not None:
        return await _login(request, teaching, teachers, client, LoginForm(token=token))
    return _page(request, teaching, session, "login.html", token_first=_token_first(teaching))


def _token_first(teaching: Teaching) -> bool:
    """Until the first account exists, the token is the way in: the login page opens with it."""
    with teaching.engine.connect() as db:
        return not accounts.any_account(db)


@router.post("/login")
async def login(
    request: Request,
    teaching: TeachingDep,
    teachers: AuthDep,
    client: ClientAddress,
    form: Annotated[LoginForm, Depends(form_of(LoginForm, SMALL_FORM))],
) -> Response:
    return await _login(request, teaching, teachers, client, form)


async def _login(
    request: Request, teaching: Teaching, teachers: TeacherAuth, client: str | None, form: LoginForm
) -> Response:
    device, account = teachers.device(request), None
    if form.login:

        def check():
            with teaching.engine.connect() as db:
                return accounts.authenticated(db, form.login, form.password)

        account = await run_in_threadpool(teachers.tried, check, client or "?", device)
        if account is None:
            error = _("登录名或密码不正确。")
            return _page(request, teaching, None, "login.html", status=401, error=error, login=form.login)
    elif not teachers.checked(form.token.strip(), client or "?", device):
        return _page(request, teaching, None, "login.html", status=401, error=_("令牌不正确。"), token_first=True)
    response = RedirectResponse("/teach", status_code=303)
    secure = client_address.is_https(request)
    teachers.start_session(response, secure=secure, name=form.name, account=account)
    teachers.remember_device(response, secure=secure)
    return response


@router.post("/logout")
async def logout(_form: Annotated[TeacherForm, Depends(teacher_form_of(TeacherForm))]) -> Response:
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("")
async def dashboard(request: Request, session: TeacherSession, teaching: TeachingDep) -> Response:
    snippets = teaching.library.all(include_hidden=True)
    rows = [(s, publishing.status_of(teaching.catalog, s)) for s in snippets]
    return _page(request, teaching, session, "home.html", rows=rows)


@router.get("/new")
async def new_form(
    request: Request,
    session: TeacherSession,
    teaching: TeachingDep,
    start: Annotated[str, Query(description="`starter`: the form holds the filled-in example file")] = "",
) -> Response:
    text = STARTER if start == "starter" else ""
    return _page(request, teaching, session, "edit.html", snippet_id="", text=text, editing=False)


@router.post("/new")
async def create(request: Request, session: TeacherSession, teaching: TeachingDep, who: ActorDep) -> Response:
    upload = await read_upload(request, session)
    owner = session.get("tid") or None
    outcome = await publishing.submit(teaching, upload.data, upload.snippet_id, editing=False, owner=owner)
    audit.snippet_changed(teaching.engine, who, "uploaded", outcome.saved)
    if outcome.saved is None:
        return _page(
            request,
            teaching,
            session,
            "edit.html",
            status=422,
            snippet_id=upload.snippet_id,
            text=upload.text,
            editing=False,
            report=outcome.report,
        )
    return _saved(request, teaching, session, outcome)


@router.get("/snippets/{snippet_id}")
async def detail(
    request: Request,
    snippet_id: str,
    session: TeacherSession,
    teaching: TeachingDep,
    query: Annotated[SavedQuery, Query()],
) -> Response:
    snippet = publishing.existing(teaching, snippet_id)
    just_saved = query.saved == snippet.version  # sent here by a save (`_saved`)
    with teaching.engine.connect() as db:
        changes = audit_page.changes_of(db, "snippet", snippet_id)
    return _page(
        request,
        teaching,
        session,
        "snippet.html",
        snippet=snippet,
        status_name=publishing.status_of(teaching.catalog, snippet),
        just_saved=just_saved,
        saved_ms=int(query.ms) if just_saved and query.ms.isdigit() and len(query.ms) < 7 else None,
        id_from_title=just_saved and query.named == "title",
        changes=changes,
    )


@router.get("/snippets/{snippet_id}/edit")
async def edit_form(request: Request, snippet_id: str, session: TeacherSession, teaching: TeachingDep) -> Response:
    snippet = publishing.changeable(teaching, snippet_id, teacher_account(session))
    return _page(request, teaching, session, "edit.html", snippet_id=snippet_id, text=snippet.source, editing=True)


@router.post("/snippets/{snippet_id}/edit")
async def edit(
    request: Request, snippet_id: str, session: TeacherSession, teaching: TeachingDep, who: ActorDep
) -> Response:
    publishing.changeable(teaching, snippet_id, teacher_account(session))
    upload = await read_upload(request, session, snippet_id)
    outcome = await publishing.submit(teaching, upload.data, snippet_id, editing=True)
    audit.snippet_changed(teaching.engine, who, "edited", outcome.saved)
    if outcome.saved is None:
        return _page(
            request,
            teaching,
            session,
            "edit.html",
            status=422,
            snippet_id=snippet_id,
            text=upload.text,
            editing=True,
            report=outcome.report,
        )
    return _saved(request, teaching, session, outcome)


def _saved(request: Request, teaching: Teaching, session: dict, outcome) -> Response:
    """After a save, browsers are sent on to the snippet's page (post/redirect/get: reloading it
    resubmits nothing); it says what was saved and how long the reference run took."""
    snippet = outcome.saved
    if wants_json(request):
        return _page(
            request,
            teaching,
            session,
            "snippet.html",
            snippet=snippet,
            status_name=publishing.status_of(teaching.catalog, snippet),
            report=outcome.report,
            just_saved=True,
        )
    verdict = outcome.report.verdict
    ms = f"&ms={verdict.seconds * 1000:.0f}" if verdict is not None else ""
    named = "&named=title" if outcome.id_from_title else ""
    return RedirectResponse(f"/teach/snippets/{snippet.id}?saved={snippet.version}{ms}{named}", status_code=303)


@router.post("/snippets/{snippet_id}/strength")
async def start_strength(
    request: Request,
    snippet_id: str,
    teaching: TeachingDep,
    session: TeacherSession,
    _form: Annotated[TeacherForm, Depends(teacher_form_of(TeacherForm))],
    sandbox: SandboxDep,
) -> Response:
    snippet = publishing.changeable(teaching, snippet_id, teacher_account(session))
    job_id = teaching.strength_jobs.start(snippet, sandbox_or_503(sandbox), teaching.engine)
    return _strength(request, teaching, session, job_id)


@router.post("/snippets/{snippet_id}/{action}")
async def change_state(
    snippet_id: str,
    action: str,
    teaching: TeachingDep,
    session: TeacherSession,
    who: ActorDep,
    form: Annotated[ChangeForm, Depends(teacher_form_of(ChangeForm))],
) -> Response:
    snippet = publishing.changeable(teaching, snippet_id, teacher_account(session))
    if action in ("publish", "unpublish"):
        teaching.catalog.set_published(snippet, action == "publish")
        audit.snippet_changed(teaching.engine, who, f"{action}ed", snippet)
        return RedirectResponse(f"/teach/snippets/{snippet_id}", status_code=303)
    if action == "delete":
        if form.confirm != snippet_id:
            raise UserError(_("请输入片段 id “%(id)s” 以确认删除。", id=snippet_id))
        publishing.delete(teaching, snippet_id)
        audit.snippet_changed(teaching.engine, who, "deleted", snippet)
        return RedirectResponse("/teach", status_code=303)
    raise NotFound(_("页面不存在。"))


@router.get("/snippets/{snippet_id}/delete")
async def confirm_delete(request: Request, snippet_id: str, session: TeacherSession, teaching: TeachingDep) -> Response:
    snippet = publishing.changeable(teaching, snippet_id, teacher_account(session))
    return _page(request, teaching, session, "delete.html", snippet=snippet)


@router.get("/snippets/{snippet_id}/download")
async def download(snippet_id: str, _session: TeacherSession, teaching: TeachingDep) -> Response:
    snippet = publishing.existing(teaching, snippet_id)
    return Response(
        snippet.source.encode("utf-8"),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{snippet_id}.md"'},
    )


@router.get("/strength/{job_id}")
async def strength_progress(request: Request, job_id: str, session: TeacherSession, teaching: TeachingDep) -> Response:
    return _strength(request, teaching, session, job_id)


@router.get("/snippets/{snippet_id}/strength")
async def stored_strength(
    request: Request, snippet_id: str, session: TeacherSession, teaching: TeachingDep
) -> Response:
    """The current version's analysis, as far as it has come."""
    snippet = publishing.existing(teaching, snippet_id)
    jobs = teaching.strength_jobs
    job = jobs.running(snippet.id, snippet.version)
    poll = f"/teach/snippets/{snippet.id}/strength"
    return _strength_page(request, teaching, session, snippet, job and jobs.get(job), poll)


def _strength(request: Request, teaching: Teaching, session: dict, job_id: str) -> Response:
    job = teaching.strength_jobs.get(job_id)
    if job is None:
        raise NotFound(_("这次检查强度的运行已经不存在，请重新开始。"))
    snippet = teaching.library.get(job.snippet_id, job.version)
    if snippet is None:
        raise NotFound(_("没有找到片段 “%(id)s”。", id=job.snippet_id[:64]))
    return _strength_page(request, teaching, session, snippet, job, f"/teach/strength/{job_id}")


def _strength_page(request: Request, teaching: Teaching, session: dict, snippet, job, poll_url: str) -> Response:
    analysis = stored(teaching.engine, snippet, job)
    report = analysis["report"]
    return _page(
        request,
        teaching,
        session,
        "strength.html",
        analysis=analysis,
        poll_url=poll_url,
        snippet_id=snippet.id,
        version=snippet.version,
        heatmap=heatmap(snippet.code, report) if report else None,
        state_names=state_names(),
        levels=LEVELS,
        reason_text=reason_text,
        failure_text=failure_text,
        teacher_name=shown_teacher,
    )


@router.post("/snippets/{snippet_id}/strength/decisions")
async def decide(
    snippet_id: str,
    teaching: TeachingDep,
    session: TeacherSession,
    form: Annotated[DecisionForm, Depends(teacher_form_of(DecisionForm))],
) -> Response:
    """Mark a survivor equivalent, or exclude a position or a line from strength."""
    publishing.owned(teaching, snippet_id, teacher_account(session))
    snippet = analysed_version(teaching, snippet_id, form.v)
    fields, who = form.model_dump(), teacher_label(session)
    await run_in_threadpool(analysis_decisions.decide, teaching.engine, teaching.library, snippet, fields, who)
    return RedirectResponse(f"/teach/snippets/{snippet_id}/strength", status_code=303)


@router.post("/snippets/{snippet_id}/strength/decisions/{decision_id}/withdraw")
async def withdraw_decision(
    snippet_id: str,
    decision_id: str,
    teaching: TeachingDep,
    session: TeacherSession,
    _form: Annotated[TeacherForm, Depends(teacher_form_of(TeacherForm))],
) -> Response:
    publishing.owned(teaching, snippet_id, teacher_account(session))
    who = teacher_label(session)
    await run_in_threadpool(analysis_decisions.withdraw, teaching.engine, snippet_id, decision_id, who)
    return RedirectResponse(f"/teach/snippets/{snippet_id}/strength", status_code=303)
