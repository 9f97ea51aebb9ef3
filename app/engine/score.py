"""Scoring blanks by token match, and splicing answers back into code for execution."""
from typing import NamedTuple

from .tokens import token_sequence


class Hole(NamedTuple):
    """One blank on a page: where it sits in the reference code and what it expects.

    A tuple rather than a dataclass: a page makes dozens per request, and tuples are cheap.
    """
    key: str  # form field name
    start: int
    end: int
    answer: str
    label: str = ""
    hint: str | None = None
    tag: str = ""  # short visible marker, e.g. the cloze group number


class BlankVerdict(NamedTuple):
    key: str
    given: str
    expected: str
    correct: bool


def is_match(given: str, expected: str) -> bool:
    # The same text is the same tokens; only differing text needs the tokenizer.
    return given.strip() == expected or token_sequence(given) == token_sequence(expected)


def score(holes: list[Hole], answers: dict[str, str]) -> list[BlankVerdict]:
    return [
        BlankVerdict(h.key, answers.get(h.key, ""), h.answer, is_match(answers.get(h.key, ""), h.answer))
        for h in holes
    ]


def splice(code: str, holes: list[Hole], answers: dict[str, str]) -> str:
    """The code with every hole's span replaced by the learner's text."""
    out, pos = [], 0
    for hole in sorted(holes, key=lambda h: h.start):
        out.append(code[pos:hole.start])
        out.append(answers.get(hole.key, ""))
        pos = hole.end
    out.append(code[pos:])
    return "".join(out)
