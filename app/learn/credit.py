"""Execution credit: where a passing run may vouch for an answer that token match rejects.

Only where the version's check-strength analysis found every position of the blank *caught*
(the check caught every mutant there): elsewhere, or before the analysis is complete, a
non-matching answer that passes is *unproven* and counts as not recalled.
"""

from ..db import strength_rows
from ..engine.score import covered_spans
from ..engine.tokens import eligible_spans


def credited(engine, snippet, holes, verdicts, run) -> tuple[frozenset[str], str | None]:
    """The keys of blanks a passing run credits, and the version's analysis state (None: there is
    none yet; "complete", "running" or "failed") when a blank needed it."""
    doubtful = [h for h, v in zip(holes, verdicts) if not (v.correct or v.revealed or not v.given.strip())]
    if getattr(run, "status", None) != "passed" or not doubtful:
        return frozenset(), "complete"  # nothing for execution to vouch for
    state, caught = strength_rows.caught_positions(engine, snippet.id, snippet.version)
    if state != "complete":
        return frozenset(), state
    return frozenset(h.key for h in doubtful if _caught(snippet.code, h, caught)), state


def _caught(code: str, hole, caught: frozenset[int]) -> bool:
    """A blank is caught when every position inside it is (a span or line blank: all its tokens)."""
    where = covered_spans(code, hole)
    if where is None:
        return False
    inside = [s.index for s in eligible_spans(code) if where[0] <= s.index <= where[1]]
    return bool(inside) and all(i in caught for i in inside)
