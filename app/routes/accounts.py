"""Teachers' accounts: an admin invites, disables and enables them (/teach/accounts); an invited
teacher sets their password through a one-time link (/teach/welcome)."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.errors import Conflict, NotFound, UserError
from app.teach import accounts, audit
from app.teach.accounts import Teacher
from app.web import client_address
from app.web.deps import ActorDep, AdminSession, AuthDep, StoreDep
from app.web.forms import SMALL_FORM, TeacherForm, form_of, teacher_form_of
from app.web.teacher_auth import shown_teacher, teacher_label
from app.web.templating import render

from ..i18n import _

router = APIRouter(prefix="/teach")


class InviteForm(TeacherForm):
    login: str = ""
    name: str = ""
    role: str = "teacher"


class SignUpForm(BaseModel):
    code: str = ""
    password: str = ""
    again: str = ""


def _shown(teacher: Teacher) -> dict:
    return {
        "id": teacher.id,
        "login": teacher.login,
        "name": teacher.name,
        "role": teacher.role,
        "state": "disabled" if teacher.disabled else ("invited" if teacher.invited else "active"),
        "created_by": teacher.created_by,
        "created_at": teacher.created_at.isoformat(),
    }


def _accounts_page(request: Request, attempts, session: dict, status: int = 200, **context) -> Response:
    with attempts.engine.connect() as db:
        listed = accounts.listed(db)
    context = {
        "csrf": session["csrf"],
        "teachers": listed,
        "me": session.get("tid", 0),
        "teacher_name": shown_teacher,
        "invite_days": accounts.INVITE_DAYS,
        **context,
    }
    data = {"teachers": [_shown(t) for t in listed]}
    if context.get("link"):
        data["link"] = context["link"]
    if context.get("error"):
        data["error"] = context["error"]
    return render(request, "teach/accounts.html", context, status=status, data=lambda: data)


def _welcome(teacher: Teacher, code: str) -> dict:
    return {"csrf": "", "teacher": teacher, "code": code, "password_min": accounts.PASSWORD_MIN}


def _link(request: Request, code: str) -> str:
    return str(request.url_for("welcome_page").include_query_params(code=code))


@router.get("/accounts")
async def accounts_page(request: Request, session: AdminSession, attempts: StoreDep) -> Response:
    return _accounts_page(request, attempts, session)


@router.post("/accounts")
async def invite(
    request: Request,
    session: AdminSession,
    attempts: StoreDep,
    who: ActorDep,
    form: Annotated[InviteForm, Depends(teacher_form_of(InviteForm))],
) -> Response:
    """A new account: its one-time sign-up link is shown once, after the account is committed."""
    try:
        with attempts.engine.begin() as db:
            teacher, code = accounts.invite(
                db, form.login, form.name, form.role, teacher_label(session), datetime.now(UTC)
            )
            audit.record(db, who, "invited", "account", teacher.login, teacher.role)
    except UserError as refused:
        status = 409 if isinstance(refused, Conflict) else 422
        return _accounts_page(request, attempts, session, status=status, error=refused.message, form=form)
    return _accounts_page(request, attempts, session, status=201, link=_link(request, code), invited=teacher)


@router.post("/accounts/{teacher_id}/{change}")
async def change(
    request: Request,
    teacher_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    change: str,
    session: AdminSession,
    attempts: StoreDep,
    who: ActorDep,
    _form: Annotated[TeacherForm, Depends(teacher_form_of(TeacherForm))],
) -> Response:
    """Disable (its sessions end at once), enable, or send a new sign-up link."""
    if change not in ("disable", "enable", "reinvite"):
        raise NotFound(_("没有这个操作。"))
    if change == "disable" and teacher_id == session.get("tid"):
        raise Conflict(_("不能停用你自己正在使用的账号。"))
    now = datetime.now(UTC)
    with attempts.engine.begin() as db:
        if change == "reinvite":
            teacher, code = accounts.reinvite(db, teacher_id, now)
        else:
            teacher, code = accounts.set_disabled(db, teacher_id, change == "disable", now), None
        audit.record(
            db, who, {"disable": "disabled", "enable": "enabled"}.get(change, "new link"), "account", teacher.login
        )
    if code:
        return _accounts_page(request, attempts, session, link=_link(request, code), invited=teacher)
    return RedirectResponse("/teach/accounts", status_code=303)


@router.get("/welcome", name="welcome_page")
async def welcome_page(
    request: Request,
    attempts: StoreDep,
    code: Annotated[str, Query(max_length=200, description="the one-time sign-up link's code")] = "",
) -> Response:
    with attempts.engine.connect() as db:
        teacher = accounts.invited(db, code, datetime.now(UTC)) if code else None
    if teacher is None:
        raise NotFound(_("这个注册链接无效、已用过或已过期，请向管理员要一个新的。"))
    return render(request, "teach/welcome.html", _welcome(teacher, code))


@router.post("/welcome")
async def sign_up(
    request: Request,
    attempts: StoreDep,
    teachers: AuthDep,
    form: Annotated[SignUpForm, Depends(form_of(SignUpForm, SMALL_FORM))],
) -> Response:
    """Set the password; the link is used up and the teacher is signed in."""

    def done() -> Teacher:
        with attempts.engine.begin() as db:
            return accounts.sign_up(db, form.code, form.password, form.again, datetime.now(UTC))

    try:
        teacher = await run_in_threadpool(done)
    except NotFound:
        raise
    except UserError as refused:
        with attempts.engine.connect() as db:
            invited = accounts.invited(db, form.code, datetime.now(UTC))
        if invited is None:
            raise
        message = refused.message
        context = {**_welcome(invited, form.code), "error": message}
        return render(request, "teach/welcome.html", context, status=422, data=lambda: {"error": message})
    response = RedirectResponse("/teach", status_code=303)
    secure = client_address.is_https(request)
    teachers.start_session(response, secure=secure, account=teacher)
    teachers.remember_device(response, secure=secure)
    return response
