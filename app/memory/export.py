"""A learner's own attempts as CSV (cells that a spreadsheet would run as a formula are quoted)."""

import csv
import io
import json
import re
from datetime import datetime

from sqlalchemy import select

from ..db.moments import utc
from ..db.tables import attempts

COLUMNS = (
    "id",
    "created_at",
    "snippet_id",
    "version",
    "mode",
    "unit",
    "kinds",
    "rate",
    "seed",
    "correct",
    "total",
    "outcome",
    "practice",
    "hints",
    "seconds",
    "blanks",
)


def attempts_csv(db, learner: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    query = (
        select(*(attempts.c[c] for c in COLUMNS)).where(attempts.c.learner == learner).order_by(attempts.c.created_at)
    )
    for row in db.execute(query):
        writer.writerow(csv_cell(iso_time(v) if isinstance(v, datetime) else v) for v in row)
    return out.getvalue()


def iso_time(at: datetime) -> str:
    """A stored time as ISO 8601 with its offset (UTC), whichever database gave it back (SQLite's
    are naive, in UTC), to the second: what a spreadsheet or a script reads without guessing."""
    return utc(at).isoformat(timespec="seconds")


# What a spreadsheet may read as the start of a formula (OWASP's CSV injection list, with the
# full-width forms some locales convert).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value) -> str:
    if value is None:
        return ""
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else str(value)
    return "'" + text if _formula_like(text) else text


def _formula_like(text: str) -> bool:
    """Whether a spreadsheet could run the cell. A lone operator (`-`, `+`, `@`: answers of code
    blanks) has no operand to act on, and a plain number is read as that number: both stay as
    they are, so the data means what it says; `-2+3`, `=…`, `@SUM(…)` are quoted."""
    if not text.startswith(FORMULA_STARTS):
        return False
    return not (len(text) == 1 and text not in "\t\r") and not NUMBER.fullmatch(text)
