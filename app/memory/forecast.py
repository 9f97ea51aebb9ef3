"""What the memory model predicts of a snippet: mean recall of its tokens now and in 7 days if
the learner stops practising, and how many tokens are "known" now.

A token is known only with evidence from the learner's own answers: recalled at a test the next
day or later after its previous test (update.spaced_recall), not missed since, and predicted at or
above the learner's desired retention now. A token only read, or answered minutes ago, is not known.
"""

from datetime import datetime
from typing import NamedTuple

from ..engine.tokens import eligible_spans
from .fsrs6 import recall
from .policy import read_once

WEEK = 7.0


class Forecast(NamedTuple):
    now: float  # mean predicted recall over the eligible tokens
    week: float
    known: int  # tokens with a spaced recall and predicted recall ≥ the desired retention now
    total: int
    retention: float = 0.9  # the desired retention "known" was counted at


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
    if not rows:
        return None
    days = [(now - row.last_review) / 86400 for row in rows]
    today = [recall(scheduler, d, row.stability) for d, row in zip(days, rows)]
    week = [recall(scheduler, d + WEEK, row.stability) for d, row in zip(days, rows)]
    retention = scheduler.desired_retention
    known = sum(is_known(row, p, retention) for row, p in zip(rows, today))
    return Forecast(sum(today) / len(rows), sum(week) / len(rows), known, len(rows), retention)


def is_known(row, recall: float, retention: float) -> bool:
    return getattr(row, "spaced", None) is not None and recall >= retention
