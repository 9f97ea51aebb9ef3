"""Highlighted code, cut where the blanks go (Pygments' token classes, line by line).

`code_parts` gives the HTML between the blanks, leaving out what each blank hides; the page's
template puts an <input> in each blank's place (templates/_blank.html). Code without blanks is
`code_html`. One path for every kind of blank: random tokens, spans, lines and fixed cloze blanks.
"""

from bisect import bisect_left, bisect_right
from functools import lru_cache

from markupsafe import Markup, escape
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from .cjk import lang_attribute
from .inputs import BLANK, HoleState
from .score import Hole
from .tokens import candidate_spans

__all__ = ["BLANK", "HoleState", "blanks_shown", "code_html", "code_parts"]

_LEXER = PythonLexer(stripnl=False, ensurenl=False)


def _css_class(ttype) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def tokens(code: str) -> tuple[tuple[int, str, str], ...]:
    """Start, CSS class and text of each token Pygments finds in `code`."""
    return tuple((start, _css_class(ttype), text) for start, ttype, text in _LEXER.get_tokens_unprocessed(code))


def _line_open(line: str) -> str:
    """A line's opening tag, with its indentation (`--i`) for the hanging indent of a wrapped long
    line (app.css)."""
    indent = len(line) - len(line.lstrip(" "))
    return f'<span class="line" style="--i:{indent}">' if indent and line.strip() else '<span class="line">'


@lru_cache(maxsize=128)
def atoms(code: str, cuts: frozenset[int] = frozenset()) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The highlighted code as HTML pieces: where each starts, and its HTML. A piece ends at every
    token, line and eligible-token boundary and at `cuts`, so a blank covers whole pieces; a line
    break's piece closes its line and opens the next. Kept for the snippets being served: lexing
    and escaping the code is most of what showing a mask costs (bench/RESULTS.md), and a mask
    then costs one join per blank."""
    bounds = sorted({b for span in candidate_spans(code) for b in (span.start, span.end)} | cuts)
    opens = [_line_open(line) for line in code.split("\n")]
    starts, pieces, line = [], [], 0
    for start, css, text in tokens(code):
        end = start + len(text)
        inner = bounds[bisect_right(bounds, start) : bisect_left(bounds, end)]
        for a, b in zip([start, *inner], [*inner, end]):
            for n, part in enumerate(code[a:b].split("\n")):
                if n:  # the line break before `part`
                    line += 1
                    starts.append(a)
                    pieces.append("\n</span>" + (opens[line] if line < len(opens) - 1 or code[-1:] != "\n" else ""))
                    a += 1
                if part:
                    starts.append(a)
                    pieces.append(_piece(css, part))
                    a += len(part)
    if not code.endswith("\n"):
        starts.append(len(code))
        pieces.append("\n</span>" if code else "")
    return (0, *starts), (opens[0] if code else "", *pieces)


def code_parts(code: str, holes: list[Hole] | tuple[Hole, ...]) -> tuple[list[tuple[Markup, Hole]], Markup]:
    """The highlighted code as (HTML before a hole, that hole) pairs in order, and the HTML after
    the last hole; a hole's own text is left out."""
    standard = atoms(code)
    bounds = {b for h in holes for b in (h.start, h.end)}
    extra = frozenset(b for b in bounds if not _is_start(standard[0], b))
    starts, pieces = atoms(code, extra) if extra else standard
    parts, at = [], 0
    for hole in sorted(holes, key=lambda h: h.start):
        first, after = bisect_left(starts, hole.start, lo=1), bisect_left(starts, hole.end, lo=1)
        parts.append((Markup("".join(pieces[at:first])), hole))
        at = after
    return parts, Markup("".join(pieces[at:]))


def _is_start(starts: tuple[int, ...], offset: int) -> bool:
    at = bisect_left(starts, offset, lo=1)
    return at < len(starts) and starts[at] == offset


def _piece(css: str, text: str) -> str:
    # Chinese comments and strings say so (`lang`), on English pages too.
    return f'<span class="{css}"{lang_attribute(text)}>{escape(text)}</span>' if css else str(escape(text))


def blanks_shown(
    code: str, holes: list[Hole] | tuple[Hole, ...], shown: dict[str, HoleState]
) -> tuple[list[tuple[Markup, Hole, HoleState]], Markup]:
    """`code_parts` with what each blank shows (empty unless `shown` says): templates/_blank.html."""
    parts, tail = code_parts(code, holes)
    return [(html, hole, shown.get(hole.key, BLANK)) for html, hole in parts], tail


def code_html(code: str) -> Markup:
    """Code without blanks (setup and check code, previews)."""
    return code_parts(code, ())[1]
