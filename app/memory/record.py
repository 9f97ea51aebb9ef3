"""What an attempt records beyond the score: per-blank entries, hints opened, time on task.

A blank that was revealed or left empty is never counted as recalled; an attempt after "reveal
all" is practice, not a recall. Time on task is sent by the page, so it is bounded and checked.
"""
from ..engine.score import BlankVerdict, Hole
from ..engine.tokens import eligible_spans
from ..store import AttemptRecord

MIN_SECONDS_PER_BLANK = 0.3  # faster than this is not typing: the figure is dropped
MAX_SECONDS = 4 * 3600
RECALLED = ("right", "accepted")


def blank_state(verdict: BlankVerdict, passed: bool, revealed: bool) -> str:
    if revealed:
        return "revealed"
    if verdict.correct:
        return "right"
    if not verdict.given.strip():
        return "empty"
    return "accepted" if passed else "wrong"


def span_range(code: str, hole: Hole) -> int | list[int] | None:
    """The eligible span index of a hole, or [first, last] when it covers several (a cloze blank)."""
    if hole.key[0] == "s":
        return int(hole.key[1:])
    inside = [s.index for s in eligible_spans(code) if hole.start <= s.start and s.end <= hole.end]
    if not inside:
        return None
    return inside[0] if len(inside) == 1 else [inside[0], inside[-1]]


def revealed_keys(fields: dict[str, str]) -> set[str] | None:
    """Blanks the learner revealed before submitting; None means all of them ("reveal all")."""
    raw = fields.get("revealed", "")
    if raw == "all":
        return None
    return {k for k in raw.split(",")[:2000] if k}


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


def attempt_record(learner: str, drill, verdicts: list[BlankVerdict], status: str | None,
                   responses: dict[int, str], fields: dict[str, str]) -> AttemptRecord:
    snippet, passed = drill.snippet, status == "passed"
    revealed = revealed_keys(fields)
    practice = revealed is None
    states = [blank_state(v, passed, practice or v.key in revealed) for v in verdicts]
    blanks = tuple({"span": span_range(snippet.code, h), "key": v.key, "expected": v.expected,
                    "given": v.given, "state": s} for h, v, s in zip(drill.holes, verdicts, states))
    return AttemptRecord(
        learner, snippet.id, snippet.version, "review" if getattr(drill, "review", None) else drill.mode,
        drill.rate, drill.seed, {v.key: s == "right" for v, s in zip(verdicts, states)}, status, responses,
        blanks=blanks, hints=hints_opened(fields), seconds=time_on_task(fields, len(verdicts)),
        practice=practice, code=snippet.code)
