"""An LTI 1.3 platform (the LMS side, as Moodle plays it) for the LTI tests, on a real uvicorn in a
thread of the test process. lti1p3platform registers the tool, builds and signs the id_tokens and
access tokens, checks the tool's JWTs and answers the grade service; this module is the glue: the
routes, the state a test looks at (scores, deep links, line items) and a browser's hops between the
two sites (`follow`).

A real platform checks more than lti1p3platform does, so the glue adds it: the OIDC parameters of
the authentication request, the claims of the tool's client assertion (iss, sub, aud, an unused
jti), those of a deep linking response (iss, aud, deployment, version, nonce, the echoed data), the
scope each grade request needs, and the body of a score."""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from html.parser import HTMLParser
from urllib.parse import quote, urlencode

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI
from fastapi import Request as HttpRequest
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader
from lti1p3platform.exceptions import (
    InvalidKeySetUrl,
    LineItemNotFoundException,
    LtiDeepLinkingResponseException,
    LtiException,
    LtiServiceException,
    MissingRequiredClaim,
    PreflightRequestValidationException,
    UnsupportedGrantType,
)
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as LtiRequest
from lti1p3platform.response import Response as LtiResponse
from lti1p3platform.score import ActivityProgress, GradeProgress, UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService
from starlette.concurrency import run_in_threadpool

from tests.live import ThreadedServer

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
ROLES = {"student": LIS + "membership#Learner", "instructor": LIS + "membership#Instructor"}
KINDS = ("resource", "deep")
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM, LINEITEM_READ = AGS_SCOPE + "lineitem", AGS_SCOPE + "lineitem.readonly"
RESULT_READ, SCORE = AGS_SCOPE + "result.readonly", AGS_SCOPE + "score"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
# What lti1p3platform raises on a JWT it refuses (or cannot get the key for).
JWT_REFUSED = (LtiException, InvalidKeySetUrl, jwt.PyJWTError)
# ... and on a deep linking response it refuses (KeyError: a content item without a type).
DEEP_LINK_REFUSED = (*JWT_REFUSED, LtiDeepLinkingResponseException, KeyError, TypeError)

# lti1p3platform's own launch form; its loader module (framework.templates) imports pkg_resources,
# which setuptools no longer ships, so the template is loaded here.
LAUNCH_FORM = Environment(loader=PackageLoader("lti1p3platform.framework", "templates"), autoescape=True).get_template(
    "launch.html"
)


@dataclass(frozen=True)
class Launch:
    """Who launches what, where: what /start keeps behind its opaque lti_message_hint."""

    user: str
    role: str = "student"
    course: str = "course-1"
    course_title: str = "Course 1"
    link: str = "link-1"
    kind: str = "resource"
    name: str | None = None  # None: the LMS does not share it
    email: str | None = None

    def __post_init__(self) -> None:
        if not self.user:
            raise ValueError("a launch needs a user")
        if self.role not in ROLES or self.kind not in KINDS:
            raise ValueError(f"role is one of {list(ROLES)}, kind one of {list(KINDS)}")

    @classmethod
    def parse(cls, query: dict) -> Launch:
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in query.items() if key in names})


def _rsa_pems() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private.decode(), public.decode()


def _internal(factory):
    """State the LMS keeps to itself (not an argument, not in its repr)."""
    return field(default_factory=factory, init=False, repr=False, compare=False)


