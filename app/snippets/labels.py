"""What a sandbox verdict's status and a snippet's parts are called, in the UI language."""

from app.i18n import _


def status_label(status: str) -> str:
    return {
        "passed": _("验证通过"),
        "failed": _("验证未通过"),
        "error": _("运行出错"),
        "timeout": _("超出时间限制"),
        "memory": _("超出内存限制"),
        "crashed": _("进程崩溃"),
        "output": _("输出过多"),
    }.get(status, status)


def part_label(part: str) -> str:
    return {"code": _("代码"), "setup": _("准备代码"), "check": _("验证代码")}.get(part, part)
