"""Shared request dependencies: the app's singletons and the learner's anonymous id."""

import hmac

from fastapi import Request, Response

from app.db.store import Store
from app.errors import Busy, Forbidden, NotFound, Unauthorized, UserError
from app.i18n import _
from app.learn.grading import Services
from app.memory.identity import LEARNER_COOKIE, Learner
from app.settings import Settings
from app.snippets.library import SnippetLibrary
from app.snippets.model import Snippet
from app.teach.catalog import Catalog
from app.teach.publishing import Teaching
from app.web.forms import read_fields
from app.web.teacher_auth import TeacherAuth


def settings(request: Request) -> Settings:
    return request.app.state.settings


def library(request: Request) -> SnippetLibrary:
    return request.app.state.library


def store(request: Request) -> Store:
    return request.app.state.store


def snippet_or_404(request: Request, snippet_id: str) -> Snippet:
    """A published snippet; drafts too for a signed-in teacher (that is the preview)."""
    snippet = library(request).get(snippet_id)
    if snippet is None or not (library(request).is_visible(snippet_id) or is_teacher(request)):
        raise NotFound(_("没有找到片段 “%(id)s”。", id=snippet_id[:64]))
    return snippet


def auth(request: Request) -> TeacherAuth:
    return request.app.state.auth


def catalog(request: Request) -> Catalog:
    return request.app.state.catalog


def is_teacher(request: Request) -> bool:
    """A signed-in teacher's browser, or a client sending the teachers' token as a Bearer."""
    if auth(request).bearer_ok(request):
        return True
    try:
        return auth(request).session(request) is not None
    except UserError:
        return False


def teacher_session(request: Request) -> dict:
    """The signed-in teacher's session, or a 401 that sends them to the login page."""
    session = auth(request).session(request)
    if session is None:
        raise Unauthorized(_("请先以教师身份登录。"))
    return session


async def teacher_form(request: Request) -> dict[str, str]:
    """Fields of a teacher's state-changing form, after checking its CSRF token."""
    session = teacher_session(request)
    fields = await read_fields(request, settings(request).max_form_bytes)
    check_csrf(session, fields)
    return fields


def check_csrf(session: dict, fields) -> None:
    given = str(fields.get("csrf", "")).encode("utf-8", "surrogatepass")  # bytes: any text compares
    if not hmac.compare_digest(given, session["csrf"].encode()):
        raise Forbidden(_("表单已失效（CSRF 校验失败），请刷新页面后重试。"))


def sandbox_or_503(request: Request):
    """The running sandbox, for work that cannot be done without executing code."""
    if request.app.state.sandbox is None:
        raise Busy(_("这台服务器关闭了代码运行，无法检查强度。"))
    return request.app.state.sandbox


def api_teacher(request: Request) -> None:
    if not auth(request).bearer_ok(request):
        raise Unauthorized(_("需要教师令牌：Authorization: Bearer <token>。"))


def learner_id(request: Request) -> Learner:
    """The learner's id from their signed cookie; a new one (the same for this request) otherwise."""
    identity = request.app.state.identity
    learner = identity.learner_from(request.cookies.get(LEARNER_COOKIE))
    if learner is None:
        learner = getattr(request.state, "new_learner", None) or identity.new_id()
        request.state.new_learner = learner
    return Learner(learner, identity.set_cookie_header(learner))


def remember_learner(response: Response, learner: Learner) -> Response:
    # What `set_cookie` writes, without building a SimpleCookie per submission.
    response.raw_headers.append((b"set-cookie", learner.cookie))
    return response


def grading_services(request: Request) -> Services:
    """What grading a submission uses, from the app's state."""
    state = request.app.state
    return Services(
        store(request),
        state.sandbox,
        getattr(state, "strength_jobs", None),
        state.known_learners,
        settings(request).max_answer_chars,
    )


def teaching(request: Request) -> Teaching:
    """What publishing snippets uses, from the app's state."""
    state = request.app.state
    return Teaching(
        library(request),
        catalog(request),
        state.sandbox,
        state.strength_jobs,
        store(request).engine,
        settings(request).package_names,
    )