@dataclass
class LMS:
    """The running LMS: its address, the registration a tool is given, and what the tool did."""

    url: str  # also the issuer
    tool: str  # the tool's base URL
    client_id: str = "codecloze-test"
    deployment_id: str = "deployment-1"
    scores: list[dict] = field(default_factory=list)  # every score accepted: {"lineitem": id, **score}
    deep_links: list[list[dict]] = field(default_factory=list)  # the content items of each accepted response
    lineitems: dict[str, dict] = field(default_factory=dict)  # id -> line item (its "id" is its URL)
    # (course, link id) -> {"id", "course", "title", "url", "custom", "lineitem"}: a resource link is
    # made on its first launch; a deep-linked item becomes link "dl-1", "dl-2"… of its course
    links: dict[tuple[str, str], dict] = field(default_factory=dict)
    fail_scores: int = 0  # while > 0 the score endpoint answers 503 (and counts down)
    tokens_issued: int = 0
    _lock: threading.RLock = _internal(threading.RLock)
    _keys: tuple[str, str] = _internal(_rsa_pems)  # private, public PEM
    _launches: dict[str, Launch] = _internal(dict)  # lti_message_hint -> launch
    _deep_link_data: dict[str, Launch] = _internal(dict)  # the data claim sent -> the deep linking launch
    _members: dict[str, set[str]] = _internal(dict)  # course -> users who launched there
    _lineitem_courses: dict[str, str] = _internal(dict)
    _lineitem_ids: itertools.count = _internal(lambda: itertools.count(1))
    _deep_link_ids: itertools.count = _internal(lambda: itertools.count(1))
    _jtis: set[str] = _internal(set)
    _server: ThreadedServer | None = field(default=None, repr=False, compare=False)

    @property
    def registration(self) -> dict:
        """What an admin copies into the tool's registration form."""
        return {
            "issuer": self.url,
            "client_id": self.client_id,
            "deployment_ids": [self.deployment_id],
            "key_set_url": self.url + "/jwks",
            "auth_login_url": self.url + "/auth",
            "auth_token_url": self.url + "/token",
        }

    def login_url(self, **launch) -> str:
        """The LMS page that starts this launch (`Launch`'s fields): it answers a 302 to the tool's
        login initiation."""
        launch = Launch(**launch)
        return f"{self.url}/start?{urlencode({k: v for k, v in asdict(launch).items() if v is not None})}"

    def mint_id_token(
        self,
        *,
        nonce: str,
        key: str | None = None,
        exp_in: int = 300,
        aud: str | None = None,
        iss: str | None = None,
        deployment_id: str | None = None,
        kid: str | None = None,
        **launch,
    ) -> str:
        """A launch id_token as /auth builds it (`Launch`'s fields, user "u1" unless given); `key`
        (another private PEM), `kid`, `aud`, `iss`, `deployment_id` and `exp_in` (negative: expired)
        forge it."""
        launch = Launch(**{"user": "u1", **launch})
        token = _LaunchMessage(_incoming(get_data=self._auth_request(launch, nonce)), self, launch).lti_launch(raw=True)
        claims = jwt.decode(token["id_token"], options={"verify_signature": False})
        now = int(time.time())
        claims.update(iat=min(now, now + exp_in - 60), exp=now + exp_in)
        forged = {"aud": aud, "iss": iss, CLAIM + "deployment_id": deployment_id}
        claims.update({name: value for name, value in forged.items() if value is not None})
        return Registration.encode_and_sign(claims, key or self._keys[0], headers={"kid": kid or self.kid})

    @property
    def kid(self) -> str:
        """The kid of the LMS's signing key (its JWK thumbprint)."""
        return self._platform().get_registration().get_kid()

    @property
    def tool_launch_url(self) -> str:
        return self.tool + "/lti/launch"

    def lineitems_url(self, course: str) -> str:
        return f"{self.url}/courses/{quote(course, safe='')}/lineitems"

    def _platform(self) -> _Platform:
        # One per request: lti1p3platform keeps the JWT it is checking on the instance.
        return _Platform(lms=self)

    def _auth_request(self, launch: Launch, nonce: str) -> dict:
        """The OIDC authentication request a well-behaved tool sends for this launch."""
        return {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": self.client_id,
            "redirect_uri": self.tool_launch_url,
            "login_hint": launch.user,
            "state": "minted",
            "nonce": nonce,
        }

    def _enrol(self, launch: Launch) -> None:
        with self._lock:
            self._members.setdefault(launch.course, set()).add(launch.user)

    def _resource_link(self, launch: Launch) -> dict:
        """The launched link, made with a line item (100 points) on its first launch."""
        with self._lock:
            key = (launch.course, launch.link)
            if key not in self.links:
                title = f"Activity {launch.link}"
                lineitem = self._add_lineitem(
                    launch.course, {"label": title, "scoreMaximum": 100, "resourceLinkId": launch.link}
                )
                self.links[key] = _link(launch.link, launch.course, title, self.tool_launch_url, {}, lineitem)
            return self.links[key]

    def _add_lineitem(self, course: str, data: dict) -> str:
        with self._lock:
            item = str(next(self._lineitem_ids))
            self.lineitems[item] = {**data, "id": f"{self.url}/lineitems/{item}"}
            self._lineitem_courses[item] = course
            return item

    def _add_deep_links(self, launch: Launch, items: list[dict]) -> None:
        with self._lock:
            self.deep_links.append(items)
            for item in items:
                link = f"dl-{next(self._deep_link_ids)}"
                title = item.get("title") or link
                lineitem = None
                if "lineItem" in item:
                    data = {"label": title, **item["lineItem"], "resourceLinkId": link}
                    lineitem = self._add_lineitem(launch.course, data)
                url = item.get("url") or self.tool_launch_url
                self.links[launch.course, link] = _link(
                    link, launch.course, title, url, item.get("custom") or {}, lineitem
                )

    def follow(self, client: httpx.Client, response: httpx.Response) -> httpx.Response:
        """A browser's hops from `response` on (see `follow`)."""
        return follow(client, response)


