"""Everything a snippet's class page shows, as one dict: the page renders it, the API returns it."""

from datetime import UTC, datetime

from markupsafe import Markup

from ..engine.tokens import candidate_spans, eligible_spans
from ..i18n import _
from ..memory.progress import chart_svg, coloured_code
from . import alternatives, roster
from .figures import Scope, by_day, chart_points, common_answers, token_rates, totals

MISS_EDGES = (0.1, 0.25, 0.5, 0.75)  # miss rate → heat level 1–5


def snippet_stats(db, snippet, scope: Scope, at: datetime) -> dict:
    rates = token_rates(db, scope)
    given = common_answers(db, scope)
    wrong, accepted, unproven = given["wrong"], given["accepted"], given["unproven"]
    history = alternatives.history(db, scope.snippet_id, scope.version)
    in_force = {(a["first"], a["last"], a["text"]): a["id"] for a in history if a["withdrawn_at"] is None}
    days = by_day(db, scope)
    place = blank_places(snippet)
    return {
        "snippet": scope.snippet_id,
        "version": scope.version,
        "class": scope.class_code,
        "from": scope.start,
        "to": scope.end,
        **totals(db, scope),
        "days": days,
        "tokens": _blanks(place, rates, wrong, accepted, in_force, unproven),
        "heat": {str(span): {"seen": seen, "missed": missed} for span, (seen, missed) in sorted(rates.items())},
        "alternatives": [_alternative(a, place(a["first"], a["last"])) for a in history],
        "per_learner": roster.roster(db, scope, at) if scope.class_code is not None else None,
    }


def page_parts(snippet, stats: dict) -> dict:
    """The chart and the heatmap, as markup for the page."""
    points = chart_points(stats["days"])
    label = _("每天的平均正确率：%(n)s 天", n=len(points))
    rates = {int(k): (v["seen"], v["missed"]) for k, v in stats["heat"].items()}
    return {"chart": chart_svg(points, label, when=_day), "heatmap": heatmap(snippet.code, rates)}


def heatmap(code: str, rates: dict[int, tuple[int, int]]) -> Markup:
    def mark(span):
        seen, missed = rates.get(span.index, (0, 0))
        if not seen:
            return 0, None
        rate = f"{missed / seen:.0%}"
        tip = _("做过 %(seen)s 次，没答出 %(missed)s 次（%(rate)s）", seen=seen, missed=missed, rate=rate)
        return 1 + sum(missed / seen >= edge for edge in MISS_EDGES), tip

    return coloured_code(code, mark)


def _day(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).date().isoformat()


def blank_places(snippet):
    """(first, last) candidate index → the blank's full text and its line, or None when the code has
    no such tokens. A fixed blank is keyed by the eligible tokens inside it, so its text is the
    blank's own (`torch.max(m_i, m_ij)`, not up to its last name); a random one's is its tokens'."""
    code, spans = snippet.code, candidate_spans(snippet.code)
    fixed = {}
    for blank in snippet.blanks:
        inside = [s.index for s in eligible_spans(code) if blank.start <= s.start and s.end <= blank.end]
        if inside:
            fixed.setdefault((inside[0], inside[-1]), (blank.start, blank.end))

    def place(first: int, last: int) -> tuple[str, int] | None:
        if not (0 <= first <= last < len(spans)):
            return None  # recorded on code that no longer has that token (cannot happen within a version)
        start, end = fixed.get((first, last), (spans[first].start, spans[last].end))
        return code[start:end], code.count("\n", 0, start) + 1

    return place


def _blanks(place, rates: dict, wrong: dict, accepted: dict, in_force: dict, unproven: dict) -> list[dict]:
    """Per blank with answers to show: its text, line, miss rate, wrong and accepted answers, and
    answers that passed where the check cannot tell (counted wrong; a teacher may accept them)."""
    out = []
    for first, last in sorted(set(wrong) | set(accepted) | set(unproven)):
        found = place(first, last)
        if found is None:
            continue
        seen, missed = rates.get(first, (0, 0))
        out.append(
            {
                "first": first,
                "last": last,
                "text": found[0],
                "line": found[1],
                "seen": seen,
                "missed": missed,
                "miss_rate": round(missed / seen, 4) if seen else None,
                "wrong": [{"given": g, "count": n} for g, n in wrong.get((first, last), ())],
                "accepted": [
                    {"given": g, "count": n, "alternative": in_force.get((first, last, g))}
                    for g, n in accepted.get((first, last), ())
                ],
                "unproven": [
                    {"given": g, "count": n, "alternative": in_force.get((first, last, g))}
                    for g, n in unproven.get((first, last), ())
                ],
            }
        )
    out.sort(key=lambda b: (-(b["miss_rate"] or 0), b["first"]))
    return out


def _alternative(row: dict, place: tuple[str, int] | None) -> dict:
    return {
        "id": row["id"],
        "first": row["first"],
        "last": row["last"],
        "blank": place and place[0],  # the text it stands in for, and where
        "line": place and place[1],
        "text": row["text"],
        "accepted_by": row["accepted_by"],
        "accepted_at": row["accepted_at"].isoformat(),
        "withdrawn_by": row["withdrawn_by"],
        "withdrawn_at": row["withdrawn_at"].isoformat() if row["withdrawn_at"] else None,
    }
