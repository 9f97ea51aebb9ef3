"""What a scored submission shows: per-blank states, the score, and the execution verdict."""
import json
from dataclasses import dataclass, field

from .engine.render import HoleState
from .engine.score import BlankVerdict


@dataclass(frozen=True)
class Result:
    verdicts: tuple[BlankVerdict, ...]
    run: object | None = None  # sandbox Verdict, when the code was executed
    attempt_id: int | None = None
    responses: dict[int, str] = field(default_factory=dict)
    saved: bool = True  # False: scored, but the database did not keep the attempt

    @property
    def correct(self) -> int:
        return sum(v.correct for v in self.verdicts)

    @property
    def accepted(self) -> int:
        """Blanks token match rejects but the check accepted: the code passed with them."""
        return 0 if not self.passed else sum(not v.correct for v in self.verdicts)

    @property
    def total(self) -> int:
        return len(self.verdicts)

    @property
    def passed(self) -> bool:
        return getattr(self.run, "status", None) == "passed"

    def states(self) -> list[str]:
        """Each blank's mark, in order: right, accepted (the check passed with it) or wrong."""
        passed = self.passed
        return [_mark(v, passed) for v in self.verdicts]

    def hole_states(self) -> dict[str, HoleState]:
        return {v.key: HoleState(v.given, state, True) for v, state in zip(self.verdicts, self.states())}

    def marks_json(self) -> str:
        """Marks for a page whose inputs already hold the answers: each blank that is not right,
        with the answer to reveal where it is wrong (a blank not listed is right)."""
        passed, marks = self.passed, {}
        for v in self.verdicts:
            if not v.correct:
                state = _mark(v, passed)
                marks[v.key] = [state, v.expected] if state == "wrong" else [state]
        return json.dumps(marks, ensure_ascii=False, separators=(",", ":"))

    def as_json(self) -> dict:
        run, states = self.run, self.states()
        return {
            "correct": self.correct, "total": self.total, "attempt": self.attempt_id, "saved": self.saved,
            "blanks": [{"key": v.key, "given": v.given, "expected": v.expected,
                        "state": state} for v, state in zip(self.verdicts, states)],
            "run": None if run is None else {
                "status": run.status, "message": run.message, "part": run.part, "line": run.line,
                "stdout": run.stdout, "seconds": round(run.seconds, 4)},
        }


def _mark(verdict: BlankVerdict, passed: bool) -> str:
    if verdict.correct:
        return "right"
    return "accepted" if passed and verdict.given.strip() else "wrong"


def revealed_states(holes) -> dict[str, HoleState]:
    """Every hole filled with its answer ("reveal all" before a submission)."""
    return {h.key: HoleState(h.answer, "revealed") for h in holes}
