"""What the teacher pages and the API show of a version's check-strength analysis.

A run under way in this process shows its live progress; otherwise the database's row does
(any worker may have run it). A finished analysis is shown with the teacher's decisions applied
(snippets/decisions.py), as a heatmap over the code: caught positions cool, weak ones warm, blind
ones hot; every survivor with its hints, and what the teacher can decide about it.
"""

from markupsafe import Markup

from ..db import strength_decisions, strength_rows
from ..i18n import _
from ..memory.progress import coloured_code
from ..snippets.decisions import decided, resolve

LEVELS = {"caught": 1, "equivalent": 1, "excluded": 0, "weak": 3, "untested": 4, "blind": 5}


def stored(engine, snippet, job=None) -> dict:
    """The analysis of this snippet version as JSON clients see it: state, progress, and the
    report once complete, with the teacher's decisions applied."""
    if job is not None and not job.finished:
        return {
            "state": "running",
            "queued": job.queued,  # waiting for the analyses ahead of it (one runs at a time)
            "complete": False,
            "done": job.done,
            "total": job.total,
            "error": None,
            "report": None,
        }
    row = strength_rows.load(engine, snippet.id, snippet.version)
    if row is None:
        return {"state": None, "queued": False, "complete": False, "done": 0, "total": 0, "error": None, "report": None}
    report = row["report"]
    if report is not None:
        with engine.connect() as db:
            resolved = resolve(snippet.code, strength_decisions.in_force(db, snippet.id))
        report = {**decided(report, resolved), "stale_decisions": [_stale(d) for d in resolved.stale]}
    return {
        "state": row["state"],
        "queued": False,
        "complete": row["state"] == "complete",
        "done": row["done"],
        "total": row["total"],
        "error": row["error"],
        "report": report,
    }


def _stale(decision) -> dict:
    a = decision.anchor
    return {
        "id": decision.id,
        "kind": a.kind,
        "line_text": a.line_text,
        "token": a.token,
        "replacement": a.replacement,
        "by": decision.decided_by,
        "at": decision.decided_at.isoformat(),
    }


def heatmap(code: str, report: dict) -> Markup:
    positions = {p["index"]: p for p in report.get("positions", ())}

    def mark(span):
        p = positions.get(span.index)
        if p is None:
            return 0, None
        return LEVELS.get(p["state"], 0), _tip(p)

    return coloured_code(code, mark)


def state_names() -> dict[str, str]:
    return {
        "caught": _("抓住"),
        "weak": _("弱"),
        "blind": _("盲"),
        "untested": _("未测"),
        "equivalent": _("等价"),
        "excluded": _("排除"),
    }


def _tip(position: dict) -> str:
    mutants = [f"{m['replacement']} {_mutant_word(m)}" for m in position["mutants"]]
    state = state_names().get(position["state"], position["state"])
    return _("%(state)s：%(mutants)s", state=state, mutants=_("、").join(mutants) or _("没有可用的变异体"))


def _mutant_word(mutant: dict) -> str:
    if mutant.get("equivalent"):
        return _("已标记等价")
    if mutant["status"] == "passed":
        return _("存活（可能等价）") if mutant.get("likely_equivalent") else _("存活")
    return _("未运行") if mutant["status"] == "not run" else _("被抓住")
