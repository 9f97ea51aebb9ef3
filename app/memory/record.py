"""What an attempt records beyond the score: per-blank entries, hints opened, time on task.

A blank that was revealed or left empty is never counted as recalled; an attempt after "reveal
all" is practice, not a recall. Time on task is sent by the page, so it is bounded and checked.
"""

from ..db.records import AttemptRecord
from ..engine.score import Hole, covered_spans

MIN_SECONDS_PER_BLANK = 0.3  # faster than this is not typing: the figure is dropped
MAX_SECONDS = 4 * 3600
RECALLED = ("right", "accepted")


def entry_spans(entry: dict) -> range:
    """The candidate indices a recorded blank covers."""
    span = entry.get("span")
    if span is None:
        return range(0)
    return range(span, span + 1) if isinstance(span, int) else range(span[0], span[1] + 1)


def time_on_task(fields: dict[str, str], blanks: int) -> float | None:
    try:
        seconds = int(fields.get("ms", "")) / 1000
    except ValueError:
        return None
    if not max(1, blanks) * MIN_SECONDS_PER_BLANK <= seconds <= MAX_SECONDS:
        return None
    return round(seconds, 3)


def hints_opened(fields: dict[str, str]) -> int:
    raw = fields.get("hints", "0")
    return min(int(raw), 100) if raw.isdigit() and len(raw) < 4 else 0


def attempt_record(learner: str, drill, result, fields: dict[str, str]) -> AttemptRecord:
    """The attempt as stored: per blank its span (index or range), expected, given and state."""
    snippet = drill.snippet
    practice = fields.get("revealed") == "all"  # after "reveal all": practice, never a recall
    states = ["revealed"] * len(result.verdicts) if practice else result.states()
    blanks = tuple(
        {"span": _span(snippet.code, h), "key": v.key, "expected": v.expected, "given": v.given, "state": s}
        for h, v, s in zip(drill.holes, result.verdicts, states)
    )
    status = getattr(result.run, "status", None)
    return AttemptRecord(
        learner,
        snippet.id,
        snippet.version,
        "review" if getattr(drill, "review", None) else drill.mode,
        drill.rate,
        drill.seed,
        {v.key: s == "right" for v, s in zip(result.verdicts, states)},
        status,
        result.responses,
        unit=drill.unit,
        kinds=",".join(drill.kinds),
        blanks=blanks,
        hints=hints_opened(fields),
        seconds=time_on_task(fields, len(result.verdicts)),
        practice=practice,
        unproven="unproven" in states,
        provisional=getattr(result, "provisional", False),
        code=snippet.code,
    )


def _span(code: str, hole: Hole) -> int | list[int] | None:
    """The span index a blank covers, or [first, last] when it covers several."""
    where = covered_spans(code, hole)
    if where is None:
        return None
    return where[0] if where[0] == where[1] else list(where)
