"""Request-scoped things as FastAPI dependencies: the app's singletons, the learner's anonymous id
and the teacher's session. Routes take them as parameters (`library: LibraryDep`), so a test can
replace any of them with `app.dependency_overrides[deps.library] = ...`.

They are `async def` though none awaits: FastAPI runs a plain `def` dependency in a worker thread,
which cost a submission more CPU than all its grading (measured then; bench/RESULTS.md's git history)."""

import hmac
import inspect
from typing import Annotated

from fastapi import Depends, Request, Response

from app.db.store import Store
from app.errors import Busy, Forbidden, NotFound, Unauthorized, UserError
from app.i18n import _
from app.learn.grading import Services
from app.memory.history import KnownLearners
from app.memory.identity import LEARNER_COOKIE, Identity, Learner
from app.settings import Settings
from app.snippets.library import SnippetLibrary
from app.snippets.model import Snippet
from app.teach import accounts, audit, class_changes
from app.teach.catalog import Catalog
from app.teach.publishing import Teaching
from app.teach.strength_jobs import StrengthJobs
from app.web import client_address
from app.web.teacher_auth import TeacherAuth, teacher_label


def built(cls):
    """A dependency that makes `cls` from its parameters' dependencies (a dataclass of them):
    `Annotated[cls, Depends(built(cls))]`. `Depends()` on the class itself would run it in a
    worker thread."""

    async def build(**values):
        return cls(**values)

    build.__signature__ = inspect.signature(cls)
    return build


async def settings(request: Request) -> Settings:
    return request.app.state.settings


async def library(request: Request) -> SnippetLibrary:
    return request.app.state.library


async def store(request: Request) -> Store:
    return request.app.state.store


async def catalog(request: Request) -> Catalog:
    return request.app.state.catalog


async def auth(request: Request) -> TeacherAuth:
    return request.app.state.auth


async def identity(request: Request) -> Identity:
    return request.app.state.identity


async def strength_jobs(request: Request) -> StrengthJobs:
    return request.app.state.strength_jobs


async def known_learners(request: Request) -> KnownLearners:
    return request.app.state.known_learners


async def sandbox(request: Request):
    """The running sandbox, None where execution is off."""
    return request.app.state.sandbox


SettingsDep = Annotated[Settings, Depends(settings)]
LibraryDep = Annotated[SnippetLibrary, Depends(library)]
StoreDep = Annotated[Store, Depends(store)]
CatalogDep = Annotated[Catalog, Depends(catalog)]
AuthDep = Annotated[TeacherAuth, Depends(auth)]
IdentityDep = Annotated[Identity, Depends(identity)]
StrengthJobsDep = Annotated[StrengthJobs, Depends(strength_jobs)]
KnownLearnersDep = Annotated[KnownLearners, Depends(known_learners)]
SandboxDep = Annotated[object | None, Depends(sandbox)]


def sandbox_or_503(running):
    """The running sandbox, for work that cannot be done without executing code."""
    if running is None:
        raise Busy(_("这台服务器关闭了代码运行，无法检查强度。"))
    return running


async def client(request: Request) -> str | None:
    """The client's address (from the socket, or a trusted proxy's header)."""
    return client_address.of_request(request)


ClientAddress = Annotated[str | None, Depends(client)]


async def optional_session(request: Request, teachers: AuthDep, attempts: StoreDep) -> dict | None:
    """The signed-in teacher's session, None without one (pages that anyone may see). An account's
    session holds while the account is enabled and signed at its epoch: disabling it ends it."""
    session = teachers.session(request)
    if session and session.get("tid"):
        with attempts.engine.connect() as db:
            account = accounts.current(db, session["tid"], session.get("ep", -1))
        if account is None:
            return None
        session = {**session, "name": account.name, "role": account.role}
    request.state.teacher = session  # the teacher pages' menu shows admins their accounts page
    return session


async def teacher_session(session: Annotated[dict | None, Depends(optional_session)]) -> dict:
    """The signed-in teacher's session, or a 401 that sends them to the login page."""
    if session is None:
        raise Unauthorized(_("请先以教师身份登录。"))
    return session


MaybeTeacher = Annotated[dict | None, Depends(optional_session)]
TeacherSession = Annotated[dict, Depends(teacher_session)]


