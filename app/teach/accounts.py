"""Teachers' accounts: invited by an admin through a one-time link, signed in with a login and a
password of their own (Argon2id through pwdlib), disabled and enabled again by an admin. The
operators' teacher token stays the first admin's way in. Nothing here knows of HTTP; callers run
these in a thread (hashing a password takes ~0.1 s of CPU and 64 MiB by design).

A session names its account and the account's epoch when it was signed; disabling an account or
setting its password moves the epoch on, so every session signed before ends at once.
"""

import hashlib
import re
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from sqlalchemy import Connection, select, update
from sqlalchemy.exc import IntegrityError

from app.db.moments import utc
from app.errors import Conflict, NotFound, UserError
from app.i18n import _

from .account_tables import teachers

ROLES = ("teacher", "admin")
INVITE_DAYS = 7
PASSWORD_MIN, PASSWORD_MAX = 10, 256  # OWASP: length, not composition rules
LOGIN = re.compile(r"^[a-z0-9._@+-]{3,60}$")
# Each hash holds 64 MiB while it runs: two at a time, whatever a flood of logins asks for.
HASHING = threading.BoundedSemaphore(2)


@cache
def _hasher():
    """pwdlib's Argon2id hasher, loaded on the first sign-in or sign-up: a server nobody signs in
    to with a password never holds it (~2 MiB)."""
    from pwdlib import PasswordHash

    return PasswordHash.recommended()


def _hash(password: str) -> str:
    with HASHING:
        return _hasher().hash(password.encode("utf-8", "surrogatepass"))


@cache
def _unknown() -> str:
    """Verified against when the login is unknown, so a wrong login costs what a wrong password does."""
    return _hash(secrets.token_hex(16))


def _verify(password: str, stored: str) -> bool:
    with HASHING:
        return _hasher().verify(password.encode("utf-8", "surrogatepass"), stored)


@dataclass(frozen=True)
class Teacher:
    id: int
    login: str
    name: str
    role: str
    invited: bool  # invited and not yet signed up: no password
    disabled: bool
    epoch: int
    created_by: str
    created_at: datetime
    lms: bool = False  # made by an LTI launch: signs in from the LMS, no password needed

    @property
    def admin(self) -> bool:
        return self.role == "admin"


def _teacher(row) -> Teacher:
    return Teacher(
        row.id,
        row.login,
        row.name,
        row.role,
        row.password_hash is None and row.lms_platform is None,
        row.disabled_at is not None,
        row.epoch,
        row.created_by,
        row.created_at,
        row.lms_platform is not None,
    )


def login_of(text: str) -> str:
    """A login as stored (lower case, trimmed); a UserError when it is not one."""
    login = text.strip().lower()
    if not LOGIN.match(login):
        raise UserError(_("登录名需 3–60 个字符：小写字母、数字和 . _ @ + -。"), field="login")
    return login


def name_of(text: str) -> str:
    name = " ".join(text.split())
    if not name or len(name) > 40 or not name.isprintable():
        raise UserError(_("名字需 1–40 个字符。"), field="name")
    return name


def listed(db: Connection) -> list[Teacher]:
    return [_teacher(r) for r in db.execute(select(teachers).order_by(teachers.c.login))]


def _row_of(db: Connection, login: str):
    return db.execute(select(teachers).where(teachers.c.login == login.strip().lower())).first()


def by_login(db: Connection, login: str) -> Teacher | None:
    row = _row_of(db, login)
    return _teacher(row) if row else None


def named(db: Connection, ids: list[int]) -> list[Teacher]:
    return [_teacher(r) for r in db.execute(select(teachers).where(teachers.c.id.in_(ids)).order_by(teachers.c.login))]


def any_account(db: Connection) -> bool:
    return db.execute(select(teachers.c.id).limit(1)).first() is not None


def get(db: Connection, teacher_id: int) -> Teacher:
    row = db.execute(select(teachers).where(teachers.c.id == teacher_id)).first()
    if row is None:
        raise NotFound(_("没有这个教师账号。"))
    return _teacher(row)


