"""What the memory model predicts of a snippet: mean recall of its tokens now and in 7 days if
the learner stops practising, and how many tokens are "known" (recall ≥ 0.9) now."""

from datetime import datetime
from typing import NamedTuple

from ..engine.tokens import eligible_spans
from .policy import curve, read_once

WEEK = 7.0
KNOWN = 0.9


class Forecast(NamedTuple):
    now: float  # mean predicted recall over the eligible tokens
    week: float
    known: int  # tokens at p ≥ KNOWN now
    total: int


def forecast(code: str, memory: dict, at: datetime, scheduler, first_seen: float | None) -> Forecast | None:
    """None before the first practice (nothing is known about this learner and snippet)."""
    if first_seen is None and not memory:
        return None
    now, rows = at.timestamp(), []
    for span in eligible_spans(code):
        row = memory.get(span.index)
        if row is None or row.stability is None:
            row = read_once(span.index, min(first_seen or now, now), scheduler)
        rows.append(row)
    days = [(now - row.last_review) / 86400 for row in rows]
    today = [curve(scheduler, d, row.stability) for d, row in zip(days, rows)]
    week = [curve(scheduler, d + WEEK, row.stability) for d, row in zip(days, rows)]
    if not rows:
        return None
    return Forecast(sum(today) / len(rows), sum(week) / len(rows), sum(p >= KNOWN for p in today), len(rows))
