"""What a parsed snippet file is: plain frozen data, no behaviour beyond lookups."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Blank:
    """A fixed (cloze) blank: a character range of the reference code."""

    index: int
    group: int
    start: int
    end: int
    answer: str
    hint: str | None = None


@dataclass(frozen=True)
class Segment:
    """A piece of the body in file order: prose (Markdown) or one of the three code blocks."""

    kind: str  # "prose" | "setup" | "code" | "check"
    text: str


@dataclass(frozen=True)
class Question:
    label: str
    prompt: str  # Markdown
    answer: str  # Markdown


@dataclass(frozen=True)
class Snippet:
    id: str
    version: str
    title: str
    summary: str
    level: str
    code: str  # reference code, cloze markers removed
    check: str
    setup: str = ""
    tags: tuple[str, ...] = ()
    group: str | None = None
    order: int | None = None
    rates: tuple[int, ...] = (10, 15, 20, 30, 50)
    segments: tuple[Segment, ...] = ()
    blanks: tuple[Blank, ...] = ()
    hints: tuple[str, ...] = ()
    answers: str = ""  # Markdown of the reference-answers section
    explanation: str = ""
    questions: tuple[Question, ...] = ()
    source: str = field(default="", repr=False)

    @property
    def is_exercise(self) -> bool:
        return bool(self.blanks)

    @property
    def level_key(self) -> tuple[int, int]:
        low, _, high = self.level.partition("-")
        return int(low), int(high or low)

    def groups(self) -> dict[int, tuple[Blank, ...]]:
        out: dict[int, list[Blank]] = {}
        for blank in self.blanks:
            out.setdefault(blank.group, []).append(blank)
        return {g: tuple(bs) for g, bs in sorted(out.items())}