def _link(link: str, course: str, title: str, url: str, custom: dict, lineitem: str | None) -> dict:
    return {"id": link, "course": course, "title": title, "url": url, "custom": custom, "lineitem": lineitem}


def start_lms(tool: str) -> LMS:
    """An LMS registered with the tool at `tool`, serving on 127.0.0.1 once this returns."""
    app = FastAPI()
    server = ThreadedServer(app)
    lms = LMS(url=server.url, tool=tool.rstrip("/"))
    _add_routes(app, lms)
    lms._server = server.__enter__()
    return lms


def stop_lms(lms: LMS) -> None:
    if lms._server is not None:
        lms._server.__exit__(None, None, None)
        lms._server = None


# lti1p3platform's classes, filled in


class _Platform(LTI1P3PlatformConfAbstract):
    """The LMS's one registration of the tool."""

    def init_platform_config(self, lms: LMS) -> None:
        tool = lms.tool + "/lti"
        self._registration = (
            Registration()
            .set_iss(lms.url)
            .set_client_id(lms.client_id)
            .set_deployment_id(lms.deployment_id)
            .set_launch_url(tool + "/launch")
            .set_deeplink_launch_url(tool + "/launch")
            .set_oidc_login_url(tool + "/login")
            .set_tool_key_set_url(tool + "/jwks")  # fetched on each check: a rotated tool key works at once
            .set_platform_private_key(lms._keys[0])
            .set_platform_public_key(lms._keys[1])
        )

    def get_registration_by_params(self, **kwargs) -> Registration:
        return self._registration


class _Incoming(LtiRequest):
    """A request as lti1p3platform reads it (its FastAPI request adapter is commented out upstream)."""

    def build_metadata(self, request: dict) -> dict:
        return request


def _incoming(**parts) -> _Incoming:
    blank = {"method": "GET", "form_data": {}, "get_data": {}, "headers": {}, "content_type": None, "path": "/"}
    return _Incoming({**blank, "json": None, **parts})


