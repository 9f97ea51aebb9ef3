"""Teacher access: accounts (app/teach/accounts.py) and the operators' token (the first admin's way
in), a signed session cookie, CSRF tokens and a back-off of wrong logins and tokens.

While a client is backed off, its token is not even compared: a right token and a wrong one get the
same 429, so back-off slows guessing instead of sorting guesses. A browser that signed in before
carries a signed device cookie (OWASP's device cookies against online guessing) and is backed off
on its own count, never on its address's or everyone's: a student guessing behind a classroom's
address does not lock out a teacher who signed in on that browser before. Bearer tokens on the API
share the address and everyone back-off.
"""

import hmac
import logging
import math
import re
import secrets
from collections.abc import Callable

from fastapi import Request
from fastapi.responses import Response
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from app.errors import TooMany, Unauthorized
from app.i18n import _
from app.settings import Settings
from app.teach.accounts import Teacher
from app.web.backoff import Backoff
from app.web.keys import derived

SESSION_COOKIE = "cc_teacher"
DEVICE_COOKIE = "cc_teacher_device"
DEVICE_DAYS = 365
TOTAL_FREE = 50  # wrong tokens from all addresses together before the shared back-off starts
log = logging.getLogger("codecloze")


class TeacherAuth:
    def __init__(self, settings: Settings, secret: str):
        # Unset, the token is derived from the app's secret: every worker sharing it takes the
        # same token, printed once at start-up. A token set by the operator is long enough (Settings).
        self.token = settings.teacher_token or derived(secret, "teacher-login")
        self.generated = settings.teacher_token is None
        self.max_age = int(settings.session_hours * 3600)
        self._signer = URLSafeTimedSerializer(secret, salt="teacher")
        self._devices = URLSafeTimedSerializer(secret, salt="teacher-device")
        # Wrong tokens wait longer and longer, per address and over all addresses together, or per
        # device for a browser that signed in before.
        self._per_address = Backoff(free=settings.login_attempts_per_minute)
        self._everyone = Backoff(free=TOTAL_FREE, cap=60.0)
        self._per_device = Backoff(free=settings.login_attempts_per_minute)

    def announce(self, bases: list[str]) -> None:
        """Log the login URL on each address the server listens on (`bases`; the bare path when
        none is known, e.g. an in-process client)."""
        if self.generated:
            # Like Jupyter: the only way in is this URL, printed once to whoever started the server.
            # It is news, not a problem (INFO), yet it must show at a stricter level too.
            level = max(logging.INFO, log.getEffectiveLevel())
            for base in bases or [""]:
                log.log(level, "teacher login: %s/teach/login?token=%s", base, self.token)

    def token_matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), self.token.encode())

    def device(self, request: Request) -> str | None:
        """The id of this browser's device cookie when it is one this site signed."""
        raw = request.cookies.get(DEVICE_COOKIE)
        if not raw:
            return None
        try:
            return self._devices.loads(raw, max_age=DEVICE_DAYS * 86400)
        except BadSignature:
            return None

    def _backoffs(self, client: str, device: str | None) -> list[tuple[Backoff, str]]:
        if device is not None:
            return [(self._per_device, device)]
        return [(self._per_address, client), (self._everyone, "")]

    def checked(self, given: str, client: str, device: str | None = None) -> bool:
        """Whether `given` is the token; a 429 (with how long to wait), whatever it is, while the
        client's back-off runs; a wrong token counts towards it."""
        return self.tried(lambda: self.token_matches(given), client, device)

    def tried(self, attempt: Callable[[], object], client: str, device: str | None = None):
        """`attempt()`'s result (a login's check: falsy when wrong), or a 429 without calling it
        while the client's back-off runs; a wrong one counts towards it."""
        backoffs = self._backoffs(client, device)
        wait = max(backoff.wait(key) for backoff, key in backoffs)
        if wait > 0:
            raise TooMany(_("登录失败次数过多，请 %(n)s 秒后再试。", n=math.ceil(wait)))
        result = attempt()
        if not result:
            for backoff, key in backoffs:
                backoff.failed(key)
        return result

    def remember_device(self, response: Response, secure: bool) -> None:
        """After a sign-in: this browser is a teacher's device from now on (its own back-off)."""
        response.set_cookie(
            DEVICE_COOKIE,
            self._devices.dumps(secrets.token_hex(8)),
            max_age=DEVICE_DAYS * 86400,
            httponly=True,
            samesite="strict",
            secure=secure,
            path="/teach",
        )

    def start_session(
        self, response: Response, secure: bool, name: str = "", account: Teacher | None = None, framed: bool = False
    ) -> dict:
        """Sign a session in: an account's (its id and epoch, so disabling it ends the session), or
        the token's, an admin's (`sid` and the optional name say which of the token's holders did what).
        `framed`: signed in by an LTI launch, inside the LMS's iframe, where only a `SameSite=None;
        Secure; Partitioned` cookie comes back (HTTPS only; CSRF tokens and the Origin check still
        guard forms). Partitioned (CHIPS): kept for that LMS's pages even where third-party cookies
        are blocked, and never sent anywhere else."""
        session = {
            "csrf": secrets.token_urlsafe(16),
            "sid": secrets.token_hex(3),
            "name": account.name if account else name,
            "tid": account.id if account else 0,
            "ep": account.epoch if account else 0,
            "role": account.role if account else "admin",
        }
        value = self._signer.dumps(session)
        # The cookie outlives the signature so an expired session can say so, not just vanish.
        response.set_cookie(
            SESSION_COOKIE,
            value,
            max_age=self.max_age + 86400,
            httponly=True,
            samesite="none" if framed and secure else "strict",
            secure=secure,
            path="/",
        )
        if framed and secure:  # Starlette writes `Partitioned` only on Python 3.14
            response.raw_headers[-1] = (b"set-cookie", response.raw_headers[-1][1] + b"; Partitioned")
        return session

    def session(self, request: Request) -> dict | None:
        """The teacher's session, None without one; a UserError when it has expired."""
        raw = request.cookies.get(SESSION_COOKIE)
        if not raw:
            return None
        try:
            return self._signer.loads(raw, max_age=self.max_age)
        except SignatureExpired:
            raise Unauthorized(_("登录已过期，请重新登录。")) from None
        except BadSignature:
            return None

    def bearer_ok(self, request: Request, client: str) -> bool:
        """Whether the request carries the token as a Bearer; a 429 while the client is backed off."""
        scheme, _sep, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not value:
            return False
        return self.checked(value.strip(), client)


ANONYMOUS = re.compile(r"^(?:教师|Teacher) ([0-9A-Za-z_-]{1,12})$")


def teacher_label(session: dict) -> str:
    """Who did it, as stored: the name given at login, else "教师" and the session's short id, in
    the same words whatever the teacher's language (pages say it in theirs: `shown_teacher`)."""
    return session.get("name") or f"教师 {session.get('sid') or session['csrf'][:6]}"


def shown_teacher(stored: str | None) -> str:
    """A stored teacher label in the page's language."""
    anonymous = ANONYMOUS.match(stored or "")
    return _("教师 %(sid)s", sid=anonymous.group(1)) if anonymous else (stored or "")
