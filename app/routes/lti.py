"""codecloze as an LTI 1.3 tool: the login initiation and launch an LMS sends (/lti/login,
/lti/launch), the tool's public keys (/lti/jwks), the deep-linking picker (/lti/deep-link), and
where an admin registers platforms (/teach/lti and /api/lti/platforms)."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import Forbidden, Malformed, UserError
from app.lti import keys, launches, platforms
from app.lti.launches import Claims
from app.memory import identity
from app.teach import assignments as setting
from app.teach import audit
from app.web import client_address
from app.web.deps import (
    ActorDep,
    AdminSession,
    AuthDep,
    IdentityDep,
    LibraryDep,
    SettingsDep,
    StoreDep,
    TeacherSession,
    api_teacher,
    check_csrf,
)
from app.web.forms import TeacherForm, limited_body, read_fields, teacher_form_of
from app.web.templating import render

from ..i18n import _
from . import assignment_form


def _lti():
    """PyLTI1p3 on FastAPI (app/lti/adapters.py), loaded by the first LTI request."""
    from app.lti import adapters

    return adapters


router = APIRouter()
api = APIRouter(prefix="/api", dependencies=[Depends(api_teacher)], tags=["teachers"])
PlatformId = Annotated[int, Path(ge=1, le=2**31 - 1)]


def _base(request: Request) -> str:
    return client_address.public_base(request)


def tool_urls(request: Request) -> dict:
    """What an admin copies into the LMS's tool registration."""
    base = _base(request)
    return {
        "login": f"{base}/lti/login",
        "launch": f"{base}/lti/launch",
        "jwks": f"{base}/lti/jwks",
        "deep_link": f"{base}/lti/launch",
        "domain": request.url.netloc,
    }


async def _lti_request(request: Request, config):
    params = dict(request.query_params)
    if request.method == "POST":
        params.update(await read_fields(request, config.max_form_bytes))
    return _lti().LtiRequest(params, dict(request.cookies), client_address.is_https(request))


def _refused(why: str) -> Forbidden:
    return Forbidden(_("LTI 启动被拒绝：%(why)s", why=why[:200]))


@router.get("/lti/jwks")
async def jwks(store: StoreDep) -> Response:
    def read():
        with store.engine.connect() as db:
            private = keys.stored(db)
        return keys.jwks(private) if private else {"keys": []}

    return JSONResponse(await run_in_threadpool(read), headers={"Cache-Control": "public, max-age=300"})


@router.api_route("/lti/login", methods=["GET", "POST"], include_in_schema=False)
async def login(request: Request, store: StoreDep, config: SettingsDep) -> Response:
    """The LMS's third-party initiated login: answered with the redirect to its authorization
    endpoint, after a check (inside the LMS's iframe) that this browser keeps cookies; where it
    does not, the page offers to open the activity in a window of its own."""
    adapters, lti_request = _lti(), await _lti_request(request, config)
    launch_url = f"{_base(request)}/lti/launch"

    def redirect() -> Response:
        with store.engine.connect() as db:
            conf = adapters.tool_conf(db)
        login = adapters.Login(lti_request, conf, **adapters.services(lti_request, store.engine))
        login.enable_check_cookies(
            main_msg=_("你的浏览器不允许在 LMS 的框架里保存 Cookie。"),
            click_msg=_("在新窗口中打开这个练习。"),
            loading_msg=_("正在打开……"),
        )
        return login.redirect(launch_url)

    try:
        return await run_in_threadpool(redirect)
    except (adapters.OIDCException, adapters.LtiException) as err:
        raise _refused(str(err)) from None


@router.post("/lti/launch")
async def launch(
    request: Request, store: StoreDep, config: SettingsDep, teachers: AuthDep, ids: IdentityDep
) -> Response:
    """A launch: PyLTI1p3 checks the state (this browser's, once), the id_token's signature,
    issuer, audience, expiry, nonce (once) and deployment; only then is anyone signed in."""
    adapters, lti_request = _lti(), await _lti_request(request, config)

    def validated():
        with store.engine.connect() as db:
            conf = adapters.tool_conf(db)
        checked = adapters.Launch(
            lti_request, conf, requests_session=adapters.http(), **adapters.services(lti_request, store.engine)
        )
        checked.validate()
        return checked

    try:
        checked = await run_in_threadpool(validated)
    except adapters.LtiException as err:
        raise _refused(str(err)) from None
    body = checked.get_launch_data()
    with store.engine.connect() as db:
        platform = platforms.of(db, checked.get_iss(), checked.get_client_id())
    if platform is None:
        raise _refused("platform not registered")
    try:
        claims = Claims.of(body, instructor=checked.check_teacher_access() or checked.check_staff_access())
    except ValueError as err:
        raise _refused(str(err)) from None
    secure = client_address.is_https(request)
    if checked.is_deep_link_launch():
        return _deep_link_page(request, store, teachers, platform, claims, checked, secure)
    if not checked.is_resource_launch():
        raise _refused(_("不支持这种消息类型。"))
    if claims.instructor:
        return _instructor_launch(store, teachers, platform, claims, secure)
    return _student_launch(store, ids, platform, claims, secure)


