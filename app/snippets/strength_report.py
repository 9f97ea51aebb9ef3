"""A check-strength report as data: what the database keeps, the API returns and the pages show.

Every position by its file line, its column in the drill code and the line's text, with its
state and its mutants; the survivors listed apart with their hints (hints.py). What a teacher
decided about them is applied when the report is read (decisions.py), not stored in it.
"""

from .model import Snippet
from .strength import METHOD, StrengthReport
from .places import file_line_of


def report_data(report: StrengthReport, snippet: Snippet) -> dict:
    rows = snippet.code.splitlines()
    source = snippet.source or ""
    file_line = file_line_of(source)

    def where(line: int, column: int) -> dict:
        return {
            "line": line,
            "file_line": file_line("code", line) or line,
            "column": column,
            "line_text": rows[line - 1] if 0 < line <= len(rows) else "",
        }

    def mutant(r) -> dict:
        m = r.mutant
        return {
            "index": m.span_index,
            **where(m.line, m.column),
            "original": m.original,
            "replacement": m.replacement,
            "status": r.status,
            "likely_equivalent": r.likely_equivalent,
            "reasons": list(r.reasons),
        }

    return {
        "method": METHOD,
        "complete": report.complete,
        "seconds": round(report.seconds, 2),
        "mutants": len(report.results),
        "run": report.total_run,
        "caught": report.caught,
        "score": report.score,
        "counts": report.counts(),
        "positions": [
            {
                "index": p.span_index,
                **where(p.line, p.column),
                "text": p.text,
                "state": p.state,
                "mutants": [
                    {"replacement": r.mutant.replacement, "status": r.status, "likely_equivalent": r.likely_equivalent}
                    for r in p.results
                ],
            }
            for p in report.positions
        ],
        "survivors": [mutant(r) for r in report.survivors],
        "reference_failures": [
            {**f, "file_line": file_line(f["part"], f.get("line"))} for f in report.reference_failures
        ],
    }


def relocated(data: dict, snippet: Snippet) -> dict:
    """A report made of this code and check, its file lines those of this very file (an analysis
    shipped with a file whose prose has changed since keeps its results, not its file lines)."""
    file_line = file_line_of(snippet.source or "")

    def moved(item: dict, part: str = "code") -> dict:
        line = item.get("line")
        return {**item, "file_line": (file_line(part, line) or line) if line else None}

    return {
        **data,
        "positions": [moved(p) for p in data["positions"]],
        "survivors": [moved(m) for m in data["survivors"]],
        "reference_failures": [moved(f, f["part"]) if f.get("part") else f for f in data["reference_failures"]],
    }


def judged(data: dict) -> dict:
    """What grading needs of a report, kept beside it: positions where every mutant ran and some
    was caught, and each position's surviving replacements."""
    survivors: dict[str, list[str]] = {}
    for m in data["survivors"]:
        survivors.setdefault(str(m["index"]), []).append(m["replacement"])
    tested = [p["index"] for p in data["positions"] if p["state"] in ("caught", "weak")]
    return {"tested": tested, "survivors": survivors}
