"""Class counters: what attempts add to them (fold.py adds each written attempt once), and what a
learner's deleted history takes out of them."""

from collections import defaultdict
from datetime import UTC, datetime

from sqlalchemy import bindparam, delete, select

from ..db.upserts import upsert
from ..memory.record import RECALLED
from ..memory.tables import learners
from .tables import activity, answers, spans

GIVEN_KEPT = 200  # characters of a wrong answer that are counted (longer ones are cut)
KEY = ("snippet_id", "version", "class_code", "day")
COUNTED = {  # table: the key columns beyond KEY, the counted columns
    activity: (("learner",), ("attempts", "recalls", "accuracy")),
    spans: (("span",), ("seen", "missed")),
    answers: (("first", "last", "state", "given"), ("count",)),
}
# Built once: every attempt batch reads its learners' classes.
CODES = select(learners.c.id, learners.c.class_code).where(learners.c.id.in_(bindparam("ids", expanding=True)))


def class_codes(db, learner_ids) -> dict[str, str]:
    """Each learner's class as their profile says now ("" when none)."""
    ids = sorted(set(learner_ids))
    if not ids:
        return {}
    rows = db.execute(CODES, {"ids": ids})
    return {r.id: r.class_code or "" for r in rows}


def blank_range(entry: dict) -> tuple[int, int] | None:
    """A blank's first and last candidate index (span index or [first, last])."""
    span = entry.get("span")
    if span is None:
        return None
    return (span, span) if isinstance(span, int) else (span[0], span[1])


def count_attempts(db, written: list, sign: int = 1) -> None:
    """Add attempts to the counters: rows of the attempts table, or anything with their fields
    (snippet_id, version, class_code, created_at, learner, practice, blanks). `sign` -1 takes
    counted attempts out again (an answer judged again is counted again with its new state)."""
    days, tokens, given = _tallies(written, sign)
    _add(db, activity, days)
    _add(db, spans, tokens)
    _add(db, answers, given)


def uncount_learner(db, learner: str, counted: list) -> None:
    """Take a learner's counted attempts out of the counters: their own activity rows go, and the
    token and answer counts lose what those attempts added (a row left counting nothing goes, and
    with it the text of an answer no one else gave)."""
    _days, tokens, given = _tallies(counted, -1)
    db.execute(delete(activity).where(activity.c.learner == learner))
    _add(db, spans, tokens)
    _add(db, answers, given)
    db.execute(delete(spans).where(spans.c.seen <= 0))
    db.execute(delete(answers).where(answers.c.count <= 0))


def _tallies(written: list, sign: int) -> tuple[dict, dict, dict]:
    """What attempts add to each counter table, by its key (`sign` -1: what they take out)."""
    days: dict[tuple, list] = defaultdict(lambda: [0, 0, 0.0])
    tokens: dict[tuple, list] = defaultdict(lambda: [0, 0])
    given: dict[tuple, list] = defaultdict(lambda: [0])
    for attempt in written:
        key = (attempt.snippet_id, attempt.version, attempt.class_code or "", utc_day(attempt.created_at))
        row = days[key + (attempt.learner,)]
        row[0] += sign
        states = [b["state"] for b in attempt.blanks or ()]
        if attempt.practice or not states:
            continue  # practice after "reveal all" tests no recall
        row[1] += sign
        row[2] += sign * sum(s in RECALLED for s in states) / len(states)
        for entry in attempt.blanks:
            _count_blank(key, entry, tokens, given, sign)
    return days, tokens, given


def utc_day(at: datetime) -> str:
    """The UTC day of a time as the database gives it back (SQLite: naive, in UTC)."""
    return (at if at.tzinfo is None else at.astimezone(UTC)).date().isoformat()


def _count_blank(key: tuple, entry: dict, tokens: dict, given: dict, sign: int) -> None:
    where = blank_range(entry)
    if where is None:
        return
    missed = entry["state"] not in RECALLED
    for span in range(where[0], where[1] + 1):
        counts = tokens[key + (span,)]
        counts[0] += sign
        counts[1] += sign * missed
    text = entry.get("given", "").strip()
    if entry["state"] in ("wrong", "accepted", "unproven") and text:
        given[key + (where[0], where[1], entry["state"], text[:GIVEN_KEPT])][0] += sign


def _add(db, table, counts: dict) -> None:
    """Insert or add to the counter rows, in key order (concurrent writers lock rows in one order)."""
    if not counts:
        return
    extra, values = COUNTED[table]
    names = KEY + extra
    rows = [{**dict(zip(names, key)), **dict(zip(values, counts[key]))} for key in sorted(counts)]
    db.execute(upsert(db, table, names, _added), rows)


def _added(table, excluded) -> dict:
    """Each counted column plus the new row's count."""
    return {v: table.c[v] + excluded[v] for v in COUNTED[table][1]}
