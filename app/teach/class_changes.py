"""A teacher's changes to a class: create, rename, archive and restore, delete, remove a learner.

The class page's forms and the JSON API share these rules; every refusal is a UserError (naming
the form field at fault) that changes nothing. An archived class is read only: it can be
restored or deleted, nothing else, and nobody can join it.
"""

from app.errors import Conflict, NotFound, UserError

from ..classes import changes, roster
from ..i18n import _
from . import accounts


def checked_code(typed: str) -> str:
    """A new class's code: the typed one, or a fresh one when left empty."""
    code = typed.strip() or roster.new_code()
    if not roster.CODE.match(code):
        raise UserError(_("班级代码只能由字母、数字和 - 组成，最多 32 个字符。"), field="code")
    return code


def checked_name(typed: str) -> str | None:
    """A class name with runs of spaces made one (None: no name)."""
    name = " ".join(str(typed).split())
    if len(name) > roster.NAME_MAX or not name.isprintable():
        raise UserError(_("班级名称最多 %(n)s 个字符。", n=roster.NAME_MAX), field="name")
    return name or None


def create(db, typed_code: str, typed_name: str, who: str, owner: int | None = None) -> str:
    code, name = checked_code(typed_code), checked_name(typed_name)
    if roster.exists(db, code) or changes.used_before(db, code):
        raise Conflict(_("班级代码 “%(code)s” 已经有了，换一个。", code=code), field="code")
    roster.create(db, code, name, who, owner)
    return code


def may_teach(db, code: str, teacher: int | None) -> bool:
    """Whether a teacher may see and change the class: an admin (None) any, an account those it
    owns or co-teaches."""
    return teacher is None or roster.teaches(db, code, teacher)


def add_co_teacher(db, code: str, login: str) -> dict:
    """Another account teaches the class too (named by its login)."""
    row = active(db, code)
    teacher = accounts.by_login(db, login)
    if teacher is None or teacher.disabled:
        raise NotFound(_("没有登录名为 “%(login)s” 的教师。", login=login.strip()[:60]), field="login")
    if teacher.id != row["owner_id"]:
        roster.add_co_teacher(db, row["code"], teacher.id)
    return row


def remove_co_teacher(db, code: str, teacher: int) -> dict:
    row = found(db, code)
    roster.remove_co_teacher(db, row["code"], teacher)
    return row


def found(db, code: str) -> dict:
    """The class of a code typed in any case, archived or not."""
    row = roster.one(db, code) if roster.CODE.match(code) else None
    if row is None:
        raise NotFound(_("没有班级代码 “%(code)s”。", code=code[:32]))
    return row


def active(db, code: str) -> dict:
    """The class, when it may be changed (not archived)."""
    row = found(db, code)
    if row["archived_at"] is not None:
        raise Conflict(_("班级 “%(code)s” 已归档，只能查看：先恢复它才能修改。", code=row["code"]))
    return row


def rename(db, code: str, typed_name: str) -> dict:
    row = active(db, code)
    changes.rename(db, row["code"], checked_name(typed_name))
    return found(db, row["code"])


def archive(db, code: str, archived: bool) -> dict:
    row = found(db, code)
    if (row["archived_at"] is not None) != archived:
        changes.set_archived(db, row["code"], archived)
    return found(db, row["code"])


def delete(db, code: str, confirm: str | None) -> int:
    """Deletes the class (`confirm` is its code typed again; None: asked otherwise, as the API's
    DELETE). Returns how many learners were unlinked."""
    row = found(db, code)
    if confirm is not None and confirm.strip().upper() != row["code"].upper():
        raise UserError(_("请输入班级代码 “%(code)s” 以确认删除。", code=row["code"]), field="confirm")
    return changes.delete_class(db, row["code"])


def member(db, code: str, short: str) -> str | None:
    """The learner in the class labelled `short` (their short id, with or without its #)."""
    return changes.member(db, code, short[:16])


def not_a_member(short: str) -> NotFound:
    return NotFound(_("班级里没有学习者 “%(who)s”。", who=short[:16]))


def remove_learner(db, code: str, short: str) -> tuple[str, str]:
    """Takes a learner out of the class (their attempts stay theirs): the class code and their label."""
    row = active(db, code)
    learner = member(db, row["code"], short)
    if learner is None:
        raise not_a_member(short)
    changes.unlink(db, learner)
    return row["code"], roster.short_id(learner)
