"""How late a due review is, in words: "3 天前到期" says more than a date three days old."""

from datetime import datetime

from ..i18n import ngettext


def overdue_by(due: datetime, now: datetime) -> str | None:
    """The time since `due` in its largest whole unit (days, hours, minutes); None when not due yet."""
    late = (now - due).total_seconds()
    if late < 0:
        return None
    if late >= 86400:
        n = int(late // 86400)
        return ngettext("%(num)d 天前到期", "%(num)d 天前到期", n, num=n)
    if late >= 3600:
        n = int(late // 3600)
        return ngettext("%(num)d 小时前到期", "%(num)d 小时前到期", n, num=n)
    n = max(1, int(late // 60))
    return ngettext("%(num)d 分钟前到期", "%(num)d 分钟前到期", n, num=n)
