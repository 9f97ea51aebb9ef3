"""PyLTI1p3 on FastAPI: its request, cookie, redirect and storage interfaces over a request's
parameters and the database. PyLTI1p3 ships adapters for Django and Flask only.

Two things are stricter here than PyLTI1p3's own defaults, as LTI 1.3's security framework asks:
a nonce and a state are each good for one launch (the storage deletes them as they are checked),
and the id_token's audience must name the client id (with `azp` when it names several).
"""

import json
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import requests
from pylti1p3.cookie import CookieService
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.lineitem import LineItem
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfDict
from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.i18n import language

from . import keys, platforms
from .tables import once

STATE_SECONDS = 300  # from the login initiation to the launch: the LMS answers at once
__all__ = ["DeepLinkResource", "LineItem", "LtiException", "OIDCException"]  # for the routes, besides this module's own
HTTP_SECONDS = 10  # a platform's key set, token or score endpoint that hangs must not hold a thread
COOKIE_PREFIX = "lti1p3"


class ToolConf(ToolConfDict):
    """PyLTI1p3's configuration of the registered platforms. An issuer or client id nobody
    registered is a refused launch (PyLTI1p3's own lookup raises a bare Exception)."""

    def get_iss_config(self, iss: str, client_id: str | None = None):
        try:
            return super().get_iss_config(iss, client_id)
        except LtiException:
            raise
        except Exception:
            raise LtiException("Issuer and client id are not registered here") from None


def tool_conf(db) -> ToolConf:
    """Every registered platform, each issuer with its client ids, all signing with the tool's key."""
    private = keys.stored(db)  # made with the first registration
    by_issuer: dict[str, list] = {}
    for p in platforms.listed(db):
        by_issuer.setdefault(p.issuer, []).append(
            {
                "default": False,
                "client_id": p.client_id,
                "auth_login_url": p.auth_login_url,
                "auth_token_url": p.auth_token_url,
                "key_set_url": p.key_set_url,
                "key_set": None,
                "deployment_ids": p.deployment_ids,
            }
        )
    conf = ToolConf(by_issuer)
    if private is None:
        return conf  # no platform registered: nothing to sign, and no launch to accept
    public = keys.public_pem(private)
    for issuer, clients in by_issuer.items():
        for client in clients:
            conf.set_private_key(issuer, private, client_id=client["client_id"])
            conf.set_public_key(issuer, public, client_id=client["client_id"])
    return conf


class LtiRequest(Request):
    """A request's parameters (query and form together), cookies and scheme."""

    def __init__(self, params: dict, cookies: dict, secure: bool):
        self._params, self._cookies, self._secure = params, cookies, secure

    @property
    def session(self):
        return {}  # the launch data lives in the database (DbStorage), never in a session

    def get_param(self, key: str):
        return self._params.get(key)

    def get_cookie(self, key: str):
        return self._cookies.get(key)

    def is_secure(self) -> bool:
        return self._secure


class Cookies(CookieService):
    """Cookies PyLTI1p3 sets (the OIDC state), written onto the response. Inside an LMS's iframe a
    cookie must be `SameSite=None; Secure` to come back, and `Partitioned` (CHIPS) where the browser
    blocks third-party cookies; without HTTPS it is `Lax`, and the launch opens in a window of its
    own."""

    def __init__(self, request: LtiRequest):
        self._request = request
        self._to_set: dict[str, tuple[str, int | None]] = {}

    def _key(self, name: str) -> str:
        return f"{self._cookie_prefix}-{name}"

    def get_cookie(self, name: str):
        return self._request.get_cookie(self._key(name))

    def set_cookie(self, name: str, value, exp: int | None = 3600):
        self._to_set[self._key(name)] = (str(value), exp)

    def write(self, response: Response) -> Response:
        secure = self._request.is_secure()
        for key, (value, exp) in self._to_set.items():
            response.set_cookie(
                key,
                value,
                max_age=exp,
                path="/lti/",
                httponly=True,
                secure=secure,
                samesite="none" if secure else "lax",
            )
            if secure:  # Starlette writes `Partitioned` only on Python 3.14
                response.raw_headers[-1] = (b"set-cookie", response.raw_headers[-1][1] + b"; Partitioned")
        return response


