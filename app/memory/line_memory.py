"""Whether a learner remembers code by lines: evidence from their own blanks.

Some learners hold a line as one unit: testing any token of it refreshes the whole line, so a
token whose line mate was tested after it is recalled as well as that mate. The per-token memory
model then spends review blanks on tokens whose lines are already fresh, and loses to random
masks (bench/RESULTS.md, "Lines"). Each blank whose token has a line mate tested after it is two
predictions: from the token's own stored memory, and from the line's freshest memory (that
mate's). Each learner keeps the summed log loss of both, per time scale of calibration.py
(compared at each one's best scale, so a learner who forgets slower than FSRS says does not
look line-like for it); once the line's prediction is the better one by a clear margin, review
masks spread their blanks over the lines (review.py).
"""

from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from ..engine.tokens import candidate_spans, line_offsets
from .calibration import SCALES, blank_terms

MIN_BLANKS = 5  # blanks with a fresher line mate before the evidence counts
# ... and misses among them: a learner who recalls everything is predicted best by whatever predicts
# the most recall, the line's fresher memory; that says nothing of lines.
MIN_MISSES = 3
ODDS = 1.0  # nats by which the line's prediction must win: a likelihood ratio of e ≈ 2.7


@dataclass(frozen=True)
class LineEvidence:
    """Blanks with a fresher line mate; summed log loss per scale of the token's and the line's prediction."""

    blanks: int = 0
    token: tuple[float, ...] = (0.0,) * len(SCALES)
    line: tuple[float, ...] = (0.0,) * len(SCALES)
    missed: int = 0

    @property
    def shared(self) -> bool:
        """Whether this learner's memory runs by lines, on the evidence so far."""
        enough = self.blanks >= MIN_BLANKS and self.missed >= MIN_MISSES
        return enough and min(self.line) + ODDS < min(self.token)

    def added(self, terms: list[tuple[bool, tuple[float, ...], tuple[float, ...]]]) -> "LineEvidence":
        """With more blanks: (recalled, token's log loss per scale, line's) each (line_term)."""
        token, line, missed = list(self.token), list(self.line), self.missed
        for recalled, own, mate in terms:
            token = [a + b for a, b in zip(token, own)]
            line = [a + b for a, b in zip(line, mate)]
            missed += not recalled
        return LineEvidence(self.blanks + len(terms), tuple(token), tuple(line), missed)

    def to_json(self) -> dict:
        return {"blanks": self.blanks, "missed": self.missed, "token": list(self.token), "line": list(self.line)}

    @classmethod
    def from_json(cls, data: dict | None) -> "LineEvidence":
        if not data or len(data.get("token", ())) != len(SCALES):
            return cls()
        return cls(data["blanks"], tuple(data["token"]), tuple(data["line"]), data.get("missed", 0))


@lru_cache(maxsize=256)
def lines_of(code: str) -> tuple[int, ...]:
    """Each candidate span's line number (from 0), by span index."""
    starts = line_offsets(code)
    return tuple(bisect_right(starts, s.start) - 1 for s in candidate_spans(code))


def freshest(code: str, rows: dict) -> dict[int, list]:
    """Per line, its two most recently tested tokens' (span, stored memory), freshest first."""
    lines, out = lines_of(code), {}
    for span, row in rows.items():
        if span < len(lines) and row.stability is not None and row.last_review is not None:
            top = out.setdefault(lines[span], [])
            if len(top) < 2 or row.last_review > top[1][1].last_review:
                top[1:] = [(span, row)]
                if len(top) == 2 and top[1][1].last_review > top[0][1].last_review:
                    top.reverse()
    return out


def line_term(code: str, span: int, rows: dict, fresh: dict, recalled: bool, now: float, scheduler):
    """(recalled, token's, line's log loss per scale) of this blank, or None when no line mate was tested
    after the token itself (then both predictions are one). `rows`: span → stored memory;
    `fresh`: freshest(code, rows)."""
    own, lines = rows.get(span), lines_of(code)
    if own is None or own.stability is None or own.last_review is None or span >= len(lines):
        return None
    mate = next((row for i, row in fresh.get(lines[span], ()) if i != span), None)
    if mate is None or mate.last_review <= own.last_review:
        return None
    return (
        recalled,
        blank_terms(scheduler, own.stability, (now - own.last_review) / 86400, recalled),
        blank_terms(scheduler, mate.stability, (now - mate.last_review) / 86400, recalled),
    )
