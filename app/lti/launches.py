"""What a launch that PyLTI1p3 validated does: the LMS user bound to a teacher account or a
learner id, the LMS course to a class, the resource link to an assignment and its grade line.
All in the caller's transaction: a launch either signs its user in with every binding written,
or changes nothing."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from app.classes import assignments, roster
from app.errors import Forbidden
from app.i18n import _
from app.memory import identity
from app.teach import accounts

from .platforms import Platform
from .tables import courses, grades, links, users

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


@dataclass(frozen=True)
class Claims:
    """The parts of a launch's id_token this tool acts on."""

    sub: str
    name: str
    instructor: bool
    course: str
    course_title: str
    link: str | None
    assignment: int | None  # the deep-linked assignment this link opens (its custom parameter)
    lineitem: str | None  # where its score goes, when the platform grants the score scope

    @classmethod
    def of(cls, body: dict, instructor: bool) -> "Claims":
        """The claims, or a ValueError naming what this tool cannot act on (no user, ids too long)."""
        context, link = _object(body, CLAIM + "context"), _object(body, CLAIM + "resource_link")
        custom, ags = _object(body, CLAIM + "custom"), _object(body, AGS)
        named = body.get("name") or " ".join(filter(None, (body.get("given_name"), body.get("family_name"))))
        if not body.get("sub"):
            raise ValueError("the launch names no user (sub)")
        for what, value, longest in (
            ("sub", body["sub"], 255),
            ("context id", context.get("id"), 255),
            ("resource link id", link.get("id"), 255),
            ("lineitem", ags.get("lineitem"), 500),
        ):
            if len(str(value or "")) > longest:
                raise ValueError(f"{what} longer than {longest} characters")
        return cls(
            sub=str(body["sub"]),
            name=str(named or body.get("email") or ""),
            instructor=instructor,
            course=str(context.get("id") or ""),
            course_title=str(context.get("title") or context.get("label") or ""),
            link=str(link["id"]) if link.get("id") else None,
            assignment=_number(custom.get("assignment")),
            lineitem=str(ags["lineitem"]) if ags.get("lineitem") and SCORE_SCOPE in (ags.get("scope") or []) else None,
        )


def _object(body: dict, claim: str) -> dict:
    value = body.get(claim)
    return value if isinstance(value, dict) else {}


def _number(raw) -> int | None:
    text = str(raw or "")
    return int(text) if text.isdigit() and len(text) < 10 else None


def teacher(db: Connection, platform: Platform, claims: Claims, now: datetime) -> accounts.Teacher:
    """The instructor's account: the one bound to them, made on their first launch."""
    bound = _bound(db, platform, claims.sub)
    if bound is not None and bound.teacher_id is not None:
        found = accounts.get(db, bound.teacher_id)
        if found.disabled:
            raise Forbidden(_("这个教师账号已被停用，请联系管理员。"))
        return found
    made = accounts.from_lms(db, platform.id, claims.name, by=platform.name, now=now)
    _bind(db, platform, claims.sub, bound, teacher_id=made.id)
    return made


def learner(db: Connection, platform: Platform, claims: Claims) -> str:
    """The student's learner id: the one bound to them, so progress follows them to any device."""
    bound = _bound(db, platform, claims.sub)
    if bound is not None and bound.learner:
        return bound.learner
    made = identity.Identity.new_id()
    _bind(db, platform, claims.sub, bound, learner=made)
    shown = " ".join(claims.name.split())[:40]
    if shown and shown.isprintable():  # the LMS's display name, as a learner would type theirs
        identity.save_profile(db, made, name=shown)
    return made


def _bound(db: Connection, platform: Platform, sub: str):
    return db.execute(select(users).where(users.c.platform_id == platform.id, users.c.sub == sub)).first()


def _bind(db: Connection, platform: Platform, sub: str, bound, **values) -> None:
    if bound is None:
        db.execute(insert(users).values(platform_id=platform.id, sub=sub, **values))
    else:
        db.execute(update(users).where(users.c.platform_id == platform.id, users.c.sub == sub).values(**values))