def _instructor(store, platform, claims: Claims):
    """The instructor's account and the course's class they teach, bound in one transaction."""
    with store.engine.begin() as db:
        teacher = launches.teacher(db, platform, claims, datetime.now(UTC))
        code = launches.course_class(db, platform, claims, teacher.id)
        launches.link(db, platform, claims, code)
    return teacher, code


def _instructor_launch(store, teachers, platform, claims: Claims, secure: bool) -> Response:
    teacher, code = _instructor(store, platform, claims)
    response = RedirectResponse(f"/teach/classes/{code}", status_code=303)
    teachers.start_session(response, secure=secure, account=teacher, framed=True)
    return response


def _student_launch(store, ids, platform, claims: Claims, secure: bool) -> Response:
    with store.engine.begin() as db:
        learner = launches.learner(db, platform, claims)
        code = launches.course_class(db, platform, claims, None)
        assignment_id = launches.link(db, platform, claims, code)
        identity.set_class(db, learner, code)
        launches.owe_grades(db, platform, claims, learner, datetime.now(UTC))
        found = [a for a in setting.assignments.of_class(db, code) if a.id == assignment_id]
    response = RedirectResponse(found[0].href if found else "/me", status_code=303)
    cookie = ids.framed_cookie_header(learner) if secure else ids.set_cookie_header(learner)
    response.raw_headers.append((b"set-cookie", cookie))
    return response


def _deep_link_page(request, store, teachers, platform, claims: Claims, checked, secure: bool) -> Response:
    """The picker, in a session of the instructor's (the form it posts carries its CSRF token)."""
    if not claims.instructor:
        raise _refused(_("只有教师可以选择练习。"))
    teacher, code = _instructor(store, platform, claims)
    cookies = Response()
    session = teachers.start_session(cookies, secure=secure, account=teacher, framed=True)
    values = assignment_form.new_values()
    response = _picker(request, request.app.state.library, checked.get_launch_id(), code, session, values)
    response.raw_headers.extend(h for h in cookies.raw_headers if h[0] == b"set-cookie")
    return response


def _picker(request, library, launch_id: str, code: str, session: dict, values: dict, refused=None, status=200):
    context = {
        "csrf": session["csrf"],
        "launch_id": launch_id,
        "code": code,
        "form": assignment_form.context(values, refused),
        "choices": library.all(),
    }
    return render(request, "teach/lti_pick.html", context, status=status)


@router.post("/lti/deep-link")
async def deep_link(
    request: Request, session: TeacherSession, store: StoreDep, library: LibraryDep, config: SettingsDep, who: ActorDep
) -> Response:
    """The teacher's pick: an assignment in the course's class, returned to the LMS as a resource
    link whose score is the assignment's progress (0–1)."""
    fields = await read_fields(request, config.max_form_bytes)
    check_csrf(session, fields.get("csrf", ""))
    launch_id = fields.get("launch_id", "")[:100]
    adapters = _lti()
    lti_request = adapters.LtiRequest({}, dict(request.cookies), client_address.is_https(request))

    def restored():
        with store.engine.connect() as db:
            conf = adapters.tool_conf(db)
        return adapters.Launch.from_cache(launch_id, lti_request, conf, **adapters.services(lti_request, store.engine))

    try:
        checked = await run_in_threadpool(restored)
    except adapters.LtiException:
        raise Malformed(_("这次选择已过期，请从 LMS 重新开始。")) from None
    claims = Claims.of(checked.get_launch_data(), instructor=True)
    with store.engine.connect() as db:
        platform = platforms.of(db, checked.get_iss(), checked.get_client_id())
        mine = platform is not None and launches.teacher_of(db, platform, claims.sub) == session.get("tid")
        code = launches.class_of(db, platform, claims.course) if mine else None
    if not mine or code is None:
        raise Forbidden(_("这次选择属于另一位教师。"))
    try:
        fields["target"] = setting.form_target(fields)
        with store.engine.begin() as db:
            made = setting.create(db, code, fields, library, who)
    except UserError as refused:
        values = assignment_form.typed_values(fields)
        return _picker(request, library, launch_id, code, session, values, refused, status=422)
    snippet = library.get(made.snippet_id)
    title = snippet.title if snippet else made.snippet_id
    item = (
        adapters.DeepLinkResource()
        .set_url(f"{_base(request)}/lti/launch")
        .set_title(title)
        .set_custom_params({"assignment": str(made.id)})
        .set_lineitem(
            adapters.LineItem().set_score_maximum(1).set_label(title).set_resource_id(f"assignment-{made.id}")
        )
    )
    return HTMLResponse(checked.get_deep_link().output_response_form([item]))


