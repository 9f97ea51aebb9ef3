"""What a review mask's blanks are in the learner's own history: the words beside the mask.

Each blank is counted once, in the first of: missed at its last test; tested and predicted below
the desired retention now (due); tested and still above it (strengthened before it slips); never
tested (new). A blank of spans or lines counts as its tokens do, in that order.
"""

from datetime import datetime
from typing import NamedTuple

from .due import falls_below

ORDER = ("missed", "due", "kept", "new")


class Why(NamedTuple):
    kind: str  # "review": chosen from memory; "retry": the blanks an attempt missed
    missed: int
    due: int
    kept: int
    new: int
    by_lines: bool = False  # spread over the lines: the learner's memory runs by lines (line_memory.py)

    @property
    def blanks(self) -> int:
        return self.missed + self.due + self.kept + self.new


def why(kind: str, chosen: tuple, memory: dict, at: datetime, scheduler, by_lines: bool = False) -> Why:
    """`chosen`: the mask's span indices, or (first, last) pieces; `memory`: span index → row."""
    counts = dict.fromkeys(ORDER, 0)
    for blank in chosen:
        first, last = blank if isinstance(blank, tuple) else (blank, blank)
        kinds = {token_kind(memory.get(i), at, scheduler) for i in range(first, last + 1)}
        counts[next(k for k in ORDER if k in kinds)] += 1
    return Why(kind, **counts, by_lines=by_lines)


def token_kind(row, at: datetime, scheduler) -> str:
    if row is None or row.stability is None or row.last_review is None:
        return "new"
    if getattr(row, "missed", None):
        return "missed"
    return "due" if falls_below(row.stability, row.last_review, scheduler) <= at.timestamp() else "kept"
