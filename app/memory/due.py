"""When a snippet's code is due: once enough of its tested tokens are predicted below the desired
retention, not whenever one blank was missed.

Due when at least DUE_SHARE of the tokens the learner has been tested on (one at least) are below
the retention: a tenth of them is about what one review mask at the usual rates re-tests (15 % of
the snippet's tokens, a fifth of them new), so one review of the due list brings the snippet back
under the line, and a learner who follows the list can clear it. A single slipped token of a
well-practised snippet waits for company; on a first attempt of ten blanks, one miss is a tenth
and comes back the same day, as successive relearning asks.
"""

import math
from datetime import UTC, datetime

from sqlalchemy import select

from .fsrs6 import days_to
from .tables import tokens

DUE_SHARE = 0.1


def falls_below(stability: float, last_review: float, scheduler) -> float:
    """Unix time a token's predicted recall drops to the scheduler's desired retention (FSRS's
    curve solved for the elapsed days: its stability at 0.9, scaled for another retention)."""
    return last_review + days_to(scheduler, stability) * 86400


def code_due(rows, scheduler) -> datetime | None:
    """When the snippet falls due, from its tested tokens' memory rows (None: none tested yet)."""
    falls = sorted(
        falls_below(r.stability, r.last_review, scheduler)
        for r in rows
        if r.stability is not None and r.last_review is not None
    )
    if not falls:
        return None
    return datetime.fromtimestamp(falls[threshold(len(falls)) - 1], UTC)


def threshold(tested: int) -> int:
    """How many tested tokens below the retention make the snippet due."""
    return max(1, math.ceil(DUE_SHARE * tested - 1e-9))


def below(rows, scheduler, at: datetime) -> int:
    """How many of the tested tokens are predicted below the desired retention at `at`."""
    now = at.timestamp()
    return sum(
        falls_below(r.stability, r.last_review, scheduler) <= now
        for r in rows
        if r.stability is not None and r.last_review is not None
    )


def learner_token_rows(db, learner: str) -> dict[tuple[str, str], list]:
    """Every tested token's stability and last test, by (snippet, version): one query a page."""
    query = select(tokens.c.snippet_id, tokens.c.version, tokens.c.stability, tokens.c.last_review).where(
        tokens.c.learner == learner
    )
    out: dict[tuple[str, str], list] = {}
    for row in db.execute(query):
        out.setdefault((row.snippet_id, row.version), []).append(row)
    return out
