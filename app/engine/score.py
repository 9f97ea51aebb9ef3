"""Scoring blanks by token match, and splicing answers back into code for execution."""

import re
from typing import NamedTuple

from .tokens import eligible_spans, token_sequence


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
    span: tuple[int, int] | None = None  # first and last candidate token inside (random masks)


def covered_spans(code: str, hole: Hole) -> tuple[int, int] | None:
    """The first and last candidate index a blank covers: a random mask's blank knows them; a
    cloze blank covers the eligible spans inside its text (None: it holds none)."""
    if hole.span is not None:
        return hole.span
    inside = [s.index for s in eligible_spans(code) if hole.start <= s.start and s.end <= hole.end]
    return (inside[0], inside[-1]) if inside else None


class BlankVerdict(NamedTuple):
    key: str
    given: str
    expected: str
    correct: bool  # never for a revealed blank
    revealed: bool = False  # the learner asked for the answer before submitting


# Strings compare by value, comments and line joins vanish: around these only the tokenizer can tell.
_TOKENIZER_ONLY = frozenset("'\"#\\")
# Numbers compare by value too (1e4 = 10000.0): a digit that does not continue a name starts one.
_NUMBER = re.compile(r"(?<![A-Za-z_0-9])[0-9]")


def is_match(given: str, expected: str) -> bool:
    text = given.strip()
    if text == expected:  # the same text is the same tokens
        return True
    plain, squeezed = _shape(expected)
    if plain and _TOKENIZER_ONLY.isdisjoint(text) and _squeezed(text) != squeezed:
        # Elsewhere tokens cover every non-blank character, so these tokens differ too; a number
        # in `text` cannot match, as `expected` has none.
        return False
    return token_sequence(given) == token_sequence(expected)


def _shape(expected: str) -> tuple[bool, str]:
    """Whether an answer needs no tokenizer to tell it apart (no string, comment, line join or
    number), and its non-blank characters."""
    return _TOKENIZER_ONLY.isdisjoint(expected) and not _NUMBER.search(expected), _squeezed(expected)


def _squeezed(text: str) -> str:
    return "".join(text.split())


def score(holes: list[Hole], answers: dict[str, str], revealed: frozenset[str] = frozenset()) -> list[BlankVerdict]:
    given = [answers.get(h.key, "") for h in holes]
    # Most answers are typed exactly: only the others need `is_match`.
    return [
        BlankVerdict(h.key, g, h.answer, False, True)
        if h.key in revealed
        else BlankVerdict(h.key, g, h.answer, g == h.answer or is_match(g, h.answer))
        for h, g in zip(holes, given)
    ]


def splice(code: str, holes: list[Hole], answers: dict[str, str]) -> str:
    """The code with every hole's span replaced by the learner's text."""
    out, pos = [], 0
    for hole in sorted(holes, key=lambda h: h.start):
        out.append(code[pos : hole.start])
        out.append(answers.get(hole.key, ""))
        pos = hole.end
    out.append(code[pos:])
    return "".join(out)
