"""A check-strength report as data: what the database keeps, the API returns and the pages show.

Every position by its file line, its column in the drill code and the line's text, with its
state and its mutants; survivors and likely equivalent mutants listed apart.
"""

from .model import Snippet
from .strength import StrengthReport
from .validate import file_line


def report_data(report: StrengthReport, snippet: Snippet) -> dict:
    rows = snippet.code.splitlines()
    source = snippet.source or ""

    def where(line: int, column: int) -> dict:
        return {
            "line": line,
            "file_line": file_line(source, "code", line) or line,
            "column": column,
            "line_text": rows[line - 1] if 0 < line <= len(rows) else "",
        }

    def mutant(r) -> dict:
        m = r.mutant
        return {
            **where(m.line, m.column),
            "original": m.original,
            "replacement": m.replacement,
            "status": r.status,
            "equivalent": r.equivalent,
        }

    return {
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
                    {"replacement": r.mutant.replacement, "status": r.status, "equivalent": r.equivalent}
                    for r in p.results
                ],
            }
            for p in report.positions
        ],
        "survivors": [mutant(r) for r in report.survivors],
        "equivalent": [mutant(r) for r in report.equivalent],
    }
