"""Platforms (LMSs) an admin registers: the values a launch from each is checked against, and
PyLTI1p3's tool configuration built from them."""

import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.exc import IntegrityError

from app.errors import Conflict, NotFound, UserError
from app.i18n import _

from . import keys
from .tables import courses, grades, links, platforms, users

URL_FIELDS = ("key_set_url", "auth_login_url", "auth_token_url")
DEPLOYMENT = re.compile(r"^[\x21-\x7e]{1,255}$")


@dataclass(frozen=True)
class Platform:
    id: int
    name: str
    issuer: str
    client_id: str
    deployment_ids: list[str]
    key_set_url: str
    auth_login_url: str
    auth_token_url: str

    def as_json(self) -> dict:
        return {field: getattr(self, field) for field in self.__dataclass_fields__}


def _platform(row) -> Platform:
    return Platform(**{field: getattr(row, field) for field in Platform.__dataclass_fields__})


def checked(values: dict) -> dict:
    """A registration's fields as stored, or a UserError naming the first wrong one."""
    out = {}
    for field in ("name", "issuer", "client_id"):
        text = str(values.get(field) or "").strip()
        if not text or len(text) > (60 if field == "name" else 255):
            raise UserError(_("请填写“%(field)s”（不超过 255 个字符）。", field=field), field=field)
        out[field] = text
    if not _web_url(out["issuer"]):
        raise UserError(_("“issuer” 必须是 https:// 或 http:// 开头的网址。"), field="issuer")
    for field in URL_FIELDS:
        text = str(values.get(field) or "").strip()
        if not _web_url(text) or len(text) > 500:
            raise UserError(_("“%(field)s” 必须是 https:// 或 http:// 开头的网址。", field=field), field=field)
        out[field] = text
    raw = values.get("deployment_ids") or []
    ids = [d.strip() for d in (raw.split() if isinstance(raw, str) else raw) if str(d).strip()]
    if not ids or len(ids) > 50 or not all(isinstance(d, str) and DEPLOYMENT.match(d) for d in ids):
        raise UserError(_("请填写至少一个部署 ID（deployment id），用空格或换行分开。"), field="deployment_ids")
    out["deployment_ids"] = list(dict.fromkeys(ids))
    return out


def _web_url(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("https", "http") and bool(parts.netloc) and not any(c.isspace() for c in text)


def register(db: Connection, values: dict, now: datetime) -> Platform:
    fields = checked(values)
    try:
        with db.begin_nested():
            new_id = db.execute(
                insert(platforms).values(**fields, created_at=now).returning(platforms.c.id)
            ).scalar_one()
    except IntegrityError:
        raise Conflict(_("这个 issuer 和 client id 已经登记过了。")) from None
    keys.made(db)  # what the platform will verify the tool's messages with
    return get(db, new_id)


def listed(db: Connection) -> list[Platform]:
    return [_platform(r) for r in db.execute(select(platforms).order_by(platforms.c.id))]


def get(db: Connection, platform_id: int) -> Platform:
    row = db.execute(select(platforms).where(platforms.c.id == platform_id)).first()
    if row is None:
        raise NotFound(_("没有这个平台。"))
    return _platform(row)


def remove(db: Connection, platform_id: int) -> Platform:
    """Unregister a platform with what was bound through it: its users' bindings, courses, links
    and owed grades (learners, classes, accounts and attempts stay)."""
    found = get(db, platform_id)
    for table in (grades, links, courses, users):
        db.execute(delete(table).where(table.c.platform_id == platform_id))
    db.execute(delete(platforms).where(platforms.c.id == platform_id))
    return found


def of(db: Connection, issuer: str, client_id: str) -> Platform | None:
    row = db.execute(select(platforms).where(platforms.c.issuer == issuer, platforms.c.client_id == client_id)).first()
    return _platform(row) if row else None
