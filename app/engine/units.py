"""Blanks bigger than a token: sub-expression spans (SpanBERT-style) and whole logical lines.

Both are pure functions of (code, version, kinds, rate, seed), like the token mask. A unit is
a `Piece`: a character range of the code and the candidate tokens inside it.
"""

import ast
import io
import math
import random
import token
import tokenize
from functools import lru_cache
from typing import NamedTuple

from .mask import blank_count
from .tokens import Span, candidate_spans, eligible_spans, line_offsets

UNITS = ("token", "span", "line")
SPAN_P, SPAN_MAX = 0.2, 10  # SpanBERT's geometric length distribution, clipped


class Piece(NamedTuple):
    start: int  # character offsets into the code
    end: int
    first: int  # candidate indices of the first and last token inside
    last: int
    size: int  # eligible tokens (of the chosen kinds) inside


def _piece(code: str, start: int, end: int, kinds: tuple[str, ...]) -> Piece | None:
    inside = [s for s in candidate_spans(code) if start <= s.start and s.end <= end]
    size = sum(s.kind in kinds for s in inside)
    return Piece(start, end, inside[0].index, inside[-1].index, size) if size else None


def _char(code: str, offsets: list[int], line: int, col: int) -> int:
    """ast columns count UTF-8 bytes; the code is indexed by characters."""
    text = code[offsets[line - 1] : offsets[line]]
    return offsets[line - 1] + len(text.encode()[:col].decode(errors="ignore"))


def _node_range(code: str, offsets: list[int], node: ast.AST) -> tuple[int, int] | None:
    if getattr(node, "end_lineno", None) is None or node.lineno != node.end_lineno:
        return None  # a blank is a one-line <input>
    return _char(code, offsets, node.lineno, node.col_offset), _char(
        code, offsets, node.end_lineno, node.end_col_offset
    )


@lru_cache(maxsize=128)
def span_pieces(code: str, kinds: tuple[str, ...]) -> tuple[Piece, ...]:
    """Every sub-expression on one line (a call, an attribute chain, an operand, a slice, a
    keyword argument) and every eligible token, by start then by length."""
    offsets, ranges = line_offsets(code), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.expr, ast.keyword)) and (r := _node_range(code, offsets, node)):
            ranges.add(r)
    ranges |= {(s.start, s.end) for s in candidate_spans(code) if s.kind in kinds}
    pieces = (_piece(code, a, b, kinds) for a, b in ranges)
    return tuple(sorted((p for p in pieces if p), key=lambda p: (p.start, p.end)))


def _length(rng: random.Random) -> int:
    """Geometric(p) on 1, 2, …, clipped at SPAN_MAX."""
    return min(SPAN_MAX, 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - SPAN_P)))


def span_mask(code: str, version: str, kinds: tuple[str, ...], rate: int, seed: int) -> tuple[Piece, ...]:
    """Spans of consecutive tokens, each a whole sub-expression, until the rate's share of the
    eligible tokens is hidden (exactly: a span never takes more than what is left)."""
    around, eligible = _around(code, kinds), eligible_spans(code, kinds)
    left = blank_count(rate, len(eligible))
    rng = random.Random(f"{version}:span:{','.join(kinds)}:{rate}:{seed}")
    chosen: list[Piece] = []
    for _ in range(8 * left):
        if left == 0:
            break
        piece = _aligned(around, rng.choice(eligible), min(_length(rng), left))
        if not any(piece.start < c.end and c.start < piece.end for c in chosen):
            chosen.append(piece)
            left -= piece.size
    if left:  # rarely needed: single tokens fill what is left
        free = [s for s in eligible if not any(c.start <= s.start < c.end for c in chosen)]
        chosen += [around[span.index][0] for span in rng.sample(free, left)]
    return tuple(sorted(chosen))


def _aligned(around: dict[int, tuple[Piece, ...]], anchor: Span, length: int) -> Piece:
    """The largest sub-expression around `anchor` with at most `length` eligible tokens (of
    equal ones, the longest: the call `f()` rather than its name)."""
    return next(p for p in reversed(around[anchor.index]) if p.size <= length)


@lru_cache(maxsize=128)  # ~0.2 ms of a span mask (~25 % of a span page's CPU) without it
def _around(code: str, kinds: tuple[str, ...]) -> dict[int, tuple[Piece, ...]]:
    """For each eligible token, the pieces that hold it, smallest first (the token itself), then
    by size and, among equal sizes, by length (`f()` after `f`)."""
    out: dict[int, list[Piece]] = {}
    for piece in span_pieces(code, kinds):
        for index in range(piece.first, piece.last + 1):
            out.setdefault(index, []).append(piece)
    return {i: tuple(sorted(ps, key=lambda p: (p.size, p.end - p.start))) for i, ps in out.items()}


@lru_cache(maxsize=128)
def line_pieces(code: str, kinds: tuple[str, ...]) -> tuple[Piece, ...]:
    """Each logical line on one physical line, from its first token to its last (comments
    stay); for an assignment, what follows its `=`: the target stays as a cue."""
    offsets, pieces = line_offsets(code), []
    targets = _assigned_values(code, offsets)
    line: list[tokenize.TokenInfo] = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type in (token.NEWLINE, token.ENDMARKER):
            if line and line[0].start[0] == line[-1].end[0]:
                start = offsets[line[0].start[0] - 1] + line[0].start[1]
                end = offsets[line[-1].end[0] - 1] + line[-1].end[1]
                piece = _piece(code, targets.get(start, start), end, kinds)
                if piece:
                    pieces.append(piece)
            line = []
        elif tok.type not in (token.NL, token.COMMENT, token.INDENT, token.DEDENT):
            line.append(tok)
    return tuple(pieces)


def _assigned_values(code: str, offsets: list[int]) -> dict[int, int]:
    """Where each one-line assignment statement starts -> where its value starts."""
    out = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            whole, value = _node_range(code, offsets, node), _node_range(code, offsets, node.value)
            if whole and value:
                out[whole[0]] = value[0]
    return out


def line_mask(code: str, version: str, kinds: tuple[str, ...], rate: int, seed: int) -> tuple[Piece, ...]:
    """The rate's share of the lines, drawn without replacement."""
    lines = line_pieces(code, kinds)
    rng = random.Random(f"{version}:line:{','.join(kinds)}:{rate}:{seed}")
    return tuple(sorted(rng.sample(lines, blank_count(rate, len(lines)))))
