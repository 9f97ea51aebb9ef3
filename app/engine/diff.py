"""A token-level diff of a wrong answer against the expected text, for spans and lines."""

import difflib
from typing import NamedTuple

from .tokens import token_pairs


class Change(NamedTuple):
    op: str  # "same" | "missing" (expected, not typed) | "extra" (typed, not expected)
    text: str


def token_diff(given: str, expected: str) -> list[Change]:
    """What to change in `given` to get `expected`, token by token (values compare as values)."""
    a, b = token_pairs(given), token_pairs(expected)
    matcher = difflib.SequenceMatcher(None, [c for _, c in a], [c for _, c in b], autojunk=False)
    out: list[Change] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += [Change("same", t) for t, _ in a[i1:i2]]
            continue
        out += [Change("extra", t) for t, _ in a[i1:i2]]
        out += [Change("missing", t) for t, _ in b[j1:j2]]
    return out
