"""Review masks of spans and lines: a piece is as weak as its tokens are.

Each eligible token gets the token policy's score (policy.py); a line's score is the mean of its
tokens'. Lines are taken best first; spans are grown, as the span mask grows them (SpanBERT's
lengths), around the best tokens not yet hidden. A piece never takes more tokens than are left
of the rate's budget. The chosen pieces go into the URL as first-last candidate indices.
"""

import random
from datetime import datetime

from ..engine.mask import blank_count
from ..engine.tokens import DEFAULT_KINDS, eligible_spans
from ..engine.units import Piece, _aligned, _around, _length, line_pieces, span_pieces
from .policy import CHOSEN, Policy, read_once, scores
from .review import Review, whole_second
from .schedule import SCHEDULER


def token_scores(
    code: str,
    memory: dict,
    at: datetime,
    rng: random.Random,
    policy: Policy,
    scheduler,
    retention: float,
    first_seen: float | None,
    scales: tuple[float, float] = (1.0, 1.0),
) -> dict[int, float]:
    """Eligible span index → score; a token never tested scores as read at `first_seen`, or
    above every tested one when that is not known (so the snippet gets covered)."""
    eligible = [s.index for s in eligible_spans(code)]
    tested = {i: memory[i] for i in eligible if i in memory and memory[i].stability is not None}
    pool = dict(tested)
    if first_seen is not None:
        pool.update((i, read_once(i, min(first_seen, at.timestamp()), scheduler)) for i in eligible if i not in tested)
    score = scores(policy, pool, at, scheduler, retention, scales)
    top = max(score.values(), default=0.0) + 1.0
    return {i: score.get(i, top) + rng.random() * 1e-9 for i in eligible}


def piece_review(
    version: str,
    code: str,
    unit: str,
    rate: int,
    seed: int,
    memory: dict,
    at: datetime,
    policy: Policy = CHOSEN,
    scheduler=SCHEDULER,
    retention: float = 0.9,
    first_seen: float | None = None,
    scales: tuple[float, float] = (1.0, 1.0),
) -> Review:
    at = whole_second(at)  # the time the URL states: the same mask again from it
    rng = random.Random(f"review:{version}:{unit}:{rate}:{seed}")
    score = token_scores(code, memory, at, rng, policy, scheduler, retention, first_seen, scales)
    left = blank_count(rate, len(score))
    chosen = (_best_lines if unit == "line" else _best_spans)(code, score, left, rng)
    tested = {i for i, row in memory.items() if row.stability is not None}
    low = tuple(sorted((p.first, p.last) for p in chosen if tested & set(range(p.first, p.last + 1))))
    fresh = tuple(sorted((p.first, p.last) for p in chosen if (p.first, p.last) not in low))
    return Review(round(at.timestamp()), low, fresh, unit)


def _mean(piece: Piece, score: dict[int, float]) -> float:
    inside = [score[i] for i in range(piece.first, piece.last + 1) if i in score]
    return sum(inside) / len(inside)


def _best_lines(code: str, score: dict, left: int, rng) -> list[Piece]:
    """The lines with the best mean score; the budget counts lines, as the line mask does."""
    lines = line_pieces(code, DEFAULT_KINDS)
    k = blank_count(round(100 * left / max(1, len(score))), len(lines))
    return sorted(lines, key=lambda p: -_mean(p, score))[:k]


def _best_spans(code: str, score: dict, left: int, rng) -> list[Piece]:
    around, chosen = _around(code, DEFAULT_KINDS), []
    for anchor in sorted(eligible_spans(code), key=lambda s: -score[s.index]):
        if left == 0:
            break
        if any(c.first <= anchor.index <= c.last for c in chosen):
            continue
        piece = _aligned(around, anchor, min(_length(rng), left))
        if _overlaps(piece, chosen):
            piece = around[anchor.index][0]  # the token alone fits where its span would overlap
        if not _overlaps(piece, chosen):
            chosen.append(piece)
            left -= piece.size
    return chosen


def _overlaps(piece: Piece, chosen: list[Piece]) -> bool:
    return any(piece.start < c.end and c.start < piece.end for c in chosen)


def valid_pieces(code: str, unit: str) -> frozenset[tuple[int, int]]:
    pieces = line_pieces(code, DEFAULT_KINDS) if unit == "line" else span_pieces(code, DEFAULT_KINDS)
    return frozenset((p.first, p.last) for p in pieces)


def pieces_of(code: str, unit: str) -> dict[tuple[int, int], Piece]:
    pieces = line_pieces(code, DEFAULT_KINDS) if unit == "line" else span_pieces(code, DEFAULT_KINDS)
    return {(p.first, p.last): p for p in pieces}
