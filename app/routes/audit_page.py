"""Who changed what: the audit trail for admins (/teach/audit), and each class's and snippet's own
last changes beside them (`changes_of`)."""

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web.deps import AdminSession, StoreDep
from app.web.teacher_auth import shown_teacher
from app.web.templating import render

from ..i18n import _
from ..teach import audit

router = APIRouter(prefix="/teach")


def action_names() -> dict[str, str]:
    """Each recorded action in the page's language."""
    return {
        "created": _("已创建"),
        "renamed": _("已改名"),
        "archived": _("已归档"),
        "restored": _("已恢复"),
        "deleted": _("已删除"),
        "learner removed": _("已移出学习者"),
        "assigned": _("已布置作业"),
        "assignment edited": _("已修改作业"),
        "assignment deleted": _("已删除作业"),
        "co-teacher added": _("已添加任课教师"),
        "co-teacher removed": _("已移除任课教师"),
        "uploaded": _("已上传"),
        "edited": _("已修改"),
        "published": _("已发布"),
        "unpublished": _("已撤回发布"),
        "imported": _("已导入"),
        "invited": _("已邀请"),
        "disabled": _("已停用"),
        "enabled": _("已重新启用"),
        "new link": _("已发新注册链接"),
        "answer accepted": _("已接受替代答案"),
        "answer withdrawn": _("已撤回替代答案"),
        "registered": _("已登记 LTI 平台"),
        "unregistered": _("已移除 LTI 平台"),
    }


def shown(rows: list[dict]) -> list[dict]:
    """Rows as a page prints them: the action, the teacher and an account's role in its language."""
    names, roles = action_names(), {"teacher": _("教师"), "admin": _("管理员")}
    return [
        {
            **r,
            "action_name": names.get(r["action"], r["action"]),
            "who_name": shown_teacher(r["who"]),
            "detail": roles.get(r["detail"], r["detail"]) if r["kind"] == "account" else r["detail"],
        }
        for r in rows
    ]


def changes_of(db, kind: str, subject: str, limit: int = 10) -> list[dict]:
    """A class's or a snippet's last changes, for its page."""
    return shown(audit.recent(db, kind, subject, limit))


def _json(row: dict) -> dict:
    keep = ("who", "account", "action", "kind", "subject", "detail")
    return {"at": row["at"].isoformat(), **{k: row[k] for k in keep}}


@router.get("/audit")
async def audit_page(request: Request, session: AdminSession, store: StoreDep) -> Response:
    with store.engine.connect() as db:
        rows = audit.recent(db, limit=300)
    context = {"csrf": session["csrf"], "rows": shown(rows)}
    return render(request, "teach/audit.html", context, data=lambda: {"changes": [_json(r) for r in rows]})