async def admin_session(session: TeacherSession) -> dict:
    """An admin's session (the teachers' token signs one in), or a 403."""
    if session.get("role", "admin") != "admin":
        raise Forbidden(_("只有管理员可以这样做。"))
    return session


AdminSession = Annotated[dict, Depends(admin_session)]


async def actor(session: TeacherSession) -> audit.Actor:
    """Who a signed-in teacher's action is recorded as."""
    return audit.Actor(teacher_label(session), session.get("tid") or None)


ActorDep = Annotated[audit.Actor, Depends(actor)]


def teacher_account(session: dict) -> int | None:
    """The account whose own classes a session sees; None for an admin, who sees every class."""
    return None if session.get("role", "admin") == "admin" else session.get("tid")


async def taught_class(code: str, session: TeacherSession, attempts: StoreDep) -> str:
    """The class in the path, when this teacher teaches it (a 404 as for no class otherwise:
    another teacher's class is not even named)."""
    with attempts.engine.connect() as db:
        if not class_changes.may_teach(db, code, teacher_account(session)):
            raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))
    return code


TAUGHT = Depends(taught_class)  # on every teacher route with a class in its path


def check_csrf(session: dict, given: str) -> None:
    """A teacher's state-changing form carries its session's CSRF token."""
    given_bytes = str(given).encode("utf-8", "surrogatepass")  # bytes: any text compares
    if not hmac.compare_digest(given_bytes, session["csrf"].encode()):
        raise Forbidden(_("表单已失效（CSRF 校验失败），请刷新页面后重试。"))


async def api_teacher(request: Request, teachers: AuthDep, address: ClientAddress) -> None:
    if not teachers.bearer_ok(request, address or "?"):
        raise Unauthorized(_("需要教师令牌：Authorization: Bearer <token>。"))


async def is_teacher(request: Request, teachers: AuthDep, attempts: StoreDep) -> bool:
    """A signed-in teacher's browser, or a client sending the teachers' token as a Bearer."""
    if teachers.bearer_ok(request, client_address.of_request(request) or "?"):
        return True
    try:
        return await optional_session(request, teachers, attempts) is not None
    except UserError:
        return False


async def snippet_or_404(
    request: Request, snippet_id: str, snippets: LibraryDep, teachers: AuthDep, attempts: StoreDep
) -> Snippet:
    """A published snippet; drafts too for a signed-in teacher (that is the preview)."""
    snippet = snippets.get(snippet_id)
    if snippet is None or not (snippets.is_visible(snippet_id) or await is_teacher(request, teachers, attempts)):
        raise NotFound(_("没有找到片段 “%(id)s”。", id=snippet_id[:64]))
    return snippet


SnippetDep = Annotated[Snippet, Depends(snippet_or_404)]


async def learner_id(request: Request, learners: IdentityDep) -> Learner:
    """The learner's id from their signed cookie; a new one (the same for this request) otherwise."""
    learner = learners.learner_from(request.cookies.get(LEARNER_COOKIE))
    if learner is None:
        learner = getattr(request.state, "new_learner", None) or learners.new_id()
        request.state.new_learner = learner
    return Learner(learner, learners.set_cookie_header(learner))


LearnerDep = Annotated[Learner, Depends(learner_id)]


async def is_new_learner(request: Request, learner: LearnerDep) -> bool:
    """Whether the learner's id was made for this request (no valid cookie came with it)."""
    return getattr(request.state, "new_learner", None) == learner


NewLearner = Annotated[bool, Depends(is_new_learner)]


def remember_learner(response: Response, learner: Learner) -> Response:
    # What `set_cookie` writes, without building a SimpleCookie per submission.
    response.raw_headers.append((b"set-cookie", learner.cookie))
    return response


async def grading_services(
    attempts: StoreDep, running: SandboxDep, jobs: StrengthJobsDep, known: KnownLearnersDep, config: SettingsDep
) -> Services:
    """What grading a submission uses."""
    return Services(attempts, running, jobs, known, config.max_answer_chars)


async def teaching(
    snippets: LibraryDep,
    courses: CatalogDep,
    running: SandboxDep,
    jobs: StrengthJobsDep,
    attempts: StoreDep,
    config: SettingsDep,
) -> Teaching:
    """What publishing snippets uses."""
    return Teaching(snippets, courses, running, jobs, attempts.engine, config.package_names)


GradingDep = Annotated[Services, Depends(grading_services)]
TeachingDep = Annotated[Teaching, Depends(teaching)]