class Redirection(Redirect):
    def __init__(self, location: str, cookies: Cookies):
        self._location, self._cookies = location, cookies

    def do_redirect(self) -> Response:
        return self._cookies.write(RedirectResponse(self._location, status_code=302))

    def do_js_redirect(self) -> Response:
        return self.do_redirect()

    def set_redirect_url(self, location: str):
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class DbStorage(LaunchDataStorage):
    """PyLTI1p3's launch data, nonces and states in the database, shared by every worker. A nonce
    or a state is deleted as it is checked: a second launch with it finds nothing."""

    _session_cookie_name = ""  # keys are random and unguessable; no cookie of their own

    def __init__(self, engine: Engine, now=lambda: datetime.now(UTC)):
        super().__init__()
        self._engine, self._now = engine, now

    def get_session_cookie_name(self):
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str):
        key = self._prepare_key(key)
        with self._engine.connect() as db:
            row = db.execute(select(once.c.value, once.c.expires).where(once.c.key == key)).first()
        return row.value if row and _utc(row.expires) > self._now() else None

    def set_value(self, key: str, value, exp: int | None = None) -> None:
        key, expires = self._prepare_key(key), self._now() + timedelta(seconds=exp or 3600)
        with self._engine.begin() as db:
            db.execute(delete(once).where((once.c.key == key) | (once.c.expires < self._now())))
            db.execute(insert(once).values(key=key, value=json.loads(json.dumps(value)), expires=expires))

    def check_value(self, key: str) -> bool:
        return self.take(key)

    def take(self, key: str) -> bool:
        """Whether the key was there, unexpired; it is gone either way, so only one caller gets True."""
        key = self._prepare_key(key)
        with self._engine.begin() as db:
            gone = db.execute(delete(once).where(once.c.key == key).returning(once.c.expires)).scalars().all()
        return bool(gone) and _utc(gone[0]) > self._now()


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class TimedSession(requests.Session):
    """PyLTI1p3 calls platforms with no timeout; every call here has one."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", HTTP_SECONDS)
        return super().request(*args, **kwargs)


def http() -> requests.Session:
    session = TimedSession()
    session.headers["User-Agent"] = "codecloze-lti"
    return session


class Login(OIDCLogin):
    """The OIDC login initiation: PyLTI1p3 checks the platform and builds the redirect to its
    authorization endpoint; the state is also kept server side, to be taken once by the launch."""

    def _prepare_redirect_url(self, launch_url: str) -> str:
        url = super()._prepare_redirect_url(launch_url)
        state = parse_qs(urlsplit(url).query)["state"][0]
        self._session_service.data_storage.set_value(f"{COOKIE_PREFIX}-{state}-issued", True, exp=STATE_SECONDS)
        return url

    def redirect(self, launch_url: str, js_redirect: bool = False) -> Response:
        self.validate_oidc_login()  # an unknown platform is refused before any cookie check
        return super().redirect(launch_url, js_redirect)

    def get_cookies_allowed_js_check(self) -> str:
        # PyLTI1p3's page tests with a cookie browsers drop in a third-party frame; the state
        # cookie is partitioned, and so is the test.
        page = super().get_cookies_allowed_js_check()
        page = page.replace('<html lang="en">', f'<html lang="{language()}">')  # its words are ours
        return page.replace("'; SameSite=None; secure'", "'; SameSite=None; secure; Partitioned'")

    def get_redirect(self, url: str) -> Redirection:
        return Redirection(url, self._cookie_service)

    def get_response(self, html: str) -> Response:
        return self._cookie_service.write(HTMLResponse(html))


class Launch(MessageLaunch):
    def _get_request_param(self, key: str):
        return self._request.get_param(key)

    def validate_state(self) -> "Launch":
        super().validate_state()  # the state names this browser's cookie
        state = self._get_request_param("state")
        if not self._session_service.data_storage.take(f"{COOKIE_PREFIX}-{state}-issued"):
            raise LtiException("State already used or unknown")
        return self

    def validate_registration(self) -> "Launch":
        super().validate_registration()
        body = self._get_jwt_body()
        aud, client_id = body.get("aud"), self._registration.get_client_id()
        named = aud if isinstance(aud, list) else [aud]
        if client_id not in named or (len(named) > 1 and body.get("azp") != client_id):
            raise LtiException("Audience does not name this tool")
        return self


def services(request: LtiRequest, engine: Engine) -> dict:
    """What PyLTI1p3's login and launch take besides the request and the configuration."""
    return {
        "session_service": SessionService(request),
        "cookie_service": Cookies(request),
        "launch_data_storage": DbStorage(engine),
    }
