"""Progress figures for `/me`: per-snippet numbers, an accuracy chart, and the miss heatmap."""

import html
from datetime import UTC, date, datetime, timedelta, tzinfo

from markupsafe import Markup

from ..engine.cjk import lang_attribute
from ..engine.tokens import eligible_spans
from ..i18n import _
from .update import decayed

CHART_W, CHART_H, LABEL_W = 240, 40, 44


def streak(days: list[str], today: date) -> int:
    """Consecutive days practised, ending today (or yesterday: today's practice may still come)."""
    practised = set(days)
    day = today if today.isoformat() in practised else today - timedelta(days=1)
    count = 0
    while day.isoformat() in practised:
        count, day = count + 1, day - timedelta(days=1)
    return count


def practised_days(days: list[str], history: list[list[float]], zone: tzinfo) -> list[str]:
    """The days practised, in the learner's time zone: the recall attempts' own times (the last
    few dozen), and the stored UTC days before the oldest of them."""
    local = {datetime.fromtimestamp(t, zone).date().isoformat() for t, _acc in history}
    first = datetime.fromtimestamp(history[0][0], UTC).date().isoformat() if history else None
    return sorted(local | {d for d in days if first is None or d < first})


def chart_svg(history: list[list[float]], label: str | None = None, when=None, zone: tzinfo = UTC) -> Markup:
    """Accuracy per recall attempt, oldest first, as a small inline SVG (no script, no library),
    placed along a time axis with the dates (in `zone`) under it; `label` and `when` (a point's
    time as text) for other series, e.g. a class's days."""
    when = when or (lambda t: local_time(t, zone))
    if not history:
        return Markup("")
    n = len(history)
    first, last = history[0][0], history[-1][0]
    points = [(_x(t, first, last), CHART_H - acc * CHART_H, t, acc) for t, acc in history]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y, _t, _a in points)
    dots = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"><title>{when(t)} · {acc:.0%}</title></circle>'
        for x, y, t, acc in points
    )
    ticks = "".join(
        f'<line class="tick" x1="{x:.1f}" y1="{CHART_H}" x2="{x:.1f}" y2="{CHART_H + 3}"/>'
        for x in sorted({round(p[0], 1) for p in points})
    )
    latest = f"{history[-1][1]:.0%}"
    label = html.escape(label or _("正确率变化：%(n)s 次，最近 %(last)s", n=n, last=latest))
    return Markup(
        f'<svg class="chart" viewBox="{-LABEL_W} -6 {CHART_W + LABEL_W + 6} {CHART_H + 22}" role="img"'
        f' aria-label="{label}"><text x="-6" y="4">100%</text><text x="-6" y="{CHART_H + 4}">0%</text>'
        f'<line class="axis" x1="0" y1="{CHART_H}" x2="{CHART_W}" y2="{CHART_H}"/>'
        f'<line class="axis" x1="0" y1="0" x2="{CHART_W}" y2="0"/>{ticks}'
        f'{_dates(first, last, zone)}<polyline points="{line}"/>{dots}</svg>'
    )


def _x(t: float, first: float, last: float) -> float:
    """Where a time is on the axis: by time between the first and the last point, the middle for one."""
    return (t - first) / (last - first) * CHART_W if last > first else CHART_W / 2


def _dates(first: float, last: float, zone: tzinfo) -> str:
    """The time axis's labels: the first and the last day (one, centred, when they are the same)."""
    day = lambda t: datetime.fromtimestamp(t, zone).strftime("%Y-%m-%d")  # noqa: E731
    y = CHART_H + 14
    if day(first) == day(last):
        return f'<text class="date" x="{CHART_W / 2:.0f}" y="{y}">{day(first)}</text>'
    return (
        f'<text class="date start" x="0" y="{y}">{day(first)}</text>'
        f'<text class="date end" x="{CHART_W}" y="{y}">{day(last)}</text>'
    )


def local_time(timestamp: float, zone: tzinfo = UTC) -> str:
    return datetime.fromtimestamp(timestamp, zone).strftime("%Y-%m-%d %H:%M")


def utc_time(timestamp: int) -> str:
    return local_time(timestamp)


def heat_level(row, at: datetime) -> int:
    """0 never tested, 1 tested and not missed lately, 2–5 missed more often or more recently."""
    if row is None:
        return 0
    heat = decayed(row.heat, row.heat_at, at.timestamp()) if row.heat_at else 0.0
    return 1 + sum(heat >= edge for edge in (0.35, 1.0, 2.0, 4.0))


def heatmap_html(code: str, memory: dict, at: datetime) -> Markup:
    """The code with every eligible token coloured by how often and how recently it was missed;
    hover or focus shows the wrong answers given there."""

    def mark(span):
        row = memory.get(span.index)
        return heat_level(row, at), row is not None and _tip(row)

    return coloured_code(code, mark)


def coloured_code(code: str, mark) -> Markup:
    """The code with every eligible token in a heat class; `mark(span)` gives (level 0–5, tip or
    None). A token with a tip can be focused to show it."""
    out, pos = [], 0
    for span in eligible_spans(code):
        out.append(_between(code[pos : span.start]))
        level, tip = mark(span)
        text = html.escape(span.text)
        if not tip:
            out.append(f'<span class="tok h{level}">{text}</span>')
        else:
            tip = html.escape(tip, quote=True)
            out.append(
                f'<span class="tok h{level}" tabindex="0" data-tip="{tip}" aria-label="{text}: {tip}">{text}</span>'
            )
        pos = span.end
    out.append(_between(code[pos:]))
    return Markup("".join(out))


def _between(text: str) -> str:
    """Code between tokens (comments, strings, spaces), its Chinese lines marked as such."""
    return "\n".join(
        f"<span{lang_attribute(line)}>{html.escape(line)}</span>" if lang_attribute(line) else html.escape(line)
        for line in text.split("\n")
    )


def _tip(row) -> str:
    tip = _("测过 %(seen)s 次，没答出 %(misses)s 次", seen=row.seen, misses=row.misses)
    if row.wrong:
        tip += _("；答过：%(wrong)s", wrong=_("、").join(row.wrong))  # the list separator too
    return tip


def duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return _("%(m)s 分 %(s)s 秒", m=minutes, s=int(seconds % 60)) if minutes else _("%(s)s 秒", s=int(seconds))
