"""What an attempt is, as the store writes it."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AttemptRecord:
    learner: str
    snippet_id: str
    version: str
    mode: str
    rate: int | None
    seed: int | None
    results: dict[str, bool]
    outcome: str | None = None
    answers: dict[int, str] | None = None  # short-answer responses by question index
    unit: str = "token"
    kinds: str = "names,literals,operators"  # the token kinds a random mask drew from
    blanks: tuple[dict, ...] = ()  # per blank: span (index or [first, last]), key, expected, given, state
    hints: int = 0
    seconds: float | None = None
    practice: bool = False
    unproven: bool = False  # some blank is 运行无法确认: its memory is kept beside it (memory/unproven.py)
    provisional: bool = False  # judged before the version's check-strength analysis was complete
    code: str = field(default="", repr=False, compare=False)  # the version's code, for learner memory