class PlatformForm(TeacherForm):
    name: str = ""
    issuer: str = ""
    client_id: str = ""
    deployment_ids: str = ""
    key_set_url: str = ""
    auth_login_url: str = ""
    auth_token_url: str = ""


class RemoveForm(TeacherForm):
    confirm: str = ""


def _platforms_page(request: Request, store, session: dict, status: int = 200, **context) -> Response:
    with store.engine.connect() as db:
        listed = platforms.listed(db)
    context = {"csrf": session["csrf"], "platforms": listed, "urls": tool_urls(request), **context}
    data = {"platforms": [p.as_json() for p in listed], "tool": tool_urls(request)}
    return render(request, "teach/lti.html", context, status=status, data=lambda: data)


@router.get("/teach/lti")
async def platforms_page(request: Request, session: AdminSession, store: StoreDep, done: str = "") -> Response:
    notes = {"registered": _("平台已登记。"), "removed": _("平台已移除。")}
    return _platforms_page(request, store, session, done=notes.get(done, ""))


@router.post("/teach/lti")
async def register_platform(
    request: Request,
    session: AdminSession,
    store: StoreDep,
    who: ActorDep,
    form: Annotated[PlatformForm, Depends(teacher_form_of(PlatformForm))],
) -> Response:
    try:
        with store.engine.begin() as db:
            made = platforms.register(db, form.model_dump(), datetime.now(UTC))
            audit.record(db, who, "registered", "platform", made.name, made.issuer)
    except UserError as refused:
        return _platforms_page(request, store, session, status=refused.status, error=refused, typed=form.model_dump())
    return RedirectResponse("/teach/lti?done=registered", status_code=303)


@router.post("/teach/lti/{platform_id}/delete")
async def delete_platform(
    platform_id: PlatformId,
    session: AdminSession,
    store: StoreDep,
    who: ActorDep,
    form: Annotated[RemoveForm, Depends(teacher_form_of(RemoveForm))],
) -> Response:
    if form.confirm != "yes":
        raise UserError(_("请勾选确认后再移除平台。"), field="confirm")
    with store.engine.begin() as db:
        gone = platforms.remove(db, platform_id)
        audit.record(db, who, "unregistered", "platform", gone.name, gone.issuer)
    return RedirectResponse("/teach/lti?done=removed", status_code=303)


@api.get("/lti/platforms", summary="The registered LTI platforms and the tool's URLs")
async def api_platforms(request: Request, store: StoreDep) -> dict:
    with store.engine.connect() as db:
        return {"platforms": [p.as_json() for p in platforms.listed(db)], "tool": tool_urls(request)}


@api.post("/lti/platforms", status_code=201, summary="Register an LTI 1.3 platform (an LMS)")
async def api_register(request: Request, store: StoreDep, config: SettingsDep) -> dict:
    fields = setting.json_fields(await limited_body(request, config.max_form_bytes))
    with store.engine.begin() as db:
        made = platforms.register(db, fields, datetime.now(UTC))
        audit.record(db, audit.API, "registered", "platform", made.name, made.issuer)
    return made.as_json()


@api.delete("/lti/platforms/{platform_id}", status_code=204, summary="Remove an LTI platform")
async def api_remove(platform_id: PlatformId, store: StoreDep) -> Response:
    with store.engine.begin() as db:
        gone = platforms.remove(db, platform_id)
        audit.record(db, audit.API, "unregistered", "platform", gone.name, gone.issuer)
    return Response(status_code=204)