def teacher_of(db: Connection, platform: Platform, sub: str) -> int | None:
    """The teacher account an LMS user is bound to, if any."""
    bound = _bound(db, platform, sub)
    return bound.teacher_id if bound is not None else None


def class_of(db: Connection, platform: Platform, course: str) -> str | None:
    """The class bound to an LMS course, if it was launched before and the class still exists (a
    teacher may have deleted it: the course's next launch makes a new one)."""
    code = db.execute(
        select(courses.c.class_code).where(courses.c.platform_id == platform.id, courses.c.context_id == course)
    ).scalar()
    return code if code is not None and roster.exists(db, code) else None


def course_class(db: Connection, platform: Platform, claims: Claims, teacher_id: int | None) -> str:
    """The class bound to the launch's course, made on its first launch; an instructor launching
    teaches it (its owner, or a co-teacher beside the owner)."""
    if not claims.course:
        raise Forbidden(_("这次启动没有课程信息（context），无法确定班级。"))
    code = class_of(db, platform, claims.course)
    if code is None:
        code = _new_class(db, claims, platform, teacher_id)
        key = (courses.c.platform_id == platform.id) & (courses.c.context_id == claims.course)
        db.execute(delete(courses).where(key))  # a binding to a deleted class
        db.execute(insert(courses).values(platform_id=platform.id, context_id=claims.course, class_code=code))
    elif teacher_id is not None:
        _teach(db, code, teacher_id)
    return code


def _new_class(db: Connection, claims: Claims, platform: Platform, owner: int | None) -> str:
    name = " ".join(claims.course_title.split())[:60] or None
    for _try in range(5):
        code = roster.new_code()
        try:
            with db.begin_nested():
                roster.create(db, code, name, who=platform.name, owner=owner)
            return code
        except IntegrityError:
            continue
    raise RuntimeError("no free class code")


def _teach(db: Connection, code: str, teacher_id: int) -> None:
    found = roster.one(db, code)
    if found and found.get("owner_id") is None:
        roster.adopt(db, code, teacher_id)
    elif not roster.teaches(db, code, teacher_id):
        roster.add_co_teacher(db, code, teacher_id)


def link(db: Connection, platform: Platform, claims: Claims, code: str) -> int | None:
    """The assignment the resource link opens (None: the class itself), its binding kept up to date."""
    if claims.link is None:
        return None
    key = (links.c.platform_id == platform.id) & (links.c.link_id == claims.link)
    row = db.execute(select(links).where(key)).first()
    assignment = claims.assignment if _in_class(db, claims.assignment, code) else None
    values = {
        "class_code": code,
        "assignment_id": assignment if assignment is not None else (row.assignment_id if row else None),
        "lineitem": claims.lineitem or (row.lineitem if row else None),
    }
    if row is None:
        db.execute(insert(links).values(platform_id=platform.id, link_id=claims.link, **values))
    else:
        db.execute(update(links).where(key).values(**values))
    return values["assignment_id"]


def _in_class(db: Connection, assignment_id: int | None, code: str) -> bool:
    return assignment_id is not None and any(a.id == assignment_id for a in assignments.of_class(db, code))


def owe_grades(db: Connection, platform: Platform, claims: Claims, learner_id: str, now: datetime) -> None:
    """From this launch on, the learner's progress on the link's assignment goes to the LMS."""
    row = db.execute(select(links).where(links.c.platform_id == platform.id, links.c.link_id == claims.link)).first()
    if row is None or row.assignment_id is None or not row.lineitem:
        return
    key = (grades.c.platform_id == platform.id) & (grades.c.link_id == claims.link) & (grades.c.learner == learner_id)
    if db.execute(select(grades.c.learner).where(key)).first() is None:
        db.execute(
            insert(grades).values(
                platform_id=platform.id, link_id=claims.link, learner=learner_id, sub=claims.sub, next_try=now
            )
        )