def current(db: Connection, teacher_id: int, epoch: int) -> Teacher | None:
    """The account a session names, while it may still act: enabled and signed at its epoch."""
    row = db.execute(select(teachers).where(teachers.c.id == teacher_id)).first()
    if row is None or row.disabled_at is not None or row.epoch != epoch:
        return None
    if row.password_hash is None and row.lms_platform is None:
        return None
    return _teacher(row)


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def invite(db: Connection, login: str, name: str, role: str, by: str, now: datetime) -> tuple[Teacher, str]:
    """A new account and the code of its one-time sign-up link (shown once, stored as a digest)."""
    if role not in ROLES:
        raise UserError(_("角色只能是教师或管理员。"), field="role")
    code = secrets.token_urlsafe(24)
    values = {
        "login": login_of(login),
        "name": name_of(name),
        "role": role,
        "invite_digest": _digest(code),
        "invite_expires": now + timedelta(days=INVITE_DAYS),
        "epoch": 0,
        "created_by": by,
        "created_at": now,
    }
    try:
        with db.begin_nested():
            new_id = db.execute(teachers.insert().values(**values)).inserted_primary_key[0]
    except IntegrityError:
        raise Conflict(_("登录名 “%(login)s” 已被使用。", login=values["login"]), field="login") from None
    return get(db, new_id), code


def from_lms(db: Connection, platform: int, name: str, by: str, now: datetime) -> Teacher:
    """A teacher account for an instructor's first launch from an LMS: signed in by the LMS, no
    password (an admin may still send it a sign-up link)."""
    login = f"lti{platform}-{secrets.token_hex(6)}"
    clean = " ".join(name.split())[:40] if name and name.isprintable() and name.strip() else login
    values = {"login": login, "name": clean, "role": "teacher", "epoch": 0, "lms_platform": platform}
    new_id = db.execute(teachers.insert().values(**values, created_by=by, created_at=now)).inserted_primary_key[0]
    return get(db, new_id)


def reinvite(db: Connection, teacher_id: int, now: datetime) -> tuple[Teacher, str]:
    """A fresh sign-up link for an account (a lost or expired one): the old link stops working,
    and so does the password, until the new link sets one."""
    code = secrets.token_urlsafe(24)
    changed = db.execute(
        update(teachers)
        .where(teachers.c.id == teacher_id)
        .values(
            invite_digest=_digest(code),
            invite_expires=now + timedelta(days=INVITE_DAYS),
            password_hash=None,
            epoch=teachers.c.epoch + 1,
        )
    ).rowcount
    if not changed:
        raise NotFound(_("没有这个教师账号。"))
    return get(db, teacher_id), code


def invited(db: Connection, code: str, now: datetime) -> Teacher | None:
    """The account whose sign-up link this is, while the link is unused and fresh."""
    row = db.execute(select(teachers).where(teachers.c.invite_digest == _digest(code))).first()
    if row is None or row.invite_expires is None or utc(row.invite_expires) < now or row.disabled_at is not None:
        return None
    return _teacher(row)


def password_of(password: str, again: str) -> str:
    if len(password) < PASSWORD_MIN or len(password) > PASSWORD_MAX:
        raise UserError(_("密码需 %(min)s–%(max)s 个字符。", min=PASSWORD_MIN, max=PASSWORD_MAX), field="password")
    if password != again:
        raise UserError(_("两次输入的密码不一致。"), field="again")
    return password


def sign_up(db: Connection, code: str, password: str, again: str, now: datetime) -> Teacher:
    """Set the account's password through its sign-up link, which is used up by it."""
    password = password_of(password, again)
    teacher = invited(db, code, now)
    if teacher is None:
        raise NotFound(_("这个注册链接无效、已用过或已过期，请向管理员要一个新的。"))
    db.execute(
        update(teachers)
        .where(teachers.c.id == teacher.id, teachers.c.invite_digest == _digest(code))
        .values(password_hash=_hash(password), invite_digest=None, invite_expires=None, epoch=teacher.epoch + 1)
    )
    return get(db, teacher.id)


def authenticated(db: Connection, login: str, password: str) -> Teacher | None:
    """The account these credentials sign in, None when they do not (unknown, wrong or disabled:
    the same answer, and the same work, for each)."""
    row = _row_of(db, login)
    stored = row.password_hash if row is not None and row.password_hash else _unknown()
    ok = _verify(password, stored)
    if not ok or row is None or row.password_hash is None or row.disabled_at is not None:
        return None
    return _teacher(row)


def set_disabled(db: Connection, teacher_id: int, disabled: bool, now: datetime) -> Teacher:
    """Disable an account (its sessions end at once) or enable it again."""
    values = {"disabled_at": now, "epoch": teachers.c.epoch + 1} if disabled else {"disabled_at": None}
    if not db.execute(update(teachers).where(teachers.c.id == teacher_id).values(**values)).rowcount:
        raise NotFound(_("没有这个教师账号。"))
    return get(db, teacher_id)