async def _read(request: HttpRequest) -> _Incoming:
    kind = request.headers.get("content-type", "")
    form, body = {}, None
    if "json" in kind:
        try:
            body = await request.json()
        except ValueError:
            body = None
    elif kind.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = {key: value for key, value in (await request.form()).items() if isinstance(value, str)}
    return _incoming(
        method=request.method,
        form_data=form,
        get_data=dict(request.query_params),
        headers=request.headers,
        content_type=kind,
        path=request.url.path,
        json=body,
    )


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> Response:
        return RedirectResponse(url, status_code=302)  # as LMSs answer (Starlette's default is 307)


class _LaunchMessage(LTIAdvantageMessageLaunchAbstract):
    """The id_token of one launch: a resource link (with its line item) or a deep linking request."""

    def __init__(self, request: _Incoming, lms: LMS, launch: Launch) -> None:
        super().__init__(request, lms._platform())
        self.lms, self.launch = lms, launch

    def validate_preflight_response(self, preflight: dict) -> None:
        try:
            super().validate_preflight_response(preflight)
        except PreflightRequestValidationException as exc:  # raised bare: say what it checks
            raise PreflightRequestValidationException(
                "nonce, state or redirect_uri missing, or another client_id"
            ) from exc
        expected = self.lms._auth_request(self.launch, preflight["nonce"])
        exact = ("response_type", "response_mode", "prompt", "redirect_uri", "login_hint")
        wrong = [name for name in exact if preflight.get(name) != expected[name]]
        if "openid" not in str(preflight.get("scope", "")).split():
            wrong.append("scope")
        if wrong:
            raise PreflightRequestValidationException("wrong " + ", ".join(wrong))

    def prepare_launch(self, preflight: dict) -> None:
        launch, lms = self.launch, self.lms
        lms._enrol(launch)
        self.set_user_data(launch.user, [ROLES[launch.role]], launch.name, launch.email)
        self.set_launch_context_claim(
            launch.course, [LIS + "course#CourseOffering"], launch.course_title, launch.course
        )
        self.set_launch_presentation_claim(document_target="iframe")
        if launch.kind == "deep":
            self._prepare_deep_linking()
            self.set_ags(lms.lineitems_url(launch.course))
            return
        link = lms._resource_link(launch)
        self.set_launch_url(link["url"])
        self.set_resource_link_claim(link["id"], title=link["title"])
        if link["custom"]:
            self.set_custom_parameters_claim(link["custom"])
        lineitem = lms.lineitems.get(link["lineitem"] or "", {}).get("id")  # None: no line item (or deleted)
        self.set_ags(lms.lineitems_url(launch.course), lineitem)

    def _prepare_deep_linking(self) -> None:
        data = secrets.token_urlsafe(12)
        with self.lms._lock:
            self.lms._deep_link_data[data] = self.launch
        self.set_dl(
            self.lms.url + "/deep-link-return", f"Add to {self.launch.course_title}", accept_types={"ltiResourceLink"}
        )
        # lti1p3platform sends data as an object (the spec: an opaque string) and offers "embed".
        settings = self._deep_linking_launch_data[DL_CLAIM + "deep_linking_settings"]
        settings.update(data=data, accept_presentation_document_targets=["iframe", "window"])

    def render_launch_form(self, launch_data: dict, **kwargs) -> Response | dict:
        return launch_data if kwargs.get("raw") else HTMLResponse(LAUNCH_FORM.render(launch_data))


