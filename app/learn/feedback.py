"""What a scored submission shows: per-blank states, the score, and the execution verdict."""

import json
from dataclasses import dataclass, field
from functools import cached_property

from app.engine.render import HoleState
from app.engine.score import BlankVerdict

STATES = ("right", "accepted", "unproven", "wrong", "revealed", "empty")


@dataclass(frozen=True)
class Result:
    verdicts: tuple[BlankVerdict, ...]
    run: object | None = None  # sandbox Verdict, when the code was executed
    attempt_id: int | None = None
    responses: dict[int, str] = field(default_factory=dict)
    saved: bool = True  # False: scored, but the database did not keep the attempt
    # Blanks a passing run may credit (their positions' mutants are all caught): elsewhere a
    # non-matching answer that passes is "unproven", not recalled.
    credited: frozenset[str] = frozenset()
    # Judged before the version's check-strength analysis was complete: its unproven blanks are
    # judged again when it completes (rejudging.py).
    provisional: bool = False

    @property
    def correct(self) -> int:
        return sum(v.correct for v in self.verdicts)

    @property
    def accepted(self) -> int:
        """Blanks token match rejects but the check accepted: the code passed with them."""
        return self.states().count("accepted")

    @property
    def unproven(self) -> int:
        """Blanks token match rejects, with which the code passed where the check cannot tell."""
        return self.states().count("unproven")

    @property
    def empty(self) -> int:
        """Blanks left empty: with any of them the code is not run."""
        return sum(not v.given.strip() for v in self.verdicts)

    @property
    def total(self) -> int:
        return len(self.verdicts)

    @property
    def passed(self) -> bool:
        return getattr(self.run, "status", None) == "passed"

    def states(self) -> list[str]:
        """Each blank's mark, in order (one of STATES)."""
        return list(self._states)

    @cached_property
    def _states(self) -> tuple[str, ...]:
        passed, credited = self.passed, self.credited
        return tuple(_mark(v, passed, v.key in credited) for v in self.verdicts)

    def state_of(self) -> dict[str, str]:
        return {v.key: state for v, state in zip(self.verdicts, self.states())}

    def hole_states(self) -> dict[str, HoleState]:
        return {v.key: HoleState(v.given, state, True) for v, state in zip(self.verdicts, self.states())}

    def marks_json(self) -> str:
        """Marks for a page whose inputs already hold the answers: each blank that is not right
        (a blank not listed is right)."""
        marks = {v.key: [state] for v, state in zip(self.verdicts, self.states()) if state != "right"}
        return json.dumps(marks, ensure_ascii=False, separators=(",", ":"))

    def as_json(self) -> dict:
        run, states = self.run, self.states()
        return {
            "correct": self.correct,
            "total": self.total,
            "empty": self.empty,
            "attempt": self.attempt_id,
            "saved": self.saved,
            "provisional": self.provisional and self.unproven > 0,  # judged again when the analysis completes
            "blanks": [
                {"key": v.key, "given": v.given, "expected": v.expected, "state": state}
                for v, state in zip(self.verdicts, states)
            ],
            "run": None
            if run is None
            else {
                "status": run.status,
                "message": run.message,
                "part": run.part,
                "line": run.line,
                "stdout": run.stdout,
                "seconds": round(run.seconds, 4),
            },
        }


def _mark(verdict: BlankVerdict, passed: bool, credited: bool) -> str:
    if verdict.revealed:
        return "revealed"  # never right: the learner was shown the answer
    if verdict.correct:
        return "right"
    if not verdict.given.strip():
        return "empty"
    if not passed:
        return "wrong"
    return "accepted" if credited else "unproven"
