"""Unproven blanks kept with the memory they change (table `unproven_blanks`).

A blank judged 运行无法确认 may be accepted later (its version's analysis completes, a teacher marks
its mutant equivalent): in the attempt's own transaction, before the attempt reviews them, the
memory of its tokens and the code card are kept beside it, so corrections.py can review them
again from there.
"""

from datetime import datetime

from sqlalchemy import insert, select

from ..db.moments import utc
from .record import entry_spans as _spans
from .tables import cards, tokens, unproven

TOKEN_MEMORY = tuple(c.name for c in tokens.c if c.name not in ("learner", "snippet_id", "version", "span"))
CARD_MEMORY = tuple(c.name for c in cards.c if c.name not in ("learner", "snippet_id", "item"))
TIMES = ("due", "last_at")  # the card's datetime columns, kept as ISO text


def keep_unproven(db, items: list[tuple[int, object, datetime]]) -> None:
    """For each (attempt id, record, time) about to be applied: its unproven blanks with the
    memory they are about to change."""
    rows = []
    for attempt_id, record, at in items:
        blanks = [b for b in record.blanks if b["state"] == "unproven" and b.get("span") is not None]
        if not blanks:
            continue
        spans = sorted({i for b in blanks for i in _spans(b)})
        before = _token_memory(db, record, spans)
        card = _card_memory(db, record)
        for b in blanks:
            first, last = (b["span"], b["span"]) if isinstance(b["span"], int) else b["span"]
            rows.append(
                {
                    "attempt_id": attempt_id,
                    "key": b["key"],
                    "learner": record.learner,
                    "snippet_id": record.snippet_id,
                    "version": record.version,
                    "first": first,
                    "last": last,
                    "given": b["given"][:200],
                    "created_at": at,
                    "provisional": record.provisional,
                    "tokens": {str(i): before.get(i) for i in _spans(b)},
                    "card": card,
                }
            )
    if rows:
        db.execute(insert(unproven), rows)


def _token_memory(db, record, spans: list[int]) -> dict[int, dict]:
    found = db.execute(
        select(tokens).where(
            tokens.c.learner == record.learner,
            tokens.c.snippet_id == record.snippet_id,
            tokens.c.version == record.version,
            tokens.c.span.in_(spans),
        )
    )
    return {r.span: {n: getattr(r, n) for n in TOKEN_MEMORY} for r in found}


def _card_memory(db, record) -> dict | None:
    row = db.execute(
        select(cards).where(
            cards.c.learner == record.learner, cards.c.snippet_id == record.snippet_id, cards.c.item == ""
        )
    ).first()
    if row is None:
        return None
    kept = {n: getattr(row, n) for n in CARD_MEMORY}
    for name in TIMES:
        if kept[name] is not None:
            kept[name] = utc(kept[name]).isoformat()
    return kept
