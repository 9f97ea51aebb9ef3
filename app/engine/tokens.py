"""Python's own tokenizer, turned into maskable spans and comparable token sequences.

Every token that could ever be a blank is a *candidate*, indexed in source order; which of them
a mask may hide is a choice of kinds. The index does not depend on that choice, so span 17 is
the same token whatever kinds a learner picked (per-token history stays meaningful).
"""

import ast
import io
import keyword
import token
import tokenize
from dataclasses import dataclass
from functools import lru_cache

from .inert import INERT_KINDS, inert_kind, inert_ranges

KINDS = ("names", "literals", "operators", "punctuation", *INERT_KINDS)
# Brackets, commas, colons and dots are opt-in; so are annotations, docstrings and messages.
DEFAULT_KINDS = ("names", "literals", "operators")

# Never a blank, whatever the kinds: plain assignment and statement separators.
_EXCLUDED_OPS = {"=", ";"}
_PUNCTUATION = {"(", ")", "[", "]", "{", "}", ",", ":", ".", "...", "->"}
_LAYOUT = {token.NEWLINE, token.NL, token.INDENT, token.DEDENT, token.ENDMARKER, token.COMMENT}


@dataclass(frozen=True)
class Span:
    index: int  # position among all candidates of the code
    start: int  # character offsets into the code
    end: int
    text: str
    kind: str = "names"  # one of KINDS


def line_offsets(code: str) -> list[int]:
    """Where each line of `code` starts, as a character offset (and the end, last)."""
    offsets = [0]
    for line in code.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def _kind(tok: tokenize.TokenInfo) -> str | None:
    """The kind of a candidate token, or None for tokens that are never blanks."""
    if tok.start[0] != tok.end[0]:
        return None  # a blank is a one-line <input>
    if tok.type == token.NAME:
        return None if keyword.iskeyword(tok.string) else "names"
    if tok.type in (token.NUMBER, token.STRING):
        return "literals"
    if tok.type == token.OP and tok.string not in _EXCLUDED_OPS:
        return "punctuation" if tok.string in _PUNCTUATION else "operators"
    return None


@lru_cache(maxsize=256)
def candidate_spans(code: str) -> tuple[Span, ...]:
    """Every token of `code` of some kind, indexed in source order (stable for a given code)."""
    offsets, inert = line_offsets(code), inert_ranges(code)
    spans: list[Span] = []
    line_begins = True  # a decorator's `@` opens its line: it is punctuation, not matrix product
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        kind = _kind(tok)
        if kind is not None:
            start = offsets[tok.start[0] - 1] + tok.start[1]
            end = offsets[tok.end[0] - 1] + tok.end[1]
            if line_begins and tok.string == "@":
                kind = "punctuation"
            kind = inert and inert_kind(inert, start, end, tok.type == token.STRING) or kind
            spans.append(Span(len(spans), start, end, tok.string, kind))
        if tok.type not in (token.COMMENT, token.NL):
            line_begins = tok.type in (token.NEWLINE, token.INDENT, token.DEDENT)
    return tuple(spans)


def eligible_spans(code: str, kinds: tuple[str, ...] = DEFAULT_KINDS) -> tuple[Span, ...]:
    """The candidates of the chosen kinds, keeping their candidate indices."""
    return tuple(s for s in candidate_spans(code) if s.kind in kinds)


def _comparable(tok: tokenize.TokenInfo) -> str:
    # 'a' and "a" are the same literal, so are 1e-6 and 0.000001 (but 1 and 1.0 are not: the
    # type is part of a number's value); other tokens compare by their text.
    if tok.type in (token.STRING, token.NUMBER):
        try:
            value = ast.literal_eval(tok.string)
        except (ValueError, SyntaxError):
            return tok.string
        return repr(value) if tok.type == token.STRING else f"{type(value).__name__}:{value!r}"
    return tok.string


def has_comment(text: str) -> bool:
    """Whether a `#` outside any string starts a comment: spliced into a line, it would swallow
    the rest of that line's code."""
    if "#" not in text:
        return False
    try:
        return any(tok.type == token.COMMENT for tok in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return True  # an unfinished string before the `#`: no code line survives it either


def token_sequence(text: str) -> tuple[str, ...]:
    """The tokens of a code fragment, whitespace and comments ignored, as they compare."""
    return tuple(c for _, c in token_pairs(text))


def token_pairs(text: str) -> tuple[tuple[str, str], ...]:
    """Each token of a code fragment as typed and as it compares; whitespace and comments ignored.

    Fragments are often incomplete (a lone `(`), so tokenizer errors at the end of input
    keep what was read; text the tokenizer cannot read at all is one token, itself.
    """
    out: list[tuple[str, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == token.ERRORTOKEN and not tok.string.isspace():
                return ((text.strip(), text.strip()),)
            if tok.type not in _LAYOUT:
                out.append((tok.string, _comparable(tok)))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return tuple(out)