class _Grades(AssignmentsGradesService):
    """The grade service (AGS) over the LMS's line items and scores."""

    def __init__(self, request: _Incoming, lms: LMS, scopes: list[str], course: str = "") -> None:
        super().__init__(request, lms._platform(), lms.lineitems_url(course))
        self.lms, self.scopes, self.course = lms, scopes, course

    @property
    def allowed_scopes(self) -> list[str]:
        # lti1p3platform lets a token with any AGS scope make any AGS request.
        return self.scopes

    def find_lineitems(self, page=1, limit=None, line_item_id=None, resource_link_id=None, resource_id=None, tag=None):
        wanted = {"resourceLinkId": resource_link_id, "resourceId": resource_id, "tag": tag}
        with self.lms._lock:
            items = [item for key, item in self.lms.lineitems.items() if self.lms._lineitem_courses[key] == self.course]
        items = [item for item in items if all(v is None or item.get(k) == v for k, v in wanted.items())]
        return {"content": items, "has_next": False}

    def find_lineitem(self, line_item_id: str) -> dict:
        with self.lms._lock:
            if line_item_id not in self.lms.lineitems:
                raise LineItemNotFoundException(line_item_id)
            return self.lms.lineitems[line_item_id]

    def create_lineitem(self, creation_data: dict) -> dict:
        _check_lineitem(creation_data)
        return self.lms.lineitems[self.lms._add_lineitem(self.course, dict(creation_data))]

    def update_lineitem(self, update_data: dict) -> dict:
        item = update_data.pop("id")
        _check_lineitem(update_data)
        with self.lms._lock:
            stored = self.find_lineitem(item)
            stored.update({**update_data, "id": stored["id"]})
            return stored

    def delete_lineitem(self, line_item_id: str) -> None:
        with self.lms._lock:
            self.find_lineitem(line_item_id)
            del self.lms.lineitems[line_item_id]

    def update_score(self, line_item_id: str, score: dict) -> UpdateScoreStatus:
        lms = self.lms
        with lms._lock:
            if lms.fail_scores > 0:
                lms.fail_scores -= 1
                raise LtiServiceException("the gradebook is unavailable", 503)
        if SCORE_TYPE not in (self.request.content_type or ""):
            raise LtiServiceException(f"a score is sent as {SCORE_TYPE}", 415)
        self.find_lineitem(line_item_id)
        with lms._lock:
            when = _score_time(score, lms._members.get(lms._lineitem_courses[line_item_id], set()))
            earlier = [s for s in lms.scores if s["lineitem"] == line_item_id and s["userId"] == score["userId"]]
            if earlier and when < datetime.fromisoformat(earlier[-1]["timestamp"]):
                return UpdateScoreStatus.OLD_TIMESTAMP
            lms.scores.append({"lineitem": line_item_id, **score})
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page=1, limit=None, user_id=None):
        lineitem = self.find_lineitem(line_item_id)
        with self.lms._lock:
            latest = {s["userId"]: s for s in self.lms.scores if s["lineitem"] == line_item_id}
        results = [
            {
                "id": f"{lineitem['id']}/results/{quote(user, safe='')}",
                "scoreOf": lineitem["id"],
                "userId": user,
                "resultScore": score.get("scoreGiven"),
                "resultMaximum": score.get("scoreMaximum"),
            }
            for user, score in latest.items()
            if user_id in (None, user)
        ]
        return {"content": results, "has_next": False}


def _check_lineitem(data: dict) -> None:
    maximum = data.get("scoreMaximum")
    if not isinstance(maximum, int | float) or maximum <= 0 or not data.get("label"):
        raise LtiServiceException("a line item needs a label and a positive scoreMaximum", 400)


def _score_time(score, members: set[str]) -> datetime:
    """When the score was given; LtiServiceException 400 if the score is not one AGS allows."""
    if not isinstance(score, dict):
        raise LtiServiceException("a score is a JSON object", 400)
    missing = {"userId", "activityProgress", "gradingProgress", "timestamp"} - score.keys()
    problems = [f"missing {', '.join(sorted(missing))}"] if missing else []
    if not missing and (not isinstance(score["userId"], str) or score["userId"] not in members):
        problems.append(f"user {score['userId']!r} has not launched in this course")
    if "activityProgress" in score and score["activityProgress"] not in {p.value for p in ActivityProgress}:
        problems.append("unknown activityProgress")
    if "gradingProgress" in score and score["gradingProgress"] not in {p.value for p in GradeProgress}:
        problems.append("unknown gradingProgress")
    if "scoreGiven" in score and not _score_numbers(score):
        problems.append("scoreGiven needs a scoreMaximum > 0, both numbers, scoreGiven >= 0")
    try:
        when = datetime.fromisoformat(score.get("timestamp"))
    except (TypeError, ValueError):
        when = None
    if not missing and (when is None or when.tzinfo is None):
        problems.append("timestamp is not ISO 8601 with a time zone")
    if problems:
        raise LtiServiceException("; ".join(problems), 400)
    return when


