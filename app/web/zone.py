"""The learner's time zone: dates, due times and "today" are theirs, not the server's.

The browser names its zone (static/app.js sets the `cc_tz` cookie from
`Intl.DateTimeFormat().resolvedOptions().timeZone`); a name the tz database does not hold, or no
cookie (no script), means UTC, and the page says so.
"""

from datetime import UTC, datetime, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from fastapi import Request
from jinja2 import pass_context

COOKIE = "cc_tz"


@cache  # the tz database's names, read once: reading them costs ~3 ms, a drill page's CPU several times over
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def zone_named(name: str) -> tzinfo:
    """The zone of that IANA name, or UTC for anything else (ZoneInfo keeps the zones it made)."""
    if len(name) > 64 or name not in _zones():
        return UTC
    return ZoneInfo(name)


def learner_zone(request: Request) -> tzinfo:
    return zone_named(request.cookies.get(COOKIE, ""))


def shown_time(value, zone: tzinfo) -> str:
    """A moment (unix seconds, a datetime, or ISO text) as "YYYY-MM-DD HH:MM" in `zone`, with
    "UTC" after it when the learner's zone is not known."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    elif isinstance(value, int | float):
        value = datetime.fromtimestamp(value, UTC)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    text = value.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    return text + " UTC" if zone is UTC else text


def shown_date(value, zone: tzinfo) -> str:
    return shown_time(value, zone)[:10]


@pass_context
def local_time(context, value) -> str:
    """Template global: `local_time(moment)` in the requesting learner's zone."""
    request = context.get("request")
    return shown_time(value, learner_zone(request) if request is not None else UTC)


@pass_context
def local_date(context, value) -> str:
    request = context.get("request")
    return shown_date(value, learner_zone(request) if request is not None else UTC)
