"""A learner's own attempts as CSV (cells that a spreadsheet would run as a formula are quoted)."""
import csv
import io
import json

from sqlalchemy import select

from ..db.tables import attempts

COLUMNS = ("id", "created_at", "snippet_id", "version", "mode", "unit", "kinds", "rate", "seed", "correct",
           "total", "outcome", "practice", "hints", "seconds", "blanks")


def attempts_csv(db, learner: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    query = select(*(attempts.c[c] for c in COLUMNS)).where(attempts.c.learner == learner).order_by(
        attempts.c.created_at)
    for row in db.execute(query):
        writer.writerow(csv_cell(v) for v in row)
    return out.getvalue()


def csv_cell(value) -> str:
    if value is None:
        return ""
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
