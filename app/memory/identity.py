"""Who a learner is: a random id in a signed cookie, and a signed link to continue on another device.

An id that is unsigned, tampered with or signed by another key is never trusted: the request
gets a fresh id. The key is the app's secret (app/web/keys.py), so learners survive restarts.
"""

import secrets
from datetime import UTC, datetime

from itsdangerous import BadSignature, Signer, URLSafeSerializer
from sqlalchemy import insert, select, update

from .tables import learners

LEARNER_COOKIE = "cc_learner"
LEARNER_DAYS = 365  # renewed by every submission
ID_BYTES = 16


class Learner(str):
    """A learner id that carries its signed cookie header, so a response can renew it."""

    cookie: bytes

    def __new__(cls, learner: str, cookie: bytes):
        self = super().__new__(cls, learner)
        self.cookie = cookie
        return self


class Identity:
    def __init__(self, secret: str):
        self._cookie = Signer(secret, salt="learner-id")
        self._link = URLSafeSerializer(secret, salt="device-link")

    def learner_from(self, cookie: str | None) -> str | None:
        """The id a cookie carries, if this server signed it."""
        if not cookie:
            return None
        try:
            learner = self._cookie.unsign(cookie).decode("ascii")
        except (BadSignature, UnicodeDecodeError):
            return None
        return learner if learner.isalnum() and len(learner) == 2 * ID_BYTES else None

    @staticmethod
    def new_id() -> str:
        return secrets.token_hex(ID_BYTES)

    def cookie_value(self, learner: str) -> str:
        return self._cookie.sign(learner).decode("ascii")

    def set_cookie_header(self, learner: str) -> bytes:
        return (
            f"{LEARNER_COOKIE}={self.cookie_value(learner)}; HttpOnly; Max-Age={LEARNER_DAYS * 86400};"
            f" Path=/; SameSite=lax"
        ).encode()

    def framed_cookie_header(self, learner: str) -> bytes:
        """The cookie an LTI launch sets over HTTPS, inside the LMS's iframe: `SameSite=None` so it
        comes back there, `Partitioned` (CHIPS) so browsers that block third-party cookies keep it,
        for that LMS's pages only. A learner's own visits keep the `Lax` cookie above."""
        return (
            f"{LEARNER_COOKIE}={self.cookie_value(learner)}; HttpOnly; Max-Age={LEARNER_DAYS * 86400};"
            f" Path=/; SameSite=None; Secure; Partitioned"
        ).encode()

    def link_token(self, learner: str, generation: int) -> str:
        return self._link.dumps([learner, generation])

    def link_owner(self, token: str, db) -> str | None:
        """The learner a device link restores, if it is signed and not rotated away."""
        try:
            learner, generation = self._link.loads(token)
        except (BadSignature, ValueError, TypeError):
            return None
        if not isinstance(learner, str) or not isinstance(generation, int):
            return None
        return learner if link_generation(db, learner) == generation else None


def link_generation(db, learner: str) -> int:
    found = db.execute(select(learners.c.link_gen).where(learners.c.id == learner)).scalar()
    return found or 0


def profile(db, learner: str) -> dict:
    row = db.execute(select(learners).where(learners.c.id == learner)).first()
    return dict(row._mapping) if row else {"id": learner, "name": None, "class_code": None, "link_gen": 0}


def save_profile(db, learner: str, **values) -> None:
    """Create the learner's row if needed and set `values` on it."""
    if db.execute(select(learners.c.id).where(learners.c.id == learner)).first():
        db.execute(update(learners).where(learners.c.id == learner).values(**values))
    else:
        db.execute(insert(learners).values(id=learner, created_at=datetime.now(UTC), **{"link_gen": 0, **values}))


def set_class(db, learner: str, code: str | None) -> bool:
    """Put the learner in class `code` (None: in none); whether that changed their class. Joining
    is dated, so an assignment counts only what they did since; staying in the same class keeps
    the date (saving a name must not restart their progress)."""
    current = db.execute(select(learners.c.class_code).where(learners.c.id == learner)).scalar()
    if current == code:
        return False
    save_profile(db, learner, class_code=code, class_joined_at=datetime.now(UTC) if code else None)
    return True