def _score_numbers(score: dict) -> bool:
    given, maximum = score.get("scoreGiven"), score.get("scoreMaximum")
    numbers = all(isinstance(n, int | float) and not isinstance(n, bool) for n in (given, maximum))
    return numbers and maximum > 0 and given >= 0


# The routes


def _add_routes(app: FastAPI, lms: LMS) -> None:
    def route(path: str, methods: list[str], handler) -> None:
        async def endpoint(request: HttpRequest) -> Response:
            # Off the event loop: checking a tool JWT fetches the tool's key set synchronously.
            return await run_in_threadpool(handler, lms, await _read(request), **request.path_params)

        app.add_api_route(path, endpoint, methods=methods)

    route("/start", ["GET"], _start)
    route("/auth", ["GET", "POST"], _auth)
    route("/jwks", ["GET"], lambda lms, request: JSONResponse(lms._platform().get_jwks()))
    route("/token", ["POST"], _token)
    route("/deep-link-return", ["POST"], _deep_link_return)
    route("/courses/{course}/lineitems", ["GET", "POST"], _ags)
    route("/lineitems/{item}", ["GET", "PUT", "DELETE"], _ags)
    route("/lineitems/{item}/{part}", ["GET", "POST"], _ags)


def _refuse(message: str) -> Response:
    return PlainTextResponse(message, status_code=400)


def _start(lms: LMS, request: _Incoming) -> Response:
    try:
        launch = Launch.parse(request.get_data)
    except (TypeError, ValueError) as exc:
        return _refuse(f"Cannot start this launch: {exc}")
    hint = secrets.token_urlsafe(12)
    with lms._lock:
        lms._launches[hint] = launch
        link = lms.links.get((launch.course, launch.link))
    login = _Login(request, lms._platform())
    login.set_lti_message_hint(hint=hint)
    if launch.kind == "deep":
        login.set_deeplinking_launch_url()
    elif link:
        login.set_launch_url(link["url"])
    return login.initiate_login(launch.user)


def _auth(lms: LMS, request: _Incoming) -> Response:
    """The OIDC authorization endpoint: the launch form, POSTing the id_token to the tool."""
    params = {**request.form_data, **request.get_data}
    with lms._lock:
        launch = lms._launches.get(params.get("lti_message_hint", ""))
    if launch is None:
        return _refuse("Launch refused: unknown lti_message_hint")
    try:
        return _LaunchMessage(_incoming(get_data=params), lms, launch).lti_launch()
    except PreflightRequestValidationException as exc:
        return _refuse(f"Launch refused: {exc}")


def _token(lms: LMS, request: _Incoming) -> Response:
    """client_credentials with a JWT assertion signed by a key in the tool's key set."""
    platform, form = lms._platform(), request.form_data
    try:
        answer = platform.get_access_token(form)
        _check_assertion(lms, form, platform.tool_validate_and_decode(form["client_assertion"]))
    except UnsupportedGrantType:
        return _oauth_error("unsupported_grant_type", "grant_type must be client_credentials")
    except MissingRequiredClaim as exc:
        return _oauth_error("invalid_request", str(exc))
    except JWT_REFUSED as exc:
        return _oauth_error("invalid_client", str(exc) or type(exc).__name__)
    if not answer["scope"]:
        return _oauth_error("invalid_scope", "none of the scopes asked for is offered")
    with lms._lock:
        lms.tokens_issued += 1
    return JSONResponse(answer, headers={"Cache-Control": "no-store"})


def _oauth_error(error: str, description: str) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code=400)


