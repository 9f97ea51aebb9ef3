"""Judging unproven answers again, so one answer ends with one verdict.

An answer judged 运行无法确认 is judged again when what its credit rests on changes: its version's
analysis completes (an answer given before it did was judged provisionally), or a teacher marks
a mutant equivalent or excludes a place. An answer now credited becomes 运行接受 in the attempt's
record, in the class counters, and in the learner's memory (reviewed again from that attempt on:
memory/corrections.py); the learner's progress page says so. A verdict is never taken back: a
decision withdrawn later applies to answers given after it.
"""

import logging
from collections import defaultdict
from datetime import UTC, datetime

from sqlalchemy import select, update

from ..classes.counts import count_attempts
from ..classes.tables import pending
from ..db.moments import utc
from ..db.tables import attempts
from ..memory.corrections import replay
from ..memory.tables import unproven
from .credit import basis, vouched

log = logging.getLogger("codecloze")
BY_ANALYSIS = "analysis"  # credited_by of answers credited when the analysis completed
RECENT_SHOWN = 5
RECENT_DAYS = 30  # how long the progress page says an answer was judged again


def rejudge(engine, snippet_of, snippet_id: str, version: str | None = None, by: str = BY_ANALYSIS) -> int:
    """Judge again the unproven answers of a snippet (of one version, or of all); `snippet_of(id,
    version)` gives a version's snippet. The number of answers now credited."""
    where = [unproven.c.snippet_id == snippet_id, unproven.c.credited_at.is_(None)]
    if version is not None:
        where.append(unproven.c.version == version)
    with engine.connect() as db:
        rows = db.execute(select(unproven).where(*where)).all()
    versions: dict[str, tuple] = {}
    for v in {r.version for r in rows}:
        snippet = snippet_of(snippet_id, v)
        vouches = basis(engine, snippet) if snippet is not None else None
        if vouches is not None and vouches.state == "complete":  # else judged when its analysis completes
            versions[v] = (snippet.code, vouches)
    rows = [r for r in rows if r.version in versions]
    return _credit(engine, snippet_id, versions, rows, by) if rows else 0


def _credit(engine, snippet_id: str, versions: dict[str, tuple], rows: list, by: str) -> int:
    """In one transaction: the answers now vouched for, claimed, corrected, and their memory replayed."""
    with engine.begin() as db:
        entries = _entries(db, [r.attempt_id for r in rows])
        now_right = [
            r
            for r in rows
            if (e := entries.get((r.attempt_id, r.key)))
            and vouched(versions[r.version][0], (r.first, r.last), e["expected"], e["given"], versions[r.version][1])
        ]
        claimed = [r for r in now_right if _claim(db, r, by)]  # another worker may have judged it meanwhile
        if not claimed:
            return 0
        _correct_attempts(db, claimed)
        for learner, mine in _by_learner(claimed).items():
            starts = {v: _token_starts([r for r in mine if r.version == v]) for v in {r.version for r in mine}}
            replay(db, learner, snippet_id, starts, _card_start(mine))
    log.info("re-judged %s answer(s) of %s as accepted (%s)", len(claimed), snippet_id, by)
    return len(claimed)


def _entries(db, attempt_ids: list[int]) -> dict[tuple[int, str], dict]:
    rows = db.execute(select(attempts.c.id, attempts.c.blanks).where(attempts.c.id.in_(sorted(set(attempt_ids)))))
    return {(r.id, b["key"]): b for r in rows for b in r.blanks or ()}


def _claim(db, row, by: str) -> bool:
    done = db.execute(
        update(unproven)
        .where(unproven.c.attempt_id == row.attempt_id, unproven.c.key == row.key, unproven.c.credited_at.is_(None))
        .values(credited_at=datetime.now(UTC), credited_by=by[:60])
    )
    return done.rowcount == 1


def _correct_attempts(db, rows: list) -> None:
    """Each attempt's blanks say 运行接受; counters that counted it as unproven count it again."""
    keys = defaultdict(set)
    for r in rows:
        keys[r.attempt_id].add(r.key)
    found = db.execute(select(attempts).where(attempts.c.id.in_(sorted(keys)))).all()
    waiting = set(db.execute(select(pending.c.attempt_id).where(pending.c.attempt_id.in_(sorted(keys)))).scalars())
    for attempt in found:
        blanks = [
            {**b, "state": "accepted"} if b["key"] in keys[attempt.id] and b["state"] == "unproven" else b
            for b in attempt.blanks
        ]
        db.execute(update(attempts).where(attempts.c.id == attempt.id).values(blanks=blanks))
        if attempt.id not in waiting:  # already folded into the class counters: count it again
            count_attempts(db, [attempt], sign=-1)
            count_attempts(db, [_Counted(attempt, blanks)])


class _Counted:
    """An attempt row with other blanks, as the class counters read it."""

    def __init__(self, row, blanks: list):
        for name in ("snippet_id", "version", "class_code", "created_at", "learner", "practice"):
            setattr(self, name, getattr(row, name))
        self.blanks = blanks


def _by_learner(rows: list) -> dict[str, list]:
    out = defaultdict(list)
    for r in rows:
        out[r.learner].append(r)
    return out


def _token_starts(rows: list) -> dict[int, tuple]:
    """Per token, the memory kept by the earliest corrected attempt that reviewed it, and its time."""
    starts: dict[int, tuple] = {}
    for r in sorted(rows, key=lambda r: r.created_at):
        for span, before in (r.tokens or {}).items():
            starts.setdefault(int(span), (before, r.created_at))
    return starts


def _card_start(rows: list) -> tuple:
    first = min(rows, key=lambda r: r.created_at)
    return first.card, first.created_at


def recent(db, learner: str, since: datetime) -> list[dict]:
    """The learner's answers credited on a later verdict since `since`, newest first."""
    rows = db.execute(
        select(unproven.c.snippet_id, unproven.c.given, unproven.c.created_at, unproven.c.credited_at)
        .where(unproven.c.learner == learner, unproven.c.credited_at >= since)
        .order_by(unproven.c.credited_at.desc())
        .limit(RECENT_SHOWN)
    ).all()
    return [
        {
            "snippet": r.snippet_id,
            "given": r.given,
            "answered_at": utc(r.created_at),
            "credited_at": utc(r.credited_at),
        }
        for r in rows
    ]
