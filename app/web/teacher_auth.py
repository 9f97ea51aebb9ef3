"""Teacher access: one token, a signed session cookie, CSRF tokens and a back-off of wrong tokens."""

import hmac
import logging
import math
import re
import secrets

from fastapi import Request
from fastapi.responses import Response
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from app.errors import TooMany, Unauthorized
from app.i18n import _
from app.settings import Settings
from app.web.backoff import Backoff
from app.web.keys import derived

SESSION_COOKIE = "cc_teacher"
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
        # Wrong tokens wait longer and longer, per address and over all addresses together; the
        # right one never waits (one student behind a classroom's address must not lock teachers out).
        self._per_address = Backoff(free=settings.login_attempts_per_minute)
        self._everyone = Backoff(free=TOTAL_FREE, cap=60.0)

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

    def refused(self, client: str) -> None:
        """After a wrong token: a 429 (with how long to wait) while its back-off runs."""
        wait = max(self._per_address.wait(client), self._everyone.wait(""))
        self._per_address.failed(client)
        self._everyone.failed("")
        if wait > 0:
            raise TooMany(_("登录失败次数过多，请 %(n)s 秒后再试。", n=math.ceil(wait)))

    def start_session(self, response: Response, secure: bool, name: str = "") -> None:
        # `sid` and the optional name say which teacher did what (they share one token).
        value = self._signer.dumps({"csrf": secrets.token_urlsafe(16), "sid": secrets.token_hex(3), "name": name})
        # The cookie outlives the signature so an expired session can say so, not just vanish.
        response.set_cookie(
            SESSION_COOKIE,
            value,
            max_age=self.max_age + 86400,
            httponly=True,
            samesite="strict",
            secure=secure,
            path="/",
        )

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

    def bearer_ok(self, request: Request) -> bool:
        scheme, _sep, value = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and bool(value) and self.token_matches(value.strip())


ANONYMOUS = re.compile(r"^(?:教师|Teacher) ([0-9A-Za-z_-]{1,12})$")


def teacher_label(session: dict) -> str:
    """Who did it, as stored: the name given at login, else "教师" and the session's short id, in
    the same words whatever the teacher's language (pages say it in theirs: `shown_teacher`)."""
    return session.get("name") or f"教师 {session.get('sid') or session['csrf'][:6]}"


def shown_teacher(stored: str | None) -> str:
    """A stored teacher label in the page's language."""
    anonymous = ANONYMOUS.match(stored or "")
    return _("教师 %(sid)s", sid=anonymous.group(1)) if anonymous else (stored or "")