def _check_assertion(lms: LMS, form: dict, claims: dict) -> None:
    problems = []
    if form.get("client_assertion_type") != JWT_BEARER:
        problems.append(f"client_assertion_type must be {JWT_BEARER}")
    if claims.get("iss") != lms.client_id or claims.get("sub") != lms.client_id:
        problems.append("iss and sub must be the client id")
    if lms.registration["auth_token_url"] not in _listed(claims.get("aud")):
        problems.append("aud must name the token endpoint")
    if "exp" not in claims:
        problems.append("no exp")
    with lms._lock:
        if not claims.get("jti") or claims["jti"] in lms._jtis:
            problems.append("jti missing or used before")
        else:
            lms._jtis.add(claims["jti"])
    if problems:
        raise LtiException("; ".join(problems))


def _listed(value) -> list:
    return value if isinstance(value, list) else [value]


def _deep_link_return(lms: LMS, request: _Incoming) -> Response:
    platform = lms._platform().set_accepted_deeplinking_types(["ltiResourceLink"])
    try:
        if "JWT" not in request.form_data:
            raise LtiDeepLinkingResponseException("no JWT")
        items = platform.validate_deeplinking_resp(request.form_data)
        launch = _check_deep_link(lms, platform.tool_validate_and_decode(request.form_data["JWT"]), items)
    except DEEP_LINK_REFUSED as exc:
        return _refuse(f"Deep linking response refused: {exc}")
    lms._add_deep_links(launch, items)
    return HTMLResponse("<!doctype html><title>Deep link received</title><p>Deep link received</p>")


def _check_deep_link(lms: LMS, claims: dict, items: list[dict]) -> Launch:
    """The deep linking request this response answers; LtiException if the claims don't fit it."""
    problems = []
    if claims.get("iss") != lms.client_id:
        problems.append("iss must be the client id")
    if lms.url not in _listed(claims.get("aud")):
        problems.append("aud must name the platform (its issuer)")
    if claims.get(CLAIM + "deployment_id") != lms.deployment_id:
        problems.append("wrong deployment_id")
    if claims.get(CLAIM + "version") != "1.3.0" or not claims.get("nonce") or "exp" not in claims:
        problems.append("version 1.3.0, nonce and exp are required")
    if any("lineItem" in item and not _lineitem_ok(item["lineItem"]) for item in items):
        problems.append("a lineItem needs a positive scoreMaximum")
    with lms._lock:
        launch = lms._deep_link_data.get(claims.get(DL_CLAIM + "data"))
    if launch is None:
        problems.append("data must echo the deep linking request's")
    if problems:
        raise LtiException("; ".join(problems))
    return launch


def _lineitem_ok(lineitem) -> bool:
    maximum = isinstance(lineitem, dict) and lineitem.get("scoreMaximum")
    return isinstance(maximum, int | float) and not isinstance(maximum, bool) and maximum > 0


# What each grade request needs its token to grant, and lti1p3platform's handler for it.
AGS_ROUTES = {
    ("lineitems", "GET"): ("handle_get_lineitems", [LINEITEM, LINEITEM_READ]),
    ("lineitems", "POST"): ("handle_create_lineitem", [LINEITEM]),
    ("lineitem", "GET"): ("handle_get_lineitem", [LINEITEM, LINEITEM_READ]),
    ("lineitem", "PUT"): ("handle_update_lineitem", [LINEITEM]),
    ("lineitem", "DELETE"): ("handle_delete_lineitem", [LINEITEM]),
    ("scores", "POST"): ("handle_update_score", [SCORE]),
    ("results", "GET"): ("handle_get_results", [RESULT_READ]),
}


