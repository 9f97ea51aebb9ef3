"""Python's own tokenizer, turned into maskable spans and comparable token sequences."""
import ast
import io
import keyword
import token
import tokenize
from dataclasses import dataclass
from functools import lru_cache

# Operators that are punctuation rather than something worth recalling.
_EXCLUDED_OPS = {"=", ";"}
_LAYOUT = {token.NEWLINE, token.NL, token.INDENT, token.DEDENT, token.ENDMARKER, token.COMMENT}


@dataclass(frozen=True)
class Span:
    index: int
    start: int  # character offsets into the code
    end: int
    text: str


def _line_offsets(code: str) -> list[int]:
    offsets = [0]
    for line in code.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def _is_eligible(tok: tokenize.TokenInfo) -> bool:
    if tok.start[0] != tok.end[0]:
        return False  # a blank is a one-line <input>
    if tok.type == token.NAME:
        return not keyword.iskeyword(tok.string)
    if tok.type == token.OP:
        return tok.string not in _EXCLUDED_OPS
    return tok.type in (token.NUMBER, token.STRING)


@lru_cache(maxsize=256)
def eligible_spans(code: str) -> tuple[Span, ...]:
    """Maskable tokens of `code`, indexed in source order (stable for a given code)."""
    offsets = _line_offsets(code)
    spans: list[Span] = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if _is_eligible(tok):
            start = offsets[tok.start[0] - 1] + tok.start[1]
            end = offsets[tok.end[0] - 1] + tok.end[1]
            spans.append(Span(len(spans), start, end, tok.string))
    return tuple(spans)


def _comparable(tok: tokenize.TokenInfo) -> str:
    # 'a' and "a" are the same literal; other tokens compare by their text.
    if tok.type == token.STRING:
        try:
            return repr(ast.literal_eval(tok.string))
        except (ValueError, SyntaxError):
            return tok.string
    return tok.string


@lru_cache(maxsize=8192)
def token_sequence(text: str) -> tuple[str, ...]:
    """The tokens of a code fragment, whitespace and comments ignored.

    Fragments are often incomplete (a lone `(`), so tokenizer errors at the end of input
    keep what was read; text the tokenizer cannot read at all compares as itself.
    """
    out: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == token.ERRORTOKEN and not tok.string.isspace():
                return (text.strip(),)
            if tok.type not in _LAYOUT:
                out.append(_comparable(tok))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return tuple(out)