def _ags(lms: LMS, request: _Incoming, course: str = "", item: str | None = None, part: str = "") -> Response:
    what = part or ("lineitem" if item else "lineitems")
    if (what, request.method) not in AGS_ROUTES:
        return JSONResponse({"error": "Not found"}, status_code=404)
    handler, scopes = AGS_ROUTES[what, request.method]
    service = _Grades(request, lms, scopes, course)
    try:
        answer = service.handle_resp(getattr(service, handler), **({"line_item_id": item} if item else {}))
    except JWT_REFUSED:
        # lti1p3platform's token check raises (not answers 401) on a token it cannot decode.
        return JSONResponse({"error": "Invalid LTI 1.3 authentication token"}, status_code=401)
    return _reply(answer)


def _reply(answer: LtiResponse) -> Response:
    if answer.code >= 400:
        return JSONResponse({"error": answer.message}, status_code=answer.code)
    if answer.result is None:
        return Response(status_code=answer.code)
    body = answer.result["content"] if "content" in answer.result else answer.result
    return JSONResponse(body, status_code=answer.code, media_type=answer.media_type)


# A browser's hops


def follow(client: httpx.Client, response: httpx.Response, hops: int = 20) -> httpx.Response:
    """Go on as a browser would: follow redirects and submit auto-submitting forms; the first other
    response is returned. Cookies stay in the client's jar (which must not follow redirects itself)."""
    for _ in range(hops):
        if response.is_redirect:
            response = _redirected(client, response)
        elif (form := _auto_form(response)) is not None:
            response = _submitted(client, response, form)
        else:
            return response
    raise RuntimeError(f"still hopping after {hops} hops, at {response.url}")


def _redirected(client: httpx.Client, response: httpx.Response) -> httpx.Response:
    target = response.url.join(response.headers["location"])
    request = response.request
    if response.status_code in (307, 308):  # the method and body go again
        kind = {"content-type": request.headers["content-type"]} if "content-type" in request.headers else {}
        return client.request(request.method, target, content=request.content, headers=kind)
    return client.get(target)


def _submitted(client: httpx.Client, response: httpx.Response, form: dict) -> httpx.Response:
    target = response.url.join(form["action"])
    if form["method"] == "post":
        return client.post(target, data=form["fields"])
    return client.get(target, params=form["fields"])


def _auto_form(response: httpx.Response) -> dict | None:
    """The page's form if it submits itself: a page with one form, of hidden fields only, that a
    script (or onload) submits or that has no button to press. A form a person fills in or clicks
    ends the walk."""
    if "html" not in response.headers.get("content-type", ""):
        return None
    page = _Forms()
    page.feed(response.text)
    if len(page.forms) != 1:
        return None
    form = page.forms[0]
    if form["visible"] or (form["buttons"] and not page.scripted):
        return None
    return form


class _Forms(HTMLParser):
    """A page's forms: action, method, hidden fields, what a person could use, and whether a
    script or onload calls submit()."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self.scripted = False
        self._in_form = self._in_script = False
        self._noscript = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = {name: value or "" for name, value in attrs}
        self.scripted |= "submit(" in attrs.get("onload", "")
        if tag == "form":
            method = attrs.get("method", "get").lower()
            self.forms.append(
                {"action": attrs.get("action", ""), "method": method, "fields": {}, "visible": 0, "buttons": 0}
            )
            self._in_form = True
        elif tag == "script":
            self._in_script = True
        elif tag == "noscript":
            self._noscript += 1
        elif self._in_form and not self._noscript:
            self._control(tag, attrs)

    def _control(self, tag: str, attrs: dict) -> None:
        form, kind = self.forms[-1], attrs.get("type", "text").lower()
        if tag == "input" and kind == "hidden":
            if attrs.get("name"):
                form["fields"][attrs["name"]] = attrs.get("value", "")
        elif tag == "button" or (tag == "input" and kind in ("submit", "button", "image")):
            form["buttons"] += 1
        elif tag in ("input", "select", "textarea"):
            form["visible"] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        elif tag == "script":
            self._in_script = False
        elif tag == "noscript":
            self._noscript = max(0, self._noscript - 1)

    def handle_data(self, data: str) -> None:
        self.scripted |= self._in_script and "submit(" in data
